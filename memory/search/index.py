"""A derived, machine-local ranking index of the knowledge files, so a hook never re-tokenizes them.

One segment file per source: `knowledge.index` for the active knowledge (knowledge.jsonl and the inbox's
fragments, read as one byte string: memory.store.inbox.joined), `knowledge.archive.index` for the archive. Each
holds the source's identity (inode, device, size, mtime_ns) and how far it was read, so:
- unchanged source (stat equal)                  -> used as is, the source is not even read
- same file grown (append; checked by a CRC of the bytes before the old end) -> only the new lines are
  tokenized: a capture, or a rotation's append to a 100,000-line archive, costs only its own lines
- anything else (rotation's replace, git pull, merge, edit) -> that segment is rebuilt from its source
A missing, corrupt, foreign or half-updated index is rebuilt, and one that cannot be written is bypassed
(the ranking comes from memory): never an error. Writes are atomic (memory.core.fsio.atomic_write), so
concurrent builders each publish a whole file; the active segment names the archive segment it was
computed against, and a mismatched pair is simply rebuilt by the next reader. (A segment's lines are tokenized
in memory.search.segment_update.)

Latest-per-key spans both files (the archive is ranked too: knowledge rotated out is still knowledge).
Held entries (memory.store.hold) are screened as their lines are indexed, so each line is screened once: the segment
keeps the flagged docs and the approve lines, and `combine` leaves every held doc without an approval of its
text out of the corpus, so the ranker never returns one to a hook.
"""
from __future__ import annotations

import os
import zlib

from memory import TYPE_CHECKING
from memory.core import fsio, jsonline, layout
from memory.search import concepts
from memory.search import corpus as corpus_mod
from memory.search.segment import MAGIC, Segment, concat, read_segment
from memory.store import inbox, view

if TYPE_CHECKING:
    from collections.abc import Callable

ACTIVE, ARCHIVE = layout.KNOWLEDGE, layout.ARCHIVE
INDEX = {ACTIVE: layout.INDEX, ARCHIVE: layout.ARCHIVE_INDEX}


def fingerprint() -> int:
    """Changes whenever tokens or concepts would come out differently: an index of another version is rebuilt."""
    from memory.search import tokenize
    from memory.store import entry, screen_patterns

    return zlib.crc32(repr((MAGIC, corpus_mod.FIELDS, concepts.GROUPS, sorted(tokenize.STOP_WORDS),
                            tokenize._DERIVED, tokenize._CHUNK.pattern, tokenize._UNSPACED.pattern,
                            sorted(entry.TAG_VOCABULARY.items()),
                            ("screen", screen_patterns.VERSION))).encode())


def _read_source(path: str) -> tuple[bytes, tuple[int, int, int, int] | None]:
    """The file's bytes and the identity they belong to (fstat of the same descriptor)."""
    try:
        fd = fsio.open_regular(path, os.O_RDONLY)  # a FIFO there: unreadable, never a wait (as the store reads it)
    except OSError:
        return b"", None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        data = fh.read(st.st_size)
    return data, (st.st_ino, st.st_dev, len(data), st.st_mtime_ns)


def _write(path: str, seg: Segment, fp: int) -> None:
    from memory.search import segment_write  # here: a query on a current index writes nothing

    try:
        fsio.atomic_write(path, segment_write.to_bytes(seg, fp))
    except OSError:
        pass  # a read-only or full disk: the ranking still comes from memory


INLINE_BUILD_BYTES = 2 << 20  # a hook builds an archive's index from scratch only below this size


def load(memory_dir: str, inline_limit: int | None = None) -> corpus_mod.Corpus:
    """A corpus of both knowledge files (latest per key), from the index when it is current.

    With `inline_limit`, an archive larger than that whose index would have to be built from scratch
    (missing, damaged, another version, replaced by a pull) is left out: the corpus is the active file
    alone and `corpus.partial` is True, so a hook can hand the build to a background process instead of
    making the agent wait for it (100,000 archived entries take tens of seconds to index).
    """
    archive, active, partial = segments(memory_dir, inline_limit)
    corpus = combine(memory_dir, archive, active)
    corpus.partial = partial
    corpus.malformed = archive.malformed + active.malformed
    return corpus


def segments(memory_dir: str, inline_limit: int | None = None) -> tuple[Segment, Segment, bool]:
    """(archive segment, active segment, whether the archive was left out): see load."""
    fp = fingerprint()
    idx = {name: os.path.join(memory_dir, INDEX[name]) for name in (ACTIVE, ARCHIVE)}
    src = sources(memory_dir)
    active = read_segment(idx[ACTIVE], fp, fallback=_source_postings(memory_dir, ACTIVE, src[ACTIVE]))
    archive: Segment | None = Segment()
    if src[ARCHIVE] is not None:
        archive = read_segment(idx[ARCHIVE], fp, fallback=_source_postings(memory_dir, ARCHIVE, src[ARCHIVE],
                                                                           inline_limit))
    fresh = (active is not None and archive is not None and active.src == src[ACTIVE]
             and archive.src == src[ARCHIVE] and active.against == [archive.src, archive.stats.n])
    partial = False
    if not fresh:
        archive_src = src[ARCHIVE]
        skip = (inline_limit is not None and archive_src is not None and archive_src[2] > inline_limit
                and not _extendable(archive, archive_src))
        archive, active = _rebuild(memory_dir, idx, fp, with_archive=not skip)
        partial = skip
    return archive, active, partial  # type: ignore[return-value]


def _source_postings(memory_dir: str, name: str, src: tuple | None,
                     limit: int | None = None) -> Callable[[], dict | None]:
    """For a query that finds the segment's term directory or postings damaged: the postings of its source
    built in memory, as a load does without an index (None when the source changed since, or is larger than
    `limit`: a hook does not wait for a large archive to be indexed)."""
    def build() -> dict | None:
        if src is None or (limit is not None and src[2] > limit):
            return None
        if name == ACTIVE:
            data, now = inbox.joined(inbox.read_parts(memory_dir))
        else:
            data, now = _read_source(os.path.join(memory_dir, ARCHIVE))
        from memory.search.segment_update import update

        return update(None, data, now, memory_dir if name == ACTIVE else None).postings if now == src else None

    return build


def sources(memory_dir: str) -> dict[str, tuple | None]:
    """The identity of each indexed source as it is now: the active knowledge's (memory.store.inbox.identity)
    and the archive's."""
    return {ACTIVE: inbox.identity(memory_dir), ARCHIVE: fsio.identity(os.path.join(memory_dir, ARCHIVE))}


def build_in_background(memory_dir: str) -> None:
    """Index a large archive in a detached process (a prompt or a recall meanwhile goes without the index;
    the next ones use it)."""
    in_background(memory_dir, lambda: load(memory_dir))


def in_background(memory_dir: str, job: Callable[[], object]) -> bool:
    """Run `job` (reading a large archive) in a detached process; True when it ran here instead (no fork:
    Windows, or MEMORY_HOOKS_FOREGROUND). One at a time: while one holds the build lock, others start none (a
    second would be harmless, each publishes a whole file, but it would take a core for nothing); the next
    caller tries again. What fails in it goes to the error log."""
    from memory.runtimes import hookrun

    if _build_lock(memory_dir, probe=True) is None:
        return False  # being built
    where = hookrun.fork_detached()
    if where == "parent":
        return False
    try:
        held = _build_lock(memory_dir)
        if held is not None:
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - detached: nobody else would hear of it
                from memory.core import errorlog

                errorlog.record("background", f"{type(exc).__name__}: {exc}", memory_dir)
            finally:
                if held >= 0:
                    os.close(held)
    finally:
        if where == "child":
            os._exit(0)
    return True


def _build_lock(memory_dir: str, probe: bool = False) -> int | None:
    """The build lock's descriptor, held (with `probe`, released at once and -1 returned); None while another
    process holds it. Where there is no fcntl, or the lock file can't be opened, every caller gets it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return -1
    try:
        fd = fsio.open_regular(os.path.join(memory_dir, layout.INDEX_BUILD_LOCK), os.O_RDWR | os.O_CREAT)
    except OSError:
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    if probe:
        os.close(fd)
        return -1
    return fd


def _extendable(segment: Segment | None, src: tuple[int, int, int, int]) -> bool:
    """Whether `segment` indexes a prefix of the file `src` names (then only its new lines are read)."""
    return (segment is not None and segment.src is not None and tuple(segment.src[:2]) == tuple(src[:2])
            and segment.end <= src[2])


def _rebuild(memory_dir: str, idx: dict[str, str], fp: int, with_archive: bool = True) -> tuple[Segment, Segment]:
    from memory.search.segment_update import link, update

    active_data, active_src = inbox.joined(inbox.read_parts(memory_dir))  # active first: see memory.store.reading
    writable = os.path.isdir(memory_dir)
    if with_archive:
        archive_data, archive_src = _read_source(os.path.join(memory_dir, ARCHIVE))
        old_archive = read_segment(idx[ARCHIVE], fp, with_keys=True)
        indexed_src = old_archive.src if old_archive is not None else None
        # may extend old_archive in place; its lines are screened without the verdict cache, which stays the
        # size of the active file (a session start reads it whole)
        archive = update(old_archive, archive_data, archive_src)
        if writable and archive_src is not None and indexed_src != archive_src:
            _write(idx[ARCHIVE], archive, fp)
    else:
        archive = Segment()
    active = update(read_segment(idx[ACTIVE], fp, with_keys=True), active_data, active_src, memory_dir)
    link(archive, active)
    if writable and with_archive:  # an active segment linked to no archive would be rebuilt anyway
        _write(idx[ACTIVE], active, fp)
    return archive, active


def combine(memory_dir: str, archive: Segment, active: Segment) -> corpus_mod.Corpus:
    """One corpus over both segments: archive docs first, then the active file's."""
    c = corpus_mod.Corpus()
    a, b = archive.stats, active.stats
    c.n = a.n + b.n
    c.segments = [(archive.postings, 0), (active.postings, a.n)]
    c.lens = {f: concat("I", a.lens[f], b.lens[f]) for f in corpus_mod.FIELDS}
    c.ts = concat("d", a.ts, b.ts)
    if a.len_sums is not None and b.len_sums is not None:
        c.len_sums = {f: a.len_sums[f] + b.len_sums[f] for f in corpus_mod.FIELDS}
    live = bytearray(a.live)
    for doc in active.dead:
        live[doc] = 0
    c.live = live + b.live
    approved = {(key, sha) for seg in (archive, active) for key, sha, _ in seg.approvals}
    for base, seg in ((0, archive), (a.n, active)):
        for doc, key, sha, _ in seg.held:
            if (key, sha) not in approved:
                c.live[base + doc] = 0  # held for review: never ranked for a hook
    # the files' order of the control lines (archive first), which latest-wins needs
    controls = [{"type": kind, "key": key, "ts": ts} for seg in (archive, active)
                for kind, key, ts, _ in sorted(seg.controls, key=lambda c: c[3])]
    state = view.State(controls)
    c.pinned = {key for key in state.pins if state.pinned(key)}
    readers = _EntryReader(memory_dir, archive, active)
    c.entry_at = readers.entry
    return c


class _EntryReader:
    """Entries fetched by offset; a line that no longer matches its CRC (the files changed) is None."""

    def __init__(self, memory_dir: str, archive: Segment, active: Segment) -> None:
        self.dir, self.archive, self.active = memory_dir, archive, active
        self.archive_fd: int | None = None
        self.active_file: inbox.ActiveFile | None = None

    def __del__(self) -> None:
        if self.archive_fd is not None and self.archive_fd >= 0:
            os.close(self.archive_fd)
        if self.active_file is not None:
            self.active_file.close()

    def _pread(self, in_archive: bool, length: int, offset: int) -> bytes | None:
        if not in_archive:
            if self.active_file is None:
                self.active_file = inbox.ActiveFile(self.dir)
            return self.active_file.pread(length, offset)
        if self.archive_fd is None:
            try:
                self.archive_fd = fsio.open_regular(os.path.join(self.dir, ARCHIVE), os.O_RDONLY)
            except OSError:
                self.archive_fd = -1
        return None if self.archive_fd < 0 else os.pread(self.archive_fd, length, offset)

    def entry(self, doc: int) -> dict | None:
        from memory.store.entry import is_valid

        in_archive = doc < self.archive.stats.n
        seg = self.archive if in_archive else self.active
        local = doc - (0 if in_archive else self.archive.stats.n)
        try:
            line = self._pread(in_archive, seg.lengths[local], seg.offsets[local])
            if line is None or zlib.crc32(line) != seg.line_crcs[local]:
                _unreadable(seg)
                return None
        except (ValueError, OSError):  # the index was cut short under us, or a fragment was folded away
            _unreadable(seg)
            return None
        try:
            obj = jsonline.loads_lenient(line)
        except ValueError:
            return None
        return obj if is_valid(obj) else None


def _unreadable(seg: Segment) -> None:
    """A line that is not what the index names: a damaged offset, length or CRC (those columns are read item by
    item, behind no checksum of their own), or a source changed under this query. The index file goes either way
    (unless already replaced), so the next load rebuilds it: left, it hid the entry from every ranking until the
    knowledge file changed."""
    opened = getattr(seg.offsets, "fh", None)  # a segment read from its file (segment._Lazy); None: built in memory
    if opened is not None:
        opened.discard()
