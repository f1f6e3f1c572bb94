"""The command lines people run: recall.sh (search, record, --redact, --held, --approve),
memory-doctor (and its HTML report), the memory-hooks console script. May import every stage.
"""
