"""memory.search.segment_update, through the index: only new lines are tokenized, a forget and latest per key
span both files, a line still being written waits."""
from __future__ import annotations

import json
import os

from test_index import make, ranked, write_lines

from memory.search import corpus, index, rank
from memory.store import entry, store


def test_an_append_tokenizes_only_the_new_lines(mem, monkeypatch):
    write_lines(mem / store.ARCHIVE, [make(i) for i in range(300)])
    write_lines(mem / store.ACTIVE, [make(i) for i in range(300, 400)])
    index.load(str(mem))
    archive_index = os.stat(mem / index.INDEX[store.ARCHIVE])
    calls = []
    original = corpus.entry_terms
    monkeypatch.setattr(corpus, "entry_terms", lambda e: calls.append(e["key"]) or original(e))
    store.append(str(mem), [make(400, "a brand new insight about protobuf codegen")])
    key = entry.make_key("learned", "a brand new insight about protobuf codegen")
    assert ranked(mem, "protobuf codegen")[0][0] == key
    assert len(calls) == 1 + 1  # the new line, then the explanation of the one result
    after = os.stat(mem / index.INDEX[store.ARCHIVE])
    assert (after.st_ino, after.st_mtime_ns) == (archive_index.st_ino, archive_index.st_mtime_ns)  # not rewritten


def test_a_grown_archive_is_extended_not_retokenized(mem, monkeypatch):
    write_lines(mem / store.ARCHIVE, [make(i) for i in range(200)])
    index.load(str(mem))
    write_lines(mem / store.ARCHIVE, [make(i) for i in range(200, 210)])
    calls = []
    original = corpus.entry_terms
    monkeypatch.setattr(corpus, "entry_terms", lambda e: calls.append(1) or original(e))
    c = index.load(str(mem))
    assert len(calls) == 10 and c.live_count() == 210


def test_latest_per_key_spans_the_archive_and_the_active_file(mem):
    old = make(1, "the payment retry limit is three attempts per invoice")
    write_lines(mem / store.ARCHIVE, [old, make(2)])
    newer = dict(old, content="the payment retry limit is five attempts per invoice", ts=old["ts"] + 10)
    write_lines(mem / store.ACTIVE, [newer])
    top = [s.entry["content"] for s in rank.search(index.load(str(mem)), "payment retry limit")][:1]
    assert top == [newer["content"]]
    contents = [s.entry["content"] for s in rank.search(index.load(str(mem)), "three attempts per invoice")]
    assert old["content"] not in contents
    # a key whose archive version is newer (clock skew): the archive one wins, as in store.latest
    skewed = dict(make(2), content="an older rewrite of insight two", ts=1)
    write_lines(mem / store.ACTIVE, [skewed])
    found = [s.entry["content"] for s in rank.search(index.load(str(mem)), "older rewrite insight two")]
    assert "an older rewrite of insight two" not in found


def test_an_unterminated_last_line_waits_until_it_is_complete(mem):
    write_lines(mem / store.ACTIVE, [make(1)])
    line = json.dumps(make(2, "half written insight about kafka partitions"))
    with open(mem / store.ACTIVE, "a") as fh:
        fh.write(line[:40])
    assert not any("kafka" in k for k, _ in ranked(mem, "kafka partitions"))
    with open(mem / store.ACTIVE, "a") as fh:
        fh.write(line[40:] + "\n")
    assert ranked(mem, "kafka partitions")[0][0] == make(2, "half written insight about kafka partitions")["key"]
