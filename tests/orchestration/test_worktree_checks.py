"""memory.orchestration.worktree_checks against real worktrees (the gate end to end, with a bare remote and the fake
bd: test_validate_completion.py)."""
from helpers import git, make_repo
from memory.orchestration import worktree_checks


def test_the_worktree_by_path_by_folder_name_or_by_branch(tmp_path):
    main = make_repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", ".worktrees/bd-BD-5", "-b", "bd-BD-5")
    git(main, "worktree", "add", "-q", str(tmp_path / "elsewhere"), "-b", "feature")
    found = worktree_checks.find_worktree
    assert found(str(main), "BD-5", None, None, 5) == str(main / ".worktrees" / "bd-BD-5")
    assert found(str(main), "bd-5", None, None, 5) == str(main / ".worktrees" / "bd-BD-5")  # a case variant
    assert found(str(main), "BD-6", None, "feature", 5) == str(tmp_path / "elsewhere")
    assert found(str(main), "BD-6", None, None, 5) is None


def test_a_dirty_worktree_fails_with_the_command_that_fixes_it(tmp_path):
    wt = make_repo(tmp_path / "wt")
    assert worktree_checks.clean(str(wt), 5).status == "pass"
    (wt / "new.txt").write_text("x")
    check = worktree_checks.clean(str(wt), 5)
    assert check.status == "fail" and "1 uncommitted change(s)" in check.detail and "commit" in check.fix
