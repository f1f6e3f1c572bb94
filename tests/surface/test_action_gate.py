import json

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


def test_other_events_keep_their_markers():
    assert not action_gate.might_act(b'{"hook_event_name":"PostToolUse","tool_name":"Agent"}')
    assert action_gate.might_act(b'{"hook_event_name":"PostToolUseFailure","tool_name":"Bash"}')
    assert action_gate.might_act(b'{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a"}}')
