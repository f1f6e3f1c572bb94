import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT, clean_env, fixture_payload, run_hook
from memory.core import layout
from memory.store import archived, entry, rotation, store
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
    first = start_cache.live_view(d)
    assert as_tuple(first) == fresh(d) and first.malformed == 1 and len(first.latest) == 30
    assert os.path.exists(os.path.join(d, layout.START_CACHE))

    def no_read(*a, **k):
        raise AssertionError("read the knowledge although the cache holds it")

    monkeypatch.setattr(store, "load", no_read)
    assert as_tuple(start_cache.live_view(d)) == as_tuple(first)


def test_a_capture_a_forget_and_a_fold_each_change_the_answer(tmp_path):
    d = str(tmp_path / "m")
    seed(d, 5)
    start_cache.live_view(d)
    store.append(d, [entry.build("a new insight about the deploy queue", "BD-9", "orchestrator")])
    view = start_cache.live_view(d)  # the new fragment's times are recent: no cache written
    assert view.latest[0]["content"] == "a new insight about the deploy queue" and as_tuple(view) == fresh(d)
    settle(d)
    start_cache.live_view(d)  # cached now
    gone = fresh(d)[0][-1]["key"]
    store.append(d, [entry.build_control(entry.FORGET, gone, "BD-1")])
    assert gone not in {e["key"] for e in start_cache.live_view(d).latest}
    settle(d)
    start_cache.live_view(d)
    rotation.compact(d)  # the inbox folded into knowledge.jsonl (a new file): same entries, new identity
    assert as_tuple(start_cache.live_view(d)) == fresh(d)


def test_a_same_size_rewrite_in_place_is_seen(tmp_path):
    d = str(tmp_path / "m")
    seed(d, 3)
    start_cache.live_view(d)
    path = os.path.join(d, layout.KNOWLEDGE)
    with open(path, "rb") as fh:
        data = fh.read()
    assert b"insight 2 about" in data
    with open(path, "r+b") as fh:  # same inode, same size: only the times tell
        fh.write(data.replace(b"insight 2 about", b"insight 7 about"))
    assert [e["content"] for e in start_cache.live_view(d).latest][0] == "insight 7 about the build step"


def test_files_changed_just_now_are_not_cached(tmp_path):
    d = str(tmp_path / "m")
    seed(d, 3)
    os.utime(os.path.join(d, layout.KNOWLEDGE))  # now: a second write in this timestamp tick could go unseen
    start_cache.live_view(d)
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
    assert as_tuple(start_cache.live_view(d)) == fresh(d)
    with open(os.path.join(d, layout.START_CACHE), "rb") as fh:
        assert fh.read() != junk


def test_no_memory_folder_no_cache(tmp_path):
    view = start_cache.live_view(str(tmp_path / "absent"))
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


def archive_with(memory_dir, lines) -> None:
    os.makedirs(memory_dir, exist_ok=True)
    with open(os.path.join(memory_dir, layout.ARCHIVE), "a") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)


def whole(memory_dir):
    """Both files read whole, as recall.sh --all reads them."""
    return store.latest(store.load(memory_dir, include_archive=True).entries)


def test_the_archives_live_entries_are_in_view_as_both_files_read_whole_give_them(tmp_path):
    """After a rotation, live entries stand in the archive (a month-old store: 341 of 716): session start
    shows them. The active file's lines still decide: a newer version, a forget, a pin given later."""
    d = str(tmp_path / "m")
    old = [entry.build(f"archived insight {i} about the {w} step", "BD-1", "orchestrator", ts=1_600_000_000 + i,
                       key_name=f"a{i}") for i, w in enumerate(["cache", "queue", "build", "deploy"])]
    archive_with(d, old)
    seed(d, 5)
    store.append(d, [entry.build("archived insight 1, corrected", "BD-1", "orchestrator", key_name="a1"),
                     entry.build_control("forget", old[2]["key"], "BD-1"),
                     entry.build_control("pin", old[3]["key"], "BD-1")])
    settle(d)
    view = start_cache.live_view(d)
    by_key = {e["key"]: e for e in view.latest}
    assert view.latest == whole(d) and len(view.latest) == 8
    assert by_key[old[0]["key"]]["content"] == old[0]["content"]
    assert by_key[old[1]["key"]]["content"] == "archived insight 1, corrected"
    assert old[2]["key"] not in by_key and by_key[old[3]["key"]]["pinned"] is True
    assert set(view.topics) == set(by_key)  # the map places them too


def test_a_capture_reads_the_active_knowledge_again_never_the_archive(tmp_path, monkeypatch):
    d = str(tmp_path / "m")
    archive_with(d, [entry.build(f"archived insight {i}", "BD-1", "orchestrator", ts=1_600_000_000 + i)
                     for i in range(20)])
    seed(d, 5)
    start_cache.live_view(d)
    store.append(d, [entry.build("a new insight about the deploy queue", "BD-9", "orchestrator")])
    settle(d)
    from memory.store import reading

    real_read = reading.read

    def no_archive(path, *a, **k):
        if path.endswith(layout.ARCHIVE):
            raise AssertionError("read the archive again although only the inbox changed")
        return real_read(path, *a, **k)

    monkeypatch.setattr(reading, "read", no_archive)
    view = start_cache.live_view(d)
    assert view.latest == whole(d) and len(view.latest) == 26
    monkeypatch.undo()
    archive_with(d, [entry.build("rotated in later", "BD-1", "orchestrator", ts=1_600_000_100)])  # a rotation
    assert "rotated in later" in [e["content"] for e in start_cache.live_view(d).latest]


def test_only_the_archives_newest_live_entries_are_read(tmp_path, monkeypatch):
    monkeypatch.setattr(archived, "ARCHIVE_LIVE", 3)
    d = str(tmp_path / "m")
    archive_with(d, [entry.build(f"archived insight {i}", "BD-1", "orchestrator", ts=1_600_000_000 + i)
                     for i in range(10)])
    seed(d, 2)
    view = start_cache.live_view(d)
    shown = [e["content"] for e in view.latest]
    assert [t for t in shown if t.startswith("archived")] == [f"archived insight {i}" for i in (9, 8, 7)]
    assert view.older == 7 and start_cache.live_view(d).older == 7  # and from the cache


def test_a_large_archive_is_read_in_the_background_and_the_next_session_start_has_it(tmp_path, monkeypatch):
    from memory.search import index

    d = str(tmp_path / "m")
    archive_with(d, [entry.build(f"archived insight {i}", "BD-1", "orchestrator", ts=1_600_000_000 + i)
                     for i in range(20)])
    seed(d, 5)
    jobs = []
    monkeypatch.setattr(index, "in_background", lambda memory_dir, job: jobs.append((memory_dir, job)))
    monkeypatch.setattr(archived, "INLINE_BYTES", 100)
    first = start_cache.live_view(d)
    assert len(first.latest) == 5 and len(jobs) == 1 and jobs[0][0] == d  # without the archive, not waiting
    assert not os.path.exists(os.path.join(d, layout.START_CACHE))  # nothing cached without it
    jobs[0][1]()  # what the detached process does
    assert len(start_cache.live_view(d).latest) == 25 and len(jobs) == 1


def test_the_real_hook_reads_a_large_archive_in_a_detached_process_without_waiting_for_it(repo):
    """A fresh clone with a 3 MB archive: the first session start answers without it (reading it would make the
    agent wait) and leaves a process behind that reads it; the session starts after that show its entries."""
    d = repo / ".beads" / "memory"
    archive_with(str(d), [entry.build(f"archived insight {i} about the {['cache', 'queue', 'build'][i % 3]} step "
                                      + "with words enough to fill a line " * 4, "BD-1", "orchestrator",
                                      ts=1_600_000_000 + i) for i in range(9000)])
    assert (d / layout.ARCHIVE).stat().st_size > archived.INLINE_BYTES
    seed(str(d), 5)
    (d / layout.WELCOMED).touch()
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))

    def heading() -> str:
        out = run_hook("session_start", payload, repo, env={"MEMORY_HOOKS_FOREGROUND": ""})
        assert out.returncode == 0 and out.stderr == b""
        return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"].split("\n", 1)[0]

    assert heading() == "## Recent Knowledge (5 entries)"
    deadline = time.time() + 60
    while not (d / layout.START_CACHE).exists() and time.time() < deadline:
        time.sleep(0.1)
    assert heading() == f"## Recent Knowledge ({5 + archived.ARCHIVE_LIVE} entries)"
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    older = 9000 - archived.ARCHIVE_LIVE
    assert f"  Older: {older} more entries stand only in the archive, not counted above (add --all" in text
    found = subprocess.run([str(ROOT / "bin" / "recall.sh"), "archived insight 17 about", "--all"], cwd=repo,
                           capture_output=True, text=True, timeout=60, env=clean_env())
    assert "archived insight 17 about the build step" in found.stdout  # among the oldest: only in the archive


def test_an_old_archived_entry_pinned_or_corrected_later_is_shown_as_both_files_read_whole_show_it(repo,
                                                                                                     monkeypatch):
    """Past the archive's newest ARCHIVE_LIVE live keys, an entry the active file touches is read from the
    archive: `recall.sh --pin` of an old entry said "pinned" while session start showed it nowhere; an older
    copy merged in from a clone stood for a newer archived version; the "Older" line counted both."""
    monkeypatch.setattr(archived, "ARCHIVE_LIVE", 3)
    d = repo / ".beads" / "memory"
    old = [entry.build(f"archived insight {i} about the zebracorn{i} step", "BD-1", "orchestrator",
                       ts=1_600_000_000 + i, key_name=f"a{i}") for i in range(10)]
    archive_with(str(d), old + [dict(old[1], content="archived insight 1, second version", ts=1_600_000_002)])
    seed(str(d), 2)
    store.append(str(d), [entry.build_control("pin", old[0]["key"], "BD-1"),
                          dict(old[1], content="archived insight 1, first version (a clone's copy)", ts=1_599_000_000)])
    settle(str(d))
    view = start_cache.live_view(str(d))
    by_key = {e["key"]: e for e in view.latest}
    assert by_key[old[0]["key"]]["pinned"] is True
    assert by_key[old[1]["key"]]["content"] == "archived insight 1, second version"
    assert view.older == 10 - 3 - 2 and start_cache.live_view(str(d)).older == 5  # a0, a1 touched; from the cache too
    assert [e["key"] for e in view.latest] == [e["key"] for e in whole(str(d)) if e["key"] in by_key]


def test_an_archive_that_cannot_be_read_leaves_session_start_its_active_knowledge(repo):
    d = repo / ".beads" / "memory"
    seed(str(d), 3)
    (d / layout.ARCHIVE).mkdir()  # a folder in its place (a bad merge, a hand edit)
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    out = run_hook("session_start", payload, repo)
    text = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("## Recent Knowledge (3 entries)") and out.returncode == 0


def test_where_nothing_can_be_detached_the_large_archive_is_read_in_the_hook_and_shown(repo):
    """No fork (Windows) or MEMORY_HOOKS_FOREGROUND: the reader runs in the hook itself, so its answer has the
    archive (it paid for the read and answered without it)."""
    d = repo / ".beads" / "memory"
    archive_with(str(d), [entry.build(f"archived insight {i} " + "with words enough to fill a line " * 8, "BD-1",
                                      "orchestrator", ts=1_600_000_000 + i) for i in range(9000)])
    assert (d / layout.ARCHIVE).stat().st_size > archived.INLINE_BYTES
    seed(str(d), 5)
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    out = run_hook("session_start", payload, repo)  # MEMORY_HOOKS_FOREGROUND=1
    heading = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"].split("\n", 1)[0]
    assert heading == f"## Recent Knowledge ({5 + archived.ARCHIVE_LIVE} entries)"
