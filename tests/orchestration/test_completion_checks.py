"""memory.orchestration.completion_checks: what a blocked subagent is told (every check end to end, with a bare
remote and the fake bd: test_validate_completion.py)."""
from memory.orchestration import checks, completion, completion_checks


def test_the_block_reason_lists_failures_notes_and_the_honest_outcomes():
    report = completion.parse_report("BEAD BD-9 COMPLETE\nBranch: bd-BD-9")
    found = [checks.Check("pushed", "fail", "not pushed", "git push"),
             checks.Check("bead-status", "skip", "bd is not installed"),
             checks.Check("worktree", "pass", "clean")]
    reason = completion_checks.block_reason(report, found)
    head = ["Completion check for BEAD BD-9 failed:", "- pushed: not pushed", "  fix: git push"]
    assert reason.splitlines()[:3] == head
    assert "(not verified:)\n- bead-status: bd is not installed" in reason and "BEAD BD-9 BLOCKED: <reason>" in reason
    assert "clean" not in reason and [c.name for c in completion_checks.failures(found)] == ["pushed"]
