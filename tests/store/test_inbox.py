"""memory.store.inbox: a capture is a new file, never a change to a committed one; readers see knowledge.jsonl then
the inbox; many real processes at once, processes killed mid-write, and a fold running under readers."""
import json
import os
import signal
import subprocess
import sys
import time

from helpers import ROOT
from memory.core import layout
from memory.search import index
from memory.store import entry, inbox, rotation, store


def make(i, ts=None):
    ts = 1_700_000_000 + i if ts is None else ts
    return entry.build(f"inbox insight number {i}", f"BD-{i}", "orchestrator", ts=ts)


def contents(d):
    return {e["content"] for e in store.latest(store.load(str(d), include_archive=True).entries)}


def test_a_capture_is_a_new_file_and_the_committed_file_is_untouched(mem):
    (mem / layout.KNOWLEDGE).write_text(json.dumps(make(0)) + "\n")
    before = os.stat(mem / layout.KNOWLEDGE)
    store.append(str(mem), [make(1)])
    store.append(str(mem), [make(2), make(3)])
    after = os.stat(mem / layout.KNOWLEDGE)
    assert (before.st_ino, before.st_size, before.st_mtime_ns) == (after.st_ino, after.st_size, after.st_mtime_ns)
    names = inbox.names(str(mem))
    assert len(names) == 2 and names == sorted(names)
    assert [e["bead"] for e in store.load(str(mem)).entries] == ["BD-0", "BD-1", "BD-2", "BD-3"]
    assert not [n for n in os.listdir(mem) if n.endswith(layout.TEMP_SUFFIX)]


def test_latest_wins_across_the_file_and_the_inbox(mem):
    old = dict(make(1), key="k", content="old text")
    (mem / layout.KNOWLEDGE).write_text(json.dumps(old) + "\n")
    store.append(str(mem), [dict(make(2), key="k", content="new text")])
    store.append(str(mem), [entry.build_control("forget", "learned-inbox-insight-number-9", None)])
    assert contents(mem) == {"new text"}
    c = index.load(str(mem))  # the ranking index agrees
    assert [c.entry_at(d)["content"] for d in range(c.n) if c.live[d]] == ["new text"]


def test_a_fragment_without_its_last_newline_does_not_swallow_the_next(mem):
    folder = mem / layout.INBOX
    folder.mkdir()
    (folder / "1-a.jsonl").write_text(json.dumps(make(1)))  # made by hand, no final newline
    (folder / "2-b.jsonl").write_text(json.dumps(make(2)) + "\n")
    snap = store.load(str(mem))
    assert [e["bead"] for e in snap.entries] == ["BD-1", "BD-2"] and snap.malformed == 0


def test_compact_folds_in_order_and_a_rerun_after_a_crash_adds_nothing_twice(mem):
    for i in range(5):
        store.append(str(mem), [make(i)])
    names = inbox.names(str(mem))
    done = rotation.compact(str(mem))
    assert (done.fragments, done.lines, done.rotated) == (5, 5, False) and inbox.names(str(mem)) == []
    folded = (mem / layout.KNOWLEDGE).read_bytes()
    # a crash after the fold was written but before the fragments were deleted: put them back
    for name, i in zip(names, range(5)):
        (mem / layout.INBOX / name).write_text(json.dumps(make(i), separators=(",", ":"), ensure_ascii=False) + "\n")
    assert rotation.compact(str(mem)).lines == 0 and (mem / layout.KNOWLEDGE).read_bytes() == folded


def test_temp_files_of_a_dead_writer_are_removed_by_the_next_write(mem):
    left = mem / f"{inbox.TEMP_PREFIX}1-a.jsonl{layout.TEMP_SUFFIX}"
    left.write_text("half")
    store.append(str(mem), [make(1)])
    assert not left.exists() and len(inbox.names(str(mem))) == 1


def test_index_extends_by_new_fragments_and_rebuilds_after_a_fold(mem, monkeypatch):
    from memory.search import corpus

    store.append(str(mem), [make(i) for i in range(50)])
    index.load(str(mem))
    store.append(str(mem), [make(50)])
    calls = []
    original = corpus.entry_terms
    monkeypatch.setattr(corpus, "entry_terms", lambda e: calls.append(1) or original(e))
    c = index.load(str(mem))
    assert len(calls) == 1 and c.live_count() == 51  # only the new fragment's line was tokenized
    rotation.compact(str(mem))
    c = index.load(str(mem))
    assert c.live_count() == 51 and {c.entry_at(i)["content"] for i in range(c.n)} == contents(mem)


WRITER = """
import sys
sys.path.insert(0, sys.argv[1])
from memory.store import entry, store
who, count = int(sys.argv[3]), int(sys.argv[4])
for i in range(count):
    store.append(sys.argv[2], [entry.build(f"writer {who} insight {i}", "BD-1", "orchestrator")],
                 capture_id=f"w{who}-{i}")
"""

COMPACTOR = """
import os, sys
sys.path.insert(0, sys.argv[1])
from memory.core import locking
from memory.store import rotation, store
while not os.path.exists(sys.argv[3]):  # folds until the writers are done
    try:
        rotation.compact(sys.argv[2])
    except locking.LockTimeout:  # 16 writers may keep the lock busy: memory-doctor says "try again"
        pass
"""


def test_16_writers_and_a_folder_at_once_lose_nothing_and_store_nothing_twice(mem):
    seeds = [make(i) for i in range(990)]  # the folds pass 1,000 lines: rotations under the writers
    (mem / layout.KNOWLEDGE).write_text("".join(json.dumps(e) + "\n" for e in seeds))
    done = mem.parent / "writers-done"
    compactor = subprocess.Popen([sys.executable, "-c", COMPACTOR, str(ROOT), str(mem), str(done)])
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(ROOT), str(mem), str(w), "12"])
               for w in range(16)]
    seen: set = set()
    while any(p.poll() is None for p in writers):
        now = contents(mem)
        assert seen <= now  # a reader never loses what it saw (a fold moves lines, it never hides them)
        seen = now
        time.sleep(0.002)  # a reader among the writers, not one that takes a core from them
    assert all(p.wait(timeout=120) == 0 for p in writers)
    done.touch()
    assert compactor.wait(timeout=120) == 0
    expected = {e["content"] for e in seeds} | {f"writer {w} insight {i}" for w in range(16) for i in range(12)}
    assert contents(mem) == expected
    rotation.compact(str(mem))
    lines = [x for name in (layout.ARCHIVE, layout.KNOWLEDGE)
             for x in (mem / name).read_bytes().split(b"\n") if x.strip()]
    assert len(lines) == len(set(lines)) == len(expected) and (mem / layout.ARCHIVE).exists()


LOOPER = """
import sys
sys.path.insert(0, sys.argv[1])
from memory.store import entry, store
i = 0
while True:
    store.append(sys.argv[2], [entry.build("killed writer %s insight %d" % (sys.argv[3], i), "BD-1", "orchestrator")])
    print(i, flush=True)
    i += 1
"""


def test_writers_killed_mid_write_leave_only_whole_fragments(mem):
    stored = set()
    for round_no in range(12):
        proc = subprocess.Popen([sys.executable, "-c", LOOPER, str(ROOT), str(mem), str(round_no)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline()
        time.sleep(0.01 * (round_no % 5))
        proc.send_signal(signal.SIGKILL)
        out = proc.communicate()[0]
        stored |= {f"killed writer {round_no} insight {int(n)}" for n in ["0"] + out.split()}
    snap = store.load(str(mem))
    assert snap.malformed == 0 and snap.unterminated == 0
    assert stored <= contents(mem)  # every append that returned is there
    for name in inbox.names(str(mem)):  # published whole or not at all
        data = (mem / layout.INBOX / name).read_bytes()
        assert data.endswith(b"\n") and all(json.loads(x) for x in data.split(b"\n") if x)
    assert not [n for n in os.listdir(mem / layout.INBOX) if not n.endswith(inbox.SUFFIX)]


def test_a_fragment_that_is_no_readable_file_is_left_out_and_named_by_the_doctor(repo):
    """A symlink under a fragment's name (git can commit one; here to /dev/zero) or a folder named like one: before,
    session start and the prompt hook said nothing, recall.sh failed, every capture was refused and the doctor
    failed five checks. Now each is left out like a malformed line; the rest reads and captures as ever."""
    from helpers import bash_payload, doctor_report, fixture_payload, installed_with_a_capture, run_hook

    installed_with_a_capture(repo)
    memory = repo / ".beads" / "memory"
    folder = memory / layout.INBOX
    os.symlink("/dev/zero", folder / "1795549999999999999-deadbeef.jsonl")
    (folder / "1795549999999999998-folder00.jsonl").mkdir()
    assert len(inbox.bad_names(str(memory))) == 2 and len(inbox.names(str(memory))) >= 1
    proc = run_hook("memory_capture", bash_payload('bd comment BD-2 "LEARNED: the pool size is 16 here"', repo), repo)
    assert proc.returncode == 0 and b"captured 1 insight" in proc.stdout, proc.stdout
    start = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    text = json.loads(run_hook("session_start", start, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "the pool size is 16 here" in text
    found = subprocess.run([str(memory / "recall.sh"), "pool"], cwd=repo, capture_output=True, text=True)
    assert found.returncode == 0 and "the pool size is 16 here" in found.stdout, found.stderr
    check = doctor_report(repo)[2]["inbox"]
    assert check["level"] == "WARN" and "2 not read" in check["detail"] and "deadbeef" in check["detail"]


def test_an_inbox_that_is_a_symlink_is_neither_read_nor_written_nor_folded(repo, tmp_path):
    """git commits a symlink: `.beads/memory/inbox -> ../../../elsewhere`. Captures went into the other folder
    (never committed), its `*.jsonl` files were read as knowledge, and `--compact` folded them, credentials and all,
    into the committed knowledge.jsonl and deleted them there."""
    from helpers import bash_payload, doctor_report, installed_with_a_capture, run_hook

    installed_with_a_capture(repo)
    memory = repo / ".beads" / "memory"
    before = contents(memory)
    rotation.compact(str(memory))  # the capture folded: the inbox folder is empty, then replaced by a link
    os.rmdir(memory / layout.INBOX)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    planted = json.dumps(entry.build("OUTSIDE note ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H", "BD-9", "x"))
    (elsewhere / "0001-notes.jsonl").write_text(planted + "\n")
    os.symlink(elsewhere, memory / layout.INBOX)
    assert inbox.names(str(memory)) == [] and contents(memory) == before
    proc = run_hook("memory_capture", bash_payload('bd comment BD-2 "LEARNED: the pool size is 16 here"', repo), repo)
    assert proc.returncode == 0 and b"NOT stored" in proc.stdout, proc.stdout  # told, never written through it
    assert os.listdir(elsewhere) == ["0001-notes.jsonl"]
    rotation.compact(str(memory))
    assert os.listdir(elsewhere) == ["0001-notes.jsonl"]  # nothing folded, nothing deleted
    assert "OUTSIDE" not in (memory / "knowledge.jsonl").read_text() and contents(memory) == before
    check = doctor_report(repo)[2]["inbox"]
    assert check["level"] == "FAIL" and "symbolic link" in check["detail"]
