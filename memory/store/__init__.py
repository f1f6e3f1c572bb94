"""The knowledge files, the only source of truth: the entry's shape, redaction on write, locked appends
and journaled rotation, reading, the view (latest per key, forgets, pins), health, the git merge
driver, the poisoning screen and held entries. May import: core.
"""
