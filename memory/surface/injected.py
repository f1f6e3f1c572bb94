"""Which entries each session has already been given, so no entry is injected twice into one context.

Machine-local state (`.beads/memory/injected.json`): {session id: {"ts": last use, "keys": [...],
"started": true when session start answered this context}}, pruned to the sessions of the last day (and at
most MAX_SESSIONS). A compaction rewrites the context, so session start on `compact` hands back what had been
injected and starts the session's set again. A fork (a new session id carrying its parent's conversation on)
takes over its parent's set: `inherit`.
"""
from __future__ import annotations

import time

from memory.core import layout, locking, state

MAX_SESSIONS = 64
MAX_KEYS = 500  # per session
KEEP_SECONDS = 86400


def given(memory_dir: str, session: str | None) -> set[str]:
    """Keys this session has already received (empty for an unknown session or unreadable state)."""
    return set(_keys(state.read(memory_dir, layout.INJECTED).get(session or "")))


def start_answered(memory_dir: str, session: str | None) -> bool:
    """Whether session start put a block into this session's context (entries or not: a Last Session, the
    memory's introduction), as `remember(..., started=True)` recorded."""
    return _started(state.read(memory_dir, layout.INJECTED).get(session or ""))


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
        before = _keys(record)
        kept = [] if reset else list(before)
        kept += [k for k in keys if k not in kept]
        current[session] = {"ts": now, "keys": kept[-MAX_KEYS:]}
        if started or (not reset and _started(record)):
            current[session]["started"] = True
        _prune(current, now)
        return before

    try:
        return state.update(memory_dir, layout.INJECTED, change)
    except (OSError, locking.LockTimeout):
        if strict:
            raise
        return []


def claim(memory_dir: str, session: str | None, keys: list[str], unwritable_shows: bool = False) -> list[str]:
    """Of `keys`, those this session had not been given yet, now recorded as given, in one step under the
    state lock: hooks fired at the same moment (parallel tool calls) never both get the same entry. [] when
    there is no session or the state can't be updated (a busy lock: nothing is shown rather than a repeat).
    `unwritable_shows`: a ledger that can't be written at all (OSError: a read-only folder, a file of another
    user), which no later call fixes, gives every key (the prompt hook: a possible repeat once a prompt beats
    silence on every prompt; the action hook, called on every tool call, keeps [])."""
    if not session or not keys:
        return []
    try:
        before = set(remember(memory_dir, session, keys, strict=True))
    except locking.LockTimeout:
        return []
    except OSError:
        return list(keys) if unwritable_shows else []
    return [k for k in keys if k not in before]


def inherit(memory_dir: str, session: str | None, parent: str | None) -> bool | None:
    """A fork takes over its parent's set (keys and `started`) in one step under the state lock, what it had
    itself kept: the parent's conversation, carried into the fork, holds every entry the parent was given.
    Returns whether the parent's session start answered (its block is in that conversation); None when the
    parent has no record here (unknown, older than a day, another machine) or the state can't be updated."""
    if not session or not parent or session == parent \
            or not isinstance(state.read(memory_dir, layout.INJECTED).get(parent), dict):
        return None  # nothing to take over: no lock taken, nothing written

    def change(current: dict) -> bool | None:
        record = current.get(parent)
        if not isinstance(record, dict):
            return None
        now = time.time()
        mine = current.get(session)
        keys = _keys(record)
        keys += [k for k in _keys(mine) if k not in keys]
        current[session] = {"ts": now, "keys": keys[-MAX_KEYS:]}
        if _started(record) or _started(mine):
            current[session]["started"] = True
        _prune(current, now)
        return _started(record)

    try:
        return state.update(memory_dir, layout.INJECTED, change)
    except (OSError, locking.LockTimeout):
        return None


def _keys(record: object) -> list[str]:
    keys = record.get("keys") if isinstance(record, dict) else None
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []


def _started(record: object) -> bool:
    return isinstance(record, dict) and record.get("started") is True


def _prune(current: dict, now: float) -> None:
    """Keep the sessions of the last day, at most MAX_SESSIONS, newest first."""
    newest = sorted(((_ts(v), k) for k, v in current.items()), reverse=True)[:MAX_SESSIONS]
    kept_sessions = {k for ts, k in newest if now - ts < KEEP_SECONDS}
    for name in list(current):
        if name not in kept_sessions:
            del current[name]


def _ts(record: object) -> float:
    ts = record.get("ts") if isinstance(record, dict) else None
    return float(ts) if isinstance(ts, (int, float)) else 0.0
