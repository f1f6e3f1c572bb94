import json
import sys

from helpers import ROOT
from memory.surface import action_gate


def cursor_shell(output) -> bytes:
    return json.dumps({"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {"command": "make"},
                       "tool_output": json.dumps(output)}).encode()


def test_a_cursor_shell_call_that_succeeded_is_turned_away_on_its_bytes():
    assert not action_gate.might_act(cursor_shell({"exitCode": 0, "stdout": "ok"}))
    assert not action_gate.might_act(cursor_shell({"exitCode": 0, "stdout": "Exit code 1 in a log it printed"}))
    assert action_gate.might_act(cursor_shell({"exitCode": 2, "stdout": "make: *** No rule"}))
    assert action_gate.might_act(cursor_shell({"stdout": "no exit code given"}))  # in doubt: the handler decides
    compact = json.dumps({"hook_event_name": "postToolUse", "tool_name": "Shell",
                          "tool_output": json.dumps({"exitCode": 0}, separators=(",", ":"))},
                         separators=(",", ":")).encode()
    assert not action_gate.might_act(compact)


def test_a_cursor_shell_call_is_judged_on_its_bytes_whatever_the_shape_of_its_tool_output():
    """tool_output as an object, exitCode as a numeric string, compact or spaced: a success is turned away on the
    raw bytes, a failure passes (shell_outcome._cursor_output reads the same shapes)."""
    for compact in (True, False):
        separators = (",", ":") if compact else (", ", ": ")
        for code, fails in ((0, False), ("0", False), (1, True), ("1", True), ("127", True)):
            output = {"exitCode": code, "stdout": "ok"}
            for tool_output in (json.dumps(output, separators=separators), output):
                raw = json.dumps({"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {
                    "command": "make"}, "tool_output": tool_output}, separators=separators).encode()
                assert action_gate.might_act(raw) is fails, raw
    # an object's stdout naming a success does not hide its own exit code
    raw = json.dumps({"hook_event_name": "postToolUse", "tool_name": "Shell",
                      "tool_output": {"stdout": '{"exitCode": 0}', "exitCode": 2}}).encode()
    assert action_gate.might_act(raw)


def test_other_events_keep_their_markers():
    assert not action_gate.might_act(b'{"hook_event_name":"PostToolUse","tool_name":"Agent"}')
    assert action_gate.might_act(b'{"hook_event_name":"PostToolUseFailure","tool_name":"Bash"}')
    assert action_gate.might_act(b'{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a"}}')


def test_a_cursor_shell_call_is_judged_by_its_tool_output_not_its_command():
    """The command printed `{"exitCode":0}` and failed: its tool_input names that exit code first."""
    raw = json.dumps({"hook_event_name": "postToolUse", "tool_name": "Shell",
                      "tool_input": {"command": """echo '{"exitCode":0}' && make"""},
                      "tool_output": json.dumps({"exitCode": 2, "stdout": "make: *** No rule"})}).encode()
    assert action_gate.might_act(raw)


def test_a_cursor_file_event_passes_under_each_name_payload_reads_and_its_pre_tool_use_never():
    for name in ("file_path", "target_file", "path"):
        raw = json.dumps({"hook_event_name": "postToolUse", "tool_name": "Read", "tool_input": {name: "/r/a.py"},
                          "tool_output": "{}"}).encode()
        assert action_gate.might_act(raw), name
    # Cursor runs our Claude PreToolUse hook too, Cursor-shaped: its preToolUse shows the model nothing
    assert not action_gate.might_act(json.dumps({"hook_event_name": "preToolUse", "cursor_version": "3.9.16",
                                                 "tool_name": "Read", "tool_input": {"file_path": "/r/a.py"}}).encode())


def test_a_fifo_where_the_action_hooks_derived_files_go_never_holds_it(tmp_path):
    """The cue map (knowledge.paths) and the per-session cache are the action hook's own files, read on every file
    call. A FIFO there (anything planted where a file belongs) made that read wait for a writer: the hook hung
    until its runtime killed it, on every Read. Now it is no answer, and the hook rebuilds or looks again."""
    import os
    import subprocess

    import pytest

    from helpers import make_repo, run_hook
    from memory.core import layout
    from memory.store import entry, store
    from memory.surface import action_cache

    repo = make_repo(tmp_path / "repo")
    memory_dir = repo / ".beads" / "memory"
    store.append(str(memory_dir), [entry.build("retry.py backs off with jitter", "BD-1", "orchestrator", ts=100)])
    (repo / "retry.py").write_text("def retry(): ...\n")
    os.mkfifo(memory_dir / layout.PATH_CUES)
    read = {"hook_event_name": "PreToolUse", "tool_name": "Read", "session_id": "s", "cwd": str(repo),
            "tool_input": {"file_path": str(repo / "retry.py")}}
    try:
        proc = run_hook("action_context", read, repo, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the action hook hung on knowledge.paths")
    assert proc.returncode == 0
    cache = action_cache._cache_path(str(memory_dir), "s", "an event")
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    os.mkfifo(cache)
    code = ("import sys; from memory.surface import action_cache; "
            "print(action_cache.get(sys.argv[1], 's', 'an event', [1]))")
    try:
        got = subprocess.run([sys.executable, "-c", code, str(memory_dir)], capture_output=True, text=True,
                             timeout=20, cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        pytest.fail("the action cache hung on a FIFO")
    assert got.stdout.strip() == "None"


def claude_shell(command: str, stdout: str = "", separators=(",", ":")) -> bytes:
    payload = json.loads((ROOT / "tests" / "fixtures" / "claude-code" / "2.1.330" / "PostToolUse-15.json").read_text())
    payload["tool_input"] = {"command": command, "description": "x"}
    payload["tool_response"] = dict(payload["tool_response"], stdout=stdout)
    return json.dumps(payload, separators=separators).encode()


def test_a_claude_shell_call_that_succeeded_passes_only_when_its_command_reads_or_edits_a_file():
    """Claude Code's PostToolUse on Bash runs after every shell command: one that names no file is turned away on
    its bytes, whatever its output printed (an error, `cat `); Codex's output, a string, still goes to the
    handler (its exit status is not in the payload)."""
    for separators in ((",", ":"), (", ", ": ")):
        assert action_gate.might_act(claude_shell("sed -n 1,80p src/db.py", separators=separators))
        assert action_gate.might_act(claude_shell("perl -pi -e 's/a/b/' src/db.py", separators=separators))
        assert not action_gate.might_act(claude_shell("ls -la", separators=separators))
        assert not action_gate.might_act(claude_shell(
            "make test", "Exit code 1\ncat and head and apply_patch\n", separators=separators))
    codex = json.loads(claude_shell("make test"))
    codex["tool_response"] = "Exit code 2\nmake: *** [test] Error 1"
    assert action_gate.might_act(json.dumps(codex).encode())
