"""memory.store.rotation: the fold of the inbox and the rotation into the archive (their crash recovery:
test_store.py)."""
import json

from helpers import memory_lines, numbered_insight
from memory.store import rotation, store


def test_rotation_exactly_per_seed(tmp_path):
    d = str(tmp_path)
    store.append(d, [numbered_insight(i) for i in range(1000)])
    rotation.compact(d)
    assert not (tmp_path / store.ARCHIVE).exists()
    store.append(d, [numbered_insight(1000)])
    assert not (tmp_path / store.ARCHIVE).exists()  # a capture never rotates: only the fold a person asks for
    rotation.compact(d)
    archive, active = memory_lines(tmp_path / store.ARCHIVE), memory_lines(tmp_path / store.ACTIVE)
    assert [e["bead"] for e in archive] == [f"BD-{i}" for i in range(500)]
    assert [e["bead"] for e in active] == [f"BD-{i}" for i in range(500, 1001)]


def test_rotation_of_an_oversized_file_leaves_at_most_1000(tmp_path):
    d = str(tmp_path)
    with open(tmp_path / store.ACTIVE, "wb") as fh:
        for i in range(2600):
            fh.write((json.dumps(numbered_insight(i)) + "\n").encode())
    store.append(d, [numbered_insight(2600)])
    rotation.compact(d)
    assert len(memory_lines(tmp_path / store.ACTIVE)) == 601 and len(memory_lines(tmp_path / store.ARCHIVE)) == 2000


def test_an_archive_that_is_a_symlink_stops_the_rotation_before_its_journal(tmp_path):
    """One failed compaction (the archive a symlink: its append refused) left the rotation's journal behind, and
    every capture after it failed: its recovery retried the rotation."""
    import os

    import pytest

    d = str(tmp_path)
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    os.symlink(outside, tmp_path / store.ARCHIVE)
    store.append(d, [numbered_insight(i) for i in range(1001)])
    with pytest.raises(OSError):
        rotation.compact(d)  # the inbox folded, the rotation refused
    assert not (tmp_path / store.JOURNAL).exists() and outside.read_text() == ""
    assert len(memory_lines(tmp_path / store.ACTIVE)) == 1001  # nothing moved
    store.append(d, [numbered_insight(2000)])  # captures go on
    assert len(store.load(d).entries) == 1002


def test_a_journal_an_older_version_left_beside_an_archive_symlink_no_longer_stops_captures(tmp_path):
    import os

    d = str(tmp_path)
    store.append(d, [numbered_insight(1)])
    rotation.compact(d)
    outside = tmp_path / "outside.jsonl"
    outside.write_text("theirs\n")
    os.symlink(outside, tmp_path / store.ARCHIVE)
    active = os.stat(tmp_path / store.ACTIVE)
    (tmp_path / store.JOURNAL).write_text(json.dumps({"archive_size": 0, "active_ino": active.st_ino,
                                                      "active_dev": active.st_dev}) + "\n")
    store.append(d, [numbered_insight(2)])  # failed with ELOOP, and so did every capture after it
    assert not (tmp_path / store.JOURNAL).exists() and outside.read_text() == "theirs\n"
    assert len(store.load(d).entries) == 2
