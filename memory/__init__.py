"""memory-hooks: a project memory for coding agents, fed by `LEARNED:` insights.

Modules import only the standard library at import time; optional accelerators
(orjson) are loaded lazily where they pay for themselves.
"""
