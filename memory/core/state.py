"""Small machine-local JSON state files (the completion gate's loop guard, what each session was given).

Read-modify-write under their own lock (layout.STATE_LOCK), never the knowledge's: a capture stuck on
the knowledge lock must not hold up the gate, and the other way round. Writes are atomic but not
fsynced: such state may be lost in a crash, never torn.
"""
from __future__ import annotations

import json
import os

from memory import TYPE_CHECKING
from memory.core import fsio, layout, locking

if TYPE_CHECKING:
    from typing import Callable, TypeVar

    T = TypeVar("T")

LOCK_TIMEOUT = 2.0  # state is a nicety next to the hook's own deadline


def read(memory_dir: str, name: str) -> dict:
    """The state object ({} when missing, unreadable or not an object)."""
    try:
        value = json.loads(fsio.read_bytes(os.path.join(memory_dir, name)) or b"{}")
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def update(memory_dir: str, name: str, change: Callable[[dict], T]) -> T:
    """Apply `change(state)` (it mutates the dict) under the state lock and write the result; returns
    what `change` returned. Raises OSError or locking.LockTimeout: callers decide what that means."""
    os.makedirs(memory_dir, exist_ok=True)
    with locking.exclusive(os.path.join(memory_dir, layout.STATE_LOCK), timeout=LOCK_TIMEOUT):
        current = read(memory_dir, name)
        result = change(current)
        fsio.atomic_write(os.path.join(memory_dir, name), json.dumps(current, sort_keys=True).encode(),
                          durable=False)
    return result
