import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import git
from helpers import ROOT, bash_payload, clean_env, copy_tree, knowledge, make_repo
from memory.core import paths
from memory.runtimes import registration


def test_main_checkout_from_a_subfolder(repo):
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    assert paths.memory_dir(str(sub)) == str(repo / ".beads" / "memory")


def test_worktree_resolves_to_the_main_checkout(repo):
    git(repo, "worktree", "add", "-q", ".worktrees/bd-12", "-b", "bd-12")
    wt = repo / ".worktrees" / "bd-12"
    info = paths.git_info(str(wt))
    assert info.is_linked_worktree and info.branch == "bd-12" and info.head
    assert os.path.realpath(paths.memory_dir(str(wt))) == os.path.realpath(repo / ".beads" / "memory")


def test_worktree_outside_the_repo_folder(repo, tmp_path):
    git(repo, "worktree", "add", "-q", str(tmp_path / "elsewhere"), "-b", "feature")
    assert os.path.realpath(paths.project_root(str(tmp_path / "elsewhere"))) == os.path.realpath(repo)


def test_repo_without_commits(tmp_path):
    (tmp_path / "r").mkdir()
    git(tmp_path / "r", "init", "-q")
    info = paths.git_info(str(tmp_path / "r"))
    assert info.head is None and info.branch is None
    assert paths.project_root(str(tmp_path / "r")) == str(tmp_path / "r")


def test_fallbacks_outside_git(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.delenv("CURSOR_PROJECT_DIR", raising=False)
    assert paths.memory_dir(str(plain)) == str(plain / ".beads" / "memory")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path))
    assert paths.memory_dir(None) == str(tmp_path / ".beads" / "memory")


def test_override(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMORY_HOOKS_DIR", str(tmp_path / "custom"))
    assert paths.memory_dir("/anywhere") == str(tmp_path / "custom")


def test_a_hung_git_is_killed_after_the_timeout(tmp_path, monkeypatch):
    """A git that never answers (a network filesystem, a credential prompt): no answer, no wait past the
    timeout, no process left behind; callers fall back to the folder itself."""
    import time

    fake = tmp_path / "bin"
    fake.mkdir()
    marker = tmp_path / "started"
    (fake / "git").write_text(f"#!/bin/sh\necho $$ > {marker}\nexec sleep 30\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    start = time.monotonic()
    assert paths.git_lines(["rev-parse", "HEAD"], str(tmp_path), timeout=0.5) == []
    assert time.monotonic() - start < 5
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped
    monkeypatch.setattr(paths, "GIT_TIMEOUT", 0.3)
    paths._cache.clear()
    assert paths.git_info(str(tmp_path)) is None
    assert paths.project_root(str(tmp_path)) == str(tmp_path)


# --- one memory folder for every entry point, in git, outside git, in a worktree and in a submodule -------

def _install(target):
    proc = subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(target)],
                          capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _situation(kind, tmp_path):
    """(the project the runtime announces, the memory folder every entry point must use)."""
    if kind == "outside git":
        project = tmp_path / "nongit"
        project.mkdir()
        _install(project)
        return project, project / ".beads" / "memory"
    if kind == "submodule":
        make_repo(tmp_path / "lib-origin")
        superproject = make_repo(tmp_path / "super")
        git(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(tmp_path / "lib-origin"),
            "lib")
        project = superproject / "lib"
        _install(project)
        return project, project / ".beads" / "memory"
    main = make_repo(tmp_path / "main")
    _install(main)
    if kind == "git":
        return main, main / ".beads" / "memory"
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "install memory-hooks")  # what a worktree checks out
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    return tmp_path / "wt", main / ".beads" / "memory"


SITUATIONS = ["git", "outside git", "worktree", "submodule"]
_MADE: dict = {}


def _situation_at(kind, base):
    """_situation(kind) at `base`: a copy of the one this module made once for `kind` (copy_tree moves git's
    absolute paths along), so each test may write into its own."""
    if kind not in _MADE:
        made = Path(tempfile.mkdtemp(prefix="mh-paths-"))
        _MADE[kind] = (made, _situation(kind, made))
    made, (project, memory) = _MADE[kind]
    copy_tree(made, base)
    return base / project.relative_to(made), base / memory.relative_to(made)


@pytest.mark.parametrize("kind", SITUATIONS)
def test_every_entry_point_uses_the_same_memory_folder(kind, tmp_path):
    """Hooks as registered, the installed recall.sh (a scan, then the index), the clone's recall.sh, both
    memory-doctors and install.sh, each run as a user runs it from a subfolder: one memory folder."""
    project, memory = _situation_at(kind, tmp_path)
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    env = clean_env(HOME=str(tmp_path), MEMORY_HOOKS_FOREGROUND="1")

    def hook(name, payload):
        run_env = dict(env, CLAUDE_PROJECT_DIR=str(project))
        return subprocess.run(["/bin/sh", "-c", registration.claude_command(name)], input=json.dumps(payload),
                              cwd=sub, env=run_env, capture_output=True, text=True)

    assert hook("memory_capture", bash_payload(f'bd comment BD-1 "LEARNED: {kind} hook zebra"', sub)).returncode == 0
    installed_recall = str(project / ".beads" / "memory" / "recall.sh")
    added = subprocess.run([installed_recall, "--add", f"LEARNED: {kind} recall zebra"], cwd=sub, env=env,
                           capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    contents = {e["content"] for e in knowledge(memory.parent.parent)}
    assert contents == {f"{kind} hook zebra", f"{kind} recall zebra"}
    assert not (sub / ".beads").exists() and not (memory / ".beads").exists()

    start = hook("session_start", {"session_id": "s", "cwd": str(sub), "hook_event_name": "SessionStart",
                                   "source": "startup"})
    assert f"{kind} hook zebra" in start.stdout and f"{kind} recall zebra" in start.stdout
    for recall in (installed_recall, str(ROOT / "bin" / "recall.sh")):
        stats = subprocess.run([recall, "--stats"], cwd=sub, env=env, capture_output=True, text=True)
        assert f"memory:     {memory}\n" in stats.stdout, (recall, stats.stdout, stats.stderr)
        for _ in range(2):  # the second answer comes from the index the first one built
            found = subprocess.run([recall, "zebra", "--all"], cwd=sub, env=env, capture_output=True, text=True)
            assert {f"    {kind} hook zebra", f"    {kind} recall zebra"} <= set(found.stdout.splitlines()), \
                (recall, found.stdout, found.stderr)
    doctors = (str(ROOT / "bin" / "memory-doctor"), str(project / ".claude/hooks/memory-hooks/bin/memory-doctor"))
    for doctor in doctors:
        proc = subprocess.run([doctor, "--json"], cwd=sub, env=env, capture_output=True, text=True)
        report = json.loads(proc.stdout)
        assert report["memory_dir"] == str(memory), (doctor, report)
        assert not [c for c in report["checks"] if c["level"] == "FAIL"], report
    assert f"{memory}" in _install(project) or (memory == project / ".beads" / "memory")
    assert not (sub / ".beads").exists()


@pytest.mark.parametrize("kind", SITUATIONS)
def test_the_quick_resolution_agrees_with_git(kind, tmp_path, monkeypatch):
    """recall.sh resolves its memory folder without git only where that answer is git's own."""
    project, memory = _situation_at(kind, tmp_path)
    for env_name in ("MEMORY_HOOKS_DIR", "CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR",
                     "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(env_name, raising=False)
    for folder in (project, project / ".beads" / "memory", project / ".claude"):
        quick = paths.memory_dir_without_git(str(folder))
        assert paths.memory_dir(str(folder)) == str(memory)
        assert quick in (None, str(memory)), (folder, quick)
    assert (paths.memory_dir_without_git(str(project)) is None) == (kind in ("worktree", "submodule"))


def test_a_worktree_of_a_submodule_uses_the_submodules_main_checkout(tmp_path):
    make_repo(tmp_path / "lib-origin")
    superproject = make_repo(tmp_path / "super")
    git(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(tmp_path / "lib-origin"), "lib")
    git(superproject / "lib", "worktree", "add", "-q", str(tmp_path / "lib-wt"), "-b", "topic")
    assert paths.memory_dir(str(tmp_path / "lib-wt")) == str(superproject / "lib" / ".beads" / "memory")
    (superproject / "lib" / "src").mkdir()
    assert paths.memory_dir(str(superproject / "lib" / "src")) == str(superproject / "lib" / ".beads" / "memory")


def test_outside_git_the_project_is_the_folder_holding_the_memory(tmp_path, monkeypatch):
    for env_name in ("MEMORY_HOOKS_DIR", "CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(env_name, raising=False)
    project = tmp_path / "notes"
    (project / ".beads" / "memory").mkdir(parents=True)
    (project / "a" / "b").mkdir(parents=True)
    expected = str(project / ".beads" / "memory")
    assert paths.memory_dir(str(project / "a" / "b")) == expected  # from a subfolder
    assert paths.memory_dir(str(project / ".beads" / "memory")) == expected  # where the installed recall.sh is
    assert paths.memory_dir(None, project=str(project)) == expected
    assert paths.memory_dir(str(tmp_path / "other")) == str(tmp_path / "other" / ".beads" / "memory")


def test_outside_git_with_a_project_announced_git_decides(repo, tmp_path, monkeypatch):
    """memory_dir asks git about the announced project when the folder is outside any repository."""
    for env_name in ("MEMORY_HOOKS_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(env_name, raising=False)
    outside = tmp_path / "scratch"
    outside.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    assert paths.memory_dir(str(outside)) == str(repo / ".beads" / "memory")
    assert paths.memory_dir_without_git(str(outside)) is None
    assert paths.memory_dir_without_git(str(repo)) == str(repo / ".beads" / "memory")


def test_a_git_call_started_early_gives_what_git_info_gives(repo, tmp_path, monkeypatch):
    """start_git_info runs git_info's git call beside the caller's work; git_info collects the same answer."""
    git(repo, "worktree", "add", "-q", ".worktrees/bd-7", "-b", "bd-7")
    folders = [str(repo), str(repo / ".worktrees" / "bd-7"), str(tmp_path)]  # a repo, a worktree, no repo
    paths._cache.clear()
    direct = {f: paths.git_info(f) for f in folders}
    paths._cache.clear()
    for folder in folders + [str(tmp_path / "missing")]:
        paths.start_git_info(folder)
    assert sorted(paths._started) == sorted(folders)  # nothing started for a folder that does not exist

    def no_new_call(*a, **k):
        raise AssertionError("git_info ran git again instead of collecting the started call")

    monkeypatch.setattr(paths, "git_lines", no_new_call)
    for folder in folders:
        got, want = paths.git_info(folder), direct[folder]
        assert (got and (got.common_dir, got.toplevel, got.head, got.branch, got.git_dir)) == \
            (want and (want.common_dir, want.toplevel, want.head, want.branch, want.git_dir))
    assert paths._started == {}
    paths.start_git_info(str(repo))  # known already: nothing started
    assert paths._started == {}
    paths._cache.clear()


def test_changed_files_on_a_clones_default_branch_are_its_uncommitted_ones_not_ours(tmp_path):
    """origin/HEAD names the default branch (origin/main): on main, only uncommitted changes count, and neither
    memory-hooks' code nor the memory folder is the branch's work (an install committed on main came up as
    "files changed on this branch" before)."""
    upstream = make_repo(tmp_path / "upstream")
    git(tmp_path, "clone", "-q", str(upstream), "clone")
    clone = tmp_path / "clone"
    for rel in (".claude/hooks/memory-hooks/requirements.txt", ".beads/memory/knowledge.jsonl", "src/app.py"):
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_text("x\n")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "install memory-hooks, and an app")  # not pushed
    paths._cache.clear()
    assert paths.changed_files(str(clone)) == []
    (clone / "src" / "app.py").write_text("y\n")
    (clone / ".beads" / "memory" / "knowledge.jsonl").write_text("z\n")
    assert paths.changed_files(str(clone)) == ["src/app.py"]
    git(clone, "checkout", "-q", "-b", "feature")
    git(clone, "commit", "-q", "-am", "work")
    paths._cache.clear()
    assert paths.changed_files(str(clone)) == ["src/app.py"]  # since origin/main: the app, not the install


def test_a_worktrees_main_checkout_is_found_where_git_cannot_answer(tmp_path, monkeypatch):
    """git refusing the repository (another user's: dubious ownership) or missing: a linked worktree's captures
    went to a memory folder of its own, which `git worktree remove` deletes. git's own files name the main one."""
    main = make_repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", ".worktrees/bd-3", "-b", "bd-3")
    wt = main / ".worktrees" / "bd-3"
    assert paths.linked_main_checkout(str(wt)) == str(main)
    assert paths.linked_main_checkout(str(main)) is None  # a plain checkout: git (or the folder) answers
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    paths._cache.clear()
    assert paths.git_info(str(wt)) is None  # git refuses it
    assert paths.memory_dir(str(wt), str(wt)) == str(main / ".beads" / "memory")
    (wt / "src").mkdir()
    for cwd in (wt, wt / "src"):  # no project named (Codex's hooks, recall.sh in a worktree's shell)
        assert paths.memory_dir(str(cwd), None) == str(main / ".beads" / "memory")
    proc = subprocess.run([sys.executable, str(ROOT / "hooks" / "memory_capture.py")], cwd=wt, capture_output=True,
                          input=json.dumps(bash_payload('bd comment BD-3 "LEARNED: the worktree insight lands in main"',
                                                        wt)).encode(),
                          env=clean_env(CLAUDE_PROJECT_DIR=str(wt), GIT_TEST_ASSUME_DIFFERENT_OWNER="1",
                                        MEMORY_HOOKS_FOREGROUND="1"))
    assert proc.returncode == 0
    assert [e["content"] for e in knowledge(main)] == ["the worktree insight lands in main"]
    assert not (wt / ".beads" / "memory").exists()
