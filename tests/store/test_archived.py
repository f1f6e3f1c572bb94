"""memory.store.archived: the archive's part of the live view, with the cap binding and active lines touching
the keys past it (a pin given later, a forget, a correction, an older copy merged in)."""
import json
import os
import random

import pytest
from test_view import random_lines

from memory.core import layout
from memory.store import archived, view


def write(path, lines):
    with open(path, "w") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("seed", range(8))
def test_with_the_cap_binding_the_part_and_the_touched_keys_give_what_both_files_give(tmp_path, monkeypatch, seed):
    """Ties of `ts` (whole seconds) included: a touched key's lines stand where the archive has them, so the later
    line wins across keys as it does in both files read whole (appended after the part, they won every tie)."""
    rng = random.Random(seed)
    d = str(tmp_path)
    for n in range(300):
        monkeypatch.setattr(archived, "ARCHIVE_LIVE", rng.randint(0, 4))
        lines = json.loads(json.dumps(random_lines(rng, rng.randint(0, 40))))  # as read back from a file
        cut = rng.randint(0, len(lines))
        archive, active = lines[:cut], lines[cut:]
        write(os.path.join(d, layout.ARCHIVE), archive)
        found, exact = archived.part(d, archived.source(d), None)
        assert exact
        before, older = archived.before(d, found, active)
        kept_past = view.deciding(archive, archived.ARCHIVE_LIVE)[1]
        untouched = set(kept_past) - {line["key"] for line in active}
        assert older == len(untouched)
        expected = [line for line in archive if line["key"] not in untouched]  # what stays out: those keys
        assert view.latest(before + active, include_held=True) == view.latest(expected + active, include_held=True), n


def test_a_cached_part_is_used_for_its_archive_only_and_a_stale_one_stands_in_for_a_large_archive(tmp_path,
                                                                                                    monkeypatch):
    d = str(tmp_path)
    entry = {"key": "k", "type": "learned", "content": "an archived text", "source": "x", "tags": [], "ts": 1}
    write(os.path.join(d, layout.ARCHIVE), [entry])
    src = archived.source(d)
    found, exact = archived.part(d, src, None)
    cache = tmp_path / layout.START_CACHE

    cache.write_bytes(cached_bytes(archived.record(src, found)))
    write(os.path.join(d, layout.ARCHIVE), [dict(entry, content="rewritten")])  # another archive now
    monkeypatch.setattr(archived, "INLINE_BYTES", 10)  # too large to read in a hook
    stale, exact = archived.part(d, archived.source(d), cache.read_bytes())
    assert not exact and stale.lines[0]["content"] == "an archived text"  # the one before stands in
    fresh, exact = archived.part(d, archived.source(d), cache.read_bytes(), read_large=True)
    assert exact and fresh.lines[0]["content"] == "rewritten"
    assert archived.part(d, archived.source(d), None) == (None, False)  # nothing cached, not read


def test_an_archive_that_cannot_be_read_leaves_the_active_knowledge(tmp_path):
    d = str(tmp_path)
    os.mkdir(os.path.join(d, layout.ARCHIVE))  # a folder in its place
    found, exact = archived.part(d, archived.source(d), None)
    assert found is None and not exact
    link = tmp_path / "other"
    link.mkdir()
    os.rmdir(os.path.join(d, layout.ARCHIVE))
    os.symlink(tmp_path / "elsewhere.jsonl", os.path.join(d, layout.ARCHIVE))
    (tmp_path / "elsewhere.jsonl").write_text("{}\n")
    assert archived.part(d, archived.source(d), None) == (None, False)  # a link is not followed


def cached_bytes(record: dict) -> bytes:
    import marshal

    from memory.core import fsio

    return fsio.sections(fsio.seal(marshal.dumps({})), fsio.seal(marshal.dumps(record)))


def test_a_cached_part_whose_lines_are_not_lines_is_not_used(tmp_path):
    """A crafted or foreign knowledge.start passing its checksum: a line whose content is a number broke every
    session start until the archive changed."""
    d = str(tmp_path)
    write(os.path.join(d, layout.ARCHIVE), [{"key": "k", "type": "learned", "content": "text", "source": "x",
                                             "tags": [], "ts": 1}])
    src = archived.source(d)
    bad = {"key": "k", "type": "learned", "content": 5, "ts": 1}
    record = dict(archived.record(src, archived.Part([bad], [0], {})))
    assert archived.cached_record(cached_bytes(record)) is None
    good = archived.record(src, archived.part(d, src, None)[0])
    assert archived.cached_record(cached_bytes(good))["part"].lines[0]["content"] == "text"


def test_a_key_past_the_cap_is_found_whatever_its_letters(tmp_path, monkeypatch):
    """The archive is searched for a touched key's quoted spelling: with capitals beyond ASCII (a hand-written key),
    a case-folded needle never matched the bytes."""
    monkeypatch.setattr(archived, "ARCHIVE_LIVE", 0)
    d = str(tmp_path)
    keys = ["learned-Émile-notes", "learned-straße-notes", "learned-ǅ-x"]
    with open(os.path.join(d, layout.ARCHIVE), "w", encoding="utf-8") as fh:  # as orjson writes: UTF-8, no escapes
        fh.writelines(json.dumps({"key": key, "type": "learned", "content": f"text of {key}", "source": "x",
                                  "tags": [], "ts": 1}, ensure_ascii=False) + "\n" for key in keys)
    found, _ = archived.part(d, archived.source(d), None)
    active = [{"key": key, "type": "pin", "ts": 2, "bead": "BD-1"} for key in keys]
    lines, older = archived.before(d, found, active)
    assert sorted(line["key"] for line in view.latest(lines + active)) == sorted(keys) and older == 0
