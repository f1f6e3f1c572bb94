"""install.sh's code: what ships (bundle), the plan of file changes (plan, change), showing and applying
it (apply), the command line (cli), what it reports and the self-check (outcome), the installed bytecode,
the semantic option's packages.

Only the clone (or the memory-hooks command) runs it; it is not copied into target repositories (their
hooks never install anything). May import every stage but commands.
"""
