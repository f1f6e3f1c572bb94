"""memory.runtimes.transcript_formats: handoffs from Gemini CLI's chat log and Codex CLI's rollout log, as recorded
from the real CLIs (tests/fixtures/{gemini/0.61.0/chat-1,codex/0.169.0/rollout-1}.jsonl: a session that
updates BD-7, runs a command that fails, writes notes.txt and ends with a message)."""
import json

import pytest

from helpers import FIXTURES, fixture_payload, run_hook
from memory.core import layout
from memory.runtimes import handoff, transcript
from memory.runtimes.transcript_formats import claude_records

CODEX_LOG = FIXTURES / "codex" / "0.169.0" / "rollout-1.jsonl"
GEMINI_LOG = FIXTURES / "gemini" / "0.61.0" / "chat-1.jsonl"


@pytest.mark.parametrize("log", [CODEX_LOG, GEMINI_LOG])
def test_the_recorded_logs_give_the_task_the_bead_the_failure_and_the_last_message(log):
    got = handoff.extract(str(log))
    assert got["task"] == {"first": "fix the flaky refunds test", "latest": "fix the flaky refunds test"}
    assert got["beads"] == {"BD-7": ["update"]}
    assert got["failure"]["command"] == "ls /definitely/not/here"
    assert got["failure"]["error"].startswith("ls: cannot access '/definitely/not/here': No such file or directory")
    assert got["last_message"] == "I changed notes.txt; the listing failed."
    assert got["started"].startswith("2026-11-22T")


def test_gemini_file_writes_are_files_changed():
    # Codex wrote its file through the shell (its model offered no patch tool): git status names it there
    assert [path.rsplit("/", 1)[-1] for path in handoff.extract(str(GEMINI_LOG))["files"]] == ["notes.txt"]


def test_injected_context_is_not_taken_for_the_task():
    # both logs open with a user message the CLI wrote (<environment_context>, <session_context>)
    for log in (CODEX_LOG, GEMINI_LOG):
        assert "<" not in handoff.extract(str(log))["task"]["first"]


def test_the_codex_session_end_hook_writes_the_whole_handoff(repo):
    payload = fixture_payload("codex/0.169.0/SessionEnd-1.json")
    payload.update(cwd=str(repo), transcript_path=str(CODEX_LOG))
    assert run_hook("handoff", payload, repo, args=["--codex"]).returncode == 0
    saved = [json.loads(line) for line in (repo / ".beads" / "memory" / layout.HANDOFFS).read_text().splitlines()]
    assert [h["event"] for h in saved] == ["SessionEnd"]
    assert saved[0]["task"]["latest"] == "fix the flaky refunds test"
    assert saved[0]["failure"]["command"] == "ls /definitely/not/here"


@pytest.mark.parametrize("record", [
    {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "arguments": "{not json"}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": '{"command": [1]}'}},
    {"type": "response_item", "payload": {"type": "function_call_output", "output": 7}},
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": "not a list"}},
    {"type": "response_item", "payload": []},
    {"type": "gemini", "content": 3, "toolCalls": [None, {"args": "x"}, {"name": "write_file", "args": {}}]},
    {"type": "gemini", "toolCalls": [{"id": 1, "name": "run_shell_command", "args": {}, "result": "garbage"}]},
    {"type": "user", "content": [{"functionResponse": None}, "text"]},
])
def test_odd_records_give_nothing_or_something_harmless_never_an_error(record):
    for converted in claude_records(record):
        transcript.Reader().feed(converted)


def test_shell_argv_and_a_failed_status_are_read():
    codex = claude_records({"type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "call_id": "c1",
        "arguments": json.dumps({"command": ["bash", "-lc", "make test"]})}})
    assert codex[0]["message"]["content"][0]["input"] == {"command": "make test"}
    gemini = claude_records({"type": "gemini", "content": "", "toolCalls": [
        {"id": "g1", "name": "run_shell_command", "args": {"command": "make"}, "status": "error",
         "result": [{"functionResponse": {"response": {"error": "boom"}}}]}]})
    assert gemini[-1]["message"]["content"][0] == {"type": "tool_result", "tool_use_id": "g1", "is_error": True,
                                                   "content": "boom"}


def test_gemini_prompts_lose_the_hook_context_it_puts_before_them():
    # Gemini logs the prompt as its model got it: what our SessionStart answered, then what the user typed
    got = claude_records({"type": "user", "content": [
        {"text": "<hook_context>## Recent Knowledge (1 entries)\n- x\n</hook_context>\nadd a refunds migration"}]})
    assert got[0]["message"]["content"] == [{"type": "text", "text": "add a refunds migration"}]
