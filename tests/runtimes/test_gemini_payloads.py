"""Every hook answered as Gemini CLI sends its events (payload shapes as recorded from the real Gemini CLI 0.61:
session_id, transcript_path, cwd, hook_event_name, timestamp, plus the event's fields)."""
import json

from helpers import knowledge, run_hook, seed_rule_among_notes
from memory.store import entry, store

TS = "2026-11-22T12:51:43.393Z"


def gemini(event, repo, **fields):
    return dict({"session_id": "g-1", "transcript_path": str(repo / "chat.jsonl"), "cwd": str(repo),
                 "hook_event_name": event, "timestamp": TS}, **fields)


def after_tool(repo, command, ts=TS, **response):
    return gemini("AfterTool", repo, timestamp=ts, tool_name="run_shell_command", tool_input={"command": command},
                  tool_response=dict({"llmContent": "Output: ok", "returnDisplay": "ok"}, **response))


def test_after_tool_captures_and_answers_in_gemini_shape(repo):
    proc = run_hook("memory_capture", after_tool(repo, 'bd comment BD-1 "LEARNED: gemini captures too"'), repo,
                    env={"GEMINI_PROJECT_DIR": str(repo)}, args=["--gemini"])
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "AfterTool" and "captured 1 insight" in out["additionalContext"]
    assert [e["content"] for e in knowledge(repo)] == ["gemini captures too"]


def test_the_same_command_twice_is_two_captures_and_an_error_is_none(repo):
    command = 'bd comment BD-1 "LEARNED: rerun the migration after a rebase"'
    run_hook("memory_capture", after_tool(repo, command), repo)
    again = run_hook("memory_capture", after_tool(repo, command, ts="2026-11-22T13:00:00.000Z"), repo)
    # no tool-call id in Gemini payloads: the timestamp tells the calls apart, so the second is a capture of
    # its own, and the agent is told that the same text is already stored (#21 item 14: one line, not two)
    assert "not stored again" in json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(knowledge(repo)) == 1
    run_hook("memory_capture", after_tool(repo, 'bd comment BD-1 "LEARNED: never stored"', ts="2026-11-22T14:00:00Z",
                                          error="Command exited with code 1"), repo)
    assert "never stored" not in json.dumps(knowledge(repo))


def test_before_agent_ranks_the_prompt_without_the_session_start_block(repo):
    seed_rule_among_notes(repo)
    block = "<hook_context>## Recent Knowledge (1 entries)\n  [LEARN] something else  (orchestrator)</hook_context>"
    proc = run_hook("prompt_recall", gemini("BeforeAgent", repo, prompt=f"{block}\n\nadd an alembic migration"), repo)
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "BeforeAgent" and "every alembic upgrade" in out["additionalContext"]
    assert run_hook("prompt_recall", gemini("BeforeAgent", repo, prompt=block), repo).stdout == b""


def test_session_start_after_agent_precompress_and_session_end(repo):
    d = str(repo / ".beads" / "memory")
    store.append(d, [entry.build("gemini sees the digest", "BD-1", "orchestrator")])
    out = json.loads(run_hook("session_start", gemini("SessionStart", repo, source="startup"), repo).stdout)
    assert "gemini sees the digest" in out["hookSpecificOutput"]["additionalContext"]
    reply = gemini("AfterAgent", repo, prompt="x", prompt_response="Done.\nWARNING: the seed script wipes staging",
                   stop_hook_active=False)
    assert run_hook("capture_reply", reply, repo).stdout == b""
    assert any(e["type"] == "warning" for e in knowledge(repo))
    for event in ("PreCompress", "SessionEnd"):
        assert run_hook("handoff", gemini(event, repo, trigger="auto", reason="exit"), repo).stdout == b""
    handoffs = knowledge(repo, "handoffs.jsonl")
    assert [h["event"] for h in handoffs] == ["PreCompact", "SessionEnd"]
