"""The archive's part of the live knowledge, for the views that read only the active file for speed (session start,
memory.surface.start_cache; the file cues of action time, memory.search.path_cues).

Rotation moves lines by age, not by use: a month-old store held 341 of its 716 live entries in the archive. The
archive's deciding lines (memory.store.view.deciding: per key the latest entry of its ARCHIVE_LIVE newest live
keys, and every forget, pin and approval a later line may need), put before the active file's lines, give those
views the live entries of both files. They change only when the archive does (a rotation, a redaction, a merge), so
session start keeps them in its cache (layout.START_CACHE) under the archive's identity and the rules that shape
them: a capture costs the active file's lines, never the archive's. An archive larger than INLINE_BYTES without
them cached is not read by a hook (the caller may read it in the background: memory.surface.start_cache).
"""
from __future__ import annotations

import os

from memory.core import layout

ARCHIVE_LIVE = 1000  # the archive's newest live entries read (a session-start map titles a few hundred)
INLINE_BYTES = 2 << 20  # a larger archive whose deciding lines are not cached is not read by a hook
PART = "archive"  # the start cache's field holding them
# the modules that decide which lines are kept (parsing, latest-wins), relative to the memory package
RULES = ("core/jsonio.py", "core/jsonline.py", "core/shape.py", "store/reading.py", "store/view.py",
         "store/archived.py")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stat(path: str) -> tuple | None:
    """(device, inode, size, mtime_ns, ctime_ns) of `path`: any write, rename or time setting changes it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def source(memory_dir: str) -> tuple | None:
    """The archive's identity (None when there is none)."""
    return stat(os.path.join(memory_dir, layout.ARCHIVE))


def rules() -> tuple:
    """The identity of the modules in RULES."""
    return tuple(stat(os.path.join(_PACKAGE, rel)) for rel in RULES)


def lines(memory_dir: str, src: tuple | None, cached: dict | None,
          read_large: bool = False) -> tuple[list[dict], int] | None:
    """The archive's deciding lines and how many live entries were past ARCHIVE_LIVE: from `cached` (a start
    cache record) when it was taken from the archive `src` under these rules, else read now; None when the
    archive is larger than INLINE_BYTES (not read, unless `read_large`). `src`: taken after the active file
    was read (rotation appends to the archive before it replaces the active file, so that archive holds every
    line the active read missed)."""
    if src is None:
        return [], 0
    part = cached.get(PART) if isinstance(cached, dict) else None
    if isinstance(part, dict) and part.get("src") == src and part.get("rules") == rules() \
            and isinstance(part.get("lines"), list) and isinstance(part.get("older"), int):
        return part["lines"], part["older"]
    if src[2] > INLINE_BYTES and not read_large:
        return None
    from memory.store import reading, view

    return view.deciding(reading.read(os.path.join(memory_dir, layout.ARCHIVE)).entries, ARCHIVE_LIVE)


def record(src: tuple | None, found: tuple[list[dict], int]) -> dict:
    """The start cache's field for the deciding lines `found` of the archive `src`."""
    return {"src": src, "rules": rules(), "lines": found[0], "older": found[1]}


def cached_record(memory_dir: str) -> dict | None:
    """The start cache's record (memory.surface.start_cache writes it), None when it can't be read."""
    import marshal

    from memory.core import fsio

    try:
        found = marshal.loads(fsio.unseal(fsio.read_bytes(os.path.join(memory_dir, layout.START_CACHE)) or b""))
    except Exception:  # noqa: BLE001 - a cache that can't be read is computed again
        return None
    return found if isinstance(found, dict) else None
