import json

import pytest

from conftest import fixture_payload
from memory.runtimes import shell_outcome


def test_succeeded_claude_and_cursor():
    failed = {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {"command": "x"},
              "tool_output": json.dumps({"exitCode": 1}), "cursor_version": "3"}
    assert not shell_outcome.succeeded(failed)
    assert shell_outcome.succeeded(fixture_payload("claude-code/2.1.330/PostToolUse-8.json"))
    assert not shell_outcome.succeeded(fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json"))


def test_a_cursor_shell_calls_exit_code_in_every_shape_of_its_tool_output():
    """Documented: tool_output a JSON string, exitCode a number. Also read: an object, a numeric string."""
    for code, failed in ((1, True), ("1", True), (" 2", True), (0, False), ("0", False), (None, False),
                         ("x", False), (True, False), ("--1", False), ("\u00b2", False), ("-", False)):
        for tool_output in (json.dumps({"exitCode": code}), {"exitCode": code}):
            data = {"hook_event_name": "postToolUse", "tool_name": "Shell", "tool_input": {"command": "make"},
                    "tool_output": tool_output, "cursor_version": "3"}
            assert shell_outcome.succeeded(data) is not failed, (code, tool_output)
            assert shell_outcome.failure(data) == (f"exit code {int(code)}" if failed else
                                                   "exit code 0" if code in (0, "0") else "")
            assert (shell_outcome.failure_text(data) is not None) is failed


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
        failed_call = dict(base, tool_input={"command": "make deploy"}, tool_response=output)
        assert shell_outcome.failure_text(failed_call), output
    passed = ["ok  \texample.com/shop\t0.01s\n", "make: Nothing to be done for 'all'.\n",
              "added 3 packages in 1s\n", "FAILURES.md updated\n", "0 failed, 3 passed\n"]
    for output in passed:
        passed_call = dict(base, tool_input={"command": "make"}, tool_response=output)
        assert shell_outcome.failure_text(passed_call) is None, output


@pytest.mark.parametrize("report, printed", [
    ("<untrusted_context>\nOutput: a\nb\nError: spawn failed\nExit Code: 2\nSignal: 9\nBackground PIDs: 7, 8\n"
     "Process Group PGID: 5\n</untrusted_context>", "a\nb\nError: spawn failed"),
    ("Output: (empty)\nExit Code: 1\nProcess Group PGID: 5", ""),  # nothing printed: nothing to rank
    ("Output: Exit Code: 3 is what the tool printed\nProcess Group PGID: 5", "Exit Code: 3 is what the tool printed"),
    ("Command was automatically cancelled because it exceeded the timeout", None),  # not a report: unchanged
])
def test_gemini_shell_text_is_what_the_command_printed(report, printed):
    assert shell_outcome.gemini_shell_text(report) == (report if printed is None else printed)
