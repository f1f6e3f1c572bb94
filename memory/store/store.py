"""The knowledge files' writes: locked captures into the inbox, and the recovery every locked write starts
with (the reads: memory.store.reading; the fold and rotation: memory.store.rotation; what an append finds
already stored: memory.store.dedupe).

A capture never changes a committed file: each write is a new fragment in `inbox/` (memory.store.inbox), so
`git checkout` keeps working with uncommitted captures. Only `rotation.compact` (memory-doctor --compact, asked
for by a person) changes knowledge.jsonl: it folds the inbox into it, then rotates.

Every write happens under one lock file. Rotation keeps the active file short (more than 1,000 lines -> the
oldest 500 go to the archive) and is journaled so that a crash at any instant loses nothing and a re-run
never duplicates archive lines:

1. journal {archive size before, identity of the active file}   (atomic write)
2. append the oldest lines to the archive, fsync
3. replace the active file with the rest                         (temp + fsync + os.replace)
4. delete the journal

Recovery (next locked write): if the active file is still the journaled one, step 3 never happened,
so the archive is cut back to its journaled size and rotation starts over; otherwise only step 4 is left.
"""
from __future__ import annotations

import os
import time

from memory import TYPE_CHECKING
from memory.core import fsio, jsonio, layout, locking
from memory.core.shape import is_line
from memory.store import inbox
from memory.store.reading import (  # noqa: F401 - the read side, where callers have always found it
    Snapshot,
    latest,
    load,
    load_matching,
    parse_line,
    read,
    read_file,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from memory.store import redaction_apply

ACTIVE = layout.KNOWLEDGE
ARCHIVE = layout.ARCHIVE
LOCK = layout.LOCK
JOURNAL = layout.JOURNAL
CORRUPT = layout.CORRUPT
SPOOL = layout.PENDING  # folder: captures that could not get the lock wait here for the next writer
DEDUPE_TAIL_BYTES = 256 * 1024


def path(memory_dir: str, name: str = ACTIVE) -> str:
    return os.path.join(memory_dir, name)


class AppendResult:
    """What an append did: lines written, and keys whose different earlier content it superseded."""

    def __init__(self, written: int = 0, replaced: dict[str, str] | None = None, spooled: int = 0) -> None:
        self.written = written
        self.replaced: dict[str, str] = replaced or {}  # key -> the content it replaced
        self.spooled = spooled  # records parked in SPOOL because the lock stayed busy
        self.duplicates: dict[str, str] = {}  # key not stored -> the live key that holds the same text


def append(memory_dir: str, records: Iterable[dict], capture_id: str | None = None,
           repeat: bool = True) -> AppendResult:
    """Store knowledge records (redacted first) under the lock, as one new inbox fragment (memory.store.inbox).

    With `capture_id`, a tool call whose records are already in the file is not written again (the same
    hook registered twice, or Cursor running both its own and Claude's hook files). A lock that stays
    busy never loses the records: they are parked in SPOOL for the next writer. A record whose text a live
    entry of another key holds is not written (`duplicates`); with `repeat=False` not even under its own key
    (by default writing the same entry again re-confirms it: a newer ts).
    """
    from memory.store import dedupe, redact

    cleaned = [redact.scrub_record(record) for record in records]
    if not cleaned:
        return AppendResult()
    data = b"".join(jsonio.dumps_line(record) for record in cleaned)
    os.makedirs(memory_dir, exist_ok=True)
    try:
        with locking.exclusive(path(memory_dir, LOCK)):
            recover(memory_dir)
            existing = active_bytes(memory_dir)
            if capture_id and _has_capture(existing, capture_id):
                return AppendResult()
            duplicates = dedupe.live_copies(existing, cleaned, repeat)
            if duplicates:
                cleaned = [r for r in cleaned if r.get("key") not in duplicates]
                data = b"".join(jsonio.dumps_line(record) for record in cleaned)
            replaced = dedupe.superseded(existing, cleaned)
            if data:
                inbox.write(memory_dir, data)
    except locking.LockTimeout:
        # park it whole (a new file, published atomically)
        spool = path(memory_dir, SPOOL)
        os.makedirs(spool, exist_ok=True)
        fsio.atomic_write(os.path.join(spool, f"{time.time_ns()}-{os.getpid()}.jsonl"), data)
        return AppendResult(spooled=len(cleaned))
    result = AppendResult(len(cleaned), replaced)
    result.duplicates = duplicates
    return result


def append_log(memory_dir: str, name: str, record: dict, capture_id: str | None = None,
               keep: int | None = None) -> bool:
    """Append one record (redacted) to a machine-local JSONL log (e.g. the dispatch log) under the lock;
    False when `capture_id` is already in the log's tail. With `keep`, a log grown past keep + keep/4
    lines is cut to its newest `keep` (temp file + fsync + os.replace). A busy lock raises
    locking.LockTimeout."""
    from memory.store import redact

    data = jsonio.dumps_line(redact.scrub_record(record))
    os.makedirs(memory_dir, exist_ok=True)
    target = path(memory_dir, name)
    with locking.exclusive(path(memory_dir, LOCK)):
        if capture_id and _has_capture(fsio.read_tail(target, DEDUPE_TAIL_BYTES), capture_id):
            return False
        fsio.append(target, data)
        if keep is not None:
            _trim(target, keep)
    return True


def _trim(target: str, keep: int) -> None:
    """Cut a log to its newest `keep` complete lines once it holds more than keep + keep/4. Under the lock."""
    data = fsio.read_bytes(target) or b""
    lines = data.split(b"\n")[:-1]  # complete lines only: the lock holder wrote the last one whole
    if len(lines) > keep + keep // 4:
        fsio.atomic_write(target, b"\n".join(lines[-keep:]) + b"\n")


def _has_capture(existing: bytes, capture_id: str) -> bool:
    return f'"capture_id":"{capture_id}"'.encode() in existing[-DEDUPE_TAIL_BYTES:]


def active_bytes(memory_dir: str) -> bytes:
    """knowledge.jsonl and the inbox's fragments, as one byte string of whole lines (what a write checks
    for an earlier copy or version of what it stores)."""
    from memory.store import reading

    return b"".join(reading.active_chunks(memory_dir))


def _merge_spool(memory_dir: str) -> None:
    """Store the parked captures (oldest first, skipping tool calls already stored) as inbox fragments.
    Call under the lock."""
    spool = path(memory_dir, SPOOL)
    for name in parked(memory_dir):
        data = fsio.read_bytes(os.path.join(spool, name)) or b""
        tail = active_bytes(memory_dir)[-DEDUPE_TAIL_BYTES:]
        fresh = []
        for line in data.split(b"\n"):
            entry = parse_line(line) if line.strip() else None
            if entry is not None and not _has_capture(tail, str(entry.get("capture_id"))):
                fresh.append(line + b"\n")
        if fresh:
            inbox.write(memory_dir, b"".join(fresh))
        os.unlink(os.path.join(spool, name))


def apply_redactions(memory_dir: str, timeout: float | None = None) -> redaction_apply.Applied:
    """What another clone's `recall.sh --redact` rewrote, rewritten here too (memory.store.redaction_apply),
    under the lock, after recovery. A busy lock raises locking.LockTimeout."""
    from memory.store import redaction_apply

    with locking.exclusive(path(memory_dir, LOCK), timeout):
        recover(memory_dir)
        return redaction_apply.apply_locked(memory_dir)


_LOCKED_FILES = frozenset([layout.KNOWLEDGE, layout.ARCHIVE, layout.JOURNAL, layout.CORRUPT, layout.REDACTIONS,
                           layout.REDACTIONS_APPLIED, layout.MEMORY_ATTRIBUTES])  # written under the knowledge lock


def recover(memory_dir: str) -> None:
    """Repair what a crashed writer left: a torn last line, an interrupted rotation, orphaned temp files.
    Call under the lock."""
    _repair_torn_tail(memory_dir)
    _merge_spool(memory_dir)
    inbox.remove_temps(memory_dir)
    for name in os.listdir(memory_dir):
        # a dead writer's: only lock holders write these files. The index, screen, start-cache and path-cue
        # writers hold no such lock: theirs may be a live write, here or on another machine sharing the
        # folder, so they wait for session start's sweep (fsio.remove_stale_temps: an hour old, pid gone)
        written, _, pid = name[1:-len(layout.TEMP_SUFFIX)].rpartition(".")
        if name.startswith(".") and name.endswith(layout.TEMP_SUFFIX) and pid.isdigit() and written in _LOCKED_FILES:
            fsio.unlink_quietly(path(memory_dir, name))
    journal_path = path(memory_dir, JOURNAL)
    raw = fsio.read_bytes(journal_path)
    if raw is None:
        return
    try:
        journal = jsonio.loads(raw)
        stat = os.stat(path(memory_dir))
        unfinished = (stat.st_ino, stat.st_dev) == (journal["active_ino"], journal["active_dev"])
        # an archive that is a symlink was never appended to (no write follows one): nothing to undo there, and
        # a truncate through it failed every later capture's recovery
        if unfinished and not os.path.islink(path(memory_dir, ARCHIVE)):
            _truncate(path(memory_dir, ARCHIVE), int(journal["archive_size"]))
    except FileNotFoundError:
        pass
    except (ValueError, KeyError, TypeError):
        pass  # an unreadable journal was never acted on: atomic_write publishes it whole or not at all
    os.unlink(journal_path)
    fsio.fsync_dir(memory_dir)


def _repair_torn_tail(memory_dir: str) -> None:
    """A last line without its newline was cut by a dying writer (writers hold the lock, so none is
    mid-write now): keep it if it is a whole entry, else move it to knowledge.corrupt.jsonl."""
    active = path(memory_dir)
    tail = fsio.read_tail(active, DEDUPE_TAIL_BYTES)
    if not tail or tail.endswith(b"\n"):
        return
    cut = tail.rfind(b"\n") + 1
    if cut == 0 and len(tail) == DEDUPE_TAIL_BYTES:
        return  # a single line longer than the window: leave it to the doctor
    fragment = tail[cut:]
    try:
        whole = is_line(jsonio.loads(fragment))
    except ValueError:
        whole = False
    if whole:
        fsio.append(active, b"\n")
        return
    fsio.append(path(memory_dir, CORRUPT), fragment + b"\n", fsync=True)
    _truncate(active, file_size(active) - len(fragment))


def file_size(file_path: str) -> int:
    try:
        return os.stat(file_path).st_size
    except FileNotFoundError:
        return 0


def _truncate(file_path: str, size: int) -> None:
    try:
        fd = os.open(file_path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return
    try:
        if os.fstat(fd).st_size > size:
            os.ftruncate(fd, size)
            os.fsync(fd)
    finally:
        os.close(fd)


def parked(memory_dir: str) -> list[str]:
    """Names of the captures parked in SPOOL (merged by the next write)."""
    spool = path(memory_dir, SPOOL)
    return sorted(n for n in os.listdir(spool) if n.endswith(".jsonl")) if os.path.isdir(spool) else []
