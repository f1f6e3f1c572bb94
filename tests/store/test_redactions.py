"""Recorded redactions (memory.store.redactions): `recall.sh --redact` in one clone reaches a clone that had
compacted the line away from the inbox fragment the redaction rewrote. Real git, two clones of one bare remote,
the scripts as a user runs them."""
import json
import subprocess

import pytest

from helpers import INSTALL, ROOT, bash_payload, clean_env, git, run_hook
from memory.store import entry, inbox, store

SECRET = "correcthorsebatterystaple"  # letters only: a known miss of the automatic redaction, so it is stored
RECALL = ".beads/memory/recall.sh"
DOCTOR = str(ROOT / "bin" / "memory-doctor")


def clone(remote, path):
    subprocess.run(["git", "clone", "-q", str(remote), str(path)], check=True, capture_output=True)
    return path


def run(repo, *argv):
    return subprocess.run([str(repo / argv[0]), *argv[1:]] if argv[0] == RECALL else list(argv), cwd=repo,
                          capture_output=True, text=True, env=clean_env())


def tracked_text(repo):
    """Every git-tracked file of the work tree, as text (what the next commit would hold)."""
    return "".join((repo / name).read_text(errors="replace") for name in git(repo, "ls-files").split("\n")
                   if (repo / name).is_file())


def pushed_text(repo):
    """Every file of origin/main's tree."""
    names = git(repo, "ls-tree", "-r", "--name-only", "origin/main").split("\n")
    return "".join(git(repo, "show", f"origin/main:{name}") for name in names)


def session_start(repo):
    proc = run_hook("session_start", {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s",
                                      "cwd": str(repo)}, repo)
    assert proc.returncode == 0
    return proc


@pytest.fixture(scope="module")
def two_clones_template(tmp_path_factory):
    """A project installed by install.sh in clone a, pushed to a bare remote; clone b ran --setup-git."""
    path = tmp_path_factory.mktemp("two-clones")
    remote = path / "remote.git"
    git(path, "init", "-q", "--bare", "-b", "main", str(remote))
    a = clone(remote, path / "a")
    git(a, "commit", "-q", "--allow-empty", "-m", "init")
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(a)], check=True, capture_output=True,
                   env=clean_env())
    git(a, "add", "-A")
    git(a, "commit", "-qm", "installed")
    git(a, "push", "-q", "origin", "main")
    b = clone(remote, path / "b")
    assert run(b, RECALL, "--setup-git").returncode == 0
    return path


def leaked_then_compacted_elsewhere(tmp_path, template, insight, key):
    """a captures `insight` (an inbox fragment) and pushes; b pulls and compacts it into knowledge.jsonl (and
    commits); a runs `recall.sh --redact KEY SECRET` and pushes; b pulls: git stops on the fragment."""
    from helpers import copy_tree

    copy_tree(template, tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    proc = run_hook("memory_capture", bash_payload(f'bd comment BD-1 "{insight}"', a), a)
    assert proc.returncode == 0
    assert SECRET in "".join(p.read_text() for p in (a / ".beads/memory/inbox").iterdir())
    git(a, "add", "-A")
    git(a, "commit", "-qm", "a learned")
    git(a, "push", "-q", "origin", "main")
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    assert run(b, DOCTOR, "--compact").returncode in (0, 1)
    assert not inbox.names(str(b / ".beads/memory")) and SECRET in (b / ".beads/memory/knowledge.jsonl").read_text()
    git(b, "add", "-A")
    git(b, "commit", "-qm", "b compacted")
    redact = run(a, RECALL, "--redact", key, SECRET)
    assert redact.returncode == 0, redact.stderr
    git(a, "add", "-A")
    git(a, "commit", "-qm", "a redacted")
    git(a, "push", "-q", "origin", "main")
    pull = subprocess.run(["git", "pull", "--no-rebase", "--no-edit", "origin", "main"], cwd=b, capture_output=True,
                          text=True)
    assert pull.returncode != 0 and "modify/delete" in pull.stdout + pull.stderr  # what git reports
    return a, b


INSIGHTS = [("LEARNED[vault-notes]: the unseal phrase is " + SECRET, "learned-vault-notes"),  # an explicit key
            ("LEARNED: the unseal phrase " + SECRET + " opens vault", None)]  # an automatic key: renamed


@pytest.mark.parametrize("insight,key", INSIGHTS)
@pytest.mark.parametrize("resolution", ["deleted", "theirs"])
def test_a_redaction_reaches_a_clone_that_had_compacted_the_fragment(tmp_path, two_clones_template, insight, key,
                                                                      resolution):
    """However b resolves the modify/delete, its next session start redacts its knowledge.jsonl: the commit it
    pushes holds no secret, and a pulls nothing back."""
    key = key or entry.make_key("learned", insight.split(": ", 1)[1])
    a, b = leaked_then_compacted_elsewhere(tmp_path, two_clones_template, insight, key)
    fragment = git(b, "diff", "--name-only", "--diff-filter=U")
    if resolution == "deleted":
        git(b, "rm", "-q", fragment)  # keep b's fold: the fragment stays deleted
    else:
        git(b, "add", fragment)  # keep a's redacted fragment beside b's fold
    git(b, "commit", "-q", "--no-edit")
    assert SECRET in tracked_text(b)  # what main left: the secret live in b's knowledge.jsonl

    doctor = run(b, DOCTOR)
    assert doctor.returncode == 2 and "FAIL  redactions" in doctor.stdout and "memory-doctor --repair" in doctor.stdout
    session_start(b)
    assert SECRET not in tracked_text(b) and SECRET.lower() not in tracked_text(b).lower()
    assert "FAIL" not in run(b, DOCTOR).stdout
    live = {e["key"]: e["content"] for e in store.latest(store.load(str(b / ".beads/memory")).entries)}
    unseal = [c for c in live.values() if "unseal" in c]
    assert len(unseal) == 1 and "<redacted:manual>" in unseal[0] and all(SECRET not in k for k in live)
    git(b, "commit", "-qam", "b after the session")
    git(b, "push", "-q", "origin", "main")
    git(a, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert SECRET not in pushed_text(a) and SECRET not in tracked_text(a)
    assert git(a, "status", "--porcelain") == ""
