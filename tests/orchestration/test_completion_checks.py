"""memory.orchestration.completion_checks: each check against a real worktree, and what a blocked subagent is told
(with a bare remote and the fake bd: test_validate_completion.py)."""
import sys

from helpers import git, make_repo
from memory.orchestration import completion, completion_checks


def test_a_command_that_hangs_or_cannot_run_says_why(tmp_path):
    assert completion_checks.run([sys.executable, "-c", "print('ok')"], str(tmp_path), 5) == (0, "ok\n")
    code, why = completion_checks.run([sys.executable, "-c", "import time; time.sleep(5)"], str(tmp_path), 0.2)
    assert code is None and "timed out after 0.2s" in why
    code, why = completion_checks.run(["no-such-command-here"], str(tmp_path), 1)
    assert code is None and "could not run" in why


def test_the_worktree_by_path_by_folder_name_or_by_branch(tmp_path):
    main = make_repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", ".worktrees/bd-BD-5", "-b", "bd-BD-5")
    git(main, "worktree", "add", "-q", str(tmp_path / "elsewhere"), "-b", "feature")
    found = completion_checks.find_worktree
    assert found(str(main), "BD-5", None, None, 5) == str(main / ".worktrees" / "bd-BD-5")
    assert found(str(main), "bd-5", None, None, 5) == str(main / ".worktrees" / "bd-BD-5")  # a case variant
    assert found(str(main), "BD-6", None, "feature", 5) == str(tmp_path / "elsewhere")
    assert found(str(main), "BD-6", None, None, 5) is None


def test_a_dirty_worktree_fails_with_the_command_that_fixes_it(tmp_path):
    wt = make_repo(tmp_path / "wt")
    assert completion_checks._clean_check(str(wt), 5).status == "pass"
    (wt / "new.txt").write_text("x")
    check = completion_checks._clean_check(str(wt), 5)
    assert check.status == "fail" and "1 uncommitted change(s)" in check.detail and "commit" in check.fix


def test_the_block_reason_lists_failures_notes_and_the_honest_outcomes():
    report = completion.parse_report("BEAD BD-9 COMPLETE\nBranch: bd-BD-9")
    checks = [completion_checks.Check("pushed", "fail", "not pushed", "git push"),
              completion_checks.Check("bead-status", "skip", "bd is not installed"),
              completion_checks.Check("worktree", "pass", "clean")]
    reason = completion_checks.block_reason(report, checks)
    head = ["Completion check for BEAD BD-9 failed:", "- pushed: not pushed", "  fix: git push"]
    assert reason.splitlines()[:3] == head
    assert "(not verified:)\n- bead-status: bd is not installed" in reason and "BEAD BD-9 BLOCKED: <reason>" in reason
    assert "clean" not in reason and [c.name for c in completion_checks.failures(checks)] == ["pushed"]
