"""recall.sh's quick path (memory.commands.recall_quick): `recall.sh KEYWORD --all` from a current index, run as a
user runs it, gives byte for byte what the full path gives, and steps aside whenever it cannot be sure."""
import os
import random
import subprocess

import pytest

from conftest import ROOT
from helpers import random_files
from helpers import write_raw as write
from memory.commands import recall_quick
from memory.core import paths
from memory.search import find, index
from memory.store import entry, store

RECALL = str(ROOT / "bin" / "recall.sh")
KEYWORDS = ["deploy", "DEPLOY", "ss", "strasse", "file", "istanbul", "#1", "topic", "bd-3", "e", "zzz", "-", "ß"]


def run(repo, *args, full=False, cwd=None):
    """recall.sh as a user runs it; `full` makes the quick path step aside (a limit on git's search is one
    of the things it leaves to git), so both answers can be compared."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "GIT_CEILING"))}
    if full:
        env["GIT_CEILING_DIRECTORIES"] = "/nonexistent"
    return subprocess.run([RECALL, *args], cwd=cwd or repo, capture_output=True, text=True, env=env)


def answer(proc):
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_quick_answer_is_the_full_answer(repo, seed):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    random_files(mem, random.Random(seed), 60)  # versions, forgets, pins, malformed lines in both files
    index.load(str(mem))
    for keyword in KEYWORDS:
        quick, full = run(repo, keyword, "--all"), run(repo, keyword, "--all", full=True)
        assert answer(quick) == answer(full), keyword
        assert "Traceback" not in quick.stderr


def test_it_answers_from_a_current_index_and_steps_aside_after_a_capture(repo, monkeypatch):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    random_files(mem, random.Random(4), 30)
    monkeypatch.chdir(repo)
    monkeypatch.delenv("MEMORY_HOOKS_ANCHOR", raising=False)
    monkeypatch.delenv("MEMORY_HOOKS_DIR", raising=False)
    assert recall_quick.quick(["deploy", "--all"]) is None  # no index yet: the full path builds it
    index.load(str(mem))
    assert recall_quick.quick(["deploy", "--all"]) in (0, 1)  # answered
    write(mem / store.ACTIVE, [entry.build("LEARNED: deploy freshly captured", "BD-9", "orchestrator", ts=2e9)])
    assert recall_quick.quick(["deploy", "--all"]) is None  # the index is one capture behind
    proc = run(repo, "deploy", "--all")  # the full path answers, with the new entry, and brings the index up
    assert proc.returncode == 0 and "deploy freshly captured" in proc.stdout.split("\n\n")[0]  # the newest
    assert find.current(str(mem)) is not None


@pytest.mark.parametrize("argv", [["deploy"], ["deploy", "cache", "--all"], ["deploy cache", "--all"],
                                  ["--all", "--json", "deploy"], ["--all", "-x"], ["--all", "--all"], ["--all"]])
def test_other_command_lines_go_to_the_full_path(repo, monkeypatch, argv):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    random_files(mem, random.Random(5), 10)
    index.load(str(mem))
    monkeypatch.chdir(repo)
    assert recall_quick.quick(argv) is None


def test_the_memory_folder_is_the_one_git_names(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("MEMORY_HOOKS_DIR", raising=False)
    monkeypatch.delenv("GIT_CEILING_DIRECTORIES", raising=False)
    (repo / "src" / "deep").mkdir(parents=True)
    monkeypatch.setenv("MEMORY_HOOKS_ANCHOR", str(repo / "src" / "deep"))
    assert recall_quick._memory_dir() == str(repo / ".beads" / "memory")
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, check=True)
    monkeypatch.setenv("MEMORY_HOOKS_ANCHOR", str(tmp_path / "wt"))
    assert recall_quick._memory_dir() is None  # a worktree: its `.git` is a file, git decides
    monkeypatch.setenv("MEMORY_HOOKS_ANCHOR", str(tmp_path))
    assert recall_quick._memory_dir() == paths.memory_dir(str(tmp_path))  # no repository: no git needed
    monkeypatch.setenv("MEMORY_HOOKS_DIR", str(tmp_path / "elsewhere"))
    assert recall_quick._memory_dir() == str(tmp_path / "elsewhere")


def test_from_a_worktree_both_paths_read_the_main_checkouts_memory(repo, tmp_path):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    write(mem / store.ACTIVE, [entry.build("LEARNED: deploy from main", "BD-1", "orchestrator", ts=1)])
    index.load(str(mem))
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, check=True)
    proc = run(repo, "deploy", "--all", cwd=tmp_path / "wt")
    assert proc.returncode == 0 and "deploy from main" in proc.stdout


def test_a_closed_pipe_is_not_an_error(repo):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    write(mem / store.ACTIVE, [entry.build(f"LEARNED: deploy number {i}", "BD-1", "orchestrator", ts=i)
                               for i in range(3000)])
    index.load(str(mem))
    proc = subprocess.run(f"'{RECALL}' deploy --all | head -1", shell=True, cwd=repo, capture_output=True, text=True)
    assert proc.stdout.startswith("[LEARN]") and proc.stderr == ""


def test_a_failure_in_the_quick_path_leaves_the_answer_to_the_full_path(monkeypatch):
    def broken(argv):
        raise KeyError("a field an older index lacks")

    monkeypatch.setattr(recall_quick, "quick", broken)
    monkeypatch.setattr(recall_quick, "_full", lambda: 7)
    with pytest.raises(SystemExit) as exited:
        recall_quick.run()
    assert exited.value.code == 7
