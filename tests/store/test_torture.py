"""Torture: many writers and readers at once, random SIGKILLs, hostile stdin and content, filesystem faults.

(A longer soak of the same loops: `python bench/soak.py --minutes 10`.)
"""
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import (
    ROOT,
    assert_protocol,
    bash_payload,
    clean_env,
    error_log,
    held_lock,
    hook_in_process,
    knowledge,
    make_repo,
    run_hook,
)
from memory.store import entry, rotation, store

WORKER = str(ROOT / "tests" / "crash_worker.py")
HOOKS = ["memory_capture", "session_start", "validate_completion", "log_dispatch_prompt", "prompt_recall"]


def all_entries(memory: Path):
    """Archive + active + inbox (active read first, as readers do); any torn line fails."""
    active = store.active_bytes(str(memory))
    archive = (memory / store.ARCHIVE).read_bytes() if (memory / store.ARCHIVE).exists() else b""
    lines = [line for line in (archive + active).split(b"\n") if line]
    return [json.loads(line) for line in lines]


READER = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from memory.store import store
memory, stop_file = sys.argv[2], sys.argv[3]
seen, reads = set(), 0
while not os.path.exists(stop_file) or reads < 3:
    snap = store.load(memory, include_archive=True)
    if snap.malformed:
        print("TORN", snap.malformed); sys.exit(1)
    beads = {e["bead"] for e in snap.entries}
    if not seen <= beads:
        print("LOST", sorted(seen - beads)[:5]); sys.exit(1)
    seen, reads = beads, reads + 1
print("reads", reads)
"""


@pytest.mark.slow  # ~15 s; test_concurrency runs 32 writers across rotations quickly
def test_48_writers_with_readers_across_many_rotations(tmp_path):
    memory = tmp_path / "memory"
    stop_file = tmp_path / "stop"
    memory.mkdir()
    readers = [subprocess.Popen([sys.executable, "-c", READER, str(ROOT), str(memory), str(stop_file)],
                                stdout=subprocess.PIPE, text=True) for _ in range(3)]
    writers = [subprocess.Popen([sys.executable, WORKER, str(memory), str(i * 1000), "60"]) for i in range(48)]
    assert all(w.wait(180) == 0 for w in writers)
    stop_file.write_text("")
    for r in readers:
        out, _ = r.communicate(timeout=60)
        assert r.returncode == 0, out
    beads = [e["bead"] for e in all_entries(memory)]
    assert len(beads) == len(set(beads)) == 48 * 60
    # four rotations (at 1001, 1501, 2001, 2501)
    assert len((memory / store.ARCHIVE).read_bytes().splitlines()) == 4 * rotation.ROTATE_CHUNK


def test_hook_readers_during_concurrent_captures(repo):
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    with open(memory / store.ACTIVE, "w") as fh:
        for i in range(950):
            fh.write(json.dumps(entry.build(f"seed {i}", f"S-{i}", "orchestrator", ts=i)) + "\n")
    env = clean_env()
    env["CLAUDE_PROJECT_DIR"] = str(repo)

    def spawn(hook, payload):
        p = subprocess.Popen([sys.executable, str(ROOT / "hooks" / f"{hook}.py")], cwd=repo, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdin.write(json.dumps(payload).encode())
        p.stdin.close()
        return p

    start = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo)}
    procs = []
    for i in range(24):
        capture = spawn("memory_capture", bash_payload(f'bd comment B-{i} "LEARNED: torture {i}"', repo))
        procs.append(("capture", capture))
        if i % 4 == 0:
            procs.append(("start", spawn("session_start", start)))
    for kind, p in procs:
        assert p.wait(120) == 0
        out = p.stdout.read()
        if kind == "start":
            text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            assert "malformed" not in text and text.startswith("## Recent Knowledge")
    contents = [e["content"] for e in all_entries(memory)]
    assert len(contents) == len(set(contents)) == 950 + 24
    assert error_log(repo) == ""


@pytest.mark.slow  # ~30 s; the every-step kills in test_concurrency cover each point quickly
def test_100_random_kills_during_appends_and_rotations(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    rng = random.Random(1234)
    known = set()
    for round_ in range(100):
        worker = subprocess.Popen([sys.executable, WORKER, str(memory), str(100_000 + round_ * 1000), "400"])
        time.sleep(rng.uniform(0.05, 0.4))  # after start-up, somewhere among the appends and rotations
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        subprocess.run([sys.executable, WORKER, str(memory), str(round_), "1"], check=True)  # recover + append
        beads = [e["bead"] for e in all_entries(memory)]
        assert len(beads) == len(set(beads)), f"duplicates after round {round_}"
        assert known <= set(beads), f"lost entries after round {round_}"
        known = set(beads)
    assert len(known) > 1000  # the kills really landed among many appends and rotations


# -- hostile stdin ---------------------------------------------------------------------------------

def run_in_process(hook: str, raw: bytes, cwd: Path, monkeypatch) -> str:
    """A hook's main() on `raw` as stdin, in this process (fast enough for property-based testing)."""
    return hook_in_process(hook, raw, cwd, monkeypatch).decode("utf-8")


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                           lambda children: (st.lists(children, max_size=4)
                                             | st.dictionaries(st.text(max_size=8), children, max_size=4)),
                           max_leaves=20)
payload_fields = st.fixed_dictionaries({}, optional={
    "hook_event_name": st.sampled_from(["PostToolUse", "SessionStart", "SubagentStop", "afterShellExecution",
                                        "sessionStart", "subagentStop", "AfterTool"]) | json_values,
    "tool_name": st.sampled_from(["Bash", "Shell", "Agent", "Task", "run_shell_command"]) | json_values,
    "tool_input": st.fixed_dictionaries({"command": st.sampled_from(['bd comment X "LEARNED: y"', "ls"]) | json_values,
                                         "prompt": st.just("BEAD_ID: B-1 go") | json_values}) | json_values,
    "cwd": json_values, "agent_type": st.sampled_from(["supervisor", ""]) | json_values,
    "last_assistant_message": st.just("BEAD B-1 COMPLETE\nBranch: x") | json_values,
    "stop_hook_active": json_values, "cursor_version": json_values, "workspace_roots": json_values,
    "command": json_values, "status": json_values, "agent_transcript_path": json_values,
})


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory):
    return make_repo(tmp_path_factory.mktemp("hostile") / "repo")


@pytest.mark.parametrize("hook", HOOKS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode())
       | payload_fields.map(lambda v: json.dumps(v).encode()))
def test_hostile_stdin_property(hook, raw, hostile_repo, monkeypatch):
    assert_protocol(run_in_process(hook, raw, hostile_repo, monkeypatch))


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("raw", [
    pytest.param(b"", id="empty"), pytest.param(b" \n\t ", id="whitespace"),
    pytest.param(b"\xff\xfe\xfd{", id="invalid-utf8"), pytest.param(b"[1,2,3]", id="array"),
    pytest.param(b'"a string"', id="string"), pytest.param(b"42", id="number"),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, id="deep-array"),
    # nested past the parser's limit; the markers get it past every hook's fast path
    pytest.param(b'{"m":"bd comment LEARNED BEAD_ID","a":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_001,
                 id="deep-object")])
def test_hostile_stdin_is_logged(hook, raw, tmp_path):
    repo = make_repo(tmp_path / "r")
    proc = run_hook(hook, raw, repo)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert_protocol(proc.stdout.decode())
    assert hook in error_log(repo)


@pytest.mark.parametrize("hook", HOOKS)
def test_wrong_typed_fields_are_logged(hook, repo):
    raw = {"hook_event_name": 7, "cwd": ["x"], "session_id": {}, "tool_name": "Bash", "agent_type": 3,
           "tool_input": {"command": 'bd comment B "LEARNED: typed"', "prompt": "BEAD_ID: B-1"},
           "stop_hook_active": "yes"}
    proc = run_hook(hook, raw, repo)
    assert proc.returncode == 0
    assert_protocol(proc.stdout.decode())
    assert "payload: " in error_log(repo) and "hook_event_name is int" in error_log(repo)


def test_50mb_tool_response(repo):
    payload = bash_payload('bd comment BD-1 "LEARNED: big payloads are fine"', repo)
    payload["tool_response"]["stdout"] = "x" * (50 * 1024 * 1024)
    proc = run_hook("memory_capture", payload, repo)
    assert proc.returncode == 0 and [e["content"] for e in knowledge(repo)] == ["big payloads are fine"]


GEMINI_SHELL = {"session_id": "g", "transcript_path": "/tmp/t", "hook_event_name": "AfterTool",
                "timestamp": "2026-01-01T00:00:00Z", "tool_name": "run_shell_command",
                "tool_input": {"command": 'bd comment G-1 "LEARNED: gemini shell works too"'},
                "tool_response": {"llmContent": "ok", "returnDisplay": "ok"}}


@pytest.mark.parametrize("fixture", ["public/cursor-beforeShellExecution-1.json", "public/cursor-sessionEnd-1.json",
                                     "public/cursor-afterFileEdit-1.json", "public/cursor-beforeSubmitPrompt-1.json",
                                     "gemini-AfterTool"])
@pytest.mark.parametrize("hook", HOOKS)
def test_cursor_and_gemini_shaped_payloads(hook, fixture, repo):
    from conftest import fixture_payload
    payload = dict(GEMINI_SHELL, cwd=str(repo)) if fixture == "gemini-AfterTool" else fixture_payload(fixture)
    proc = run_hook(hook, payload, repo)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert_protocol(proc.stdout.decode())


# -- hostile content -------------------------------------------------------------------------------

@pytest.mark.parametrize("content", [
    "NUL \x00 and controls \x01\x1b[31m red \x7f",
    "multi\nline\r\nwith\u2028separators\u2029end",
    "x" * 100_000,
    "right-to-left \u202eevil\u202c שלום עולם and emoji 🙂🚀👩‍👩‍👧",
    '{"key":"learned-fake","type":"learned","content":"injected","ts":9999999999}',
    "\ud83d lone surrogate",
])
def test_hostile_content_keeps_one_json_object_per_line(repo, content):
    command = "bd comment BD-1 " + "'" + content.replace("'", "'\\''") + "'"
    command = command.replace("BD-1 '", "BD-1 'LEARNED: ", 1)
    run_hook("memory_capture", bash_payload(command, repo), repo)
    raw = store.active_bytes(str(repo / ".beads" / "memory"))
    assert raw.count(b"\n") == 1 and raw.endswith(b"\n")
    [e] = knowledge(repo)
    assert len(e["content"]) <= entry.MAX_CONTENT_CHARS and e["key"].startswith("learned-")
    start = run_hook("session_start", {"hook_event_name": "SessionStart", "cwd": str(repo)}, repo)
    text = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(text) < 10_000 and "\x00" not in text and "\n[LEARN]" not in text.replace("  [LEARN]", "")


# -- filesystem faults -----------------------------------------------------------------------------

def _seeded(repo):
    run_hook("memory_capture", bash_payload('bd comment BD-0 "LEARNED: stored before the fault"', repo), repo)
    assert len(knowledge(repo)) == 1


def _drop_root():
    if os.geteuid() == 0:  # root ignores file modes: run the hook as nobody
        os.setgid(65534)
        os.setuid(65534)


def test_read_only_memory_dir():
    root = os.geteuid() == 0
    python = "/usr/bin/python3" if root else sys.executable  # nobody cannot reach a venv under /root
    if root and not os.access(python, os.X_OK):
        pytest.skip("no system python3 to run the hook as an unprivileged user")
    base = Path(tempfile.mkdtemp(prefix="memory-hooks-ro-"))
    os.chmod(base, 0o755)
    try:
        repo = make_repo(base / "repo")
        _seeded(repo)
        memory = repo / ".beads" / "memory"
        for p in [repo, repo / ".beads", memory, *memory.iterdir()]:
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
        os.chmod(memory, 0o555)
        payload = json.dumps(bash_payload('bd comment BD-1 "LEARNED: cannot be written"', repo)).encode()
        env = clean_env()
        home = base / "home"  # the unprivileged user's own home: the fallback log goes there
        home.mkdir()
        if root:
            os.chown(home, 65534, 65534)
        env.update(CLAUDE_PROJECT_DIR=str(repo), HOME=str(home), GIT_CONFIG_COUNT="1",
                   GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0="*")
        proc = subprocess.run([python, str(ROOT / "hooks" / "memory_capture.py")], input=payload, cwd=repo,
                              env=env, capture_output=True, preexec_fn=_drop_root)
        assert proc.returncode == 0, proc.stderr
        said = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]  # #21 item 9: the agent is told
        assert said.startswith("memory-hooks: NOT stored") and "Permission denied" in said
        # errors.log in the memory folder is read-only too: the per-user fallback log has the line
        fallback = (home / ".local" / "state" / "memory-hooks" / "errors.log").read_text()
        assert "memory_capture" in fallback and "PermissionError" in fallback and str(memory) in fallback
        os.chmod(memory, 0o755)
        assert [e["content"] for e in knowledge(repo)] == ["stored before the fault"]
    finally:
        for folder, _dirs, _ in os.walk(base):
            os.chmod(folder, 0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_file_size_limit_mid_write(repo):
    _seeded(repo)
    [seeded] = (repo / ".beads" / "memory" / "inbox").iterdir()
    limit = seeded.stat().st_size + 10  # the next capture's file (a longer line) does not fit

    def limit_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    payload = json.dumps(bash_payload('bd comment BD-1 "LEARNED: this line is cut by RLIMIT_FSIZE"', repo)).encode()
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo), PYTHONDONTWRITEBYTECODE="1")  # the limit would cut a .pyc short
    proc = subprocess.run([sys.executable, str(ROOT / "hooks" / "memory_capture.py")], input=payload, cwd=repo,
                          env=env, capture_output=True, preexec_fn=limit_size)
    assert proc.returncode == 0
    assert "File too large" in error_log(repo) or "Errno 27" in error_log(repo)
    assert [e["content"] for e in knowledge(repo)] == ["stored before the fault"]  # no torn line left behind
    run_hook("memory_capture", bash_payload('bd comment BD-2 "LEARNED: after the fault"', repo), repo)
    assert len(knowledge(repo)) == 2


def test_knowledge_file_replaced_by_a_symlink_outside_the_repo(repo, tmp_path):
    _seeded(repo)
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    active = repo / ".beads" / "memory" / store.ACTIVE
    saved = active.read_bytes() if active.exists() else None
    if saved is not None:
        active.unlink()
    os.symlink(outside, active)
    proc = run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: not through the link"', repo), repo)
    assert proc.returncode == 0
    assert outside.read_text() == "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n"
    start = run_hook("session_start", {"hook_event_name": "SessionStart", "cwd": str(repo)}, repo)
    assert b"secret" not in start.stdout and b"PRIVATE" not in start.stdout
    assert "Errno 40" in error_log(repo) or "symbolic links" in error_log(repo)
    active.unlink()
    if saved is not None:
        active.write_bytes(saved)
    assert [e["content"] for e in knowledge(repo)] == ["stored before the fault"]


def test_missing_archive(repo):
    _seeded(repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    proc = subprocess.run([str(ROOT / "bin" / "recall.sh"), "stored", "--all"], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0 and "stored before the fault" in proc.stdout


def test_stuck_lock_holder_parks_captures_and_the_next_write_merges_them(repo):
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    with held_lock(memory / store.LOCK):  # e.g. a writer stopped with SIGSTOP
        proc = run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: parked while locked"', repo), repo,
                        env={"MEMORY_HOOKS_LOCK_TIMEOUT": "0.3"})
        assert proc.returncode == 0 and knowledge(repo) == []
        assert len(list((memory / store.SPOOL).glob("*.jsonl"))) == 1
        assert "stayed busy" in error_log(repo)
        doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--json"], cwd=repo, capture_output=True,
                                text=True, env={**os.environ, "HOME": str(repo.parent)})
        assert any(c["check"] == "pending" for c in json.loads(doctor.stdout)["checks"])
    run_hook("memory_capture", bash_payload('bd comment BD-2 "LEARNED: after the holder died"', repo), repo)
    assert [e["content"] for e in knowledge(repo)] == ["parked while locked", "after the holder died"]
    assert list((memory / store.SPOOL).glob("*")) == []
