"""Where the memory lives: the main checkout's `.beads/memory/`, found through git's common dir.

A supervisor working in `.worktrees/bd-12` must write to the main checkout, not to a worktree that
will be deleted; `git rev-parse --git-common-dir` names the main repository from any of its worktrees.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs ~3 ms to import; annotations are strings here
if TYPE_CHECKING:
    from typing import Dict, Optional

MEMORY_SUBDIR = os.path.join(".beads", "memory")
OVERRIDE_ENV = "MEMORY_HOOKS_DIR"
GIT_TIMEOUT = 3.0
_HEX = frozenset("0123456789abcdef")
_GIT_ENV_TO_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


class GitInfo:
    """What one `git rev-parse` call tells about a folder."""

    __slots__ = ("common_dir", "toplevel", "head", "branch")

    def __init__(self, common_dir: str, toplevel: str, head: Optional[str], branch: Optional[str]) -> None:
        self.common_dir, self.toplevel, self.head, self.branch = common_dir, toplevel, head, branch

    @property
    def main_checkout(self) -> str:
        """The main working tree: the parent of the common `.git`, else this tree's top level."""
        if os.path.basename(self.common_dir.rstrip(os.sep)) == ".git":
            return os.path.dirname(self.common_dir.rstrip(os.sep))
        return self.toplevel

    @property
    def is_linked_worktree(self) -> bool:
        return os.path.realpath(self.main_checkout) != os.path.realpath(self.toplevel)


_cache: Dict[str, Optional[GitInfo]] = {}


def git_info(folder: str) -> Optional[GitInfo]:
    """Git facts about `folder` (None when it is not in a work tree, or git is missing or hangs)."""
    folder = os.path.abspath(folder)
    if folder in _cache:
        return _cache[folder]
    info = None
    if os.path.isdir(folder):
        import subprocess

        env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_TO_DROP}
        try:
            proc = subprocess.run(
                ["git", "rev-parse", "--git-common-dir", "--show-toplevel", "HEAD", "--abbrev-ref", "HEAD"],
                cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, timeout=GIT_TIMEOUT)
            lines = proc.stdout.decode("utf-8", "replace").splitlines()
        except (OSError, subprocess.SubprocessError):
            lines = []
        if len(lines) >= 2 and lines[1]:
            head = lines[2] if len(lines) > 2 and len(lines[2]) >= 40 and set(lines[2]) <= _HEX else None
            branch = lines[3] if head and len(lines) > 3 and lines[3] != "HEAD" else None
            info = GitInfo(os.path.normpath(os.path.join(folder, lines[0])), lines[1], head, branch)
    _cache[folder] = info
    return info


def project_dir_from_env() -> Optional[str]:
    """The project root the runtime announced (Claude Code or Cursor), if any."""
    return os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("CURSOR_PROJECT_DIR") or None


def project_root(cwd: Optional[str] = None) -> str:
    """The main checkout holding `cwd` (then the announced project, then the process cwd)."""
    for candidate in (cwd, project_dir_from_env()):
        if candidate:
            info = git_info(candidate)
            if info:
                return info.main_checkout
    return project_dir_from_env() or cwd or os.getcwd()


def memory_dir(cwd: Optional[str] = None) -> str:
    """The memory folder for a hook fired in `cwd`; `$MEMORY_HOOKS_DIR` overrides everything."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return os.path.abspath(override)
    return os.path.join(project_root(cwd), MEMORY_SUBDIR)
