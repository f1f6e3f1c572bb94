"""Provenance: the files a session had read or edited and the error lines of its last failure, from the tail of
its real transcript, recorded on the entry the capture hook writes, and used by action time."""
import json
import shutil

import pytest

from helpers import FIXTURES, bash_payload, fixture_payload, knowledge, make_repo, run_hook
from memory.capture import provenance

TRANSCRIPT = FIXTURES / "claude-code" / "2.1.330" / "transcript-edit.jsonl"  # recorded: one Edit of this file
RECORDED_ROOT = "/tmp/probe/ct/test_file_and_error_context_an0/app"  # the project it was recorded in


def files(transcript, root):
    return provenance.session_provenance(transcript, root)["files"]


def test_files_and_the_last_error_from_a_real_transcript():
    found = provenance.session_provenance(str(TRANSCRIPT), RECORDED_ROOT)
    terms = found.pop(provenance.FAILURE_TERMS)
    assert found == {
        "files": ["payments/refund_service.py"], "edited": ["payments/refund_service.py"],  # the session edited it
        # the recorded session's failing Bash call; its traceback header says nothing and is not kept
        "errors": ["ModuleNotFoundError: No module named 'psycopg2'"]}
    # what an insight is compared with: the whole command and output, not only the recorded line
    assert {"python3", "psycopg2", "traceback", "string"} <= set(terms)
    assert files(str(TRANSCRIPT), "/elsewhere") is None  # outside the project: not recorded (was: kept absolute)
    nothing = {"files": None, "edited": None, "errors": None, provenance.FAILURE_TERMS: None}
    assert provenance.session_provenance(None, RECORDED_ROOT) == nothing
    assert provenance.session_provenance("/nonexistent.jsonl", RECORDED_ROOT) == nothing


@pytest.mark.parametrize("log", ["codex/0.169.0/rollout-1.jsonl", "gemini/0.61.0/chat-1.jsonl"])
def test_the_last_error_from_recorded_codex_and_gemini_logs(log):
    # both sessions ran `bd update …` (bd missing), then `ls /definitely/not/here`: a missing folder names nothing
    # once its path is cleaned out, so the failure before it is the one recorded (Gemini logs no bd failure)
    assert provenance.session_provenance(str(FIXTURES / log), "/p")["errors"] == (
        ["line : bd: command not found"] if log.startswith("codex") else None)


def _calls(tmp_path, calls):
    """A transcript of (tool name, input, error text or None) calls, Claude Code's shape."""
    lines = []
    for i, (name, tool_input, error) in enumerate(calls):
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{i}", "name": name, "input": tool_input}]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": error or "ok", "is_error": error is not None}]}})
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    return str(path)


def test_the_error_is_the_last_shell_failure_within_the_window(tmp_path):
    go = "Exit code 1\n# example.com/app\n./main.go:12:2: undefined: parseConfig\n"
    pnpm = "Exit code 127\n/bin/bash: line 1: pnpm: command not found\n"
    ok = ("Bash", {"command": "ls"}, None)
    assert provenance.session_provenance(_calls(tmp_path, [
        ("Bash", {"command": "go build ./..."}, go), ("Bash", {"command": "pnpm i"}, pnpm), ok]), "/p")["errors"] \
        == ["line : pnpm: command not found"]  # the newest failure; its folders and number cleaned out
    grep_nothing = ("Bash", {"command": "grep -rn teams_by_id src"}, "Exit code 1\n")
    assert provenance.session_provenance(_calls(tmp_path, [  # a failure naming nothing hides nothing
        ("Bash", {"command": "pnpm i"}, pnpm), grep_nothing, ok]), "/p")["errors"] == [
        "line : pnpm: command not found"]
    assert provenance.session_provenance(_calls(tmp_path, [
        ("Bash", {"command": "pnpm i"}, pnpm)] + [ok] * provenance.ERROR_WINDOW), "/p")["errors"] is None  # too old
    assert provenance.session_provenance(_calls(tmp_path, [  # a failed Read is no command's error
        ("Read", {"file_path": "/p/missing.py"}, "File does not exist."), ok]), "/p")["errors"] is None
    ours = ("Bash", {"command": '.beads/memory/recall.sh --add "WARNING: staging needs the VPN"'},
            "Exit code 127\n/bin/bash: line 1: .beads/memory/recall.sh: No such file or directory\n")
    assert provenance.session_provenance(_calls(tmp_path, [  # a failed call of our own recall.sh is no error the
        ("Bash", {"command": "pnpm i"}, pnpm), ours, ok]), "/p")["errors"] == [  # insight is about: skipped
        "line : pnpm: command not found"]
    expect = "Exit code 1\n    expect(received).toBe(expected) // Object.is equality\n"
    assert provenance.session_provenance(_calls(tmp_path, [  # says only that it failed: nothing to recognise
        ("Bash", {"command": "yarn jest"}, expect)]), "/p")["errors"] is None


def test_newest_first_distinct_and_bounded(tmp_path):
    lines = []
    for i in range(12):
        tool = {"type": "tool_use", "id": f"t{i}", "name": "Read" if i % 2 else "Edit",
                "input": {"file_path": f"/p/src/f{i % 10}.py"}}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [tool]}})
    lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "cat /p/x.py"}}]}})
    path = tmp_path / "t.jsonl"
    path.write_text("x" * 600_000 + "\n" + "\n".join(json.dumps(r) for r in lines) + "\n")  # a long head
    found = provenance.session_provenance(str(path), "/p")
    # a shell command that prints a file read it too (Codex reads through its shell); the files an Edit changed
    # (even i) are kept before those only read, then the newest read ones fill the eight
    assert found["files"] == ["x.py"] + [f"src/f{i}.py" for i in (1, 0, 9, 8, 6, 4, 2)]
    assert found["edited"] == [f"src/f{i}.py" for i in (0, 8, 6, 4, 2)]
    read_after_edit = _calls(tmp_path, [("Edit", {"file_path": "/p/a.py"}, None)]
                             + [("Read", {"file_path": f"/p/r{i}.py"}, None) for i in range(9)]
                             + [("Read", {"file_path": "/p/a.py"}, None)])
    found = provenance.session_provenance(read_after_edit, "/p")
    assert found["files"][0] == "a.py" and found["edited"] == ["a.py"]  # read last, changed further back


def test_a_file_outside_the_project_or_named_like_a_credential_is_never_recorded(tmp_path):
    """A committed entry named `/home/alice.smith/.aws/config` and `ci/ghp_….env`: someone's machine, and a token
    the redaction did not see (it wants a word boundary that a path's `/`, `.` or `-` is not)."""
    token = "ghp_pLIix6MEOLeMa61EqJomTEI1JEzO3joOj37H"
    slack = "xoxb-2048593021-4829104857261-kd93jfh28shd73hf"
    transcript = _calls(tmp_path, [("Read", {"file_path": "/home/alice.smith/.aws/config"}, None),
                                   ("Edit", {"file_path": "/Users/bob/clients/acme/notes.md"}, None),
                                   ("Bash", {"command": "cat ../sibling/README.md ~/.netrc"}, None),
                                   ("Bash", {"command": "cd src && cat ../../clients/acme/contract.md"}, None),
                                   ("Read", {"file_path": "src/../../clients/acme/notes.md"}, None),
                                   ("Edit", {"file_path": f"/p/ci/{token}.env"}, None),
                                   ("Read", {"file_path": f"/p/keys/{slack}/notes.txt"}, None),
                                   ("Read", {"file_path": "/p/deploy/prefix-" + token}, None),
                                   ("Edit", {"file_path": "/p/src/app.py"}, None),
                                   ("Read", {"file_path": "/p/tests/test_secrets.py"}, None)])
    found = provenance.session_provenance(transcript, "/p")
    assert found["files"] == ["tests/test_secrets.py", "src/app.py"] and found["edited"] == ["src/app.py"]
    assert token not in json.dumps(found) and slack not in json.dumps(found) and "alice" not in json.dumps(found)


def test_the_capture_hook_records_the_sessions_files(tmp_path):
    repo = make_repo(tmp_path / "app")
    transcript = tmp_path / "session.jsonl"
    shutil.copy(TRANSCRIPT, transcript)
    text = transcript.read_text().replace(RECORDED_ROOT, str(repo))
    transcript.write_text(text)
    payload = bash_payload('bd comment BD-9 "LEARNED: refunds are rounded in the service; run python3 from the '
                           'venv, the system one lacks the drivers."', repo, transcript_path=str(transcript))
    assert run_hook("memory_capture", payload, repo).returncode == 0
    [captured] = knowledge(repo)
    assert captured["files"] == ["payments/refund_service.py"]
    assert captured["errors"] == ["ModuleNotFoundError: No module named 'psycopg2'"]  # the session's last failure
    assert provenance.FAILURE_TERMS not in captured  # compared with, never stored
    # action time: an entry captured while the session worked on a file is about that file
    read = fixture_payload("claude-code/2.1.330/PreToolUse-15.json")
    read.update(cwd=str(repo), session_id="next", tool_input={"file_path": str(repo / "payments/refund_service.py")})
    answer = json.loads(run_hook("action_context", read, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "refunds are rounded in the service" in answer
    # and the same failure in a later session gets it, though no word of the entry is in the error
    failed = fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json")
    failed.update(cwd=str(repo), session_id="later", tool_input={"command": "pytest tests/test_refunds.py"},
                  error="Exit code 1\nE   ModuleNotFoundError: No module named 'psycopg2'\n")
    answer = json.loads(run_hook("action_context", failed, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "(recorded right after this same error) refunds are rounded in the service" in answer
    forget = bash_payload("bd comment BD-9 \"FORGET: " + captured["key"] + '"', repo, transcript_path=str(transcript))
    run_hook("memory_capture", forget, repo)
    assert "files" not in knowledge(repo)[-1] and "errors" not in knowledge(repo)[-1]  # a control line: neither


def test_the_failure_is_recorded_only_on_an_insight_that_shares_a_term_with_it(tmp_path):
    """A session's last failure is often not what it then records: a lesson about something else, captured after
    an unrelated failure, would come back marked "recorded right after this same error" when that failure recurs."""
    repo = make_repo(tmp_path / "app")
    output = ("Exit code 1\nbiome lint apps/web/modules/bookings/BookingListItem.tsx\n"
              "lint/style/useImportType ━━━━━━━━━━\n  × All these imports are only used as types.\n")
    controller = str(repo / "apps/api/v2/bookings.controller.ts")
    transcript = _calls(tmp_path, [("Read", {"file_path": controller}, None),
                                   ("Bash", {"command": "yarn biome check apps/web"}, output)])
    payload = bash_payload('bd comment BD-9 "LEARNED: never rename a public API response field; add the new one and '
                           'keep the old." && bd comment BD-9 "LEARNED: use import type for imports only used as '
                           'types."', repo, transcript_path=transcript)
    assert run_hook("memory_capture", payload, repo).returncode == 0
    unrelated, related = knowledge(repo)
    assert related["errors"] == ["× All these imports are only used as types."]
    assert "errors" not in unrelated
    assert unrelated["files"] == related["files"] == ["apps/api/v2/bookings.controller.ts"]
    assert all(provenance.FAILURE_TERMS not in e for e in (unrelated, related))
    # the failure recurring brings back the insight about it, marked; the other is not marked as seen with it
    failed = fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json")
    failed.update(cwd=str(repo), session_id="later", tool_input={"command": "yarn biome check packages/features"},
                  error="Exit code 1\n  × All these imports are only used as types.\n")
    proc = run_hook("action_context", failed, repo)
    answer = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else ""
    assert "(recorded right after this same error) use import type" in answer
    assert "right after this same error) never rename" not in answer


def test_a_secret_in_the_failure_never_reaches_the_knowledge(tmp_path):
    # a token cleaning would cut up (its digit runs are numbers): redacted whole, before cleaning
    token = "xoxb-" + "2048576301-4096123457890-Zq8RtYv3LpWm6NcXe1Ka9Hs2"
    repo = make_repo(tmp_path / "app")
    transcript = _calls(tmp_path, [("Bash", {"command": "git push"},
                                    f"Exit code 1\nerror: slack rejected the token {token}: invalid_auth\n")])
    payload = bash_payload('bd comment BD-9 "LEARNED: push with the deploy key, not a personal token."', repo,
                           transcript_path=transcript)
    assert run_hook("memory_capture", payload, repo).returncode == 0
    [captured] = knowledge(repo)
    assert captured["errors"] == ["error: slack rejected the token <redacted:slack_token>: invalid_auth"]
    assert "Zq8RtYv3LpWm6NcXe1Ka9Hs2" not in json.dumps(captured)


def test_under_cursor_a_capture_records_the_files_and_the_error_its_tool_calls_saw(tmp_path):
    """Cursor's transcript is not read (often null, its format undocumented): the files its postToolUse calls read
    or wrote and the error lines of its last failed Shell call are what a capture records, so the same error in a
    later conversation brings back what was learned right after it. Before, a Cursor capture recorded neither."""
    from helpers import cursor_runs, installed_project

    repo = installed_project(tmp_path / "app")
    (repo / "payments").mkdir()
    (repo / "payments" / "RefundService.py").write_text("def refund(): ...\n")

    def cursor(event, conversation, **fields):
        payload = {"conversation_id": conversation, "generation_id": "gen-1", "cursor_version": "3.9.16",
                   "hook_event_name": event, "workspace_roots": [str(repo)], "model": "default",
                   "transcript_path": None, **fields}
        runs = cursor_runs(repo, payload)
        assert runs and all(proc.returncode == 0 for _, proc in runs)
        return [json.loads(proc.stdout)["additional_context"] for _, proc in runs if proc.stdout]

    def failed_shell(conversation):
        output = json.dumps({"exitCode": 1, "stdout": "E   ModuleNotFoundError: No module named 'psycopg2'\n"})
        return cursor("postToolUse", conversation, tool_name="Shell", tool_input={"command": "pytest tests"},
                      tool_output=output, tool_use_id="t2")

    read = {"file_path": str(repo / "payments/RefundService.py")}
    cursor("postToolUse", "conv-1", tool_name="Read", tool_input=read,
           tool_output=json.dumps({"content": "def refund(): ..."}), tool_use_id="t1")
    failed_shell("conv-1")
    cursor("afterAgentResponse", "conv-1", text="Fixed.\nLEARNED: refunds are rounded in the service; "
           "its tests need psycopg 3 (the venv's), not psycopg2.\nLEARNED: the payment view never rounds.")
    captured, unrelated = knowledge(repo)
    assert captured["files"] == ["payments/RefundService.py"]  # as the file is named, like a transcript's
    assert "edited" not in captured  # read, not changed: a later Read of it needs another cue too
    assert captured["errors"] == ["E ModuleNotFoundError: No module named 'psycopg2'"]  # pytest's line, cleaned
    # the trail keeps no output: an insight is compared with the recorded lines; this one shares none of their words
    assert unrelated["files"] == captured["files"] and "errors" not in unrelated
    [answer] = failed_shell("conv-2")  # a later conversation, the same failure: no word of the entry in it
    assert "(recorded right after this same error) refunds are rounded in the service" in answer


def test_under_cursor_a_fifo_where_the_trail_belongs_never_holds_a_hook(tmp_path):
    """A FIFO (or a symlink) planted where a session's trail file goes: the postToolUse hook appended to it with a
    blocking open (no reader: it waited until Cursor killed it, on every file call), and the capture read it with
    one (no writer: the same). Both skip the trail now, like every other machine-local file."""
    import os
    import subprocess

    from helpers import cursor_runs, installed_project
    from memory.capture import trail
    from memory.core import layout

    repo = installed_project(tmp_path / "app")
    (repo / "notes.md").write_text("x\n")
    memory_dir = repo / ".beads" / "memory"
    (memory_dir / layout.ACTION_CACHE).mkdir(parents=True, exist_ok=True)
    os.mkfifo(trail._path(str(memory_dir), "conv-fifo"))
    secret = tmp_path / "elsewhere.jsonl"
    secret.write_text('{"files": ["from-a-planted-link.py"]}\n')
    os.symlink(secret, trail._path(str(memory_dir), "conv-link"))

    def cursor(event, conversation, **fields):
        payload = {"conversation_id": conversation, "generation_id": "gen-1", "cursor_version": "3.9.16",
                   "hook_event_name": event, "workspace_roots": [str(repo)], "model": "default",
                   "transcript_path": None, **fields}
        try:
            runs = cursor_runs(repo, payload)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{event} hung on the trail file")
        assert runs and all(proc.returncode == 0 for _, proc in runs)

    for conversation in ("conv-fifo", "conv-link"):
        cursor("postToolUse", conversation, tool_name="Read", tool_input={"file_path": str(repo / "notes.md")},
               tool_output=json.dumps({"content": "x"}), tool_use_id="t1")
        cursor("afterAgentResponse", conversation, text=f"Done.\nLEARNED: {conversation} notes are plain text.")
    assert secret.read_text() == '{"files": ["from-a-planted-link.py"]}\n'  # nothing appended through the link
    captured = knowledge(repo)
    assert len(captured) == 2 and all("from-a-planted-link.py" not in json.dumps(e) for e in captured)


def test_codex_reads_through_its_shell_and_edits_with_apply_patch(tmp_path):
    """Codex records no Read or Edit: it reads with `sed -n`/`cat` through exec_command and edits with apply_patch
    (a custom_tool_call in its rollout). Before, a Codex capture recorded no files at all."""
    recorded = (FIXTURES / "codex" / "0.169.0" / "rollout-1.jsonl").read_text()
    rollout = [json.loads(line) for line in recorded.splitlines()]
    call = next(r for r in rollout if r["type"] == "response_item" and r["payload"].get("type") == "function_call")
    patch = "*** Begin Patch\n*** Update File: src/db.py\n@@\n-a = 1\n+a = 2\n*** End Patch"
    lines = [dict(call, payload=dict(call["payload"], call_id=f"c{n}", arguments=json.dumps({"cmd": cmd})))
             for n, cmd in enumerate(["sed -n 1,80p src/db.py", "cat README.md"])]
    lines += [
        dict(call, payload={"type": "custom_tool_call", "call_id": "c3", "name": "apply_patch", "input": patch}),
        dict(call, payload=dict(call["payload"], call_id="c4", name="shell", arguments=json.dumps(
            {"command": ["apply_patch", patch.replace("src/db.py", "src/pool.py")]})))]  # a patch as an argv
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rollout + lines) + "\n")
    found = provenance.session_provenance(str(path), "/p")
    assert found["files"] == ["src/pool.py", "src/db.py", "README.md"]
    assert found["edited"] == ["src/pool.py", "src/db.py"]


def test_shell_reads_never_push_out_the_file_the_session_changed_and_say_what_they_changed(tmp_path):
    """A `wc -l` of many files (a glob among them) after the one Edit: before, the edited file left the eight and
    `edited` was empty, and the glob was stored as a file. `sed -i` changes its file; in `cat a.py && apply_patch`
    only the patch's file is changed."""
    many = " ".join(f"tests/test_{c}.py" for c in "abcdefgh")
    patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: b.py\n@@\n-x\n+y\n*** End Patch\nEOF"
    found = provenance.session_provenance(_calls(tmp_path, [
        ("Edit", {"file_path": "/p/payments/refund_service.py", "old_string": "a", "new_string": "b"}, None),
        ("Bash", {"command": f"wc -l payments/*.py {many}"}, None),
        ("Bash", {"command": "sed -i 's/a/b/' conf.py"}, None),
        ("Bash", {"command": f"cat a.py && {patch}"}, None)]), "/p")
    assert "payments/refund_service.py" in found["files"] and "payments/*.py" not in found["files"]
    assert found["edited"] == ["b.py", "conf.py", "payments/refund_service.py"] and "a.py" in found["files"]


def test_a_patch_codex_rejected_is_no_edit():
    """A recorded Codex 0.169 session whose apply_patch failed ("apply_patch verification failed"): the file was
    unchanged, yet the next insight recorded it as `edited`, which brings that insight at every read of it."""
    found = provenance.session_provenance(str(FIXTURES / "codex/0.169.0/rollout-failed-patch.jsonl"),
                                          "/tmp/walk31/c/app")
    assert found["files"] == ["payments/refund_service.py"] and found["edited"] is None


def test_a_shell_command_that_edits_then_fails_has_still_edited(tmp_path):
    """`sed -i … conf.py && pytest -q` exits 1 on a failing test: the file did change (a first version of the
    rule above took every failed call for no edit)."""
    found = provenance.session_provenance(_calls(tmp_path, [
        ("Bash", {"command": "sed -i 's/a/b/' conf.py && pytest -q"}, "Exit code 1\nFAILED tests/test_x.py::t"),
        ("Write", {"file_path": "/p/other.py", "content": "x"}, "Error writing file")]), "/p")
    assert found["edited"] == ["conf.py"] and "other.py" in found["files"]  # the failed Write: read at most
    failed_itself = provenance.session_provenance(_calls(tmp_path, [  # the error names the file: no edit made
        ("Bash", {"command": "sed -i 's/a/b/' missing.py"}, "Exit code 2\nsed: can't read missing.py: No such file"),
        ("Bash", {"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: pay/refund.py\n@@\n-x\n+y\n"
                             "*** End Patch\nEOF"},
         "Exit code 1\napply_patch verification failed: Failed to find expected lines in /p/pay/refund.py")]), "/p")
    assert failed_itself["edited"] is None and set(failed_itself["files"]) == {"missing.py", "pay/refund.py"}
