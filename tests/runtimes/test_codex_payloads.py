"""Every hook fed the payloads the real Codex CLI 0.169 sent (tests/fixtures/codex/): Claude's shapes, so the
same code answers; these pin that down without the CLI."""
import json

import pytest

from helpers import FIXTURES, knowledge, run_hook, seed_rule_among_notes

CODEX = FIXTURES / "codex" / "0.169.0"


def payload(name, repo, **fields):
    data = json.loads((CODEX / f"{name}.json").read_text())
    data.update(cwd=str(repo), **fields)
    return data


def test_post_tool_use_bash_captures_and_answers(repo):
    data = payload("PostToolUse-1", repo, tool_input={"command": 'bd comment BD-1 "LEARNED: codex captures too"'})
    out = json.loads(run_hook("memory_capture", data, repo, args=["--codex"]).stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUse" and "captured 1 insight" in out["additionalContext"]
    assert [e["content"] for e in knowledge(repo)] == ["codex captures too"]


def test_session_start_and_prompt_answer_in_the_shape_codex_accepts(repo):
    seed_rule_among_notes(repo)
    start = json.loads(run_hook("session_start", payload("SessionStart-1", repo), repo).stdout)
    assert set(start) == {"hookSpecificOutput"}  # Codex rejects any extra field
    assert set(start["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    prompt = payload("UserPromptSubmit-1", repo, prompt="add an alembic migration", session_id="other")
    out = json.loads(run_hook("prompt_recall", prompt, repo).stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit" and "every alembic upgrade" in out["additionalContext"]


@pytest.mark.parametrize("name", ["Stop-1", "SessionEnd-1"])
def test_stop_and_session_end_are_side_effects_only(repo, name):
    hook = "capture_reply" if name.startswith("Stop") else "handoff"
    data = payload(name, repo, last_assistant_message="Done.\nPATTERN: one hook file per event")
    proc = run_hook(hook, data, repo)
    assert proc.returncode == 0 and proc.stdout == b""
    if hook == "capture_reply":
        assert [e["type"] for e in knowledge(repo)] == ["pattern"]
    else:
        assert knowledge(repo, "handoffs.jsonl")[0]["event"] == "SessionEnd"


def test_subagent_stop_lets_a_plain_subagent_go_and_blocks_an_unproven_bead_report(repo):
    """The recorded payload (agent_type "default"): without a bead report the gate does not apply; with one
    whose branch was never pushed, the answer is the block Codex hands back to the subagent."""
    plain = run_hook("validate_completion", payload("SubagentStop-1", repo, agent_transcript_path=""), repo,
                     args=["--codex"])
    assert plain.returncode == 0 and plain.stdout == b""
    report = "Work done.\n\nBEAD BD-12 COMPLETE\nBranch: bd-BD-12"
    blocked = run_hook("validate_completion", payload("SubagentStop-1", repo, agent_transcript_path="",
                                                       last_assistant_message=report), repo, args=["--codex"])
    answer = json.loads(blocked.stdout)
    assert answer["decision"] == "block" and "Completion check for BEAD BD-12 failed" in answer["reason"]
