"""An index segment file opened and checked with nothing heavier than marshal: its meta and its columns.

memory.search.segment_write writes these files, memory.search.segment reads them into a Segment for the ranker;
memory.search.find answers `recall.sh KEYWORD --all` straight from them, without importing json, re or array
(docs/performance.md).
The layout is in memory.search.segment's docstring.
"""
from __future__ import annotations

import marshal
import os

from memory.core.fsio import open_regular, unseal

MAGIC = b"MHRID10\n"  # 9: the meta behind its checksum (memory.core.fsio.seal); 10: each bucket and posting too
HEAD = "<5Q"  # the byte lengths of: meta, columns, term directory, postings, keys
HEAD_SIZE = 8 + 5 * 8
META, COLUMNS, DIRECTORY, POSTINGS, KEYS = range(5)
# memory.search.index.fingerprint() of this version's tokens, concepts and tags; tests/search/test_index.py holds it
# to the computed value, so a reader that cannot afford to import the tokenizer still refuses an index
# another version wrote.
FINGERPRINT = 216917078
ITEM_SIZE = {"B": 1, "I": 4, "Q": 8, "d": 8}


class IndexFile:
    """One open segment file: `meta`, where each part starts, and reads of its columns (os.pread, not a
    memory map: a map of a file someone truncates kills the process with SIGBUS instead of failing)."""

    def __init__(self, fd: int, path: str, meta: dict, lengths: tuple[int, ...]) -> None:
        self.fd, self.path, self.meta, self.lengths = fd, path, meta, lengths
        self.starts = [HEAD_SIZE + sum(lengths[:i]) for i in range(len(lengths))]

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self) -> None:
        self.close()

    def discard(self) -> None:
        """Remove the file (damaged), unless another process has replaced it already."""
        try:
            if os.stat(self.path).st_ino == os.fstat(self.fd).st_ino:
                os.unlink(self.path)
        except OSError:
            pass

    def read(self, size: int, at: int) -> bytes:
        """`size` bytes at `at`; ValueError when the file is shorter (cut under us)."""
        data = os.pread(self.fd, size, at)
        if len(data) != size:
            raise ValueError("cut short")
        return data

    def part(self, number: int) -> bytes:
        return self.read(self.lengths[number], self.starts[number])

    def place(self, name: str) -> tuple[int, int, str]:
        """(file offset, item count, array code) of a column."""
        at, count, code = self.meta["cols"][name]
        if code not in ITEM_SIZE or at < 0 or count < 0 or at + count * ITEM_SIZE[code] > self.lengths[COLUMNS]:
            raise ValueError(f"column {name}")
        return self.starts[COLUMNS] + at, count, code

    def raw(self, name: str) -> bytes:
        """The whole column's bytes."""
        at, count, code = self.place(name)
        return self.read(count * ITEM_SIZE[code], at)

    def column(self, name: str) -> memoryview:
        """The whole column, indexable like the array it was written from."""
        return memoryview(self.raw(name)).cast(self.place(name)[2])  # type: ignore[call-overload]

    def items(self, name: str, first: int, stop: int) -> memoryview:
        """Items first..stop-1 of a column (one small read: a query touches few of 100,000 documents)."""
        at, count, code = self.place(name)
        if not 0 <= first <= stop <= count:
            raise ValueError(f"{name}[{first}:{stop}] of {count}")
        size = ITEM_SIZE[code]
        return memoryview(self.read((stop - first) * size, at + first * size)).cast(code)  # type: ignore[call-overload]


def open_index(path: str, fp: int) -> IndexFile | None:
    """The segment file at `path` with its meta, or None when missing, not whole, damaged or written by
    another version (`fp`, the fingerprint)."""
    try:
        fd = open_regular(path, os.O_RDONLY)  # a FIFO there: unreadable, not an open waiting for a writer
    except OSError:
        return None
    try:
        head = os.pread(fd, HEAD_SIZE, 0)
        if head[:8] != MAGIC or len(head) != HEAD_SIZE:
            raise ValueError("not an index")
        lengths = tuple(int.from_bytes(head[at:at + 8], "little") for at in range(8, HEAD_SIZE, 8))  # HEAD
        if os.fstat(fd).st_size != HEAD_SIZE + sum(lengths):
            raise ValueError("cut short or grown: not a file we wrote whole")
        meta = marshal.loads(unseal(os.pread(fd, lengths[META], HEAD_SIZE)))
        if not isinstance(meta, dict) or meta.get("fp") != fp:
            raise ValueError("another version")
        return IndexFile(fd, path, meta, lengths)
    except Exception:  # any damage at all: the caller rebuilds or scans
        os.close(fd)
        return None
