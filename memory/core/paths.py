"""Where the memory lives: the main checkout's `.beads/memory/`, found through git's common dir.

A supervisor working in `.worktrees/bd-12` must write to the main checkout, not to a worktree that
will be deleted; `git rev-parse --git-common-dir` names the main repository from any of its worktrees.
Outside git, the project is the folder holding `.beads/memory` (a folder inside the memory folder, where
the installed recall.sh lives, belongs to the project above it). Every entry point (hooks, recall.sh,
memory-doctor, install.sh) asks this module: one answer in git, outside git, in a worktree
and in a submodule.
"""
from __future__ import annotations

import os

from memory.core import layout

OVERRIDE_ENV = "MEMORY_HOOKS_DIR"
PROJECT_ENV = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
GIT_TIMEOUT = 3.0
_HEX = frozenset("0123456789abcdef")
# set when an agent runs inside a git hook (a commit-message hook): they would point every git call of ours at
# that repository's index or folder, not the one asked about
_GIT_ENV_TO_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX",
                    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE")


def git_env() -> dict[str, str]:
    """This process's environment for a git call about a folder named on its command line."""
    return {k: v for k, v in os.environ.items() if k not in _GIT_ENV_TO_DROP}


class GitInfo:
    """What one `git rev-parse` call tells about a folder."""

    __slots__ = ("common_dir", "toplevel", "head", "branch", "git_dir")

    def __init__(self, common_dir: str, toplevel: str, head: str | None, branch: str | None,
                 git_dir: str | None = None) -> None:
        self.common_dir, self.toplevel, self.head, self.branch = common_dir, toplevel, head, branch
        self.git_dir = git_dir or common_dir

    @property
    def main_checkout(self) -> str:
        """The main working tree: the parent of the common `.git`; for a repository whose git folder lives
        elsewhere (a submodule's `.git/modules/x`, `--separate-git-dir`), this tree when it is the main one,
        else the first tree `git worktree list` names (a linked worktree of a submodule)."""
        common = os.path.normpath(self.common_dir)
        if os.path.basename(common) == ".git":
            return os.path.dirname(common)
        if os.path.realpath(self.git_dir) == os.path.realpath(common):
            return self.toplevel
        configured = git_lines(["config", "--file", os.path.join(common, "config"), "core.worktree"], self.toplevel)
        if configured and configured[0]:  # a submodule's git folder names its work tree
            return os.path.normpath(os.path.join(common, configured[0]))
        listed = git_lines(["worktree", "list", "--porcelain"], self.toplevel)
        first = listed[0][len("worktree "):] if listed and listed[0].startswith("worktree ") else ""
        usable = first and os.path.isdir(first) and os.path.realpath(first) != os.path.realpath(common)
        return first if usable else self.toplevel

    @property
    def is_linked_worktree(self) -> bool:
        return os.path.realpath(self.main_checkout) != os.path.realpath(self.toplevel)


_cache: dict[str, GitInfo | None] = {}
_REV_PARSE = ["rev-parse", "--git-common-dir", "--show-toplevel", "--absolute-git-dir", "HEAD", "--abbrev-ref", "HEAD"]
_started: dict[str, tuple[int, int, float]] = {}  # folder -> git_info's git call, started early (start_git_info)


def start_git_info(folder: str) -> None:
    """Start git_info(folder)'s git call now, so that what the caller does next runs beside it (the capture
    hook starts it before importing its handler); git_info(folder) collects the answer."""
    folder = os.path.abspath(folder)
    if folder not in _cache and folder not in _started and os.path.isdir(folder):
        started = _spawn(_REV_PARSE, folder, GIT_TIMEOUT)
        if started is not None:
            _started[folder] = started


def git_info(folder: str) -> GitInfo | None:
    """Git facts about `folder` (None when it is not in a work tree, or git is missing or hangs)."""
    folder = os.path.abspath(folder)
    if folder in _cache:
        return _cache[folder]
    info = None
    if os.path.isdir(folder):
        started = _started.pop(folder, None)
        lines = _collect(*started) if started is not None else git_lines(_REV_PARSE, folder)
        if len(lines) >= 3 and lines[1]:
            head = lines[3] if len(lines) > 3 and len(lines[3]) >= 40 and set(lines[3]) <= _HEX else None
            branch = lines[4] if head and len(lines) > 4 and lines[4] != "HEAD" else None
            info = GitInfo(os.path.normpath(os.path.join(folder, lines[0])), lines[1], head, branch, lines[2])
    _cache[folder] = info
    return info


def git_lines(args: list, folder: str, timeout: float | None = None) -> list:
    """Lines of `git -C folder ARGS` stdout ([] on failure or after `timeout` seconds, GIT_TIMEOUT by default).

    posix_spawn instead of subprocess: importing subprocess costs the capture hook ~7 ms on every run.
    """
    timeout = GIT_TIMEOUT if timeout is None else timeout
    if not hasattr(os, "posix_spawnp"):  # pragma: no cover - Windows
        import subprocess
        env = git_env()
        try:
            out = subprocess.run(["git", "-C", folder] + args, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        return out.decode("utf-8", "replace").splitlines()
    started = _spawn(args, folder, timeout)
    return _collect(*started) if started is not None else []


def _spawn(args: list, folder: str, timeout: float) -> tuple[int, int, float] | None:
    """`git -C folder ARGS` started: (pid, the read end of its stdout, the monotonic deadline), or None."""
    import time

    if not hasattr(os, "posix_spawnp"):  # pragma: no cover - Windows: git_lines runs it whole
        return None
    env = git_env()
    read_end, write_end = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = os.posix_spawnp("git", ["git", "-C", folder] + args, env, file_actions=[
            (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, write_end, 1), (os.POSIX_SPAWN_DUP2, null, 2),
            (os.POSIX_SPAWN_CLOSE, read_end)])
    except OSError:
        os.close(read_end)
        return None
    finally:
        os.close(write_end)
        os.close(null)
    return pid, read_end, time.monotonic() + timeout


def _collect(pid: int, read_end: int, deadline: float) -> list:
    """The lines a started git call printed ([] when it failed or passed its deadline: then it is killed)."""
    import select
    import time

    chunks: list[bytes] = []
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
        if info:
            return info.main_checkout
        return linked_main_checkout(project) or outside_git_root(project, search_up=False)
    for candidate in (cwd, project_dir_from_env()):
        if candidate:
            info = git_info(candidate)
            if info:
                return info.main_checkout
            main = linked_main_checkout(candidate)
            if main:
                return main
    announced = project_dir_from_env()
    if announced:
        return outside_git_root(announced, search_up=False)
    return outside_git_root(cwd or os.getcwd(), search_up=True)


def linked_main_checkout(folder: str) -> str | None:
    """The main checkout of the linked worktree `folder`, read from git's own files where git cannot answer (not
    on PATH, or refusing a repository another user owns): `.git` is a file naming `<main>/.git/worktrees/<name>`,
    whose `commondir` names `<main>/.git`. None for anything else (a plain checkout, a submodule, a bare
    repository's worktree): without it, such a worktree's captures went to a memory folder of its own."""
    folder = os.path.abspath(folder)
    while not os.path.lexists(os.path.join(folder, ".git")):  # a subfolder of the worktree: its top
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)
    try:
        with open(os.path.join(folder, ".git"), encoding="utf-8") as fh:
            first = fh.readline(4096).strip()
        if not first.startswith("gitdir:"):
            return None
        gitdir = os.path.join(folder, first[len("gitdir:"):].strip())
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
            common = os.path.normpath(os.path.join(gitdir, fh.readline(4096).strip()))
    except (OSError, ValueError):
        return None
    main = os.path.dirname(common)
    return main if os.path.basename(common) == ".git" and os.path.isdir(os.path.join(main, ".git")) else None


def outside_git_root(folder: str, search_up: bool) -> str:
    """The project of `folder` when git knows none: the folder above the memory folder `folder` is in (the
    installed recall.sh runs from there), else with `search_up` the nearest folder up that holds a memory
    folder (a command run from a subfolder), else `folder` itself."""
    folder = os.path.abspath(folder)
    parts = folder.split(os.sep)
    memory = layout.MEMORY_SUBDIR.split(os.sep)
    for i in range(len(parts) - len(memory), 0, -1):
        if parts[i:i + len(memory)] == memory:
            return os.sep.join(parts[:i]) or os.sep
    if search_up:
        candidate = folder
        while True:
            if os.path.isdir(os.path.join(candidate, layout.MEMORY_SUBDIR)):
                return candidate
            parent = os.path.dirname(candidate)
            if parent == candidate:
                break
            candidate = parent
    return folder


def memory_dir_without_git(anchor: str) -> str | None:
    """memory_dir(anchor)'s answer where it can be had without running git (recall.sh: ~2 ms a search), else
    None: $MEMORY_HOOKS_DIR; the nearest folder up holding a `.git` directory of ours (a plain checkout); no
    `.git` anywhere up (outside git) and no project announced. A worktree or a submodule (`.git` is a file),
    a limit on git's search, a repository another user owns (git refuses it), or a folder outside git with
    a project announced (memory_dir asks git about that project): None, and git decides."""
    override = os.environ.get(OVERRIDE_ENV)
    if override:
        return os.path.abspath(override)
    if os.environ.get("GIT_CEILING_DIRECTORIES") or os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM"):
        return None
    folder = os.path.abspath(anchor)
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git) and not os.path.islink(dot_git) and os.path.isfile(os.path.join(dot_git, "HEAD")):
            owner = getattr(os, "getuid", lambda: None)()
            if owner is not None and os.stat(dot_git).st_uid != owner:
                return None
            return os.path.join(folder, layout.MEMORY_SUBDIR)
        if os.path.lexists(dot_git):
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            if project_dir_from_env():
                return None
            return os.path.join(outside_git_root(anchor, search_up=True), layout.MEMORY_SUBDIR)
        folder = parent


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
    refs = git_lines(["for-each-ref", "--format=%(refname:short)|%(symref:short)", "refs/remotes/origin/HEAD",
                      "refs/heads/main", "refs/heads/master"], folder, BRANCH_DIFF_TIMEOUT)
    named = [ref.partition("|") for ref in refs if ref]
    # origin/HEAD stands for the branch it points at (origin/main): the default branch's name is that one's
    default = next((target or name for name, _, target in named if name.startswith("origin")),
                   named[0][0] if named else None)
    on_default = default is None or info.branch in (None, default, default.split("/", 1)[-1])
    since = "HEAD" if on_default else f"{default}...HEAD"
    # memory-hooks' own files (its code and the memory folder) are not the branch's work
    ours = [f":(top,exclude){place.replace(os.sep, '/')}" for place in (layout.CODE_DIR, layout.MEMORY_SUBDIR)]
    lines = git_lines(["diff", "--name-only", since, "--", ":(top)", *ours], folder, BRANCH_DIFF_TIMEOUT)
    return [line for line in lines if line][:MAX_CHANGED_FILES]


def on_path(command: str) -> bool:
    """True when `command` is an executable on PATH (shutil.which's answer, without shutil's ~10 ms import
    of the compression modules on the hook path)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, command)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return True
    return False
