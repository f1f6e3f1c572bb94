"""The knowledge files' health, for memory-doctor: what a file holds, the inbox, parked captures, an unfinished
rotation, the one repair it may make (quarantine malformed lines, drop byte-identical duplicates) and the fold
of the inbox a person asks for (`--compact`), both under the lock."""
from __future__ import annotations

import errno
import os
import shlex

from memory.core import fsio, layout, locking, paths
from memory.store import inbox, store

COMPACT_HINT = 500  # inbox files past which the doctor suggests `--compact` (each read costs ~15 us)


class FileHealth:
    """What one knowledge file holds: usable and malformed lines, byte-identical duplicates, a torn tail."""

    def __init__(self, lines: int, malformed: int, duplicates: int, unterminated: int) -> None:
        self.lines, self.malformed, self.duplicates, self.unterminated = lines, malformed, duplicates, unterminated

    @property
    def healthy(self) -> bool:
        return not (self.malformed or self.duplicates or self.unterminated)


def health(file_path: str) -> FileHealth:
    data = fsio.read_bytes(file_path) or b""
    snap = store.read("", data)
    lines = [line for line in data.split(b"\n") if line.strip()]
    return FileHealth(snap.lines, snap.malformed, len(lines) - len(set(lines)), snap.unterminated)


def inbox_health(memory_dir: str) -> tuple[int, FileHealth]:
    """(fragments in the inbox, what they hold together); duplicates counted within each fragment."""
    names = inbox.names(memory_dir)
    total = FileHealth(0, 0, 0, 0)
    for name in names:
        one = health(os.path.join(inbox.folder(memory_dir), name))
        total.lines += one.lines
        total.malformed += one.malformed + one.unterminated  # a fragment is published whole: a cut one is damage
        total.duplicates += one.duplicates
    return len(names), total


class CompactRefused(Exception):
    """--compact would lose captures: why, and what to do first."""


# what git keeps while a merge, rebase, cherry-pick or revert stopped (in the work tree's own git folder)
_STOPPED = {"MERGE_HEAD": "a merge", "rebase-merge": "a rebase", "rebase-apply": "a rebase",
            "CHERRY_PICK_HEAD": "a cherry-pick", "REVERT_HEAD": "a revert"}


def stopped_operation(memory_dir: str) -> str | None:
    """The git operation stopped in the work tree the memory folder is in ("a merge", "a rebase"…), or None."""
    folder = paths.git_lines(["rev-parse", "--absolute-git-dir"], memory_dir, 5.0)
    if not folder:
        return None
    return next((what for name, what in _STOPPED.items() if os.path.exists(os.path.join(folder[0], name))), None)


def compact(memory_dir: str) -> list[str]:
    """memory-doctor --compact: fold the inbox into knowledge.jsonl and rotate (memory.store.rotation.compact); what
    was done, and what to commit. Refused (CompactRefused) while a merge or rebase is stopped: its `--abort` resets
    knowledge.jsonl, and the captures folded into it were gone."""
    from memory.store import rotation

    stopped = stopped_operation(memory_dir)
    if stopped:
        raise CompactRefused(f"not compacted: {stopped} is in progress, and its --abort would reset {store.ACTIVE} "
                             "with the captures folded into it; finish or abort it first (the captures wait "
                             "in the inbox meanwhile)")
    done = rotation.compact(memory_dir)
    if not done.fragments and not done.rotated:
        return ["nothing to compact (the inbox is empty and knowledge.jsonl is within the limit)"]
    said = f"folded {done.fragments} inbox file(s) ({done.lines} new line(s)) into {store.ACTIVE}"
    if done.rotated:
        said += f", moved the oldest lines to {store.ARCHIVE}"
    return [said + "; commit it now (git add .beads/memory && git commit): until then switching to a branch "
                   "whose knowledge differs is refused by git"]


def rotation_pending(memory_dir: str) -> bool:
    return os.path.exists(store.path(memory_dir, store.JOURNAL))


def repair(memory_dir: str) -> list[str]:
    """Recover, apply the recorded redactions (memory.store.redactions), then quarantine malformed lines (to
    CORRUPT) and drop byte-identical duplicate lines, atomically, under the lock; what was done, one line per file."""
    from memory.store import redaction_apply, redactions

    done = []
    with locking.exclusive(store.path(memory_dir, store.LOCK)):
        store.recover(memory_dir)
        applied = redaction_apply.apply_locked(memory_dir)  # another clone's `recall.sh --redact`
        done += [f"{name}: rewrote {n} line(s) another clone redacted ({redactions.RECORDS}); commit it"
                 for name, n in applied.rewritten.items()]
        fragments = [os.path.join(layout.INBOX, n) for n in inbox.names(memory_dir)]
        for name in [store.ARCHIVE, store.ACTIVE] + fragments:
            target = store.path(memory_dir, name)
            if os.path.islink(target) or not os.path.exists(target):
                continue
            kept: list[bytes] = []
            bad: list[bytes] = []
            seen: set[bytes] = set()
            dropped = 0
            for line in (fsio.read_bytes(target) or b"").split(b"\n"):
                if not line.strip():
                    continue
                if line in seen:
                    dropped += 1
                    continue
                seen.add(line)
                (kept if store.parse_line(line) is not None else bad).append(line)
            if bad:
                fsio.append(store.path(memory_dir, store.CORRUPT), b"\n".join(bad) + b"\n", fsync=True)
            if (bad or dropped) and not kept and name in fragments:
                os.unlink(target)  # nothing usable left in that capture's file
            elif bad or dropped:
                fsio.atomic_write(target, b"".join(line + b"\n" for line in kept))
                done.append(f"{name}: moved {len(bad)} malformed line(s) to {store.CORRUPT}, "
                            f"removed {dropped} duplicate line(s)")
    return done or ["nothing to repair"]


def write_problem(memory_dir: str) -> list[str]:
    """Why captures could not be stored here, one line each with the fix ([] when they can): the memory
    folder must take new files (lock, rotation, temp files) and the knowledge files must open for appending.
    Tried for real (a probe file created with a byte, synced and removed; an append opened and closed), so
    permissions, ownership, ACLs, read-only mounts and a full disk all count."""
    problems = []
    folder = memory_dir
    while not os.path.isdir(folder):  # not created yet: the hooks create it in the nearest existing folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    probe = os.path.join(folder, f".doctor.{os.getpid()}{layout.TEMP_SUFFIX}")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:  # a byte, synced: a full disk still creates an empty file, and only then says ENOSPC
            os.write(fd, b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        problems.append(f"{folder} cannot be written ({exc.strerror}): {_fix(folder, exc)}")
    inbox_dir = inbox.folder(memory_dir)  # where every capture goes
    if os.path.isdir(inbox_dir) and not os.access(inbox_dir, os.W_OK | os.X_OK):
        problems.append(f"{inbox_dir} cannot be written: {_fix(inbox_dir, PermissionError(errno.EACCES, ''))}")
    for name in (store.ACTIVE, store.ARCHIVE, store.LOCK):
        target = store.path(memory_dir, name)
        if os.path.islink(target) or not os.path.isfile(target):
            continue
        try:  # the lock is only read (flock needs no write access: memory.core.locking)
            os.close(os.open(target, os.O_RDONLY if name == store.LOCK else os.O_WRONLY | os.O_APPEND))
        except OSError as exc:
            problems.append(f"{target} cannot be written ({exc.strerror}): {_fix(target, exc)}")
    return problems


def _fix(path: str, exc: OSError) -> str:
    if exc.errno == errno.EROFS:
        return "the file system is read-only; set MEMORY_HOOKS_DIR to a writable folder, or remount it read-write"
    if exc.errno == errno.ENOSPC:
        return "the disk is full; free space"
    owner = os.stat(path).st_uid
    if hasattr(os, "getuid") and owner != os.getuid():
        return f"it belongs to uid {owner}; run: sudo chown -R \"$(id -u)\" {shlex.quote(path)}"
    return f"run: chmod u+w {shlex.quote(path)}"
