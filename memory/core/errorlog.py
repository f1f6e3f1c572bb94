"""The one-line error record every hook leaves in `.beads/memory/errors.log` instead of failing."""
from __future__ import annotations

import os
import sys
import time

from memory.core import layout

MAX_LOG_BYTES = 256 * 1024
MAX_MESSAGE_CHARS = 400


def fallback_dir() -> str:
    """Where errors go when the memory folder itself cannot be written (read-only, full, missing)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "memory-hooks")


def record(hook: str, problem: str, memory_dir: str | None = None) -> None:
    """Append `time hook problem` to the error log; never raises.

    Tries `<memory>/errors.log`, then the per-user fallback folder (naming the memory folder), then stderr.
    """
    message = " ".join(str(problem).split())[:MAX_MESSAGE_CHARS]
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {hook} pid={os.getpid()} {message}\n"
    try:
        if memory_dir is None:
            from memory.core.paths import memory_dir as resolve
            memory_dir = resolve()
    except Exception:
        memory_dir = os.getcwd()
    for folder, text in ((memory_dir, line), (fallback_dir(), line.rstrip("\n") + f" memory={memory_dir}\n")):
        try:
            _append(folder, text)
            return
        except Exception:
            continue
    try:
        sys.stderr.write(line)
    except Exception:
        pass


def _append(folder: str, line: str) -> None:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, layout.ERRORS)
    try:
        if os.path.getsize(path) > MAX_LOG_BYTES:
            os.replace(path, os.path.join(folder, layout.ERRORS_ROTATED))
    except OSError:
        pass
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o644)
    try:
        os.write(fd, line.encode("utf-8", "replace"))
    finally:
        os.close(fd)
