"""memory.core.focus: the bead a session works on (the branch's and worktree folder's other questions:
tests/surface/test_digest.py)."""
import pytest

from memory.core import focus


@pytest.mark.parametrize("branch, folder, bead", [
    ("bd-BD-12", None, "BD-12"), ("bd-bd-a3f8", None, "bd-a3f8"), ("bd-a3f8", None, "bd-a3f8"),
    ("bd-12", None, "bd-12"), ("main", "/r/.worktrees/bd-BD-5/src", "BD-5"), ("main", None, ""),
    (None, None, ""), ("bd-", None, "")])
def test_the_bead_of_a_branch_or_worktree_folder(branch, folder, bead):
    """`.worktrees/bd-<ID>` of BD-5 is `bd-BD-5`: the longest candidate made it BD-BD-5."""
    assert focus.bead_id(branch, folder) == bead
