"""One index segment file: the ranking statistics of one knowledge file, laid out so a query reads little.

    MAGIC, then the byte lengths (HEAD) of five parts:
    meta       marshal: identity of the source, counts, forgets, control lines, held docs and approvals, where
               each column is
    columns    arrays, 8-aligned: per document its field lengths, ts, liveness, line offset, length and CRC,
               folded search text and where it starts; the keyword words (every run of word characters of
               the search texts, sorted, each ending in a newline), where each starts, and per word the
               documents holding it; a query reads the ones it needs
    directory  the term directory in hashed buckets: a query reads one small bucket per word (each bucket
               behind its CRC-32, each entry with its posting's CRC-32: checked as read)
    postings   per term or concept, its rows (array 'I'), read on first use
    keys       marshal: each document's key (only an update, which must link versions, reads them)

Machine-local, so native byte order. memory.search.index decides when a segment is current, extends or rebuilds it;
memory.search.segment_write writes the file; memory.search.segfile opens and checks it (and is all
memory.search.find needs to read it); this module reads it back into a Segment.
"""
from __future__ import annotations

import marshal
import os
import struct
import zlib
from array import array

from memory import TYPE_CHECKING
from memory.core import fsio
from memory.search import concepts, segfile
from memory.search import corpus as corpus_mod
from memory.search.segfile import HEAD_SIZE, MAGIC  # noqa: F401 - segment's API too

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

HEAD = segfile.HEAD


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
        # keyword search (memory.search.find): each doc's folded search text, one after another, and where each starts
        self.text: Any = array("B")  # an array, or a _Lazy column (memory.search.find reads it from the file)
        self.text_at: Any = array("Q")
        self.words: dict[str, array] = {}  # keyword search: word -> the docs whose search text holds it
        self.controls: list[tuple[str, str, float, int]] = []  # (type, key, ts, line offset) of control lines
        # (doc, key, text sha, reasons) of the entries the screen flags (memory.store.hold)
        self.held: list[tuple[int, str, str, list[str]]] = []
        self.approvals: list[tuple[str, str, int]] = []  # (key, text sha, line offset) of approve lines
        self.malformed = 0  # lines neither an entry nor a control line

    def add_words(self, doc: int, words: set[str]) -> None:
        for word in words:
            docs = self.words.get(word)
            if docs is None:
                docs = self.words[word] = array("I")
            docs.append(doc)



def _read_words(column: Callable[..., Any]) -> dict[str, array]:
    """The word columns back as {word: docs} (before an update extends them)."""
    text, starts, docs, firsts = (column(name) for name in ("wtext", "wat", "wdocs", "wfirst"))
    if len(starts) != len(firsts) or not starts or starts[-1] != len(text) or firsts[-1] != len(docs):
        raise ValueError("word columns")
    raw = text.tobytes()
    return {raw[starts[i]:starts[i + 1] - 1].decode("utf-8", "surrogatepass"): docs[firsts[i]:firsts[i + 1]]
            for i in range(len(starts) - 1)}


def bucket_of(key: str) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogatepass"))


class LazyPostings(dict):
    """Postings read from the segment file on first use: a query touches a few dozen of them, so a
    100,000-entry archive costs a few small reads, not its whole term directory or its postings.

    Each bucket and posting is checked (CRC-32) as it is read. Damage seen there (only a lookup can see it)
    removes the file, so the next load rebuilds it, and this query goes on with `fallback`'s postings: those
    of the source, built in memory as when there is no index (memory.search.index gives it; without one, or
    when it returns None, the query goes on without the damaged terms)."""

    def __init__(self, fh: segfile.IndexFile, directory_at: int, postings_at: int, postings_end: int,
                 path: str = "", fallback: Callable[[], dict | None] | None = None) -> None:
        super().__init__()
        self.fh, self.directory_at, self.path = fh, directory_at, path
        self.postings_at, self.postings_end = postings_at, postings_end
        self.fallback = fallback
        self.source: dict | None = None  # the fallback's postings, once damage was seen
        self.buckets = struct.unpack("=Q", self._read(8, directory_at))[0]
        if not self.buckets or self.buckets & (self.buckets - 1) or self.buckets != fh.meta.get("buckets"):
            raise ValueError("bucket count")
        self.blocks_at = directory_at + 8 * (self.buckets + 2)
        self.loaded: dict[int, dict[str, tuple[int, int, int]]] = {}

    def _read(self, size: int, at: int) -> bytes:
        data = os.pread(self.fh.fileno(), size, at)
        if len(data) != size:
            raise ValueError("cut short")
        return data

    def damaged(self) -> dict | None:
        """Seen only now, at a lookup (a file is checked whole only by its size): the file goes, so the next
        load rebuilds it (unless it was replaced already); the source's postings from now on, if there are."""
        if self.source is None:
            self.fh.discard()
            built = self.fallback() if self.fallback is not None else None
            self.source = built if built is not None else {}
            self.fallback = None
        return self.source

    def bucket(self, number: int) -> dict[str, tuple[int, int, int]]:
        """One bucket of the term directory: {term: (offset, length, CRC-32) of its posting}."""
        found = self.loaded.get(number)
        if found is None:
            start, end = struct.unpack("=2Q", self._read(16, self.directory_at + 8 * (number + 1)))
            if not start < end <= self.postings_at - self.blocks_at:
                raise ValueError("bucket bounds")
            found = marshal.loads(fsio.unseal(self._read(end - start, self.blocks_at + start)))
            if not isinstance(found, dict):
                raise ValueError("bucket")
            self.loaded[number] = found
        return found

    def size(self, key: str) -> int:
        """How many numbers the posting of `key` holds (0 when absent or unreadable), without reading it."""
        if key in self:
            value = self[key]
            return len(value) if isinstance(value, array) else len(value) // 4
        if self.source is None:
            try:
                where = self.where(key)
                return where[1] // 4 if where else 0
            except _DAMAGE:
                pass
        value = self.damaged().get(key)  # type: ignore[union-attr]
        return 0 if value is None else len(value) if isinstance(value, array) else len(value) // 4

    def where(self, key: str) -> tuple[int, int, int] | None:
        """(offset, length, CRC-32) of the posting of `key`, or None; ValueError when the directory is damaged."""
        where = self.bucket(bucket_of(key) & (self.buckets - 1)).get(key)
        if where is None:
            return None
        offset, length, crc = where
        if not (type(offset) is int and type(length) is int and type(crc) is int and offset >= 0 and length >= 0
                and length % 4 == 0 and self.postings_at + offset + length <= self.postings_end):
            raise ValueError("posting bounds")
        return offset, length, crc

    def _posting(self, where: tuple[int, int, int]) -> bytes:
        data = self._read(where[1], self.postings_at + where[0])
        if zlib.crc32(data) != where[2]:
            raise ValueError("posting checksum")
        return data

    def get(self, key: str, default: bytes | None = None) -> bytes | None:  # type: ignore[override]
        if key in self:
            return self[key]
        if self.source is None:
            try:
                where = self.where(key)
                if where is None:
                    return default
                data = self._posting(where)
                self[key] = data
                return data
            except _DAMAGE:
                pass
        value = self.damaged().get(key)  # type: ignore[union-attr]
        if value is None:
            return default
        self[key] = value
        return value

    def materialize(self) -> dict[str, array | bytes]:
        """Every posting in memory; ValueError when one is damaged or cut short."""
        out: dict[str, array | bytes] = {}
        for number in range(self.buckets):
            for key in self.bucket(number):
                out[key] = self._posting(self.where(key))  # type: ignore[arg-type]
        return out


# what damage in the term directory or the postings can raise while they are read (marshal: ValueError, EOFError,
# TypeError; a value of the wrong shape: TypeError on unpacking; MemoryError, OverflowError: a count it trusted)
_DAMAGE = (ValueError, EOFError, TypeError, struct.error, MemoryError, OverflowError, IndexError)


def concat(code: str, *parts: Any) -> array:
    out = array(code)
    for part in parts:
        out.frombytes(memoryview(part).cast("B"))
    return out


def array_of(code: str, data: bytes | memoryview) -> array:
    a = array(code)
    a.frombytes(data)
    return a


def read_segment(path: str, fp: int, with_keys: bool = False,
                 fallback: Callable[[], dict | None] | None = None) -> Segment | None:
    """The segment stored at `path`, or None when missing, corrupt or of another version. `fallback`: the
    source's postings, for a query that finds the file's damaged (LazyPostings)."""
    fh = segfile.open_index(path, fp)  # stays open: LazyPostings reads the postings from it later
    if fh is None:
        return None
    try:
        meta = fh.meta
        concepts.seed(meta["concepts"])
        at, lengths = fh.starts, fh.lengths
        column = _column_reader(fh, at[1], lengths[1], meta["cols"], copy=with_keys, crcs=meta["ccrc"])
        seg = Segment()
        s = seg.stats
        s.n = meta["n"]
        s.lens = {f: column(f"lens.{f}") for f in corpus_mod.FIELDS}
        s.len_sums = meta["lsum"]
        s.ts, s.live = column("ts"), bytearray(column("live"))
        seg.src, seg.end, seg.crc = tuple(meta["src"]) if meta["src"] else None, meta["end"], meta["crc"]
        # a prompt reads a few lines: their offsets, lengths and CRCs are read one by one
        seg.offsets, seg.lengths, seg.line_crcs = column("off", lazy=True), column("len", lazy=True), \
            column("lcrc", lazy=True)
        seg.dead, seg.against = list(meta["dead"]), meta["against"]
        seg.forgets = [tuple(f) for f in meta["forgets"]]
        seg.controls = [tuple(c) for c in meta["controls"]]
        seg.held = [tuple(h) for h in meta["held"]]
        seg.approvals = [tuple(a) for a in meta["approvals"]]
        seg.malformed = meta["malformed"]
        seg.text, seg.text_at = column("text", lazy=True), column("tat", lazy=True)
        lazy = LazyPostings(fh, at[2], at[3], at[4], path, fallback)
        seg.postings = lazy
        if with_keys:  # an update follows: it needs every posting and word in memory, and the keys
            seg.postings = lazy.materialize()
            seg.words = _read_words(column)
            s.keys = marshal.loads(fh.part(segfile.KEYS))
            fh.close()
        sizes = {len(s.ts), len(s.live), len(seg.offsets), len(seg.lengths), len(seg.line_crcs), len(seg.text_at)}
        if sizes != {s.n} or any(len(a) != s.n for a in s.lens.values()) or (with_keys and len(s.keys) != s.n):
            return None
        return seg
    except Exception:  # any damage at all: the caller rebuilds from the source
        fh.close()
        return None


def _column_reader(fh: segfile.IndexFile, start: int, size: int, places: dict[str, tuple[int, int, str]],
                   copy: bool, crcs: dict[str, int]) -> Callable[..., Any]:
    """name -> that column as an array; with `lazy` (and no `copy`) a _Lazy one, read when used. Reads, not a
    memory map: a map of a file someone truncates kills the process (SIGBUS) instead of failing open. A column
    with a CRC in `crcs` is checked: ValueError when it does not match."""
    raw = memoryview(fh.read(size, start) if copy else b"")

    def column(name: str, lazy: bool = False) -> Any:
        at, count, code = places[name]
        itemsize = array(code).itemsize
        if copy:
            data: Any = raw[at:at + count * itemsize]
        elif lazy:
            return _Lazy(fh, start + at, count, code)
        else:
            data = os.pread(fh.fileno(), count * itemsize, start + at)
        if len(data) != count * itemsize:
            raise ValueError("cut short")
        if name in crcs and zlib.crc32(data) != crcs[name]:
            raise ValueError(f"column {name}: its checksum does not match")
        return array_of(code, data)

    return column


class _Lazy:
    """A column left in the index file: one item read per index, or all of it by read()."""

    def __init__(self, fh: segfile.IndexFile, at: int, count: int, code: str) -> None:
        self.fh, self.at, self.count, self.code = fh, at, count, code
        self.size = array(code).itemsize

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> Any:
        if not 0 <= i < self.count:
            raise IndexError(i)
        data = os.pread(self.fh.fileno(), self.size, self.at + i * self.size)
        if len(data) != self.size:
            raise ValueError("cut short")
        return array_of(self.code, data)[0]

    def read(self) -> bytes:
        data = os.pread(self.fh.fileno(), self.count * self.size, self.at)
        if len(data) != self.count * self.size:
            raise ValueError("cut short")
        return data
