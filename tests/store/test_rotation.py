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
