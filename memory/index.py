"""A derived, machine-local ranking index of the knowledge files, so a hook never re-tokenizes them.

One segment file per source: `knowledge.index` for knowledge.jsonl, `knowledge.archive.index` for the
archive. Each holds the source's identity (inode, device, size, mtime_ns) and how far it was read, so:
- unchanged source (stat equal)                  -> used as is, the source is not even read
- same file grown (append; checked by a CRC of the bytes before the old end) -> only the new lines are
  tokenized: a capture, or a rotation's append to a 100,000-line archive, costs only its own lines
- anything else (rotation's replace, git pull, merge, edit) -> that segment is rebuilt from its source
A missing, corrupt, foreign or half-updated index is rebuilt, and one that cannot be written is bypassed
(the ranking comes from memory): never an error. Writes are atomic (memory.fsio.atomic_write), so
concurrent builders each publish a whole file; the active segment names the archive segment it was
computed against, and a mismatched pair is simply rebuilt by the next reader.

Latest-per-key spans both files (the archive is ranked too: knowledge rotated out is still knowledge).
"""
from __future__ import annotations

import marshal
import os
import struct
import zlib
from array import array

from memory import TYPE_CHECKING, concepts, fsio, layout
from memory import corpus as corpus_mod

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

ACTIVE, ARCHIVE = layout.KNOWLEDGE, layout.ARCHIVE
INDEX = {ACTIVE: layout.INDEX, ARCHIVE: layout.ARCHIVE_INDEX}
MAGIC = b"MHRIDX7\n"
CRC_WINDOW = 4096
HEAD = "<5Q"  # the byte lengths of: meta, columns, term directory, postings, keys
HEAD_SIZE = 8 + struct.calcsize(HEAD)


def fingerprint() -> int:
    """Changes whenever tokens or concepts would come out differently: an index of another version is rebuilt."""
    from memory import entry, tokenize

    return zlib.crc32(repr((MAGIC, corpus_mod.FIELDS, concepts.GROUPS, sorted(tokenize.STOP_WORDS),
                            tokenize._DERIVED, sorted(entry.TAG_VOCABULARY.items()))).encode())


class Segment:
    """The statistics of one source file's complete lines, doc ids local to it."""

    def __init__(self) -> None:
        self.stats = corpus_mod.Corpus()
        self.postings: dict[str, array | bytes] = {}
        self.src: tuple[int, int, int, int] | None = None
        self.end = 0
        self.crc = 0
        self.offsets = array("Q")
        self.lengths = array("I")
        self.line_crcs = array("I")
        self.forgets: list[tuple[str, float, int]] = []  # (key, ts, docs before it): this file's forget lines
        self.dead: list[int] = []  # active segment only: archive docs its entries (or forgets) supersede
        self.against: list | None = None  # active segment only: the archive segment's src and size
        # keyword search (memory.find): each doc's folded search text, one after another, and where each starts
        self.text: Any = array("B")  # an array, or a view of the mapped index
        self.text_at: Any = array("Q")
        self.text_region: tuple[Any, int] | None = None  # (a buffer with .find, where the text starts in it)
        self.controls: list[tuple[str, str, float, int]] = []  # (type, key, ts, line offset) of control lines
        self.malformed = 0  # lines neither an entry nor a control line

    def to_bytes(self, fp: int) -> bytes:
        s = self.stats
        columns, places = _columns([(f"lens.{f}", a) for f, a in s.lens.items()] + [
            ("ts", s.ts), ("live", _arr("B", bytes(s.live))), ("off", self.offsets), ("len", self.lengths),
            ("lcrc", self.line_crcs), ("text", self.text), ("tat", self.text_at)])
        meta = marshal.dumps({
            "fp": fp, "src": self.src, "end": self.end, "crc": self.crc, "n": s.n, "cols": places,
            "lsum": {f: sum(a) for f, a in s.lens.items()},
            "forgets": self.forgets, "dead": self.dead, "against": self.against, "concepts": concepts.term_map(),
            "controls": self.controls, "malformed": self.malformed})
        meta += b"\0" * (-len(meta) % 8)  # the columns after it stay 8-aligned in the file (marshal ignores the pad)
        blobs: list[bytes] = []
        buckets: list[dict[str, tuple[int, int]]] = [{} for _ in range(bucket_count(len(self.postings)))]
        mask, at = len(buckets) - 1, 0
        for key, value in self.postings.items():
            blob = value.tobytes() if isinstance(value, array) else value
            buckets[bucket_of(key) & mask][key] = (at, len(blob))
            blobs.append(blob)
            at += len(blob)
        return _pack(meta, columns, _directory(buckets), b"".join(blobs), marshal.dumps(s.keys))


def _columns(named: list[tuple[str, array]]) -> tuple[bytes, dict[str, tuple[int, int, str]]]:
    """The per-document arrays as raw bytes, each 8-aligned, and where each is: {name: (at, count, code)}.
    A reader maps them instead of copying: a query touches a few of 100,000 documents."""
    out: list[bytes] = []
    places: dict[str, tuple[int, int, str]] = {}
    at = 0
    for name, values in named:
        data = values.tobytes()
        places[name] = (at, len(values), values.typecode)
        pad = -len(data) % 8
        out.append(data + b"\0" * pad)
        at += len(data) + pad
    return b"".join(out), places


def _pack(*parts: bytes) -> bytes:
    return MAGIC + struct.pack(HEAD, *map(len, parts)) + b"".join(parts)


def bucket_count(terms: int) -> int:
    """A power of two near terms / 8: a lookup reads one bucket of about eight directory entries."""
    count = 1
    while count * 8 < terms:
        count *= 2
    return count


def bucket_of(key: str) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass"))


def _directory(buckets: list[dict[str, tuple[int, int]]]) -> bytes:
    """The term directory as stored (machine-local, so native byte order): the bucket count and a table of
    its + 1 offsets (array 'Q'), then each bucket's
    marshalled {term: (posting offset, length)}. A query reads the table slots and buckets it needs."""
    blocks = [marshal.dumps(bucket) for bucket in buckets]
    table = array("Q", [0])
    for block in blocks:
        table.append(table[-1] + len(block))
    return array("Q", [len(buckets)]).tobytes() + table.tobytes() + b"".join(blocks)


class LazyPostings(dict):
    """Postings read from the segment file on first use: a query touches a few dozen of them, so a
    100,000-entry archive costs a few small reads, not its whole term directory or its postings."""

    def __init__(self, fh: BinaryIO, directory_at: int, postings_at: int, postings_end: int, path: str = "") -> None:
        super().__init__()
        self.fh, self.directory_at, self.path = fh, directory_at, path
        self.postings_at, self.postings_end = postings_at, postings_end
        self.buckets = struct.unpack("=Q", self._read(8, directory_at))[0]
        if not self.buckets or self.buckets & (self.buckets - 1):
            raise ValueError("bucket count")
        self.blocks_at = directory_at + 8 * (self.buckets + 2)
        self.loaded: dict[int, dict[str, tuple[int, int]]] = {}

    def _read(self, size: int, at: int) -> bytes:
        data = os.pread(self.fh.fileno(), size, at)
        if len(data) != size:
            raise ValueError("cut short")
        return data

    def damaged(self) -> None:
        """Seen only now, at a lookup (a file is checked whole only by its size): this query goes on
        without the term, and the file goes, so the next load rebuilds it, unless it was replaced already."""
        try:
            if self.path and os.stat(self.path).st_ino == os.fstat(self.fh.fileno()).st_ino:
                os.unlink(self.path)
        except OSError:
            pass

    def bucket(self, number: int) -> dict[str, tuple[int, int]]:
        """One bucket of the term directory: {term: (offset, length) of its posting}."""
        found = self.loaded.get(number)
        if found is None:
            start, end = struct.unpack("=2Q", self._read(16, self.directory_at + 8 * (number + 1)))
            if not start <= end <= self.postings_at - self.blocks_at:
                raise ValueError("bucket bounds")
            found = marshal.loads(self._read(end - start, self.blocks_at + start)) if end > start else {}
            if not isinstance(found, dict):
                raise ValueError("bucket")
            self.loaded[number] = found
        return found

    def size(self, key: str) -> int:
        """How many numbers the posting of `key` holds (0 when absent or unreadable), without reading it."""
        if key in self:
            value = self[key]
            return len(value) if isinstance(value, array) else len(value) // 4
        try:
            where = self.where(key)
        except (ValueError, EOFError, TypeError, struct.error):
            self.damaged()
            return 0
        return where[1] // 4 if where else 0

    def where(self, key: str) -> tuple[int, int] | None:
        """(offset, length) of the posting of `key`, or None; ValueError when the directory is damaged."""
        where = self.bucket(bucket_of(key) & (self.buckets - 1)).get(key)
        if where is None:
            return None
        offset, length = where
        if not (offset >= 0 and length >= 0 and length % 4 == 0
                and self.postings_at + offset + length <= self.postings_end):
            raise ValueError("posting bounds")
        return offset, length

    def get(self, key: str, default: bytes | None = None) -> bytes | None:  # type: ignore[override]
        if key in self:
            return self[key]
        try:
            where = self.where(key)
            if where is None:
                return default
            data = self._read(where[1], self.postings_at + where[0])
        except (ValueError, EOFError, TypeError, struct.error):
            self.damaged()
            return default
        self[key] = data
        return data

    def materialize(self) -> dict[str, array | bytes]:
        """Every posting in memory; ValueError when one is cut short."""
        out: dict[str, array | bytes] = {}
        for number in range(self.buckets):
            for key in self.bucket(number):
                offset, length = self.where(key)  # type: ignore[misc]
                out[key] = self._read(length, self.postings_at + offset)
        return out


def _concat(code: str, *parts: Any) -> array:
    out = array(code)
    for part in parts:
        out.frombytes(memoryview(part).cast("B"))
    return out


def _arr(code: str, data: bytes | memoryview) -> array:
    a = array(code)
    a.frombytes(data)
    return a


def read_segment(path: str, fp: int, with_keys: bool = False) -> Segment | None:
    """The segment stored at `path`, or None when missing, corrupt or of another version."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - stays open: LazyPostings reads the postings from it later
    except OSError:
        return None
    try:
        head = fh.read(HEAD_SIZE)
        if head[:8] != MAGIC:
            raise ValueError("not an index")
        lengths = struct.unpack_from(HEAD, head, 8)
        if os.fstat(fh.fileno()).st_size != HEAD_SIZE + sum(lengths):
            raise ValueError("cut short or grown: not a file we wrote whole")
        meta = marshal.loads(fh.read(lengths[0]))
        if meta["fp"] != fp:
            raise ValueError("another version")
        concepts.seed(meta["concepts"])
        at = [HEAD_SIZE + sum(lengths[:i]) for i in range(len(lengths))]
        column = _column_reader(fh, at[1], lengths[1], meta["cols"], copy=with_keys)
        seg = Segment()
        s = seg.stats
        s.n = meta["n"]
        s.lens = {f: column(f"lens.{f}") for f in corpus_mod.FIELDS}
        s.len_sums = meta["lsum"]
        s.ts, s.live = column("ts"), bytearray(column("live"))
        seg.src, seg.end, seg.crc = tuple(meta["src"]) if meta["src"] else None, meta["end"], meta["crc"]
        seg.offsets, seg.lengths, seg.line_crcs = column("off"), column("len"), column("lcrc")
        seg.dead, seg.against = list(meta["dead"]), meta["against"]
        seg.forgets = [tuple(f) for f in meta["forgets"]]
        seg.controls = [tuple(c) for c in meta["controls"]]
        seg.malformed = meta["malformed"]
        seg.text, seg.text_at = column("text"), column("tat")
        seg.text_region = column.region("text")  # type: ignore[attr-defined]
        lazy = LazyPostings(fh, at[2], at[3], at[4], path)
        seg.postings = lazy
        if with_keys:  # an update follows: it needs every posting in memory, and the keys
            seg.postings = lazy.materialize()
            fh.seek(at[4])
            s.keys = marshal.loads(fh.read(lengths[4]))
            fh.close()
        sizes = {len(s.ts), len(s.live), len(seg.offsets), len(seg.lengths), len(seg.line_crcs), len(seg.text_at)}
        if sizes != {s.n} or any(len(a) != s.n for a in s.lens.values()) or (with_keys and len(s.keys) != s.n):
            return None
        return seg
    except Exception:  # any damage at all: the caller rebuilds from the source
        fh.close()
        return None


def _column_reader(fh: BinaryIO, start: int, size: int, places: dict[str, tuple[int, int, str]],
                   copy: bool) -> Callable[[str], Any]:
    """name -> that column: a read-only view of the mapped file (a query), or an array (an update appends)."""
    import mmap

    raw = memoryview(b"")
    if copy:
        fh.seek(start)
        raw = memoryview(fh.read(size))

    def column(name: str) -> Any:
        at, count, code = places[name]
        data = raw[at:at + count * array(code).itemsize]
        if copy:
            return _arr(code, data)
        return data.cast(code) if count else array(code)  # type: ignore[call-overload]

    def region(name: str) -> tuple[Any, int] | None:
        """(the mapped file, where column `name` starts in it); None for a copy (see text_region)."""
        return None if copy or not size else (mapped, start + places[name][0])

    mapped = None if copy or not size else mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    if mapped is not None:
        raw = memoryview(mapped)[start:start + size]
    column.region = region  # type: ignore[attr-defined]
    return column


def _ident(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns)


def _read_source(path: str) -> tuple[bytes, tuple[int, int, int, int] | None]:
    """The file's bytes and the identity they belong to (fstat of the same descriptor)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return b"", None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        data = fh.read(st.st_size)
    return data, (st.st_ino, st.st_dev, len(data), st.st_mtime_ns)


def _tail_crc(data: bytes, end: int) -> int:
    return zlib.crc32(data[max(0, end - CRC_WINDOW):end])


def update(old: Segment | None, data: bytes, src: tuple[int, int, int, int] | None) -> Segment:
    """`old` brought up to date with the source bytes `data`: extended when the source only grew, else new."""
    from memory.entry import FORGET, is_control, is_valid
    from memory.textmatch import haystack

    grown = (old is not None and old.src is not None and src is not None and old.src[:2] == src[:2]
             and len(data) >= old.end and _tail_crc(data, old.end) == old.crc and len(old.stats.keys) == old.stats.n)
    seg = old if grown and old is not None else Segment()
    loads = _loads(len(data) - seg.end)
    postings = seg.postings
    for key, value in list(postings.items()):
        if not isinstance(value, array):
            postings[key] = _arr("I", value)
    pos, end = seg.end, data.rfind(b"\n") + 1  # an unterminated last line is a write in progress
    while pos < end:
        nl = data.index(b"\n", pos)
        line = data[pos:nl]
        try:
            entry = loads(line) if line.strip() else None
        except (ValueError, RecursionError):
            entry = None
        if entry is not None and is_valid(entry):
            seg.stats.add(entry, postings)  # type: ignore[arg-type]
            seg.offsets.append(pos)
            seg.lengths.append(len(line))
            seg.line_crcs.append(zlib.crc32(line))
            seg.text_at.append(len(seg.text))
            seg.text.frombytes(haystack(entry).encode("utf-8", "surrogatepass") + b"\n")
        elif is_control(entry):
            ts = corpus_mod.entry_ts(entry)  # type: ignore[arg-type]
            seg.controls.append((entry["type"], entry["key"], ts, pos))  # type: ignore[index]
            if entry["type"] == FORGET:  # type: ignore[index]
                seg.forgets.append((entry["key"], ts, seg.stats.n))  # type: ignore[index]
        elif line.strip():
            seg.malformed += 1
        pos = nl + 1
    seg.text_region = None  # grown: memory.find searches a copy
    seg.src, seg.end, seg.crc = src, max(seg.end, end), _tail_crc(data, max(seg.end, end))
    seg.stats.live = corpus_mod.latest_flags(seg.stats.keys, seg.stats.ts)
    _apply_forgets(seg)
    return seg


def _latest_forgets(seg: Segment) -> dict[str, tuple[float, int]]:
    """Per key, the latest forget of the segment: (ts, number of docs before it)."""
    found: dict[str, tuple[float, int]] = {}
    for key, ts, before in seg.forgets:
        if key not in found or (ts, before) >= found[key]:
            found[key] = (ts, before)
    return found


def _apply_forgets(seg: Segment) -> None:
    """A live doc older than its key's latest forget in the same file is not live (memory.view's order:
    the higher ts, then the later line)."""
    forgets = _latest_forgets(seg)
    if not forgets:
        return
    s = seg.stats
    for doc in range(s.n):
        forget = forgets.get(s.keys[doc]) if s.live[doc] else None
        if forget is not None and (forget[0], forget[1] - 0.5) > (s.ts[doc], doc):
            s.live[doc] = 0


def _loads(size: int) -> Callable[[Any], Any]:
    from memory import jsonio

    return jsonio.bulk_loads() if size >= jsonio.BULK_BYTES else jsonio.json.loads


def link(archive: Segment, active: Segment) -> None:
    """Latest per key across both files: which archive docs the active ones supersede, and the reverse."""
    arc_keys, arc_ts, arc_live = archive.stats.keys, archive.stats.ts, archive.stats.live
    best = {arc_keys[d]: d for d in range(archive.stats.n) if arc_live[d]}
    dead = []
    act = active.stats
    for doc in range(act.n):
        other = best.get(act.keys[doc]) if act.live[doc] else None
        if other is not None:
            if act.ts[doc] >= arc_ts[other]:  # the later line wins a tie, as in memory.store.latest
                dead.append(other)
            else:
                act.live[doc] = 0
    # forgets across the two files: an active forget is a later line than every archived one
    killed = set(dead)
    for key, (ts, _) in _latest_forgets(active).items():
        other = best.get(key)
        if other is not None and ts >= arc_ts[other] and other not in killed:
            dead.append(other)
    archived_forgets = _latest_forgets(archive)
    for doc in range(act.n):
        forget = archived_forgets.get(act.keys[doc]) if act.live[doc] else None
        if forget is not None and forget[0] > act.ts[doc]:
            act.live[doc] = 0
    active.dead = dead
    active.against = [archive.src, archive.stats.n]


def _write(path: str, seg: Segment, fp: int) -> None:
    try:
        fsio.atomic_write(path, seg.to_bytes(fp))
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
    return corpus


def segments(memory_dir: str, inline_limit: int | None = None) -> tuple[Segment, Segment, bool]:
    """(archive segment, active segment, whether the archive was left out): see load."""
    fp = fingerprint()
    idx = {name: os.path.join(memory_dir, INDEX[name]) for name in (ACTIVE, ARCHIVE)}
    src = {name: _ident(os.path.join(memory_dir, name)) for name in (ACTIVE, ARCHIVE)}
    active = read_segment(idx[ACTIVE], fp)
    archive: Segment | None = Segment()
    if src[ARCHIVE] is not None:
        archive = read_segment(idx[ARCHIVE], fp)
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


def build_in_background(memory_dir: str) -> None:
    """Index a large archive in a detached process (a prompt or a recall meanwhile goes without the index;
    the next ones use it). Concurrent builders are harmless (each publishes a whole file)."""
    from memory import hookrun

    where = hookrun.fork_detached()
    if where == "parent":
        return
    try:
        load(memory_dir)
    finally:
        if where == "child":
            os._exit(0)


def _extendable(segment: Segment | None, src: tuple[int, int, int, int]) -> bool:
    """Whether `segment` indexes a prefix of the file `src` names (then only its new lines are read)."""
    return (segment is not None and segment.src is not None and tuple(segment.src[:2]) == tuple(src[:2])
            and segment.end <= src[2])


def _rebuild(memory_dir: str, idx: dict[str, str], fp: int, with_archive: bool = True) -> tuple[Segment, Segment]:
    active_data, active_src = _read_source(os.path.join(memory_dir, ACTIVE))  # active first: see store
    writable = os.path.isdir(memory_dir)
    if with_archive:
        archive_data, archive_src = _read_source(os.path.join(memory_dir, ARCHIVE))
        old_archive = read_segment(idx[ARCHIVE], fp, with_keys=True)
        indexed_src = old_archive.src if old_archive is not None else None
        archive = update(old_archive, archive_data, archive_src)  # may extend old_archive in place
        if writable and archive_src is not None and indexed_src != archive_src:
            _write(idx[ARCHIVE], archive, fp)
    else:
        archive = Segment()
    active = update(read_segment(idx[ACTIVE], fp, with_keys=True), active_data, active_src)
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
    c.lens = {f: _concat("I", a.lens[f], b.lens[f]) for f in corpus_mod.FIELDS}
    c.ts = _concat("d", a.ts, b.ts)
    if a.len_sums is not None and b.len_sums is not None:
        c.len_sums = {f: a.len_sums[f] + b.len_sums[f] for f in corpus_mod.FIELDS}
    live = bytearray(a.live)
    for doc in active.dead:
        live[doc] = 0
    c.live = live + b.live
    readers = _EntryReader(memory_dir, archive, active)
    c.entry_at = readers.entry
    return c


class _EntryReader:
    """Entries fetched by offset; a line that no longer matches its CRC (the file changed) is None."""

    def __init__(self, memory_dir: str, archive: Segment, active: Segment) -> None:
        self.dir, self.archive, self.active = memory_dir, archive, active
        self.fds: dict[str, int | None] = {}

    def __del__(self) -> None:
        for fd in self.fds.values():
            if fd is not None:
                os.close(fd)

    def entry(self, doc: int) -> dict | None:
        from memory import jsonio
        from memory.entry import is_valid

        name, seg = (ARCHIVE, self.archive) if doc < self.archive.stats.n else (ACTIVE, self.active)
        local = doc - (0 if name == ARCHIVE else self.archive.stats.n)
        if name not in self.fds:
            try:
                self.fds[name] = os.open(os.path.join(self.dir, name), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                self.fds[name] = None
        fd = self.fds[name]
        if fd is None:
            return None
        line = os.pread(fd, seg.lengths[local], seg.offsets[local])
        if zlib.crc32(line) != seg.line_crcs[local]:
            return None
        try:
            obj = jsonio.json.loads(line)
        except ValueError:
            return None
        return obj if is_valid(obj) else None
