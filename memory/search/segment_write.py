"""Writing an index segment file (memory.search.segment: its layout, the Segment, reading it back): the meta
behind its checksum, the columns 8-aligned, the term directory in hashed buckets, the postings, the keys."""
from __future__ import annotations

import marshal
import struct
import zlib
from array import array

from memory.core import fsio
from memory.search import concepts
from memory.search.segfile import HEAD, MAGIC
from memory.search.segment import Segment, array_of, bucket_of


def to_bytes(seg: Segment, fp: int) -> bytes:
    """The segment file's bytes (the layout in memory.search.segment's docstring)."""
    s = seg.stats
    whole = [(f"lens.{f}", a) for f, a in s.lens.items()] + [("ts", s.ts), ("live", array_of("B", bytes(s.live)))]
    columns, places = _columns(whole + [("off", seg.offsets), ("len", seg.lengths),
        ("lcrc", seg.line_crcs), ("text", seg.text), ("tat", seg.text_at)] + _word_columns(seg.words))
    meta = marshal.dumps({
        "fp": fp, "src": seg.src, "end": seg.end, "crc": seg.crc, "n": s.n, "cols": places,
        "lsum": {f: sum(a) for f, a in s.lens.items()},
        "forgets": seg.forgets, "dead": seg.dead, "against": seg.against, "concepts": concepts.term_map(),
        "controls": seg.controls, "malformed": seg.malformed, "held": seg.held, "approvals": seg.approvals,
        "buckets": bucket_count(len(seg.postings)),
        # the columns a load reads whole, checked as read (a damaged liveness could bring back a forgotten entry)
        "ccrc": {name: zlib.crc32(memoryview(values).cast("B")) for name, values in whole}})
    meta += b"\0" * (-(len(meta) + 4) % 8)  # the columns after it stay 8-aligned (marshal ignores the pad)
    meta = fsio.seal(meta)  # checked before marshal reads it (fsio.seal: a damaged count would hang the reader)
    blobs: list[bytes] = []
    buckets: list[dict[str, tuple[int, int, int]]] = [{} for _ in range(bucket_count(len(seg.postings)))]
    mask, at = len(buckets) - 1, 0
    for key, value in seg.postings.items():
        blob = value.tobytes() if isinstance(value, array) else value
        buckets[bucket_of(key) & mask][key] = (at, len(blob), zlib.crc32(blob))  # checked at each read
        blobs.append(blob)
        at += len(blob)
    return _pack(meta, columns, _directory(buckets), b"".join(blobs), marshal.dumps(s.keys))


def _columns(named: list[tuple[str, array]]) -> tuple[bytes, dict[str, tuple[int, int, str]]]:
    """The per-document arrays as raw bytes, each 8-aligned, and where each is: {name: (at, count, code)}, so a
    reader takes only the columns it needs (a query touches a few of 100,000 documents)."""
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


def _word_columns(words: dict[str, array]) -> list[tuple[str, array]]:
    """The words sorted, each ending in a newline ("wtext"), where each starts plus the end ("wat"), and the
    documents of word i: "wdocs"[wfirst[i]:wfirst[i + 1]]."""
    text, starts, docs, firsts = array("B"), array("Q", [0]), array("I"), array("Q", [0])
    for word in sorted(words):
        text.frombytes(word.encode("utf-8", "surrogatepass") + b"\n")
        starts.append(len(text))
        docs.extend(words[word])
        firsts.append(len(docs))
    return [("wtext", text), ("wat", starts), ("wdocs", docs), ("wfirst", firsts)]


def _pack(*parts: bytes) -> bytes:
    return MAGIC + struct.pack(HEAD, *map(len, parts)) + b"".join(parts)


def bucket_count(terms: int) -> int:
    """A power of two near terms / 8: a lookup reads one bucket of about eight directory entries."""
    count = 1
    while count * 8 < terms:
        count *= 2
    return count


def _directory(buckets: list[dict[str, tuple[int, int, int]]]) -> bytes:
    """The term directory as stored (machine-local, so native byte order): the bucket count, a table of
    bucket count + 1 offsets (array 'Q'), then each bucket's marshalled {term: (posting offset, length, CRC-32
    of the posting)} behind its own CRC-32 (fsio.seal: marshal trusts a count, and one damaged count claims
    gigabytes). A query reads the table slots and buckets it needs, and checks each bucket and posting it reads."""
    blocks = [fsio.seal(marshal.dumps(bucket)) for bucket in buckets]
    table = array("Q", [0])
    for block in blocks:
        table.append(table[-1] + len(block))
    return array("Q", [len(buckets)]).tobytes() + table.tobytes() + b"".join(blocks)
