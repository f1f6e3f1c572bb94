"""Derived, machine-local, rebuildable views of the store and the searches over them: tokens,
concepts, the ranking index and its segments, BM25F rank and gate, keyword find, the semantic
option, stale paths. May import: core, runtimes, store.
"""
