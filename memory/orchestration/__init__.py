"""beads supervisors: the completion gate (SubagentStop), the dispatch log, what a supervisor
gets at subagent start. May import every stage but install and commands.
"""
