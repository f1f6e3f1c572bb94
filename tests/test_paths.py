import os

import pytest

from conftest import git
from memory import paths


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
