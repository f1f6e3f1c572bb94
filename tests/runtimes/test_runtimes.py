"""memory.runtimes.runtimes: the registered command strings, run as each runtime runs them (`sh -c "<command>"`
in the project, the runtime's variables set, the event's JSON on stdin). Exit 2 is BLOCK for every runtime
(hook-protocols §0 item 9, §2.1, §3): no command of ours may exit 2 because our code is not there."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from helpers import ROOT, clean_env, make_repo
from memory.runtimes import runtimes
from memory.runtimes.runtimes import INSTALL_DIR

BLOCK = 2


def _runtime_env(name: str, project: Path) -> dict:
    """The variables each runtime sets for a project hook (Codex sets none: its command finds the work tree)."""
    env = clean_env()
    if name == "Claude Code":
        env["CLAUDE_PROJECT_DIR"] = str(project)
    elif name == "Cursor":
        env.update(CURSOR_PROJECT_DIR=str(project), CURSOR_VERSION="3.9.16", CLAUDE_PROJECT_DIR=str(project))
    elif name == "Gemini CLI":
        env.update(GEMINI_PROJECT_DIR=str(project), CLAUDE_PROJECT_DIR=str(project))
    return env


def _run(command: str, event: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    payload = json.dumps({"session_id": "s", "hook_event_name": event, "cwd": str(cwd), "prompt": "fix the build"})
    return subprocess.run(["/bin/sh", "-c", command], input=payload, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def _every_registration():
    for name, _, table, command in runtimes.RUNTIMES:
        for hook, event, _, _ in table:
            yield name, hook, event, command


def test_a_checkout_without_the_code_folder_runs_no_hook_and_blocks_nothing(tmp_path):
    """A teammate committed .claude/settings.json (and the other runtimes' files) but not the untracked code
    folder: every registered command exits 0, says nothing on stdout, and names the missing file on stderr.
    Before: python3 could not open the file, exit 2, and UserPromptSubmit, PreToolUse, Stop were all blocked."""
    project = make_repo(tmp_path / "app")
    (project / "src").mkdir()
    for name, hook, event, command in _every_registration():
        for cwd in (project, project / "src"):  # Codex runs in the session's cwd, anywhere in the work tree
            proc = _run(command(hook), event, cwd, _runtime_env(name, project))
            assert (proc.returncode, proc.stdout) == (0, ""), (name, event, proc.returncode, proc.stderr)
            assert f"{INSTALL_DIR}/hooks/{hook}.py is missing" in proc.stderr, (name, event)


def test_hook_code_deleted_beside_a_surviving_virtualenv_blocks_nothing(tmp_path):
    """`git rm -r` of the code folder, pulled by a clone that has the (ignored, untracked) virtualenv: the
    venv's python is there, the hook file is not. Exit 0 too, not the venv python's exit 2."""
    project = make_repo(tmp_path / "app")
    bin_dir = project / INSTALL_DIR / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    os.symlink(os.path.realpath(ROOT / ".venv" / "bin" / "python"), bin_dir / "python")
    for name, hook, event, command in _every_registration():
        proc = _run(command(hook), event, project, _runtime_env(name, project))
        assert (proc.returncode, proc.stdout) == (0, ""), (name, event, proc.returncode, proc.stderr)


def _fake_hooks(project: Path, venv: bool) -> None:
    """Hook files that print how they were run, and (when `venv`) a virtualenv python that says it is one."""
    hooks = project / INSTALL_DIR / "hooks"
    hooks.mkdir(parents=True)
    says_how = "import sys; print(' '.join([sys.argv[0].rsplit('/', 1)[1]] + sys.argv[1:]))\n"
    for hook in {h for h, *_ in runtimes.CLAUDE_HOOKS + runtimes.CURSOR_EVENTS + runtimes.CODEX_EVENTS}:
        (hooks / f"{hook}.py").write_text(says_how)
    if venv:
        bin_dir = project / INSTALL_DIR / ".venv" / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python").write_text('#!/bin/sh\nprintf "venv "; exec python3 "$@"\n')
        (bin_dir / "python").chmod(0o755)


@pytest.mark.parametrize("venv", [True, False])
def test_an_installed_hook_still_runs_with_its_flags(tmp_path, venv):
    """The guard changes nothing when the code is there: the virtualenv's python when present, else python3
    with --no-venv; each runtime's flag; the project found from its variable (Codex: from a subfolder)."""
    project = make_repo(tmp_path / "my app (v2)")  # spaces and parentheses: every path quoted
    (project / "src").mkdir()
    _fake_hooks(project, venv)
    flags = {"Claude Code": "", "Cursor": " --cursor", "Gemini CLI": " --gemini", "Codex CLI": " --codex"}
    for name, hook, event, command in _every_registration():
        cwd = project / "src" if name == "Codex CLI" else project
        proc = _run(command(hook), event, cwd, _runtime_env(name, project))
        expected = ("venv " if venv else "") + f"{hook}.py{flags[name]}" + ("" if venv else " --no-venv") + "\n"
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, expected, ""), (name, event)


def test_without_python3_the_exit_is_not_a_block(tmp_path):
    """No virtualenv and no python3 on PATH: sh's 127, a non-blocking error for every runtime, never 2."""
    project = make_repo(tmp_path / "app")
    _fake_hooks(project, venv=False)
    for name, hook, event, command in _every_registration():
        env = dict(_runtime_env(name, project), PATH=str(tmp_path / "no-such-bin"))
        proc = _run(command(hook), event, project, env)
        assert proc.returncode == 127 and proc.stdout == "", (name, event, proc.returncode, proc.stderr)


def test_the_plugin_command_runs_its_hook_and_fails_open_without_it(tmp_path):
    project = make_repo(tmp_path / "app")
    for hook, event, _, _ in runtimes.CLAUDE_HOOKS:
        empty = dict(clean_env(), CLAUDE_PROJECT_DIR=str(project), CLAUDE_PLUGIN_ROOT=str(tmp_path / "gone"))
        proc = _run(runtimes.plugin_command(hook), event, project, empty)
        assert (proc.returncode, proc.stdout) == (0, ""), (event, proc.returncode, proc.stderr)
    plugin = dict(clean_env(), CLAUDE_PROJECT_DIR=str(project), CLAUDE_PLUGIN_ROOT=str(ROOT))
    start = _run(runtimes.plugin_command("session_start"), "SessionStart", project, plugin)
    assert start.returncode == 0 and "Traceback" not in start.stderr  # the real hook ran (and answered or not)
    ran = subprocess.run(["/bin/sh", "-c", runtimes.plugin_command("session_start").replace("exec python3", "echo")],
                         cwd=project, env=plugin, capture_output=True, text=True)
    assert ran.stdout == f"{ROOT}/hooks/session_start.py --plugin\n"


def test_a_closed_stderr_blocks_nothing(tmp_path):
    """dash's `echo … >&2` with stderr closed fails with 2, which the `if` returned (a review of this change)."""
    project = make_repo(tmp_path / "app")
    for name, hook, event, command in _every_registration():
        proc = subprocess.run(["/bin/sh", "-c", command(hook) + " 2>&-"], input="{}", cwd=project,
                              env=_runtime_env(name, project), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout == "", (name, event, proc.returncode)


@pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("setpriv"), reason="root reads a chmod 000 file")
def test_an_unreadable_hook_file_blocks_nothing():
    """A hook file present but unreadable (an install run by another user under umask 077) passed `[ -f ]`, then
    python3 could not open it: exit 2. Run as an unprivileged user where the tests run as root."""
    base = Path(tempfile.mkdtemp(prefix="mh-unreadable-"))  # outside pytest's 0700 tmp folder: nobody may enter
    try:
        base.chmod(0o755)
        project = make_repo(base / "app")
        hooks = project / INSTALL_DIR / "hooks"
        hooks.mkdir(parents=True)
        (hooks / "prompt_recall.py").write_text("raise SystemExit(2)\n")
        (hooks / "prompt_recall.py").chmod(0)
        command = runtimes.claude_command("prompt_recall")
        argv = ["/bin/sh", "-c", command]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", *argv]
        proc = subprocess.run(argv, input="{}", cwd=project, env=_runtime_env("Claude Code", project),
                              capture_output=True, text=True, timeout=60)
        assert (proc.returncode, proc.stdout) == (0, "") and "missing or unreadable" in proc.stderr, proc.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)
