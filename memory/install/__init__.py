"""install.sh's code: plan and apply the changes, the command line, the semantic option's packages.

Only the clone (or the memory-hooks command) runs it; it is not copied into target repositories (their
hooks never install anything). May import every stage but commands.
"""
