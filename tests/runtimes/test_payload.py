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
    assert payload.shell_command(failed) == "x"
    assert payload.shell_command({"tool_name": "Bash", "tool_input": {"command": 7}}) is None


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
