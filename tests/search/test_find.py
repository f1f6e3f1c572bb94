"""memory.search.find: a keyword search through the index gives exactly the scan's answer, or None."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import random_files
from helpers import write_raw as write
from memory.commands import recall_search
from memory.core import textmatch
from memory.runtimes import hookrun
from memory.search import find, index
from memory.store import entry, store


def scan(memory_dir, terms, include_archive=True):
    """The answer without any index: every line of both files (or the active knowledge's), latest per key,
    filtered in memory."""
    lines = store.load(str(memory_dir), include_archive=include_archive).entries
    return recall_search.select(store.latest(lines), terms, None, None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), term=st.sampled_from(["deploy", "ss", "strasse", "file", "istanbul", "#1",
                                                         "topic", "bd-3", "cache retry", "zzz", "e", "-", "ß-s",
                                                         "-straße", "deployment", "#"]))
def test_the_index_answers_exactly_what_the_scan_answers(tmp_path_factory, seed, term):
    mem = tmp_path_factory.mktemp("m")
    random_files(mem, random.Random(seed), 40)
    terms = textmatch.terms_of([term])
    found = find.find(str(mem), terms)
    assert found is not None
    assert found[0] == scan(mem, terms)
    assert found[1] == store.load(str(mem), include_archive=True).malformed
    alone = find.find(str(mem), terms, include_archive=False)  # recall.sh KEYWORD: the active knowledge
    if alone is not None:  # None where an archived line outranks an active one (ts reversed): the scan answers
        assert alone[0] == scan(mem, terms, include_archive=False)
        assert alone[1] == store.load(str(mem)).malformed


@pytest.mark.parametrize("archived_ts", [5, 500, float("nan")], ids=["older", "newer", "nan"])
def test_the_active_knowledge_alone_from_the_index_only_when_the_archive_is_older(mem, archived_ts):
    old = dict(entry.build("LEARNED[deploy-step]: deploy with the old script", "BD-1", "orchestrator"), ts=archived_ts)
    write(mem / store.ARCHIVE, [old, entry.build("LEARNED: deploy notes from last year", "BD-2", "orchestrator", ts=1)])
    write(mem / store.ACTIVE, [entry.build("LEARNED[deploy-step]: deploy with make release", "BD-3", "orchestrator",
                                           ts=100),
                               entry.build("LEARNED: the deploy queue retries", "BD-4", "orchestrator", ts=101)])
    index.load(str(mem))
    alone = find.find(str(mem), ["deploy"], include_archive=False)
    assert (alone is not None) == (archived_ts != 500)  # a NaN ts is a malformed line (memory.core.shape)
    chosen, _ = recall_search.search(str(mem), ["deploy"], None, None, include_archive=False)
    assert chosen == scan(mem, ["deploy"], include_archive=False)
    assert [e["bead"] for e in chosen] == ["BD-4", "BD-3"]  # the archive's lines are not the active knowledge


def test_recall_keyword_all_goes_through_the_index_and_after_a_capture_too(mem, monkeypatch):
    random_files(mem, random.Random(7), 30)
    calls = []
    real = find.find
    monkeypatch.setattr(find, "find", lambda *a, **k: calls.append(a) or real(*a, **k))
    chosen, _ = recall_search.search(str(mem), ["deploy"], None, None, include_archive=True)
    assert calls and chosen == scan(mem, ["deploy"])
    write(mem / store.ACTIVE, [entry.build("LEARNED: deploy freshly captured", "BD-9", "orchestrator", ts=2e9)])
    chosen, _ = recall_search.search(str(mem), ["deploy"], None, None, include_archive=True)
    assert chosen[0]["content"] == "LEARNED: deploy freshly captured" and chosen == scan(mem, ["deploy"])


def test_an_archive_that_would_be_indexed_from_scratch_is_scanned_instead(mem, monkeypatch):
    random_files(mem, random.Random(3), 30)
    monkeypatch.setattr(index, "INLINE_BUILD_BYTES", 100)  # "large": no inline build from scratch
    monkeypatch.setenv(hookrun.FOREGROUND_ENV, "1")  # the background build, in this process
    calls = []
    real_load = index.load
    monkeypatch.setattr(index, "load", lambda *a, **k: calls.append(a) or real_load(*a, **k))
    assert find.find(str(mem), ["deploy"]) is None  # this time the scan answers ...
    assert calls == [(str(mem),)]  # ... while the whole index is built "in the background"
    chosen, _ = recall_search.search(str(mem), ["deploy"], None, None, include_archive=True)
    assert chosen == scan(mem, ["deploy"])
    assert find.find(str(mem), ["deploy"]) is not None  # the next search uses it


def test_a_line_changed_under_the_index_is_not_trusted(mem):
    write(mem / store.ACTIVE, [entry.build("LEARNED: deploy with care", "BD-1", "orchestrator", ts=1)])
    index.load(str(mem))
    archive, active, _ = index.segments(str(mem))
    data = (mem / store.ACTIVE).read_bytes()
    import os

    mtime = os.stat(mem / store.ACTIVE).st_mtime_ns
    # the same size and the same identity the index recorded, but other bytes: only the line's CRC tells
    (mem / store.ACTIVE).write_bytes(data.replace(b"care", b"CARE"))
    os.utime(mem / store.ACTIVE, ns=(mtime, mtime))
    ino = os.stat(mem / store.ACTIVE).st_ino
    if ino != active.src[0]:
        pytest.skip("the filesystem gave the rewritten file another inode")
    assert find.find(str(mem), ["deploy"]) is None


def test_an_index_cut_short_under_the_search_is_scanned_around(mem, monkeypatch):
    random_files(mem, random.Random(5), 30)
    index.load(str(mem))
    real = find.current

    def cut_after_open(*args, **kwargs):
        got = real(*args, **kwargs)
        monkeypatch.setattr(find, "current", real)  # once
        for name in (store.ACTIVE, store.ARCHIVE):
            with open(mem / index.INDEX[name], "r+b") as fh:
                fh.truncate(100)  # in place, after the segments were opened
        return got

    monkeypatch.setattr(find, "current", cut_after_open)
    assert find.find(str(mem), ["deploy"]) is None
    chosen, _ = recall_search.search(str(mem), ["deploy"], None, None, include_archive=True)
    assert chosen == scan(mem, ["deploy"])


@pytest.mark.parametrize("starts", [[5, 0, 9], [0, 0, 0], [3, 4, 5], [0, 2**40, 1]])
def test_damaged_document_starts_never_loop(starts):
    from array import array

    try:
        docs = find._holding(b"deploy a\ndeploy b\ndeploy c\n", array("Q", starts), b"deploy")
    except ValueError:
        return
    assert docs <= {0, 1, 2}
    assert find._holding(b"deploy a\nkeep b\ndeploy c\n", array("Q", [0, 9, 16]), b"deploy") == {0, 2}


def test_a_damaged_search_text_in_the_index_still_gives_the_exact_answer(mem):
    """The index's search text altered in place (same size) so that it names "deploy" where the entries say
    "token": each line read is checked against the terms, so the answer stays the scan's."""
    import marshal
    import struct

    from memory.core import fsio
    from memory.search import segment

    random_files(mem, random.Random(11), 40)
    index.load(str(mem))
    altered = 0
    for name in (store.ACTIVE, store.ARCHIVE):
        path = mem / index.INDEX[name]
        data = bytearray(path.read_bytes())
        meta_len = struct.unpack_from(segment.HEAD, data, 8)[0]
        at, count, _ = marshal.loads(fsio.unseal(bytes(data[segment.HEAD_SIZE:segment.HEAD_SIZE + meta_len])))[
            "cols"]["text"]
        start = segment.HEAD_SIZE + meta_len + at
        text = bytes(data[start:start + count])
        altered += text.count(b"token ")
        data[start:start + count] = text.replace(b"token ", b"deploy")
        path.write_bytes(bytes(data))
    assert altered
    found = find.find(str(mem), ["deploy"])
    assert found is not None and found[0] == scan(mem, ["deploy"])


def _alter_column(path, name, change) -> int:
    """Rewrite one column of an index file in place, same size; returns how many places changed."""
    from memory.search import segfile

    data = bytearray(path.read_bytes())
    seg = segfile.open_index(str(path), segfile.FINGERPRINT)
    at, count, code = seg.place(name)
    seg.close()
    end = at + count * segfile.ITEM_SIZE[code]
    altered, changed = change(bytes(data[at:end]))
    data[at:end] = altered
    path.write_bytes(bytes(data))
    return changed


def test_a_damaged_word_list_in_the_index_still_gives_the_exact_answer(mem):
    """The index's word "schema" renamed "deploy" in place: the index names the schema entries for "deploy",
    and each line read is checked against the term, so the answer stays the scan's."""
    random_files(mem, random.Random(12), 40)
    index.load(str(mem))
    altered = sum(_alter_column(mem / index.INDEX[name], "wtext",
                                lambda text: (text.replace(b"\nschema\n", b"\ndeploy\n"), text.count(b"\nschema\n")))
                  for name in (store.ACTIVE, store.ARCHIVE))
    assert altered
    found = find.find(str(mem), ["deploy"])
    assert found is not None and found[0] == scan(mem, ["deploy"])


def test_postings_out_of_bounds_make_the_scan_answer(mem):
    random_files(mem, random.Random(13), 40)
    index.load(str(mem))
    for name in (store.ACTIVE, store.ARCHIVE):
        _alter_column(mem / index.INDEX[name], "wdocs", lambda docs: (b"\xff" * len(docs), len(docs)))
    assert find.find(str(mem), ["deploy"]) is None  # the scan answers this time ...
    assert not (mem / index.INDEX[store.ACTIVE]).exists()  # ... and the damaged index is gone
    chosen, _ = recall_search.search(str(mem), ["deploy"], None, None, include_archive=True)  # rebuilt
    assert chosen == scan(mem, ["deploy"]) and find.current(str(mem)) is not None


@pytest.mark.parametrize("term", ["deploy", "e", "ss", "#1"])
def test_a_term_inside_too_many_words_is_looked_for_in_the_search_text(mem, monkeypatch, term):
    random_files(mem, random.Random(14), 40)
    index.load(str(mem))
    monkeypatch.setattr(find, "MANY_WORDS", 0)
    searched = []
    real = find._holding
    monkeypatch.setattr(find, "_holding", lambda *a: searched.append(a[2]) or real(*a))
    terms = textmatch.terms_of([term])
    found = find.find(str(mem), terms)
    assert found is not None and found[0] == scan(mem, terms) and searched


def test_a_line_failing_its_crc_sends_the_search_to_the_scan_once_and_the_index_is_rebuilt(tmp_path):
    """A damaged line column (no checksum of its own) fails a line's CRC: the scan answered, right, but the index
    stayed, so every later keyword search scanned both files. Now it goes, and the next search has an index."""
    from memory.search import segfile

    write(tmp_path / store.ACTIVE, [entry.build(f"deploy note {i} about caches", "", "t", ts=i) for i in range(30)])
    index.load(str(tmp_path))
    path = tmp_path / index.INDEX[store.ACTIVE]
    opened = segfile.open_index(str(path), index.fingerprint())
    at, _, code = opened.place("lcrc")
    opened.close()
    data = bytearray(path.read_bytes())
    data[at + 5 * segfile.ITEM_SIZE[code]] ^= 0x04  # the sixth line's CRC: only a read of that line can tell
    path.write_bytes(bytes(data))
    assert find.find(str(tmp_path), ["deploy"], refresh=False) is None  # the scan answers this one
    assert not path.exists()
    found = find.find(str(tmp_path), ["deploy"])  # rebuilt: the index answers again, exactly
    assert found is not None and found[0] == scan(tmp_path, ["deploy"])
