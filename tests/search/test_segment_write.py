"""memory.search.segment_write: a segment's bytes, read back by memory.search.segment as they were built."""
import json

from test_index import make

from memory.search import index, segment, segment_update, segment_write


def test_what_is_written_reads_back_the_same(tmp_path):
    data = b"".join(json.dumps(make(i, f"unique{i} word{i % 7} shared")).encode() + b"\n" for i in range(100))
    built = segment_update.update(None, data, (1, 2, len(data), 3))
    path = tmp_path / "knowledge.index"
    path.write_bytes(segment_write.to_bytes(built, index.fingerprint()))
    read = segment.read_segment(str(path), index.fingerprint(), with_keys=True)
    assert read is not None and read.stats.n == built.stats.n == 100 and read.stats.keys == built.stats.keys
    assert {k: bytes(v) for k, v in read.postings.items()} == {k: bytes(v) for k, v in built.postings.items()}
    assert read.words == built.words and read.src == built.src and read.end == built.end
    assert segment.read_segment(str(path), index.fingerprint() + 1) is None  # another version's: rebuilt


def test_a_bucket_holds_about_eight_terms():
    assert [segment_write.bucket_count(n) for n in (0, 8, 9, 64, 65, 1000)] == [1, 1, 2, 8, 16, 128]
