"""install.sh's code: plan and apply the changes, the command line, the semantic option's packages.

Only the clone runs it; it is not copied into target repositories (their hooks never install anything).
"""
