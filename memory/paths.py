"""Where the memory lives: the main checkout's `.beads/memory/`, found through git's common dir.

A supervisor working in `.worktrees/bd-12` must write to the main checkout, not to a worktree that
will be deleted; `git rev-parse --git-common-dir` names the main repository from any of its worktrees.
"""
from __future__ import annotations

import os

from memory import layout

OVERRIDE_ENV = "MEMORY_HOOKS_DIR"
PROJECT_ENV = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
GIT_TIMEOUT = 3.0
_HEX = frozenset("0123456789abcdef")
_GIT_ENV_TO_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


class GitInfo:
    """What one `git rev-parse` call tells about a folder."""

    __slots__ = ("common_dir", "toplevel", "head", "branch")

    def __init__(self, common_dir: str, toplevel: str, head: str | None, branch: str | None) -> None:
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


_cache: dict[str, GitInfo | None] = {}


def git_info(folder: str) -> GitInfo | None:
    """Git facts about `folder` (None when it is not in a work tree, or git is missing or hangs)."""
    folder = os.path.abspath(folder)
    if folder in _cache:
        return _cache[folder]
    info = None
    if os.path.isdir(folder):
        lines = git_lines(["rev-parse", "--git-common-dir", "--show-toplevel", "HEAD", "--abbrev-ref", "HEAD"], folder)
        if len(lines) >= 2 and lines[1]:
            head = lines[2] if len(lines) > 2 and len(lines[2]) >= 40 and set(lines[2]) <= _HEX else None
            branch = lines[3] if head and len(lines) > 3 and lines[3] != "HEAD" else None
            info = GitInfo(os.path.normpath(os.path.join(folder, lines[0])), lines[1], head, branch)
    _cache[folder] = info
    return info


def git_lines(args: list, folder: str, timeout: float | None = None) -> list:
    """Lines of `git -C folder ARGS` stdout ([] on failure or after `timeout` seconds, GIT_TIMEOUT by default).

    posix_spawn instead of subprocess: importing subprocess costs the capture hook ~7 ms on every run.
    """
    timeout = GIT_TIMEOUT if timeout is None else timeout
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_TO_DROP}
    argv = ["git", "-C", folder] + args
    if not hasattr(os, "posix_spawnp"):  # pragma: no cover - Windows
        import subprocess
        try:
            out = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, timeout=timeout).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        return out.decode("utf-8", "replace").splitlines()
    import select
    import time

    read_end, write_end = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.posix_spawnp("git", argv, env, file_actions=[
            (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, write_end, 1), (os.POSIX_SPAWN_DUP2, null, 2),
            (os.POSIX_SPAWN_CLOSE, read_end)])
    except OSError:
        os.close(read_end)
        return []
    finally:
        os.close(write_end)
        os.close(null)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    poller = select.poll()
    poller.register(read_end, select.POLLIN | select.POLLHUP)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                os.kill(pid, 9)
                chunks = []
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace").splitlines()


def project_dir_from_env() -> str | None:
    """The project root the runtime announced (Claude Code, Cursor, Gemini CLI), if any."""
    for name in PROJECT_ENV:
        value = os.environ.get(name)
        if value and os.path.isabs(value):
            return value
    return None


def project_root(cwd: str | None = None, project: str | None = None) -> str:
    """The main checkout the memory belongs to.

    With a `project` (the folder the runtime announced), that project's main checkout, whatever `cwd`
    is: an agent that ran `cd vendor/lib && bd comment …` in a submodule or a sibling repository still
    writes to its project. Without one (the command-line tools), the main checkout holding `cwd`, then
    the announced project, then `cwd` itself.
    """
    if project:
        info = git_info(project)
        return info.main_checkout if info else project
    for candidate in (cwd, project_dir_from_env()):
        if candidate:
            info = git_info(candidate)
            if info:
                return info.main_checkout
    return project_dir_from_env() or cwd or os.getcwd()


def memory_dir(cwd: str | None = None, project: str | None = None) -> str:
    """The memory folder (see project_root); `$MEMORY_HOOKS_DIR` overrides everything."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return os.path.abspath(override)
    return os.path.join(project_root(cwd, project), layout.MEMORY_SUBDIR)


def memory_dir_quick(cwd: str | None = None, project: str | None = None) -> str:
    """memory_dir without spawning git when the folder is plainly a main checkout (its `.git` is a
    folder): the answer git would give. A linked worktree (`.git` is a file), a subfolder or no
    repository at all go through memory_dir. For hooks that run before every file read."""
    if not os.environ.get(OVERRIDE_ENV):
        folder = project or cwd
        if folder and os.path.isabs(folder) and os.path.isdir(os.path.join(folder, ".git")):
            return os.path.join(folder, layout.MEMORY_SUBDIR)
    return memory_dir(cwd, project)


def work_tree_git(cwd: str | None, root: str) -> GitInfo | None:
    """Branch and commit to record: `cwd`'s when it is a work tree of the project's repository (a
    supervisor's `.worktrees/bd-12`), else the project's own."""
    info = git_info(cwd) if cwd else None
    if info and os.path.realpath(info.main_checkout) == os.path.realpath(root):
        return info
    return git_info(root)


BRANCH_DIFF_TIMEOUT = 1.0  # session start waits at most this long per git call for the branch's files
MAX_CHANGED_FILES = 200


def changed_files(folder: str) -> list[str]:
    """Files this branch changed since it left the default branch (origin/HEAD, else main or master); on
    the default branch itself, the uncommitted changes. [] when git can't tell in time. Two git calls at
    most: session start pays for each."""
    info = git_info(folder)
    if info is None or info.head is None:
        return []
    refs = git_lines(["for-each-ref", "--format=%(refname:short)", "refs/remotes/origin/HEAD", "refs/heads/main",
                      "refs/heads/master"], folder, BRANCH_DIFF_TIMEOUT)
    default = next((r for r in refs if r.startswith("origin/")), refs[0] if refs else None)
    on_default = default is None or info.branch in (None, default, default.split("/", 1)[-1])
    since = "HEAD" if on_default else f"{default}...HEAD"
    lines = git_lines(["diff", "--name-only", since], folder, BRANCH_DIFF_TIMEOUT)
    return [line for line in lines if line][:MAX_CHANGED_FILES]
