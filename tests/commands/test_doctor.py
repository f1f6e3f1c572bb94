"""memory-doctor / recall.sh --doctor on real installs: the report, --repair (the checks themselves:
test_memory_checks.py, test_setup_checks.py)."""
import json
import os
import subprocess

import pytest

from helpers import doctor_report, installed_with_a_capture, knowledge, run_doctor
from memory.store import store


@pytest.mark.slow  # builds a real virtualenv with pip (~10 s)
def test_healthy_install_is_ok(repo):
    code, data, checks = doctor_report(installed_with_a_capture(repo, venv=True))
    assert code == 0 and data["status"] == "OK", data
    registered = [c["detail"] for c in data["checks"] if c["check"] == "registered"]
    assert registered[0].startswith(".claude/settings.json: SessionStart") and "afterShellExecution" in registered[1]
    assert "project virtualenv; orjson+filelock" in checks["interpreter"]["detail"]
    assert checks["inbox"]["detail"].startswith("1 capture file(s), 1 lines, 0 malformed")
    assert checks["lock"]["detail"] == "free"


def test_nothing_installed_fails(repo):
    code, data, _ = doctor_report(repo)
    assert code == 2 and data["status"] == "FAIL"
    assert "FAIL  registered" in run_doctor(repo).stdout


def test_malformed_and_duplicate_lines_warn_and_repair(repo):
    installed_with_a_capture(repo)
    active = repo / ".beads" / "memory" / store.ACTIVE
    [fragment] = (repo / ".beads" / "memory" / "inbox").iterdir()
    line = fragment.read_bytes()
    fragment.unlink()
    active.write_bytes(line + line + b'{"key":"torn\n' + b"not json\n")
    code, _, checks = doctor_report(repo)
    knowledge = checks["knowledge.jsonl"]
    assert knowledge["level"] == "WARN" and "2 malformed, 1 duplicate" in knowledge["detail"]
    proc = run_doctor(repo, "--repair")
    assert "moved 2 malformed line(s) to knowledge.corrupt.jsonl, removed 1 duplicate" in proc.stdout
    assert active.read_bytes() == line
    assert (repo / ".beads" / "memory" / store.CORRUPT).read_bytes() == b'{"key":"torn\nnot json\n'
    code, _, checks = doctor_report(repo)
    assert "0 malformed, 0 duplicate" in checks["knowledge.jsonl"]["detail"] and checks["quarantine"]["level"] == "WARN"


def test_repair_finishes_an_interrupted_rotation(repo):
    installed_with_a_capture(repo)
    memory = repo / ".beads" / "memory"
    stat = os.stat(memory / store.ACTIVE)
    (memory / store.JOURNAL).write_text(json.dumps({"archive_size": 0, "active_ino": stat.st_ino,
                                                    "active_dev": stat.st_dev}))
    (memory / store.ARCHIVE).write_bytes(b'{"half an archive')
    assert doctor_report(repo)[2]["rotation"]["level"] == "WARN"
    run_doctor(repo, "--repair")
    assert not (memory / store.JOURNAL).exists() and (memory / store.ARCHIVE).read_bytes() == b""
    assert [e["content"] for e in knowledge(repo)] == ["doctor sees this"]


def test_recall_doctor_is_the_same_command(repo):
    installed_with_a_capture(repo)
    proc = subprocess.run([str(repo / ".beads" / "memory" / "recall.sh"), "--doctor", "--json"], capture_output=True,
                          text=True, env={**os.environ, "HOME": str(repo.parent)})
    data = json.loads(proc.stdout)
    assert data["memory_dir"] == str(repo / ".beads" / "memory")
    assert proc.returncode == {"OK": 0, "WARN": 1}[data["status"]]


@pytest.mark.parametrize("where", ["home", "project"])
def test_a_fifo_for_claude_settings_never_hangs_the_doctor(repo, where):
    """memory-doctor reads ~/.claude/settings.json (disableAllHooks, an enabled plugin) and the project's own
    settings files: a FIFO there made open() wait for a writer forever. Now it is unreadable (the project's: a
    FAIL naming it), and the doctor answers."""
    from helpers import DOCTOR, clean_env

    installed_with_a_capture(repo)
    folder = repo.parent / ".claude" if where == "home" else repo / ".claude"
    folder.mkdir(exist_ok=True)
    target = folder / ("settings.json" if where == "home" else "settings.local.json")
    os.mkfifo(target)
    env = dict(clean_env(), HOME=str(repo.parent))
    proc = subprocess.run([DOCTOR, "--json"], cwd=repo, capture_output=True, text=True, env=env, timeout=60)
    checks = json.loads(proc.stdout)["checks"]
    assert {c["check"] for c in checks} >= {"registered"}, proc.stderr
    if where == "project":
        assert any(c["level"] == "FAIL" and "settings.local.json" in c["detail"] for c in checks), checks
