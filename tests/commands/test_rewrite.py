"""recall.sh --redact KEY [TEXT] (memory.commands.rewrite), run as a user runs it: bin/recall.sh on real files."""
import json
import os
import subprocess
import sys
import time

from helpers import ROOT, knowledge
from memory.core import layout
from memory.store import entry, rotation, store

RECALL = str(ROOT / "bin" / "recall.sh")
SECRET = "correcthorsebatterystaple"  # not a shape the automatic redaction knows (letters only): stored verbatim


def recall(repo, *args):
    """recall.sh in `repo`; a recording command's inbox file is folded into knowledge.jsonl after it (as
    `memory-doctor --compact` would), so these tests can read the committed files line by line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "CLAUDE"))}
    proc = subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=env)
    if args and args[0] in ("--add", "--pin", "--unpin", "--forget"):
        rotation.compact(str(repo / ".beads" / "memory"))
    return proc


def memory_files(repo):
    return {p.name: p.read_bytes() for p in (repo / ".beads" / "memory").iterdir() if p.is_file()}


def write(repo, name, lines):
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    with open(memory / name, "a") as fh:
        fh.write("".join(json.dumps(line) + "\n" for line in lines))


def test_redact_text_in_both_files_and_every_search_path(repo):
    old = dict(entry.build(f"staging admin is root / {SECRET}", "BD-1", "orchestrator", ts=100), key="decision-db")
    write(repo, store.ARCHIVE, [old, entry.build("an archived neighbour", "BD-1", "orchestrator", ts=101)])
    recall(repo, "--add", f"DECISION[db]: use postgres 15; admin password {SECRET} until rotation")
    recall(repo, "--add", "LEARNED: the deploy queue drains first")
    recall(repo, "--pin", "decision-db")
    assert recall(repo, SECRET.lower(), "--all").returncode == 0  # found; the index built and read
    neighbour = (repo / ".beads" / "memory" / store.ACTIVE).read_text().splitlines()[1]

    proc = recall(repo, "--redact", "db", SECRET)
    assert proc.returncode == 0, proc.stderr
    assert "1 line in knowledge.archive.jsonl" in proc.stdout and "1 line in knowledge.jsonl" in proc.stdout
    assert "rotate it now" in proc.stdout and "git filter-repo" in proc.stdout and "history" in proc.stdout
    for name, data in memory_files(repo).items():
        assert SECRET.encode() not in data and SECRET.lower().encode() not in data.lower(), name
    for args in ([SECRET], [SECRET, "--all"], [SECRET, "--all", "--history"]):
        found = recall(repo, *args)
        assert found.returncode == 1 and SECRET not in found.stdout, args
    ranked = recall(repo, "admin", "password", SECRET)  # the other words still rank the entry, redacted
    assert "admin password <redacted:manual>" in ranked.stdout and SECRET not in ranked.stdout
    live = {e["key"]: e for e in store.latest(knowledge(repo))}
    assert live["decision-db"]["content"] == "use postgres 15; admin password <redacted:manual> until rotation"
    assert live["decision-db"]["pinned"] and "manual" in live["decision-db"]["redacted"]
    assert (repo / ".beads" / "memory" / store.ACTIVE).read_text().splitlines()[1] == neighbour  # byte for byte
    assert recall(repo, "postgres", "--all").returncode == 0  # the rebuilt index serves the new text


def test_redact_whole_text_renames_an_automatic_key_that_held_it(repo):
    recall(repo, "--add", f"LEARNED: the ci token {SECRET} lives in vault")
    key = entry.make_key("learned", f"the ci token {SECRET} lives in vault")
    assert SECRET.lower() in key
    recall(repo, "--pin", key)
    proc = recall(repo, "--redact", key)
    assert proc.returncode == 0 and "the key, which held it too, is now `learned-redacted-manual-" in proc.stdout
    lines = knowledge(repo)
    assert len(lines) == 2 and len({line["key"] for line in lines}) == 1  # the pin follows its entry
    assert lines[0]["content"] == "<redacted:manual>" and SECRET.lower() not in lines[0]["key"]
    assert "(pinned)" in recall(repo, "--pinned").stdout


def test_redact_text_of_an_automatic_key_makes_the_key_again(repo):
    recall(repo, "--add", f"LEARNED: psql uses {SECRET} for the admin")
    key = entry.make_key("learned", f"psql uses {SECRET} for the admin")
    proc = recall(repo, "--redact", key, SECRET)
    assert proc.returncode == 0
    [line] = knowledge(repo)
    assert line["key"] == "learned-psql-uses-redacted-manual-for-the-admin"


def test_redact_refuses_what_it_cannot_find_and_suggests_keys(repo):
    recall(repo, "--add", f"LEARNED: staging password {SECRET}")
    before = memory_files(repo)
    assert recall(repo, "--redact", "nope").returncode == 2
    near = recall(repo, "--redact", "staging", SECRET)
    assert near.returncode == 2 and "did you mean `learned-staging-password" in near.stderr
    absent = recall(repo, "--redact", f"learned-staging-password-{SECRET.lower()}", "not-in-it")
    assert absent.returncode == 1 and "nothing redacted" in absent.stderr
    assert recall(repo, "--redact", "a", "b", "c").returncode == 2
    assert memory_files(repo)[store.ACTIVE] == before[store.ACTIVE]


def test_redact_says_where_else_the_text_occurs(repo):
    recall(repo, "--add", f"DECISION[db]: admin {SECRET}")
    recall(repo, "--add", f"LEARNED: the same {SECRET} works on staging")
    proc = recall(repo, "--redact", "db", SECRET)
    assert proc.returncode == 0 and "also occurs in lines of `learned-the-same" in proc.stderr
    assert SECRET in (repo / ".beads" / "memory" / store.ACTIVE).read_text()  # only what was asked


def test_redact_a_torn_copy_too(repo):
    recall(repo, "--add", f"DECISION[db]: admin {SECRET}")
    with open(repo / ".beads" / "memory" / store.ACTIVE, "a") as fh:
        fh.write(f'{{"key":"decision-db","content":"admin {SECRET}\n')  # a torn copy (a crash mid-write)
    assert recall(repo, "--redact", "db", SECRET).returncode == 0
    text = (repo / ".beads" / "memory" / store.ACTIVE).read_text()
    assert SECRET not in text and text.count("\n") == 2


WRITER = """
import os, sys, time
from memory.store import entry, store
memory_dir, name, count, secret, redacted_once = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
for i in range(count):
    deadline = time.time() + 60
    while i == count // 2 and not os.path.exists(redacted_once) and time.time() < deadline:
        time.sleep(0.005)  # half written: the rest only after a --redact has rewritten under us
    store.append(memory_dir, [entry.build(f"writer {name} insight {i}", "BD-1", "orchestrator"),
                              entry.build(f"admin {secret} round {name}-{i}", "", "orchestrator", "decision",
                                          key_name="db")])
"""


def test_redact_under_concurrent_writers_loses_nothing(repo):
    """Writers appending (and rotating: the file starts near the limit), the secret among what they write,
    while --redact rewrites again and again: every appended line is there once, no line torn, and after a
    last --redact the secret is nowhere, not in the index either."""
    memory = repo / ".beads" / "memory"
    filler = [entry.build(f"filler {i}", "BD-1", "orchestrator", ts=i) for i in range(rotation.ROTATE_ABOVE - 20)]
    write(repo, store.ACTIVE, filler)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MEMORY_HOOKS_LOCK_TIMEOUT="30")
    redacted_once = repo / "redacted-once"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(memory), str(n), "25", SECRET, str(redacted_once)],
                                env=env) for n in range(4)]
    deadline = time.time() + 60  # a --redact before any writer has written finds no such key (exit 2): wait
    while not any(e["key"] == "decision-db" for e in store.load(str(memory)).entries) and time.time() < deadline:
        time.sleep(0.01)
    redactions = []
    while any(w.poll() is None for w in writers) or not redactions:
        redactions.append(recall(repo, "--redact", "decision-db", SECRET))
        if redactions[-1].returncode == 0:
            redacted_once.touch()
    assert all(w.wait(timeout=120) == 0 for w in writers)
    redactions.append(recall(repo, "--redact", "decision-db", SECRET))
    # a machine loaded enough for the lock to stay busy past recall.sh's wait says so: nothing is lost either way
    busy = [r for r in redactions if "the knowledge lock stayed busy" in r.stdout + r.stderr]
    assert all((r.returncode in (0, 1) or r in busy) and "Traceback" not in r.stderr for r in redactions), redactions
    assert redactions[-1] not in busy or recall(repo, "--redact", "decision-db", SECRET).returncode in (0, 1)
    assert sum(r.returncode == 0 for r in redactions) >= 2  # rewrites while the writers wrote
    rotation.rotate(str(memory))  # merges anything parked in the spool
    snap = store.load(str(memory), include_archive=True)
    assert snap.malformed == 0 and snap.unterminated == 0
    written = [e["content"] for e in snap.entries if e["content"].startswith("writer ")]
    assert sorted(written) == sorted(f"writer {n} insight {i}" for n in range(4) for i in range(25))
    rounds = [e["content"] for e in snap.entries if e["key"] == "decision-db"]
    assert sorted(rounds) == sorted(f"admin <redacted:manual> round {n}-{i}" for n in range(4) for i in range(25))
    assert sum(1 for e in snap.entries if e["content"].startswith("filler ")) == len(filler)
    for name in (store.ACTIVE, store.ARCHIVE, layout.INDEX, layout.ARCHIVE_INDEX):
        path = memory / name
        assert not path.exists() or SECRET.encode() not in path.read_bytes(), name
    assert recall(repo, SECRET, "--all").returncode == 1


def test_redact_leaves_no_copy_in_what_session_start_keeps_of_the_archive(repo):
    """Session start keeps the archive's live entries in knowledge.start (memory.surface.start_cache): a
    redaction of an archived entry leaves the secret there neither."""
    from helpers import run_hook

    write(repo, store.ARCHIVE, [dict(entry.build(f"staging admin is root / {SECRET}", "BD-1", "orchestrator",
                                                 ts=100), key="decision-db")])
    recall(repo, "--add", "LEARNED: the deploy queue drains first")
    time.sleep(0.2)  # older than start_cache.RACY_NS: cached
    payload = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo)}
    assert SECRET in json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"][
        "additionalContext"]
    assert SECRET.encode() in (repo / ".beads" / "memory" / layout.START_CACHE).read_bytes()
    from helpers import fixture_payload

    read = fixture_payload("claude-code/2.1.330/PreToolUse-15.json")  # a Read: action time maps the entries
    read.update(cwd=str(repo), session_id="s")
    read["tool_input"]["file_path"] = str(repo / "deploy" / "staging.yaml")
    assert run_hook("action_context", read, repo).returncode == 0
    assert SECRET.encode() in (repo / ".beads" / "memory" / layout.PATH_CUES).read_bytes()
    assert recall(repo, "--redact", "db", SECRET).returncode == 0
    for name, data in memory_files(repo).items():
        assert SECRET.encode() not in data, name
    shown = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "staging admin is root / <redacted:manual>" in shown and SECRET not in shown


def test_a_redaction_killed_mid_write_leaves_one_whole_file(repo):
    """SIGKILL at several moments: the file is the old one or the new one, never a mix; the next write
    clears the dead process's temp file."""
    import signal

    memory = repo / ".beads" / "memory"
    lines = [entry.build(f"filler line {i} " + "x" * 200, "BD-1", "orchestrator", ts=i) for i in range(6000)]
    lines[3000] = dict(entry.build(f"admin {SECRET}", "BD-1", "orchestrator", ts=3000), key="decision-db")
    write(repo, store.ARCHIVE, lines)
    before = (memory / store.ARCHIVE).read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "CLAUDE"))}
    for delay in (0.05, 0.15, 0.3, 0.6):
        (memory / store.ARCHIVE).write_bytes(before)
        proc = subprocess.Popen([RECALL, "--redact", "db", SECRET], cwd=repo, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = (memory / store.ARCHIVE).read_bytes()
        snap = store.read("", data)
        assert snap.malformed == 0 and snap.unterminated == 0 and len(snap.entries) == 6000
        if data != before:
            assert SECRET.encode() not in data
    recall(repo, "--add", "LEARNED: a later write")  # recovers under the lock: temp files of dead writers go
    assert not [p.name for p in memory.iterdir() if p.name.endswith(layout.TEMP_SUFFIX)]
    assert recall(repo, "--redact", "db", SECRET).returncode in (0, 1)
    assert SECRET.encode() not in (memory / store.ARCHIVE).read_bytes()


def test_redact_suggests_forgotten_keys_and_older_versions(repo):
    recall(repo, "--add", f"DECISION[db]: admin {SECRET}")
    recall(repo, "--add", "DECISION[db]: admin password is in the vault now")
    recall(repo, "--add", f"LEARNED: staging uses {SECRET} too")
    recall(repo, "--forget", f"learned-staging-uses-{SECRET.lower()}-too")
    proc = recall(repo, "--redact", SECRET)  # the secret given as the key: where is it?
    assert proc.returncode == 2 and "`decision-db`" in proc.stderr and "`learned-staging-uses-" in proc.stderr
    assert recall(repo, "--redact", "db", SECRET).returncode == 0
    assert SECRET in (repo / ".beads" / "memory" / store.ACTIVE).read_text()  # the forgotten one: still there
    assert recall(repo, "--redact", f"learned-staging-uses-{SECRET.lower()}-too", SECRET).returncode == 0
    assert SECRET not in (repo / ".beads" / "memory" / store.ACTIVE).read_text()
