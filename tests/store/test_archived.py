"""memory.store.archived: the archive's part of the live view, with the cap binding and active lines touching
the keys past it (a pin given later, a forget, a correction, an older copy merged in)."""
import json
import os
import random

from test_view import random_lines

from memory.core import layout
from memory.store import archived, view


def write(path, lines):
    with open(path, "w") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)


def test_with_the_cap_binding_the_part_and_the_touched_keys_give_what_both_files_give(tmp_path, monkeypatch):
    rng = random.Random(29)
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

    def cached_bytes(part_src):
        import marshal

        from memory.core import fsio

        first = fsio.seal(marshal.dumps({}))
        return len(first).to_bytes(8, "little") + first + fsio.seal(marshal.dumps(archived.record(part_src, found)))

    cache.write_bytes(cached_bytes(src))
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
