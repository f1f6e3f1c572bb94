"""How the agent used entries: machine-local counts that raise an entry's place in the knowledge map.

Two signals (issue #20 item 4), both from what the agent did, never from what it was merely shown:
- fetched: recall.sh printed the entry as the answer to a lookup: the best of a ranked search (several words,
  as the map's `recall.sh "<words of a title>"`), or one recorded right after the error pasted as the words.
  A one-word search is a filter, like grep, and stays as fast as one: it counts nothing;
- applied: the session had been given the entry in full (at session start, a prompt, a file or an error)
  and then edited a file the entry is about (memory.surface.action_context).

State `.beads/memory/use.json` (layout.USE, never committed): {key: {"n": uses, "ts": last use, "by":
{session (or lookup): when it counted}, the newest BY_KEEP of the last COUNTER_SECONDS}}. One session
counts an entry once, whoever counted it in between; recall.sh knows no session, so the same entry fetched again within
SAME_LOOKUP_SECONDS counts once. An entry unused for KEEP_SECONDS counts as never used again (a new use
starts its count afresh). Best effort: a busy lock only loses a count.
"""
from __future__ import annotations

import math
import time

from memory.core import layout, locking, state
from memory.surface import injected

KEEP_SECONDS = 180 * 86400  # a use this old no longer raises an entry
MAX_KEYS = 2000  # the most recently used kept
SAME_LOOKUP_SECONDS = 600
LOOKUP = "recall.sh"  # the "session" of a recall.sh lookup
BY_KEEP = 4  # the counters remembered per entry: sessions at work side by side, and lookups between
COUNTER_SECONDS = injected.KEEP_SECONDS  # ...as long as the given-ledger remembers a session


def credit(memory_dir: str, keys: list[str], session: str | None = None, now: float | None = None) -> list[str]:
    """Count one use of each of `keys` by `session` (None: a recall.sh lookup); returns the keys counted
    (an entry this session already counted is not counted again). [] when the state can't be updated."""
    keys = [k for k in dict.fromkeys(keys) if isinstance(k, str) and k]
    if not keys:
        return []
    stamp = time.time() if now is None else now
    by = session or LOOKUP

    def counts_again(record: dict) -> bool:
        counters = {} if stamp - _number(record.get("ts")) >= KEEP_SECONDS else _counters(record)
        return not (by in counters and (session or stamp - counters[by] < SAME_LOOKUP_SECONDS))

    # most lookups and edits repeat what this session (or a lookup just now) counted: no lock, no write
    known = state.read(memory_dir, layout.USE)
    if not any(counts_again(_record(known.get(key))) for key in keys):
        return []

    def change(current: dict) -> list[str]:
        counted = []
        for key in keys:
            record = _record(current.get(key))
            fresh = stamp - _number(record.get("ts")) >= KEEP_SECONDS  # the old uses no longer count
            counters = {} if fresh else _counters(record)
            if not counts_again(record):
                continue
            counters[by] = stamp
            newest = sorted((name for name in counters if stamp - counters[name] < COUNTER_SECONDS),
                            key=lambda name: counters[name])[-BY_KEEP:]
            current[key] = {"n": (0 if fresh else int(_number(record.get("n")))) + 1, "ts": stamp,
                            "by": {name: counters[name] for name in newest}}
            counted.append(key)
        if len(current) > MAX_KEYS:
            for stale in sorted(current, key=lambda k: _number(_field(current[k], "ts")))[:len(current) - MAX_KEYS]:
                del current[stale]
        return counted

    try:
        return state.update(memory_dir, layout.USE, change)
    except (OSError, locking.LockTimeout):
        return []


def counts(memory_dir: str, now: float | None = None) -> dict[str, int]:
    """{key: uses} of the entries used within KEEP_SECONDS ({} when there is no state or it is unreadable)."""
    stamp = time.time() if now is None else now
    return {key: int(_number(_field(record, "n"))) for key, record in state.read(memory_dir, layout.USE).items()
            if stamp - _number(_field(record, "ts")) < KEEP_SECONDS and _number(_field(record, "n")) >= 1}


def _record(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _field(record: object, name: str) -> object:
    return record.get(name) if isinstance(record, dict) else None


def _counters(record: dict) -> dict[str, float]:
    """{session or lookup: when it counted}; a state written before BY_KEEP held the last one alone."""
    by = record.get("by")
    if isinstance(by, str):
        return {by: _number(record.get("ts"))}
    return {name: _number(ts) for name, ts in by.items() if isinstance(name, str)} if isinstance(by, dict) else {}


def _number(value: object) -> float:
    """A finite number, else 0 (JSON's 1e400 reads as infinity, NaN as not-a-number, a 400-digit integer
    overflows a float: none may raise)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return 0.0
    try:
        number = float(value)
    except OverflowError:
        return 0.0
    return number if math.isfinite(number) else 0.0
