"""The action hook's per-session cache: what a file or error event found, so a repeated Read of the same file
costs one file read, not a lookup in the knowledge.

One flat file per (session, event) in layout.ACTION_CACHE, written atomically (hooks fired together write the
same answer; none can tear another's), valid while the knowledge's fingerprint is unchanged; files idle for
KEEP_SECONDS are removed now and then. An event is a failed command with its output, or the text an edit wrote:
the file keeps only its digest, never the text (a token in it would otherwise sit on disk unredacted).
"""
from __future__ import annotations

import os

from memory.core import layout

KEEP_SECONDS = 86400


def _cache_path(memory_dir: str, session: str, event: str) -> str:
    """One flat file per (session, event): `<session checksum>-<event checksum>.json`."""
    name = f"{_checksum(session)}-{_checksum(event)}.json"
    return os.path.join(memory_dir, layout.ACTION_CACHE, name)


def _event_digest(event: str) -> str:
    """What the file records of its event (to tell two events whose checksums collide apart): a 128-bit digest."""
    from _blake2 import blake2b  # hashlib's OpenSSL import costs a hook ~3 ms; blake2 alone ~0.2 ms

    return blake2b(event.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _checksum(text: str) -> str:
    import zlib

    seed = text.encode("utf-8", "replace")
    return f"{zlib.crc32(seed):08x}{zlib.adler32(seed):08x}"


def get(memory_dir: str, session: str | None, event: str, fp: list[int]) -> list[list[str]] | None:
    """What this session's earlier identical event found, while the knowledge is unchanged; else None."""
    if not session:
        return None
    import json

    try:
        from memory.core import fsio

        # a FIFO there is an OSError, not a read waiting for a writer
        with os.fdopen(fsio.open_regular(_cache_path(memory_dir, session, event), os.O_RDONLY), "rb") as fh:
            saved = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("fp") != fp or saved.get("event") != _event_digest(event) \
            or saved.get("session") != session:
        return None
    found = saved.get("found")
    return found if isinstance(found, list) else None


def put(memory_dir: str, session: str | None, event: str, fp: list[int], found: list[list[str]]) -> None:
    """Remember what the event found: one file per event, replaced atomically (hooks fired together
    write the same answer; none can tear another's). Now and then files idle for a day are removed."""
    if not session:
        return
    import json

    from memory.core import fsio

    path = _cache_path(memory_dir, session, event)
    record = {"fp": fp, "session": session, "event": _event_digest(event), "found": found}
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fsio.atomic_write(path, json.dumps(record).encode(), durable=False)
    except OSError:
        return
    if path.endswith("0.json"):  # one write in 16 looks for stale files
        _prune(os.path.dirname(path))


def _prune(folder: str) -> None:
    import time

    now = time.time()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if now - os.stat(path).st_mtime > KEEP_SECONDS:
                os.unlink(path)
        except OSError:
            continue
