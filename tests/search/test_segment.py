"""memory.search.segment: the on-disk layout of an index segment; lookups read little and damage is no error."""
from __future__ import annotations

import struct

import pytest
from test_index import expected, make, ranked, write_lines

from memory.search import index, rank, segfile, segment, segment_update
from memory.store import store


def test_every_term_is_found_through_the_on_disk_directory(mem):
    # enough distinct terms for many directory buckets: each lookup reads one bucket, never the whole directory
    write_lines(mem / store.ACTIVE, [make(i, f"unique{i} word{i % 97} shared") for i in range(400)])
    built = segment_update.update(None, (mem / store.ACTIVE).read_bytes(), None)
    index.load(str(mem))
    seg = segment.read_segment(str(mem / index.INDEX[store.ACTIVE]), index.fingerprint())
    assert seg is not None and seg.postings.buckets > 8
    for term, rows in built.postings.items():
        assert seg.postings.size(term) == len(rows)
        assert seg.postings.get(term) == rows.tobytes()
    assert seg.postings.get("absent-term") is None and seg.postings.size("absent-term") == 0


@pytest.mark.parametrize("where", ["table", "bucket", "posting offsets"])
def test_damage_found_at_a_lookup_is_no_error_and_the_next_load_rebuilds(mem, monkeypatch, where):
    write_lines(mem / store.ACTIVE, [make(i) for i in range(60)])
    path = mem / index.INDEX[store.ACTIVE]
    if where == "posting offsets":  # a directory naming places past the postings
        written = segment._directory
        monkeypatch.setattr(segment, "_directory", lambda buckets: written(
            [{term: (at + (1 << 30), size) for term, (at, size) in b.items()} for b in buckets]))
        index.load(str(mem))
        monkeypatch.undo()
    else:
        index.load(str(mem))
        data = bytearray(path.read_bytes())
        head = struct.unpack_from(segment.HEAD, data, 8)
        directory = segment.HEAD_SIZE + head[0] + head[1]
        buckets = struct.unpack_from("=Q", data, directory)[0]
        if where == "table":  # every bucket's end far past the directory
            for number in range(buckets):
                struct.pack_into("=Q", data, directory + 8 * (number + 2), 1 << 40)
        else:
            blocks = directory + 8 * (buckets + 2)
            data[blocks:directory + head[2]] = b"\xff" * (directory + head[2] - blocks)  # not marshal
        path.write_bytes(bytes(data))  # same size: only a lookup can tell
    found = rank.search(index.load(str(mem)), "cache schema retry token")
    assert found == []  # no exception; no term could be read
    assert not path.exists()  # so the next load rebuilds it
    assert ranked(mem, "cache schema") == expected(mem, "cache schema")
    assert segment.read_segment(str(path), index.fingerprint()) is not None


def test_an_index_truncated_in_place_under_a_reader_is_no_crash(mem):
    """The columns are read, never memory-mapped: a mapped file cut short kills its reader with SIGBUS,
    where a read just comes back short (and the hook fails open)."""
    write_lines(mem / store.ACTIVE, [make(i) for i in range(300)])
    index.load(str(mem))
    path = mem / index.INDEX[store.ACTIVE]
    seg = segment.read_segment(str(path), index.fingerprint())
    opened = segfile.open_index(str(path), segfile.FINGERPRINT)  # as memory.search.find reads it
    assert seg is not None and opened is not None
    with open(path, "r+b") as fh:
        fh.truncate(segment.HEAD_SIZE + 16)  # in place: the same inode, most of it gone
    with pytest.raises(ValueError):
        opened.raw("wtext")  # memory.search.find then answers None: recall.sh scans the files instead
    with pytest.raises(ValueError):
        seg.offsets[299]  # memory.search.index's entry reader then answers None: that entry is not shown
