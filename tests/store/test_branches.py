"""Branch switching with uncommitted captures (issue #21 item 10), with real git and the real hook files:
captures go to new files in the inbox (memory.store.inbox), so `git checkout` / `git switch` never refuse, nothing
is lost, ordinary git commits them, and the merge driver and the explicit fold keep working."""
import json
import subprocess

import pytest

from helpers import INSTALL, ROOT, bash_payload, clean_env, copy_tree, git, run_hook
from memory.store import entry, inbox, rotation, store

DOCTOR = str(ROOT / "bin" / "memory-doctor")


def capture(repo, text, n=0):
    payload = bash_payload(f'bd comment BD-{n} "LEARNED: {text}"', repo)
    proc = run_hook("memory_capture", payload, repo)
    assert proc.returncode == 0 and b"captured 1 insight" in proc.stdout, proc.stdout


def live(repo):
    memory = str(repo / ".beads" / "memory")
    return {e["content"] for e in store.latest(store.load(memory, include_archive=True).entries)}


def session_context(repo):
    out = run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s",
                                     "cwd": str(repo)}, repo)
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def installed(tmp_path, name="project"):
    """A repository set up by install.sh (attributes, .gitignore, merge driver), committed on main."""
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(repo)], check=True, capture_output=True,
                   env=clean_env())
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "install memory-hooks")
    return repo


@pytest.fixture(scope="module")
def installed_template(tmp_path_factory):
    """installed(), made once for the module: each test copies it (helpers.copy_tree)."""
    return installed(tmp_path_factory.mktemp("installed"))


@pytest.fixture(scope="module")
def two_branches_template(tmp_path_factory, installed_template):
    """The installed project after two_branches_whose_knowledge_differs(), made once for the module."""
    path = copy_tree(installed_template.parent, tmp_path_factory.mktemp("two-branches"))
    two_branches_whose_knowledge_differs(path / "project")
    return path / "project"


def copied(template, tmp_path):
    """A copy of a module's template project at tmp_path/project."""
    return copy_tree(template.parent, tmp_path) / "project"


def two_branches_whose_knowledge_differs(repo):
    """main and `feature` each commit a capture of their own, then compact: knowledge.jsonl differs."""
    git(repo, "checkout", "-qb", "feature")
    capture(repo, "feature branch knowledge")
    subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, env=clean_env())
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "feature knowledge")
    git(repo, "checkout", "-q", "main")
    capture(repo, "main branch knowledge")
    subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, env=clean_env())
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "main knowledge")
    knowledge = ".beads/memory/knowledge.jsonl"
    assert git(repo, "show", f"main:{knowledge}") != git(repo, "show", f"feature:{knowledge}")


def test_checkout_and_switch_work_with_uncommitted_captures_and_lose_none(tmp_path, two_branches_template):
    repo = copied(two_branches_template, tmp_path)
    tracked = repo / ".beads" / "memory" / "knowledge.jsonl"
    before = tracked.read_bytes()
    capture(repo, "uncommitted on main one", 1)
    capture(repo, "uncommitted on main two", 2)
    assert tracked.read_bytes() == before  # a capture never changes a committed file
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    git(repo, "checkout", "-q", "feature")  # refused before the inbox: "would be overwritten by checkout"
    assert "feature branch knowledge" in live(repo) and "main branch knowledge" not in live(repo)
    assert {"uncommitted on main one", "uncommitted on main two"} <= live(repo)  # untracked files travel
    capture(repo, "uncommitted on feature", 3)
    git(repo, "switch", "-q", "main")
    assert {"main branch knowledge", "uncommitted on main one", "uncommitted on main two",
            "uncommitted on feature"} <= live(repo)
    assert "feature branch knowledge" not in live(repo)
    assert "uncommitted on main two" in session_context(repo)
    # ordinary git commits them, and the tree is clean after
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "knowledge")
    assert git(repo, "status", "--porcelain") == ""
    git(repo, "checkout", "-q", "feature")
    assert "uncommitted on main one" not in live(repo)  # committed on main now: it stays there
    git(repo, "checkout", "-q", "main")
    assert {"uncommitted on main one", "uncommitted on main two", "uncommitted on feature"} <= live(repo)


def test_merge_of_two_branches_with_captures_and_a_fold_keeps_every_entry_once(tmp_path, two_branches_template):
    repo = copied(two_branches_template, tmp_path)
    git(repo, "checkout", "-q", "feature")
    for i in range(3):
        capture(repo, f"feature capture {i}", i)
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "feature captures")
    git(repo, "checkout", "-q", "main")
    for i in range(2):
        capture(repo, f"main capture {i}", 10 + i)
    subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, env=clean_env())
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "main captures, folded")
    git(repo, "merge", "-q", "--no-edit", "feature")  # knowledge.jsonl changed on both sides: the driver
    memory = repo / ".beads" / "memory"
    text = (memory / "knowledge.jsonl").read_text()
    assert "<<<<<<<" not in text
    expected = {"main branch knowledge", "feature branch knowledge"} | {f"feature capture {i}" for i in range(3)} \
        | {f"main capture {i}" for i in range(2)}
    assert live(repo) == expected
    lines = store.active_bytes(str(memory)).split(b"\n")
    assert len([x for x in lines if x.strip()]) == len(expected)  # each once, across the file and the inbox
    subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, env=clean_env())
    assert inbox.names(str(memory)) == [] and live(repo) == expected
    assert len((memory / "knowledge.jsonl").read_text().splitlines()) == len(expected)


def test_compact_rotates_past_the_limit_and_commits_with_plain_git(tmp_path, installed_template):
    repo = copied(installed_template, tmp_path)
    memory = repo / ".beads" / "memory"
    seeds = [entry.build(f"seed insight {i}", "BD-1", "orchestrator", ts=1_700_000_000 + i)
             for i in range(rotation.ROTATE_ABOVE - 2)]
    (memory / "knowledge.jsonl").write_text("".join(json.dumps(e) + "\n" for e in seeds))
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "seeds")
    for i in range(5):
        capture(repo, f"late capture {i}", i)
    assert len((memory / "knowledge.jsonl").read_text().splitlines()) == rotation.ROTATE_ABOVE - 2  # no rotation
    git(repo, "checkout", "-qb", "other", "HEAD~1")  # a branch without the seeds: still switches
    git(repo, "checkout", "-q", "main")
    before = live(repo)
    proc = subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, text=True, env=clean_env())
    assert "folded 5 inbox file(s)" in proc.stdout and "moved the oldest lines" in proc.stdout
    assert live(repo) == before and len(before) == rotation.ROTATE_ABOVE + 3
    assert len((memory / "knowledge.jsonl").read_text().splitlines()) <= rotation.ROTATE_ABOVE
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "compacted")
    assert git(repo, "status", "--porcelain") == ""
    git(repo, "checkout", "-q", "other")
    git(repo, "checkout", "-q", "main")
    assert live(repo) == before


def test_session_start_after_a_merge_past_the_limit_changes_no_committed_file(tmp_path, installed_template):
    """Rotation used to run at session start after such a merge, which left the tree dirty."""
    repo = copied(installed_template, tmp_path)
    memory = repo / ".beads" / "memory"
    entries = [entry.build(f"merged insight {i}", "BD-1", "orchestrator", ts=1_700_000_000 + i)
               for i in range(rotation.ROTATE_ABOVE + 50)]
    (memory / "knowledge.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    git(repo, "add", ".beads/memory")
    git(repo, "commit", "-qm", "a merge past the limit")
    assert "merged insight" in session_context(repo)
    assert git(repo, "status", "--porcelain") == ""


def test_the_merge_driver_runs_with_cdpath_exported(tmp_path, two_branches_template):
    """CDPATH exported makes `cd` print the folder: the driver's launcher read its own folder twice, failed to
    import, and git left knowledge.jsonl unmerged holding our side only, without conflict markers; committed as
    it was, the other branch's entries were gone."""
    repo = copied(two_branches_template, tmp_path)
    env = clean_env(CDPATH=".:" + str(tmp_path))
    proc = subprocess.run(["git", "merge", "-q", "--no-edit", "feature"], cwd=repo, capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {"main branch knowledge", "feature branch knowledge"} <= live(repo)


def test_a_merge_the_driver_failed_on_is_reported_and_merged_again(tmp_path, two_branches_template):
    """A driver that fails (any cause) leaves knowledge.jsonl unmerged holding our side, with no conflict
    markers: the doctor says so, and `recall.sh --setup-git` merges it again with the driver."""
    repo = copied(two_branches_template, tmp_path)
    driver = git(repo, "config", "--get", "merge.memory-hooks.driver").strip()
    git(repo, "config", "merge.memory-hooks.driver", "false")
    proc = subprocess.run(["git", "merge", "-q", "--no-edit", "feature"], cwd=repo, capture_output=True,
                          env=clean_env())
    assert proc.returncode != 0 and "feature branch knowledge" not in live(repo)
    assert "<<<<<<<" not in (repo / ".beads/memory/knowledge.jsonl").read_text()
    doctor = subprocess.run([DOCTOR], cwd=repo, capture_output=True, text=True, env=clean_env())
    assert doctor.returncode != 0 and ".beads/memory/knowledge.jsonl: a merge stopped on them unmerged" \
        in doctor.stdout, doctor.stdout
    git(repo, "config", "merge.memory-hooks.driver", driver)
    fixed = subprocess.run([str(repo / ".beads/memory/recall.sh"), "--setup-git"], cwd=repo, capture_output=True,
                           text=True, env=clean_env())
    assert "merged .beads/memory/knowledge.jsonl again with the driver" in fixed.stdout, fixed.stdout + fixed.stderr
    assert {"main branch knowledge", "feature branch knowledge"} <= live(repo)
    assert git(repo, "ls-files", "-u") == ""


def test_compact_waits_for_a_stopped_merge_so_its_abort_loses_no_capture(tmp_path, two_branches_template):
    """A merge stopped on another file; `--compact` folded a capture into knowledge.jsonl, and `git merge
    --abort` reset that file: the capture was gone. Refused while the merge is stopped; after it, folded."""
    repo = copied(two_branches_template, tmp_path)
    for branch in ("feature", "main"):
        git(repo, "checkout", "-q", branch)
        (repo / "conflict.txt").write_text(f"{branch}\n")
        git(repo, "add", "conflict.txt")
        git(repo, "commit", "-qm", f"{branch} conflict")
    assert subprocess.run(["git", "merge", "-q", "--no-edit", "feature"], cwd=repo, capture_output=True,
                          env=clean_env()).returncode != 0
    capture(repo, "captured during a stopped merge", 7)
    proc = subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 2 and "not compacted: a merge is in progress" in proc.stdout, proc.stdout
    subprocess.run(["git", "merge", "--abort"], cwd=repo, check=True, env=clean_env())
    assert "captured during a stopped merge" in live(repo)
    done = subprocess.run([DOCTOR, "--compact"], cwd=repo, capture_output=True, text=True, env=clean_env())
    assert "folded 1 inbox file(s)" in done.stdout and "captured during a stopped merge" in live(repo)


def test_a_gitattributes_line_that_overrides_the_driver_is_a_doctor_failure(tmp_path, installed_template):
    """`*.jsonl merge=union` after memory-hooks' block wins: git never runs the driver, and the doctor, which
    read .gitattributes for our line, said OK."""
    repo = copied(installed_template, tmp_path)
    before = subprocess.run([DOCTOR], cwd=repo, capture_output=True, text=True, env=clean_env())
    assert "OK    merge driver" in before.stdout, before.stdout
    with open(repo / ".gitattributes", "a") as fh:
        fh.write("*.jsonl merge=union\n")
    after = subprocess.run([DOCTOR], cwd=repo, capture_output=True, text=True, env=clean_env())
    assert after.returncode == 2 and "FAIL  merge driver  .beads/memory/knowledge.jsonl (merge=union), " in after.stdout
    assert "a later line of .gitattributes overrides ours" in after.stdout
