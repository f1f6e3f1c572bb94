import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT, clean_env, fixture_payload, run_hook
from memory.core import layout
from memory.store import entry, rotation, store
from memory.surface import knowledge_map, start_cache


def seed(memory_dir, n: int) -> None:
    os.makedirs(memory_dir, exist_ok=True)
    with open(os.path.join(memory_dir, layout.KNOWLEDGE), "w") as fh:
        for i in range(n):
            fh.write(json.dumps(entry.build(f"insight {i} about the {['cache', 'queue', 'build'][i % 3]} step",
                                            f"BD-{i}", "orchestrator", ts=1_700_000_000 + i)) + "\n")
        fh.write("not json\n")
    settle(memory_dir)


def settle(memory_dir=None) -> None:
    """Let the files' last change get older than start_cache.RACY_NS (a cache is written only then)."""
    time.sleep(start_cache.RACY_NS / 1e9 + 0.02)


def fresh(memory_dir):
    snapshot = store.load(memory_dir)
    latest = store.latest(snapshot.entries)
    return latest, snapshot.malformed, knowledge_map.topics(latest)


def as_tuple(view):
    return view.latest, view.malformed, view.topics


def test_the_cache_answers_what_a_fresh_read_does_without_reading(tmp_path, monkeypatch):
    d = str(tmp_path / "m")
    seed(d, 30)
    first = start_cache.active_view(d)
    assert as_tuple(first) == fresh(d) and first.malformed == 1 and len(first.latest) == 30
    assert os.path.exists(os.path.join(d, layout.START_CACHE))

    def no_read(*a, **k):
        raise AssertionError("read the knowledge although the cache holds it")

    monkeypatch.setattr(store, "load", no_read)
    assert as_tuple(start_cache.active_view(d)) == as_tuple(first)


def test_a_capture_a_forget_and_a_fold_each_change_the_answer(tmp_path):
    d = str(tmp_path / "m")
    seed(d, 5)
    start_cache.active_view(d)
    store.append(d, [entry.build("a new insight about the deploy queue", "BD-9", "orchestrator")])
    view = start_cache.active_view(d)  # the new fragment's times are recent: no cache written
    assert view.latest[0]["content"] == "a new insight about the deploy queue" and as_tuple(view) == fresh(d)
    settle(d)
    start_cache.active_view(d)  # cached now
    gone = fresh(d)[0][-1]["key"]
    store.append(d, [entry.build_control(entry.FORGET, gone, "BD-1")])
    assert gone not in {e["key"] for e in start_cache.active_view(d).latest}
    settle(d)
    start_cache.active_view(d)
    rotation.compact(d)  # the inbox folded into knowledge.jsonl (a new file): same entries, new identity
    assert as_tuple(start_cache.active_view(d)) == fresh(d)


def test_a_same_size_rewrite_in_place_is_seen(tmp_path):
    d = str(tmp_path / "m")
    seed(d, 3)
    start_cache.active_view(d)
    path = os.path.join(d, layout.KNOWLEDGE)
    with open(path, "rb") as fh:
        data = fh.read()
    assert b"insight 2 about" in data
    with open(path, "r+b") as fh:  # same inode, same size: only the times tell
        fh.write(data.replace(b"insight 2 about", b"insight 7 about"))
    assert [e["content"] for e in start_cache.active_view(d).latest][0] == "insight 7 about the build step"


def test_files_changed_just_now_are_not_cached(tmp_path):
    d = str(tmp_path / "m")
    seed(d, 3)
    os.utime(os.path.join(d, layout.KNOWLEDGE))  # now: a second write in this timestamp tick could go unseen
    start_cache.active_view(d)
    assert not os.path.exists(os.path.join(d, layout.START_CACHE))


def test_a_changed_rule_file_changes_the_identity(tmp_path, monkeypatch):
    package = tmp_path / "package"
    for rel in start_cache._RULES:
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text("rules\n")
    monkeypatch.setattr(start_cache, "_PACKAGE", str(package))
    d = str(tmp_path / "m")
    seed(d, 2)
    before = start_cache.identity(d)
    (package / "store" / "screen_patterns.py").write_text("other rules\n")
    assert start_cache.identity(d) != before


@pytest.mark.parametrize("junk", [b"", b"\x00garbage", json.dumps({"key": 1}).encode()])
def test_a_broken_cache_is_recomputed_and_replaced(tmp_path, junk):
    d = str(tmp_path / "m")
    seed(d, 4)
    with open(os.path.join(d, layout.START_CACHE), "wb") as fh:
        fh.write(junk)
    assert as_tuple(start_cache.active_view(d)) == fresh(d)
    with open(os.path.join(d, layout.START_CACHE), "rb") as fh:
        assert fh.read() != junk


def test_no_memory_folder_no_cache(tmp_path):
    view = start_cache.active_view(str(tmp_path / "absent"))
    assert (view.latest, view.malformed, view.topics) == ([], 0, {})
    assert not (tmp_path / "absent").exists()


CAPTURE = """
import sys
sys.path.insert(0, sys.argv[1])
from memory.store import entry, store
for i in range(5):
    text = f"parallel insight {sys.argv[3]}-{i} about retries"
    store.append(sys.argv[2], [entry.build(text, "BD-1", "orchestrator")])
"""


def test_session_starts_racing_captures_never_serve_a_stale_answer(repo):
    """Real hook processes: session starts run while other processes capture; once all are done, the next
    session start (cache or not) counts every entry."""
    d = repo / ".beads" / "memory"
    seed(str(d), 40)
    (d / layout.WELCOMED).touch()
    payload = json.dumps(dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))).encode()
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo), MEMORY_HOOKS_FOREGROUND="1")
    procs = [subprocess.Popen([sys.executable, "-c", CAPTURE, str(ROOT), str(d), str(n)]) for n in range(4)]
    starts = []
    for _ in range(6):
        starts.append(subprocess.Popen([sys.executable, str(ROOT / "hooks" / "session_start.py")], cwd=repo, env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        starts[-1].communicate(payload, timeout=60)
        time.sleep(0.05)
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert all(p.returncode == 0 for p in starts)
    settle(str(d))
    for _ in range(2):  # the first may write the cache, the second answers from it
        out = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
        assert out.startswith("## Recent Knowledge (60 entries)")
    assert (d / layout.START_CACHE).exists()


def test_every_module_the_cached_topics_are_drawn_with_is_a_rule_file():
    """The cache keeps the map's topics: a module knowledge_map.topics loads to draw them (stemming merges a
    word's forms) changes them when an upgrade changes it, so its file is part of the identity."""
    code = ("import sys\nfrom memory.surface import knowledge_map\nfrom memory.store import entry\n"
            "before = set(sys.modules)\n"
            "knowledge_map.topics([entry.build(f'the docker layer caching rule {i} applies to builds', '', 'x', "
            "ts=i) for i in range(9)], 'proj')\n"
            "print('\\n'.join(sorted(m for m in set(sys.modules) - before if m.startswith('memory.')\n"
            "                          and not sys.modules[m].__file__.endswith('__init__.py'))))\n")
    # a package (__init__.py) holds no rules
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = {name.split(".", 1)[1].replace(".", "/") + ".py" for name in proc.stdout.split()}
    assert loaded and loaded <= set(start_cache._RULES), loaded - set(start_cache._RULES)
