"""memory-doctor's checks of the memory folder (memory.commands.memory_checks), on real installs: broken
files, held locks, a memory that can't be written, an ignored inbox, settings the hooks ignore."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from helpers import (
    DOCTOR,
    clean_env,
    doctor_report,
    git,
    held_lock,
    installed_with_a_capture,
    make_repo,
    run_doctor,
    run_hook,
)
from memory.store import store


def test_symlinked_knowledge_file_fails(repo, tmp_path):
    installed_with_a_capture(repo)
    active = repo / ".beads" / "memory" / store.ACTIVE
    active.unlink()
    os.symlink(tmp_path / "elsewhere", active)
    code, _, checks = doctor_report(repo)
    assert code == 2 and "symlink" in checks["knowledge.jsonl"]["detail"]


def test_held_lock_reports_its_live_holder(repo):
    installed_with_a_capture(repo)
    memory = repo / ".beads" / "memory"
    with held_lock(memory / store.LOCK) as holder:
        checks = doctor_report(repo)[2]
        assert checks["lock"]["detail"] == f"held by pid {holder.pid}" and checks["lock"]["level"] == "OK"
    assert doctor_report(repo)[2]["lock"]["detail"] == "free"  # a dead holder's flock is gone with it


def test_from_a_worktree_names_the_main_checkout(repo):
    installed_with_a_capture(repo)
    git(repo, "worktree", "add", "-q", ".worktrees/bd-5", "-b", "bd-5")
    wt = repo / ".worktrees" / "bd-5"
    checks = doctor_report(repo, cwd=wt)[2]
    assert "main checkout; you are in worktree" in checks["memory root"]["detail"]
    assert str(repo / ".beads" / "memory") in checks["memory root"]["detail"]


def test_a_repository_git_refuses_is_named_with_gits_fix(repo, monkeypatch):
    installed_with_a_capture(repo)
    # what git does in a repository owned by another user (a container's mount, a shared folder)
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    detail = doctor_report(repo)[2]["memory root"]["detail"]
    assert "dubious ownership" in detail and f"safe.directory {repo}" in detail and "not a git repository" not in detail


def test_git_missing_is_said_as_such(tmp_path, monkeypatch):
    from memory.commands import memory_checks

    monkeypatch.setenv("PATH", str(tmp_path))  # no git there
    assert memory_checks.git_refusal(str(tmp_path)) == "git is not installed or not on PATH"


def test_recent_errors_warn(repo):
    installed_with_a_capture(repo)
    run_hook("memory_capture", b"garbage", repo)
    checks = doctor_report(repo)[2]
    assert checks["errors.log"]["level"] == "WARN" and "not a JSON object" in checks["errors.log"]["detail"]


# --- a memory folder or knowledge file that can't be written -----------------------------------------------

def _as_nobody(argv):
    """argv as an unprivileged user (root may write anything)."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", *argv]


needs_setpriv = pytest.mark.skipif(
    os.geteuid() == 0 and not shutil.which("setpriv"), reason="running as root without setpriv: all is writable")


@needs_setpriv
@pytest.mark.parametrize("what", ["knowledge file", "memory folder"])
def test_a_memory_that_cannot_be_written_fails_with_the_fix(what):
    base = Path(tempfile.mkdtemp(prefix="mh-doctor-"))  # outside pytest's 0700 tmp folder: nobody may enter
    try:
        os.chmod(base, 0o755)
        repo = make_repo(base / "project")
        installed_with_a_capture(repo)
        memory = repo / ".beads" / "memory"
        if os.geteuid() == 0:  # the user's own project, with one part of it root's
            subprocess.run(["chown", "-R", "65534:65534", str(base)], check=True)
            os.chown(memory / store.ACTIVE if what == "knowledge file" else memory, 0, 0)
        else:
            os.chmod(memory / store.ACTIVE if what == "knowledge file" else memory, 0o555)
        env = clean_env(HOME=str(base))
        proc = subprocess.run(_as_nobody([DOCTOR, "--json"]), cwd=repo, capture_output=True, text=True, env=env)
        data = json.loads(proc.stdout)
        failures = [c["detail"] for c in data["checks"] if c["check"] == "writable"]
        assert proc.returncode == 2 and data["status"] == "FAIL" and "Traceback" not in proc.stderr
        bad = str(memory / store.ACTIVE) if what == "knowledge file" else str(memory)
        assert any(f.startswith(f"{bad} cannot be written (Permission denied)") and ("chown" in f or "chmod" in f)
                   for f in failures), failures
        repair = subprocess.run(_as_nobody([DOCTOR, "--repair"]), cwd=repo, capture_output=True, text=True, env=env)
        assert repair.returncode == 2 and "Traceback" not in repair.stderr and "FAIL  writable" in repair.stdout
    finally:
        subprocess.run(["rm", "-rf", str(base)])


def test_a_writable_memory_is_ok(repo):
    installed_with_a_capture(repo)
    checks = doctor_report(repo)[2]
    assert checks["writable"]["level"] == "OK"
    assert not [n for n in os.listdir(repo / ".beads" / "memory") if n.startswith(".doctor")]  # the probe is gone


def test_an_ignored_inbox_fails(repo):
    """Captures in an ignored inbox would never be committed (a hand-written `.beads/memory/*` rule)."""
    installed_with_a_capture(repo)
    with open(repo / ".gitignore", "a") as fh:
        fh.write(".beads/memory/*\n!.beads/memory/knowledge*.jsonl\n")
    code, _, checks = doctor_report(repo)
    assert code == 2 and checks["inbox"]["level"] == "FAIL" and "!.beads/memory/inbox/" in checks["inbox"]["detail"]
    with open(repo / ".gitignore", "a") as fh:
        fh.write("!.beads/memory/inbox/\n")
    assert doctor_report(repo)[2]["inbox"]["level"] == "OK"


def test_a_misspelt_or_mistyped_setting_is_named_and_the_hooks_use_the_default(repo):
    """The hooks ignore a setting they cannot use (and stay quiet about it): the doctor says which."""
    from memory.core import config
    from memory.orchestration import completion

    repo = installed_with_a_capture(repo)
    memory = repo / ".beads" / "memory"
    (memory / "config.json").write_text('{"session_budget_token": 1500, "prompt_max_entries": "3", '
                                        '"prompt_relative_cut": 1, "semantic": false}\n')
    (memory / "completion.json").write_text('{"max_blocks": "2", "supervisor_types": ["supervisor", 7]}\n')
    proc = run_doctor(repo, "--json")
    found = [c for c in json.loads(proc.stdout)["checks"] if c["check"] == "settings"]
    assert [c["level"] for c in found] == ["WARN", "WARN"] and proc.returncode == 1
    said = " ".join(c["detail"] for c in found)
    assert "`session_budget_token` is no setting (did you mean `session_budget_tokens`?)" in said
    assert '`prompt_max_entries` is "3", not a whole number: the default 5 is used' in said
    assert "`max_blocks`" in said and "`supervisor_types`" in said and "prompt_relative_cut" not in said
    taken = config.load(str(memory))
    assert (taken["prompt_max_entries"], taken["prompt_relative_cut"], taken["semantic"]) == (5, 1.0, False)
    gate = completion.load_config(str(memory))
    assert gate["max_blocks"] == 2 and gate["supervisor_types"] == ["supervisor"]
    (memory / "config.json").write_text('{"prompt_max_entries": 3}\n')
    (memory / "completion.json").write_text("[1, 2]\n")
    checks = doctor_report(repo)[1]["checks"]
    found = {c["detail"].split(":")[0]: c["level"] for c in checks if c["check"] == "settings"}
    assert found == {"config.json": "OK", "completion.json": "WARN"}


def test_an_insight_that_took_a_different_ones_automatic_key_is_named(repo):
    """Two clones' insights opening with the same 60 characters meet under one key (their inbox fragments merge
    as separate files, so the merge driver never sees them): the doctor names the key; a correction under an
    explicit key, or the same text again, is no such case."""
    from memory.store import entry

    installed_with_a_capture(repo)
    memory = str(repo / ".beads" / "memory")
    opening = "when deploying the payments service to the production cluster always "
    store.append(memory, [entry.build(opening + "drain the queue first", "BD-1", "orchestrator", "warning", ts=100),
                          entry.build(opening + "rotate the webhook secret", "BD-2", "orchestrator", "warning",
                                      ts=200),
                          entry.build("the port is 8080", "BD-3", "orchestrator", key_name="port", ts=100),
                          entry.build("the port is 9090", "BD-3", "orchestrator", key_name="port", ts=200)])
    check = doctor_report(repo)[2]["replaced"]
    key = entry.make_key("warning", opening)
    assert check["level"] == "OK" and check["detail"].startswith("1 live entry replaced a different insight")
    assert f"`{key}`" in check["detail"] and "learned-port" not in check["detail"]
