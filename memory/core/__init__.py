"""The basics every stage stands on: file names (layout), settings (config), where the memory lives
(paths), what the session works on (focus), atomic writes (fsio), locks, JSON, the error log, small
machine-local state, rendering. Imports nothing from the other stages.
"""
