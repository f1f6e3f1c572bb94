"""memory.orchestration.completion: the report line, whom the gate applies to, its settings and the loop guard
(the gate as a whole, run as the runtime runs it: test_validate_completion.py)."""
import json

import pytest

from memory.orchestration import completion


@pytest.mark.parametrize("text, bead, outcome, reason, worktree, branch", [
    ("Done.\n\nBEAD BD-12 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: bd-BD-12 (pushed)",
     "BD-12", "COMPLETE", "", ".worktrees/bd-BD-12", "bd-BD-12"),
    ("**BEAD BD-3 BLOCKED: the API key is missing**", "BD-3", "BLOCKED", "the API key is missing", None, None),
    ("BEAD BD-1 COMPLETE\n\nBEAD BD-2 FAILED: tests red", "BD-2", "FAILED", "tests red", None, None),
    ("BEAD BD-4 BLOCKED:\nBEAD BD-4 COMPLETE", "BD-4", "COMPLETE", "", None, None),  # a reason is required
])
def test_the_last_report_line_is_the_report(text, bead, outcome, reason, worktree, branch):
    assert completion.parse_report(text) == completion.Report(bead, outcome, reason, worktree, branch)


@pytest.mark.parametrize("text", ["you can mark bead BD-7 complete", "## Bead BD-7 complete", "", "BEAD BD-7 DONE",
                                  "it said: BEAD BD-7 COMPLETE"])
def test_prose_is_no_report(text):
    assert completion.parse_report(text) is None


def test_a_near_miss_is_pointed_out():
    assert completion.near_miss("Summary\n- bead BD-7 complete\n") == "bead BD-7 complete"
    assert completion.near_miss("all fine") is None
    assert completion.near_miss("Done.\nBEAD BD-1: COMPLETE\n") == "BEAD BD-1: COMPLETE"  # a colon after the id


@pytest.mark.parametrize("agent_type, gated", [("swift-supervisor", True), ("SwiftSupervisor", True),
                                               ("non-supervisor-helper", False), ("supervisor-worker", False),
                                               ("Explore", False), ("", False)])
def test_whom_the_gate_applies_to_without_a_report(agent_type, gated):
    config = dict(completion.DEFAULTS)
    assert completion.applies(agent_type, None, config) is gated


def test_a_report_gates_an_ordinary_agent_but_never_an_exempt_one():
    report = completion.parse_report("BEAD BD-1 COMPLETE")
    assert completion.applies("general-purpose", report, completion.DEFAULTS)
    assert not completion.applies("code-worker", report, completion.DEFAULTS)


def test_settings_from_completion_json_and_the_environment(tmp_path, monkeypatch):
    (tmp_path / "completion.json").write_text(json.dumps({"checks": {"pushed": False}, "timeout": 2}))
    monkeypatch.setenv("MEMORY_HOOKS_MAX_BLOCKS", "5")
    config = completion.load_config(str(tmp_path))
    assert config["timeout"] == 2 and config["max_blocks"] == 5 and config["fetch"] is False
    assert not completion.enabled(config, "pushed") and completion.enabled(config, "worktree")


def test_the_loop_guard_counts_on_continuations_and_recent_stops_only():
    state: dict = {}
    assert completion.record_block(state, "a", False, 1000.0) == 1
    assert completion.record_block(state, "a", True, 5000.0) == 2  # a continuation, however late
    assert completion.record_block(state, "a", False, 5000.0 + completion.FRESH_AFTER / 2) == 3  # soon after
    assert completion.record_block(state, "a", False, 9000.0 + completion.FRESH_AFTER) == 1  # a fresh stop
    completion.record_block(state, "b", False, 9000.0 + 2 * 86400)
    assert list(state) == ["b"]  # a day-old agent is forgotten


@pytest.mark.parametrize("line, branch", [
    ('"bd-BD-12"', "bd-BD-12"), ("(bd-BD-12)", "bd-BD-12"), ("`bd-BD-12`,", "bd-BD-12"),
    ("[bd-BD-12](https://example.com/tree/bd-BD-12)", "bd-BD-12"), ("bd-BD-12.", "bd-BD-12"),
    ("refs/heads/bd-BD-12", "bd-BD-12"), ("origin/bd-BD-12 (pushed)", "bd-BD-12")])
def test_the_branch_line_is_read_as_prose_writes_it(line, branch):
    assert completion.parse_report(f"BEAD BD-12 COMPLETE\nBranch: {line}").branch == branch
