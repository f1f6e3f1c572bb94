"""The inbox: every capture is a new file, so no capture ever changes a file that a commit holds.

`git checkout` refuses to switch when a tracked file with local changes differs on the other branch, and git
has no pre-checkout hook to fold such changes away first. So captures never touch the committed
knowledge.jsonl: each write publishes `.beads/memory/inbox/<time_ns>-<random>.jsonl` (written whole under a
temp name in the memory folder, gitignored as `.*.tmp`, then renamed in) and never changes it afterwards.
An untracked file survives a checkout; `git add .beads/memory` commits it; two branches' captures are
different files, so they merge without a conflict. `memory.store.rotation.compact` (memory-doctor --compact)
folds the inbox into knowledge.jsonl when a person asks for it.

The *active knowledge* is knowledge.jsonl followed by the inbox's files in name order (oldest first).
This module lists, writes and addresses those files, and stays light (os, zlib): memory.search.find reads
entries through it on `recall.sh KEYWORD --all`'s path. Parsing is memory.store.reading's.
"""
from __future__ import annotations

import os
import stat
import time

from memory import TYPE_CHECKING
from memory.core import fsio, layout

if TYPE_CHECKING:
    from collections.abc import Sequence

SUFFIX = ".jsonl"
TEMP_PREFIX = ".inbox-"  # `.inbox-<name>.tmp` in the memory folder: a fragment being written
Identity = tuple  # (knowledge inode, its crc of dev/size/mtime, total bytes + parts, crc of the inbox listing)
Part = tuple  # (path, bytes, os.stat_result)


def folder(memory_dir: str) -> str:
    return os.path.join(memory_dir, layout.INBOX)


def names(memory_dir: str) -> list[str]:
    """The inbox's fragment names, oldest first ([] when there is no inbox): regular files this process may read.
    Anything else under a fragment's name (a symlink, which git can commit, a folder, a file without read
    permission) is left out, as a malformed line is skipped: one of them turned every read, capture and session
    start off (`bad_names` lists them for the doctor)."""
    return [n for n in _listed(memory_dir) if _readable_file(os.path.join(folder(memory_dir), n))]


def bad_names(memory_dir: str) -> list[str]:
    """What `names` leaves out."""
    return [n for n in _listed(memory_dir) if not _readable_file(os.path.join(folder(memory_dir), n))]


def linked(memory_dir: str) -> bool:
    """Whether the inbox is a symlink (git commits one). Never read or written through: a planted link pointing
    at another folder made its `*.jsonl` files knowledge, and a compaction folded them into the committed
    knowledge and deleted them there."""
    return os.path.islink(folder(memory_dir))


def _listed(memory_dir: str) -> list[str]:
    if linked(memory_dir):
        return []
    try:
        found = os.listdir(folder(memory_dir))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    return sorted(n for n in found if n.endswith(SUFFIX) and not n.startswith("."))


def _readable_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode) and os.access(path, os.R_OK)
    except OSError:
        return False


def write(memory_dir: str, data: bytes) -> str:
    """Publish `data` (whole JSONL lines) as a new fragment; its path. Never replaces a file: a name is
    nanoseconds plus 8 random hex digits, and `os.link` refuses one that exists. Call under the store's
    lock (memory.store.store): its recovery deletes the temp files of writers that died."""
    import errno

    inbox = folder(memory_dir)
    if linked(memory_dir):
        raise OSError(errno.ELOOP, "it is a symbolic link, and memory-hooks writes no capture through links "
                                   "(remove it: the next capture makes the folder)", inbox)
    os.makedirs(inbox, exist_ok=True)
    while True:
        name = f"{time.time_ns():019d}-{os.urandom(4).hex()}{SUFFIX}"
        tmp = os.path.join(memory_dir, f"{TEMP_PREFIX}{name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o666)  # the umask decides, as for git's files
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            target = os.path.join(inbox, name)
            try:
                os.link(tmp, target)  # whole or not at all, and never over another fragment
            except OSError as exc:
                if exc.errno == errno.EEXIST:
                    continue
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                    raise
                os.rename(tmp, target)  # a filesystem without hard links (the name is unique anyway)
            fsio.fsync_dir(inbox)
            return target
        finally:
            _unlink_quietly(tmp)


def remove_temps(memory_dir: str) -> None:
    """Delete the fragment temp files a dead writer left. Under the store's lock (no writer is live)."""
    try:
        found = os.listdir(memory_dir)
    except OSError:
        return
    for name in found:
        if name.startswith(TEMP_PREFIX) and name.endswith(layout.TEMP_SUFFIX):
            _unlink_quietly(os.path.join(memory_dir, name))


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def identity_of(knowledge: os.stat_result | None, fragments: Sequence[tuple[str, os.stat_result]]) -> Identity:
    """What a derived index records of the active knowledge: any change to knowledge.jsonl changes the first
    two numbers; a new fragment changes only the last two (so an index extends itself by the new lines)."""
    import zlib  # here: a capture writes a fragment and needs no identity

    if knowledge is None:
        first: tuple = (0, zlib.crc32(b"none"))
    else:
        first = (knowledge.st_ino, zlib.crc32(repr((knowledge.st_dev, knowledge.st_size,
                                                    knowledge.st_mtime_ns)).encode()))
    total = (knowledge.st_size + 1 if knowledge is not None else 0) + sum(st.st_size + 1 for _, st in fragments)
    listing = zlib.crc32(repr([(name, st.st_size, st.st_mtime_ns) for name, st in fragments]).encode())
    return first + (total, listing)


def identity(memory_dir: str) -> Identity | None:
    """The active knowledge's identity from stats alone (None when there is neither file nor fragment)."""
    knowledge = _stat(os.path.join(memory_dir, layout.KNOWLEDGE))
    fragments = []
    for name in names(memory_dir):
        st = _stat(os.path.join(folder(memory_dir), name))
        if st is not None:
            fragments.append((name, st))
    if knowledge is None and not fragments:
        return None
    return identity_of(knowledge, fragments)


def read_parts(memory_dir: str) -> list[Part]:
    """knowledge.jsonl (when there is one) and every fragment, each with the stat of what was read.

    Consistent against a concurrent compaction (which rewrites knowledge.jsonl, then deletes the fragments
    it folded): when a listed fragment is gone, or knowledge.jsonl changed meanwhile, the read starts over.
    """

    knowledge_path = os.path.join(memory_dir, layout.KNOWLEDGE)
    parts: list[Part] = []
    for _ in range(5):
        parts = []
        before = _stat(knowledge_path)
        data = fsio.read_file(knowledge_path)
        if before is not None:
            parts.append((knowledge_path, data, before))
        complete = True
        for name in names(memory_dir):
            fragment = os.path.join(folder(memory_dir), name)
            st = _stat(fragment)
            data = fsio.read_file(fragment) if st is not None else b""
            if st is None or (not data and st.st_size):  # folded away meanwhile
                complete = False
                break
            parts.append((fragment, data, st))
        after = _stat(knowledge_path)
        if complete and _same(before, after):
            return parts
    return parts


def _same(a: os.stat_result | None, b: os.stat_result | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.st_ino, a.st_dev, a.st_size, a.st_mtime_ns) == (b.st_ino, b.st_dev, b.st_size, b.st_mtime_ns)


def joined(parts: Sequence[Part]) -> tuple[bytes, Identity | None]:
    """The parts as one byte string, each followed by a newline (a blank line, skipped by every reader,
    where the part already ended in one), and their identity: what memory.search.index indexes as the active file."""
    if not parts:
        return b"", None
    has_knowledge = os.path.basename(parts[0][0]) == layout.KNOWLEDGE
    knowledge = parts[0][2] if has_knowledge else None
    fragments = [(os.path.basename(p), st) for p, _, st in parts[1 if has_knowledge else 0:]]
    data = b"".join(d + b"\n" for _, d, _ in parts)
    return data, identity_of(knowledge, fragments)


class ActiveFile:
    """Reads by offset into `joined`'s byte string, from the files themselves (memory.search.index and
    memory.search.find fetch a line by its offset, length and CRC; a CRC that no longer matches means the
    files changed, and the reader falls back to a scan)."""

    def __init__(self, memory_dir: str) -> None:
        self.places: list[tuple[int, int, str]] = []  # (start, end, path) of each part in the joined bytes
        start = 0
        paths = [os.path.join(memory_dir, layout.KNOWLEDGE)]
        paths += [os.path.join(folder(memory_dir), name) for name in names(memory_dir)]
        for path in paths:
            st = _stat(path)
            if st is None:
                continue
            self.places.append((start, start + st.st_size, path))
            start += st.st_size + 1
        self.starts = [place[0] for place in self.places]
        self.fds: dict[str, int] = {}

    def pread(self, length: int, offset: int) -> bytes:
        from bisect import bisect_right

        at = bisect_right(self.starts, offset) - 1
        if at < 0 or offset + length > self.places[at][1]:
            return b""  # not a line of these files (its CRC will not match)
        start, _, path = self.places[at]
        if path not in self.fds:
            self.fds[path] = fsio.open_regular(path, os.O_RDONLY)
        return os.pread(self.fds[path], length, offset - start)

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
