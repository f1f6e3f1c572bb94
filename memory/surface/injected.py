"""Which entries each session has already been given, so no entry is injected twice into one context.

Machine-local state (`.beads/memory/injected.json`): {session id: {"ts": last use, "keys": [...],
"started": true when session start answered this context}}, pruned to the sessions of the last day (and at
most MAX_SESSIONS). A compaction rewrites the context, so session start on `compact` hands back what had been
injected and starts the session's set again.
"""
from __future__ import annotations

import time

from memory.core import layout, locking, state

MAX_SESSIONS = 64
MAX_KEYS = 500  # per session
KEEP_SECONDS = 86400


def given(memory_dir: str, session: str | None) -> set[str]:
    """Keys this session has already received (empty for an unknown session or unreadable state)."""
    record = state.read(memory_dir, layout.INJECTED).get(session or "")
    keys = record.get("keys") if isinstance(record, dict) else None
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def start_answered(memory_dir: str, session: str | None) -> bool:
    """Whether session start put a block into this session's context (entries or not: a Last Session, the
    memory's introduction), as `remember(..., started=True)` recorded."""
    record = state.read(memory_dir, layout.INJECTED).get(session or "")
    return isinstance(record, dict) and record.get("started") is True


def remember(memory_dir: str, session: str | None, keys: list[str], reset: bool = False,
             strict: bool = False, started: bool = False) -> list[str]:
    """Add `keys` to the session's set (after clearing it when `reset`); returns the set before the
    change. `started`: session start answered this context (kept until a `reset` without it). Best effort: a
    busy lock or an unwritable folder only means a possible repeat (with `strict`, they raise instead)."""
    if not session:
        return []

    def change(current: dict) -> list[str]:
        now = time.time()
        record = current.get(session)
        if not isinstance(record, dict):
            record = {}
        keys_before = record.get("keys")
        before = [k for k in keys_before if isinstance(k, str)] if isinstance(keys_before, list) else []
        kept = [] if reset else list(before)
        kept += [k for k in keys if k not in kept]
        current[session] = {"ts": now, "keys": kept[-MAX_KEYS:]}
        if started or (not reset and record.get("started") is True):
            current[session]["started"] = True
        newest = sorted(((_ts(v), k) for k, v in current.items()), reverse=True)[:MAX_SESSIONS]
        kept_sessions = {k for ts, k in newest if now - ts < KEEP_SECONDS}
        for name in list(current):
            if name not in kept_sessions:
                del current[name]
        return before

    try:
        return state.update(memory_dir, layout.INJECTED, change)
    except (OSError, locking.LockTimeout):
        if strict:
            raise
        return []


def claim(memory_dir: str, session: str | None, keys: list[str]) -> list[str]:
    """Of `keys`, those this session had not been given yet, now recorded as given, in one step under the
    state lock: hooks fired at the same moment (parallel tool calls) never both get the same entry. [] when
    the state can't be updated (no session, a busy lock): then nothing is shown rather than a repeat."""
    if not session or not keys:
        return []
    try:
        before = set(remember(memory_dir, session, keys, strict=True))
    except (OSError, locking.LockTimeout):
        return []
    return [k for k in keys if k not in before]


def _ts(record: object) -> float:
    ts = record.get("ts") if isinstance(record, dict) else None
    return float(ts) if isinstance(ts, (int, float)) else 0.0
