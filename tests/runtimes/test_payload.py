import json

import pytest

from conftest import fixture_payload
from memory.runtimes import payload


def test_parse_rejects_non_objects():
    for raw in [b"", b"  ", b"not json", b"[1,2]", b'"s"', b"3", b"\xff\xfe{"]:
        with pytest.raises(payload.PayloadError):
            payload.parse(raw)


def test_runtime_detection_on_real_payloads():
    assert payload.runtime(fixture_payload("claude-code/2.1.330/PostToolUse-8.json")) == payload.CLAUDE
    assert payload.runtime(fixture_payload("public/cursor-beforeShellExecution-1.json")) == payload.CURSOR


def test_shell_command_claude_cursor_and_others():
    assert payload.shell_command(fixture_payload("claude-code/2.1.330/PostToolUse-8.json")).startswith("echo 'LEARNED")
    assert payload.shell_command(fixture_payload("claude-code/2.1.330/PostToolUse-13.json")) is None  # Write
    cursor = dict(fixture_payload("public/cursor-beforeShellExecution-1.json"), hook_event_name="afterShellExecution")
    assert payload.shell_command(cursor) == "cd /Users/mars/Documents/GitHub/grafanaDemoPersonal && make run"
    failed = {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {"command": "x"},
              "tool_output": json.dumps({"exitCode": 1}), "cursor_version": "3"}
    assert payload.shell_command(failed) == "x" and not payload.succeeded(failed)
    assert payload.succeeded(fixture_payload("claude-code/2.1.330/PostToolUse-8.json"))
    assert not payload.succeeded(fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json"))
    assert payload.shell_command({"tool_name": "Bash", "tool_input": {"command": 7}}) is None


def test_a_cursor_shell_calls_exit_code_in_every_shape_of_its_tool_output():
    """Documented: tool_output a JSON string, exitCode a number. Also read: an object, a numeric string."""
    for code, failed in ((1, True), ("1", True), (" 2", True), (0, False), ("0", False), (None, False),
                         ("x", False), (True, False), ("--1", False), ("\u00b2", False), ("-", False)):
        for tool_output in (json.dumps({"exitCode": code}), {"exitCode": code}):
            data = {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {"command": "make"},
                    "tool_output": tool_output, "cursor_version": "3"}
            assert payload.succeeded(data) is not failed, (code, tool_output)
            assert payload.failure(data) == (f"exit code {int(code)}" if failed else
                                             "exit code 0" if code in (0, "0") else "")
            assert (payload.failure_text(data) is not None) is failed


def test_cwd_falls_back_to_cursor_workspace_root():
    assert payload.cwd(fixture_payload("public/cursor-beforeShellExecution-1.json")) == \
        "/Users/mars/Documents/GitHub/grafanaDemoPersonal"


def test_answers_per_runtime():
    claude = json.loads(payload.context_answer({"hook_event_name": "SessionStart"}, "hi"))
    assert claude == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hi"}}
    assert json.loads(payload.context_answer({"cursor_version": "1"}, "hi")) == {"additional_context": "hi"}
    assert json.loads(payload.block_answer({}, "why")) == {"decision": "block", "reason": "why"}
    assert json.loads(payload.block_answer({"cursor_version": "1"}, "why")) == {"followup_message": "why"}


def test_capture_id_equal_for_both_cursor_hook_shapes():
    native = {"conversation_id": "c", "generation_id": "g", "hook_event_name": "afterShellExecution", "command": "x"}
    via_claude = {"conversation_id": "c", "generation_id": "g", "session_id": "c", "hook_event_name": "postToolUse",
                  "tool_name": "Shell", "tool_use_id": "t", "tool_input": {"command": "x"}}
    assert payload.capture_id(native, "x") == payload.capture_id(via_claude, "x")


def test_added_text_is_what_an_edit_writes_that_was_not_there():
    edit = {"tool_name": "Edit", "tool_input": {"file_path": "/a.py", "old_string": "x = 1\ny = 2\n",
                                                "new_string": "x = 1\nimport dayjs\ny = 2\n"}}
    assert payload.added_text(edit) == "import dayjs"
    multi = {"tool_name": "MultiEdit", "tool_input": {"file_path": "/a.py", "edits": [
        {"old_string": "class A:\n", "new_string": "@dataclass\nclass A:\n"}, "junk",
        {"old_string": "b", "new_string": "c"}]}}
    assert payload.added_text(multi) == "@dataclass\nc"
    assert payload.added_text({"tool_name": "Write", "tool_input": {"file_path": "/n.rs", "content": "use std::fs;"}}) \
        == "use std::fs;"
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    assert payload.added_text({"tool_name": "apply_patch", "tool_input": {"input": patch}}) == "x = 2"
    assert payload.added_text({"tool_name": "Bash", "tool_input": {"command": "apply_patch <<'EOF'\n" + patch}}) \
        == "x = 2"
    assert payload.added_text({"tool_name": "Read", "tool_input": {"file_path": "/a.py"}}) == ""
    assert payload.added_text({"tool_name": "Edit", "tool_input": "garbage"}) == ""
    big = {"tool_name": "Write", "tool_input": {"file_path": "/b", "content": "x" * 10 * payload.ADDED_CHARS}}
    assert len(payload.added_text(big)) == payload.ADDED_CHARS


def test_changes_files_is_any_edit_write_or_patch_even_one_that_only_deletes():
    delete = {"tool_name": "Edit", "tool_input": {"file_path": "/a.py", "old_string": "x = 1\n", "new_string": ""}}
    assert payload.added_text(delete) == "" and payload.changes_files(delete)
    patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.py\n*** End Patch\nEOF"
    for name, args in (("Write", {"file_path": "/a", "content": ""}), ("MultiEdit", {"edits": []}),
                       ("replace", {"file_path": "/a"}), ("write_file", {"file_path": "/a"}),
                       ("apply_patch", {"input": ""}), ("Bash", {"command": patch})):
        assert payload.changes_files({"tool_name": name, "tool_input": args}), name
    for name, args in (("Read", {"file_path": "/a"}), ("read_file", {"file_path": "/a"}),
                       ("Bash", {"command": "cat a.py"}), ("Grep", {"pattern": "x"})):
        assert not payload.changes_files({"tool_name": name, "tool_input": args}), name


def test_codex_failures_of_make_npm_and_go_are_failures():
    """Codex's PostToolUse gives the output alone: the way make, npm and go test end a failure is one."""
    base = fixture_payload("codex/0.169.0/PostToolUse-1.json")
    failed = ["make: *** No rule to make target 'deploy'.  Stop.\n",
              "cc -o app main.c\nmain.c:1:1: oops\nmake: *** [Makefile:3: app] Error 1\n",
              "npm ERR! Missing script: \"deploy\"\n",
              "--- FAIL: TestRefund (0.00s)\n    refund_test.go:9: got 4\nFAIL\nFAIL\texample.com/shop\t0.01s\n",
              "exit status 1\n",
              "sh: 1: deploy: not found\n"]
    for output in failed:
        assert payload.failure_text(dict(base, tool_input={"command": "make deploy"}, tool_response=output)), output
    passed = ["ok  \texample.com/shop\t0.01s\n", "make: Nothing to be done for 'all'.\n",
              "added 3 packages in 1s\n", "FAILURES.md updated\n", "0 failed, 3 passed\n"]
    for output in passed:
        assert payload.failure_text(dict(base, tool_input={"command": "make"}, tool_response=output)) is None, output


@pytest.mark.parametrize("report, printed", [
    ("<untrusted_context>\nOutput: a\nb\nError: spawn failed\nExit Code: 2\nSignal: 9\nBackground PIDs: 7, 8\n"
     "Process Group PGID: 5\n</untrusted_context>", "a\nb\nError: spawn failed"),
    ("Output: (empty)\nExit Code: 1\nProcess Group PGID: 5", ""),  # nothing printed: nothing to rank
    ("Output: Exit Code: 3 is what the tool printed\nProcess Group PGID: 5", "Exit Code: 3 is what the tool printed"),
    ("Command was automatically cancelled because it exceeded the timeout", None),  # not a report: unchanged
])
def test_gemini_shell_text_is_what_the_command_printed(report, printed):
    assert payload.gemini_shell_text(report) == (report if printed is None else printed)
