"""What the agent sees: session start (the groups in full and the map), prompt-time context, the
action-time context (a file touched, a command failed), the given-ledger (nothing twice a
session), the Last Session block. May import: core, store, runtimes, search, capture.
"""
