"""From what an agent did to stored entries: the hot-path gate on raw bytes, bd commands and the shell
parsing, marked lines of a reply, recall.sh --add/--forget/--pin, imports of Claude's and bd's
memories, provenance. May import: core, store, runtimes, search.
"""
