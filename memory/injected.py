"""Which entries each session has already been given, so no entry is injected twice into one context.

Machine-local state (`.beads/memory/injected.json`): {session id: {"ts": last use, "keys": [...]}},
pruned to the sessions of the last day (and at most MAX_SESSIONS). A compaction rewrites the context,
so session start on `compact` hands back what had been injected and starts the session's set again.
"""
from __future__ import annotations

import json
import os
import time

from memory import fsio, layout, locking

MAX_SESSIONS = 64
MAX_KEYS = 500  # per session
KEEP_SECONDS = 86400
LOCK_TIMEOUT = 2.0  # state is a nicety: never wait long for it


def _path(memory_dir: str) -> str:
    return os.path.join(memory_dir, layout.INJECTED)


def _read(memory_dir: str) -> dict:
    try:
        state = json.loads(fsio.read_bytes(_path(memory_dir)) or b"{}")
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def given(memory_dir: str, session: str | None) -> set[str]:
    """Keys this session has already received (empty for an unknown session or unreadable state)."""
    record = _read(memory_dir).get(session or "")
    keys = record.get("keys") if isinstance(record, dict) else None
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def remember(memory_dir: str, session: str | None, keys: list[str], reset: bool = False) -> list[str]:
    """Add `keys` to the session's set (after clearing it when `reset`); returns the set before the
    change. Best effort: a busy lock or an unwritable folder only means a possible repeat."""
    if not session:
        return []
    try:
        os.makedirs(memory_dir, exist_ok=True)
        with locking.exclusive(os.path.join(memory_dir, layout.STATE_LOCK), timeout=LOCK_TIMEOUT):
            state = _read(memory_dir)
            now = time.time()
            record = state.get(session) if isinstance(state.get(session), dict) else {}
            keys_before = record.get("keys")
            before = [k for k in keys_before if isinstance(k, str)] if isinstance(keys_before, list) else []
            kept = [] if reset else list(before)
            kept += [k for k in keys if k not in kept]
            state[session] = {"ts": now, "keys": kept[-MAX_KEYS:]}
            fresh = sorted(((_ts(v), k) for k, v in state.items()), reverse=True)
            state = {k: state[k] for ts, k in fresh[:MAX_SESSIONS] if now - ts < KEEP_SECONDS}
            fsio.atomic_write(_path(memory_dir), json.dumps(state, sort_keys=True).encode(), durable=False)
            return before
    except (OSError, locking.LockTimeout):
        return []


def _ts(record: object) -> float:
    ts = record.get("ts") if isinstance(record, dict) else None
    return float(ts) if isinstance(ts, (int, float)) else 0.0
