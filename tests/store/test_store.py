import json
import os
import subprocess
import sys
import time

import pytest

from helpers import memory_lines, numbered_insight
from memory.store import entry, rotation, store


def test_append_and_read(tmp_path):
    assert store.append(str(tmp_path), [numbered_insight(1), numbered_insight(2)]).written == 2
    snap = store.load(str(tmp_path))
    assert [e["bead"] for e in snap.entries] == ["BD-1", "BD-2"] and snap.malformed == 0


def test_latest_wins_on_same_key_by_ts_then_position():
    a, b, c = (numbered_insight(i, key="k", ts=ts) for i, ts in ((1, 10), (2, 20), (3, 20)))
    assert store.latest([a, b, c]) == [c]
    assert store.latest([b, a]) == [b]


def test_duplicate_capture_id_is_not_written_twice(tmp_path):
    first = store.append(str(tmp_path), [dict(numbered_insight(1), capture_id="abc")], capture_id="abc")
    second = store.append(str(tmp_path), [dict(numbered_insight(1), capture_id="abc")], capture_id="abc")
    assert (first.written, second.written) == (1, 0)
    assert len(memory_lines(tmp_path / store.ACTIVE)) == 1


def test_torn_and_foreign_lines_are_skipped_and_counted(tmp_path):
    path = tmp_path / store.ACTIVE
    path.write_bytes(json.dumps(numbered_insight(1)).encode() + b"\n{\"key\":\"torn\n[1,2]\nnot json\n{}\n"
                     + json.dumps(numbered_insight(2)).encode() + b"\n")
    snap = store.read(str(path))
    assert [e["bead"] for e in snap.entries] == ["BD-1", "BD-2"] and snap.malformed == 4


def test_torn_tail_is_quarantined_before_the_next_append(tmp_path):
    path = tmp_path / store.ACTIVE
    path.write_bytes(json.dumps(numbered_insight(1)).encode() + b"\n{\"key\":\"half")
    store.append(str(tmp_path), [numbered_insight(2)])
    snap = store.load(str(tmp_path))
    assert [e["bead"] for e in snap.entries] == ["BD-1", "BD-2"] and snap.malformed == 0
    assert (tmp_path / store.CORRUPT).read_bytes() == b'{"key":"half\n'


def test_whole_last_entry_without_newline_is_kept(tmp_path):
    path = tmp_path / store.ACTIVE
    path.write_bytes(json.dumps(numbered_insight(1)).encode())  # e.g. saved by an editor that drops the final newline
    store.append(str(tmp_path), [numbered_insight(2)])
    assert [e["bead"] for e in store.load(str(tmp_path)).entries] == ["BD-1", "BD-2"]
    assert not (tmp_path / store.CORRUPT).exists()


def test_line_separators_inside_content_stay_in_one_line(tmp_path):
    weird = "a\u2028b\u2029c\x00d\re\nf\x1b"
    store.append(str(tmp_path), [entry.build(weird, "B", "orchestrator")])
    raw = store.active_bytes(str(tmp_path))
    assert raw.count(b"\n") == 1
    assert store.load(str(tmp_path)).entries[0]["content"].startswith("a\u2028b")


def test_recover_undoes_an_unfinished_rotation(tmp_path):
    d = str(tmp_path)
    store.append(d, [numbered_insight(i) for i in range(1000)])
    rotation.compact(d)
    (tmp_path / store.ARCHIVE).write_bytes(b"")
    before = (tmp_path / store.ACTIVE).read_bytes()
    stat = os.stat(tmp_path / store.ACTIVE)
    # a crash after the journal and half of the archive append, before the active file was replaced
    (tmp_path / store.JOURNAL).write_text(json.dumps({"archive_size": 0, "active_ino": stat.st_ino,
                                                      "active_dev": stat.st_dev}))
    (tmp_path / store.ARCHIVE).write_bytes(before[:12345])
    store.append(d, [numbered_insight(1000)])
    rotation.compact(d)
    archive, active = memory_lines(tmp_path / store.ARCHIVE), memory_lines(tmp_path / store.ACTIVE)
    assert len(archive) == 500 and len(active) == 501 and not (tmp_path / store.JOURNAL).exists()
    assert len({e["key"] for e in archive + active}) == 1001


def test_recover_keeps_a_finished_rotation(tmp_path):
    d = str(tmp_path)
    store.append(d, [numbered_insight(i) for i in range(1001)])
    rotation.compact(d)  # rotated: 500 archived, 501 active
    (tmp_path / store.JOURNAL).write_text(json.dumps({"archive_size": 0, "active_ino": -1, "active_dev": -1}))
    store.append(d, [numbered_insight(1001)])
    assert len(memory_lines(tmp_path / store.ARCHIVE)) == 500 and len(memory_lines(tmp_path / store.ACTIVE)) == 502


def test_symlinked_knowledge_file_is_not_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    mem = tmp_path / "mem"
    mem.mkdir()
    os.symlink(outside, mem / store.ACTIVE)
    try:
        store.append(str(mem), [numbered_insight(1)])
    except OSError:
        pass
    assert outside.read_text() == "precious\n"


def test_recovery_removes_only_the_lock_holders_temp_files(tmp_path):
    """Recovery runs under the knowledge lock, so a temp file of a knowledge, archive, journal or redactions write
    there is a dead writer's. The index, screen, start-cache and path-cue writers hold no such lock: their temp
    files may be a live write, which recovery took from under them (their rename then failed, the write lost)."""
    from memory.core import layout

    pid = os.getpid()
    dead = [f".{name}.{pid}.tmp" for name in (store.ACTIVE, store.ARCHIVE, store.JOURNAL, layout.REDACTIONS)]
    live = [f".{name}.{pid}.tmp" for name in (layout.INDEX, layout.ARCHIVE_INDEX, layout.SCREEN_CACHE,
                                               layout.START_CACHE, layout.PATH_CUES)]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    # a derived file's writer gone from here may be another machine's, live, on a shared folder: the sweep
    # takes it once an hour old
    live += [f".{layout.INDEX}.{int(gone.stdout)}.tmp"]
    for name in dead + live:
        (tmp_path / name).write_bytes(b"partial")
    store.append(str(tmp_path), [numbered_insight(1)])
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == sorted(live)
    from memory.core import fsio

    fsio.remove_stale_temps(str(tmp_path), now=time.time() + 2 * fsio.STALE_TEMP_SECONDS)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == sorted(live[:-1])


@pytest.mark.parametrize("padding", [0, 2_000_000], ids=["small file", "file read in bulk"])
def test_a_line_with_a_byte_that_is_not_utf8_is_kept_not_malformed(tmp_path, padding):
    """A teammate's cp1252 editor wrote `café` as one byte 0xE9: the line is valid JSON but not UTF-8. It was
    counted malformed, hidden from every reader, and `--repair` moved it out. The byte reads as U+FFFD."""
    from memory.store import health

    line = json.dumps(entry.build("the café service needs the VPN", "BD-1", "orchestrator", ts=5), ensure_ascii=False)
    raw = line.encode().replace("café".encode(), b"caf\xe9")
    filler = b"".join(json.dumps(entry.build(f"filler {i} " + "x" * 200, "BD-2", "o", ts=1)).encode() + b"\n"
                      for i in range(padding // 230))
    (tmp_path / store.ACTIVE).write_bytes(filler + raw + b"\n")
    snap = store.load(str(tmp_path))
    assert snap.malformed == 0 and any(e["content"] == "the caf\ufffd service needs the VPN" for e in snap.entries)
    from memory.search import index, rank

    assert [s.entry["content"] for s in rank.search(index.load(str(tmp_path)), "service needs the VPN")][:1] == \
        ["the caf\ufffd service needs the VPN"]  # the derived index reads it as the store does
    from memory.search import find

    for _ in range(3):  # a keyword search reads the line back through the index, and keeps the index
        found = find.find(str(tmp_path), ["vpn"])
        assert found is not None and [e["content"] for e in found[0]] == ["the caf\ufffd service needs the VPN"]
    assert (tmp_path / "knowledge.index").exists()
    before = (tmp_path / store.ACTIVE).read_bytes()
    health.repair(str(tmp_path))
    assert (tmp_path / store.ACTIVE).read_bytes() == before and not (tmp_path / "knowledge.corrupt.jsonl").exists()
