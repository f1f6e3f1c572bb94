"""What install.sh plans across runs (memory/install/plan.py), run as a user runs it on real git repositories:
the --no-* flags, the files an install creates only to leave empty, the file counts it reports, and the
committed install.json across reinstalls and uninstall + install cycles."""
import json
import re
import subprocess

import pytest

from helpers import INSTALL, clean_env, install, tree
from memory.install import plan
from memory.runtimes import ours, registration

FLAGS = {"claude": registration.CLAUDE_SETTINGS, "cursor": registration.CURSOR_HOOKS,
         "gemini": registration.GEMINI_SETTINGS, "codex": registration.CODEX_HOOKS}


def _manifest_bytes(repo):
    return (repo / registration.MANIFEST).read_bytes()


@pytest.mark.parametrize("runtime", sorted(FLAGS))
def test_a_no_flag_after_a_full_install_takes_ours_out_as_its_help_says(repo, runtime):
    """`--no-X` is "do not register for X": a re-install with it takes our entries out of X's file (the user's
    own entries stay), deletes the file when we created it and nothing else is in it (no `{}` left behind, nor
    its folder), and the manifest records the runtime as left out. The help says exactly that."""
    rel = FLAGS[runtime]
    install(repo, "--no-venv", "--no-self-check")
    assert ours.our_handlers(registration.read_config(str(repo / rel)))
    install(repo, "--no-venv", "--no-self-check", f"--no-{runtime}")
    assert not (repo / rel).exists(), (repo / rel).read_text()  # before: `{}` or `{"version": 1}` stayed
    folder = (repo / rel).parent
    assert runtime == "claude" or not folder.exists()  # .claude still holds our code folder
    assert json.loads(_manifest_bytes(repo))["left_out"] == [runtime]
    install(repo, "--uninstall")
    assert not (repo / ".claude").exists() and not folder.exists()


@pytest.mark.parametrize("runtime", sorted(FLAGS))
def test_a_no_flag_keeps_the_users_own_entries_and_file(repo, runtime):
    rel = FLAGS[runtime]
    theirs = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}
    if runtime == "cursor":
        theirs = {"version": 1, "hooks": {"sessionStart": [{"command": "./mine.sh"}]}}
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text(json.dumps(theirs, indent=2) + "\n")
    install(repo, "--no-venv", "--no-self-check")
    install(repo, "--no-venv", "--no-self-check", f"--no-{runtime}")
    assert json.loads((repo / rel).read_text()) == theirs


def test_the_help_of_every_no_flag_says_a_reinstall_takes_ours_out():
    """The help said `--no-cursor  leave .cursor/hooks.json alone` while a re-install with it took our entries out."""
    text = " ".join(subprocess.run([INSTALL, "--help"], capture_output=True, text=True, env=clean_env(),
                                   check=True).stdout.split())
    assert "alone" not in text
    for runtime, rel in FLAGS.items():
        said = re.findall(rf"--no-{runtime} (.*?)(?= --|$)", text)[0]
        assert rel in said and "taken out" in said and "remembered" in said, said
        assert re.search(rf"--{runtime} register .* again after a --no-{runtime}", text)


def _summary_counts(text):
    return [int(n) for n in re.findall(rf"{re.escape(registration.INSTALL_DIR)}/ \((\d+) files?\)", text)]


def test_dry_run_install_and_uninstall_count_the_same_files(repo):
    """Dry run said 140 files, the install 139 (the code without install.json), the uninstall 140."""
    dry = _summary_counts(install(repo, "--dry-run", "--no-venv").stdout)
    done = _summary_counts(install(repo, "--no-venv", "--no-self-check").stdout)
    on_disk = [p for p in tree(repo, skip=(".git", "__pycache__"))  # the machine-local .no-venv marker aside
               if p.startswith(registration.INSTALL_DIR + "/") and p != registration.NO_VENV_CHOSEN]
    again = _summary_counts(install(repo, "--no-venv", "--no-self-check").stdout)
    gone = _summary_counts(install(repo, "--uninstall").stdout)
    assert dry == done == again == gone == [len(on_disk)], (dry, done, again, gone, len(on_disk))


def test_install_json_is_stable_across_reinstalls_and_uninstall_cycles(repo):
    """A reinstall over the same state leaves install.json byte-identical; an uninstall + install gives the first
    install's bytes back (before, `created` lost .beads/memory/.gitignore, which an uninstall keeps with the
    knowledge); and what `created` names, an uninstall still removes."""
    install(repo, "--no-venv", "--no-self-check")
    first, files = _manifest_bytes(repo), tree(repo)
    install(repo, "--no-venv", "--no-self-check")
    assert _manifest_bytes(repo) == first and tree(repo) == files
    for _ in range(2):
        install(repo, "--uninstall")
        install(repo, "--no-venv", "--no-self-check")
        assert _manifest_bytes(repo) == first, _manifest_bytes(repo).decode()
    created = json.loads(first)["created"]
    install(repo, "--uninstall")
    assert [rel for rel in created if (repo / rel).exists()] == []
    left = set(tree(repo))  # the knowledge stays, with the .gitignore that keeps its machine-local files out of git
    assert plan.KNOWLEDGE in left and left <= {plan.MEMORY_IGNORE, plan.KNOWLEDGE, ".beads/memory/knowledge.lock"}


def test_a_runtime_left_out_stays_out_until_asked_back(repo):
    """An upgrade (install.sh again, no flags) re-registered every runtime the user had left out."""
    install(repo, "--no-venv", "--no-self-check", "--no-cursor", "--no-gemini")
    install(repo, "--no-venv", "--no-self-check")
    assert not (repo / FLAGS["cursor"]).exists() and not (repo / FLAGS["gemini"]).exists()
    assert json.loads(_manifest_bytes(repo))["left_out"] == ["cursor", "gemini"]
    install(repo, "--no-venv", "--no-self-check", "--cursor")
    assert ours.our_handlers(registration.read_config(str(repo / FLAGS["cursor"])))
    assert json.loads(_manifest_bytes(repo))["left_out"] == ["gemini"]


def test_an_install_in_a_worktree_changes_no_tracked_file(repo):
    """Session start in a worktree says to run install.sh there (for the virtualenv): it had re-registered the
    runtimes left out, adding tracked files the completion gate then called the bead's uncommitted work."""
    from helpers import git

    install(repo, "--no-venv", "--no-self-check", "--no-cursor", "--no-gemini", "--no-codex")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "install")
    git(repo, "worktree", "add", "-q", ".worktrees/bd-5", "-b", "bd-5")
    wt = repo / ".worktrees" / "bd-5"
    install(wt, "--no-venv", "--no-self-check")
    assert git(wt, "status", "--porcelain") == ""
    # brought back in the worktree: its own install.json decides from then on, not the main checkout's
    install(wt, "--no-venv", "--no-self-check", "--cursor", "--gemini", "--codex")  # none left out now
    install(wt, "--no-venv", "--no-self-check")
    assert ours.our_handlers(registration.read_config(str(wt / FLAGS["cursor"])))
