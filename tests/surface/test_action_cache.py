import os
import time

from memory.core import layout
from memory.surface import action_cache

FOUND = [["learned-routes", "  [LEARN] src/api/routes.py registers every route twice"]]


def test_what_an_event_found_comes_back_for_the_same_session_event_and_knowledge(tmp_path):
    memory = str(tmp_path)
    assert action_cache.get(memory, "s1", "f:src/api/routes.py", [1, 2]) is None
    action_cache.put(memory, "s1", "f:src/api/routes.py", [1, 2], FOUND)
    assert action_cache.get(memory, "s1", "f:src/api/routes.py", [1, 2]) == FOUND
    action_cache.put(memory, "s1", "e:boom", [1, 2], [])
    assert action_cache.get(memory, "s1", "e:boom", [1, 2]) == []  # found nothing: also an answer
    assert action_cache.get(memory, "s1", "f:src/api/routes.py", [1, 3]) is None  # the knowledge changed
    assert action_cache.get(memory, "s2", "f:src/api/routes.py", [1, 2]) is None  # another session
    assert action_cache.get(memory, None, "f:src/api/routes.py", [1, 2]) is None  # no session: no cache
    action_cache.put(memory, None, "f:x", [1], FOUND)
    assert not os.path.isdir(os.path.join(memory, layout.ACTION_CACHE)) or \
        len(os.listdir(os.path.join(memory, layout.ACTION_CACHE))) == 2


def test_a_damaged_or_foreign_file_is_no_answer(tmp_path):
    memory = str(tmp_path)
    action_cache.put(memory, "s1", "f:a.py", [1], FOUND)
    [name] = os.listdir(os.path.join(memory, layout.ACTION_CACHE))
    path = os.path.join(memory, layout.ACTION_CACHE, name)
    for junk in (b"\xff{", b"[]", b'{"fp": [1], "session": "s1", "event": "f:b.py", "found": []}',
                 b'{"fp": [1], "session": "s1", "event": "f:a.py", "found": "x"}'):
        with open(path, "wb") as fh:
            fh.write(junk)
        assert action_cache.get(memory, "s1", "f:a.py", [1]) is None


def test_files_idle_for_a_day_are_pruned(tmp_path):
    folder = tmp_path / layout.ACTION_CACHE
    folder.mkdir()
    old, fresh = folder / "old.json", folder / "fresh.json"
    old.write_text("{}")
    fresh.write_text("{}")
    then = time.time() - action_cache.KEEP_SECONDS - 60
    os.utime(old, (then, then))
    action_cache._prune(str(folder))
    assert sorted(p.name for p in folder.iterdir()) == ["fresh.json"]


def test_the_cache_never_holds_the_command_or_the_text_an_edit_wrote(tmp_path):
    """The event is a failed command's text or an edit's new text: a token in it must not land on disk."""
    memory = str(tmp_path)
    token = "glpat-Xy7zQ9wE3rT5uI8oP1aS"
    event = f"e:bars:curl -H 'PRIVATE-TOKEN: {token}' https://gitlab.example.com/api\nExit code 22\n401"
    action_cache.put(memory, "s1", event, [1], FOUND)
    assert action_cache.get(memory, "s1", event, [1]) == FOUND
    assert action_cache.get(memory, "s1", event + " ", [1]) is None
    folder = os.path.join(memory, layout.ACTION_CACHE)
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            text = fh.read()
        assert token not in text and "PRIVATE-TOKEN" not in text
