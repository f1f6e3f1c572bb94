"""hooks/*.py when the code they load is unusable (memory.unusable): every hook still fails open.

An upgrade copying files while hooks fire, a damaged file, or a bytecode file cut short by a full disk (the
interpreter does not check its own short write, and then every later import of that module fails) must never
turn into a traceback and exit 1 on each tool call: exit 0, nothing on stdout, one line in errors.log."""
import json
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, clean_env, error_log, fixture_payload, make_repo

HOOKS = sorted(p.stem for p in (ROOT / "hooks").glob("*.py"))


def broken_copy(tmp_path: Path, damage) -> Path:
    """hooks/ and memory/ copied, then `damage(memory_folder)`: the code every hook imports first."""
    import shutil

    code = tmp_path / "code"
    for part in ("hooks", "memory"):
        shutil.copytree(ROOT / part, code / part, ignore=shutil.ignore_patterns("__pycache__"))
    damage(code / "memory")
    return code


def run_copy(code: Path, hook: str, repo: Path) -> subprocess.CompletedProcess:
    """The copy's hook file as Claude Code runs it, fed a recorded SessionStart payload."""
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-1.json"), cwd=str(repo))
    return subprocess.run([sys.executable, str(code / "hooks" / f"{hook}.py")], input=json.dumps(payload).encode(),
                          cwd=repo, env=clean_env(CLAUDE_PROJECT_DIR=str(repo), MEMORY_HOOKS_FOREGROUND="1"),
                          capture_output=True, timeout=60)


def run_all(code: Path, repo: Path) -> None:
    for hook in HOOKS:
        proc = run_copy(code, hook, repo)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b""), hook
    lines = error_log(repo).splitlines()
    assert [line.split()[1] for line in lines] == HOOKS
    assert all("the hook's code does not load, nothing done:" in line for line in lines)



def test_a_module_that_does_not_parse(tmp_path):
    """A half-written file: hookrun, which every hook imports, ends mid-statement."""
    def cut(memory: Path) -> None:
        path = memory / "runtimes" / "hookrun.py"
        path.write_text(path.read_text()[:2000] + "\ndef (\n")

    run_all(broken_copy(tmp_path, cut), make_repo(tmp_path / "app"))
    assert "SyntaxError" in error_log(tmp_path / "app")


def test_a_bytecode_file_cut_short(tmp_path):
    """hookrun's .pyc current for its source (header intact) but cut after it, as a full disk leaves it: the
    first hook removes it, the next run works again."""
    def truncate(memory: Path) -> None:
        source = memory / "runtimes" / "hookrun.py"
        cached = Path(py_compile.compile(str(source), doraise=True))
        cached.write_bytes(cached.read_bytes()[:40])

    repo = make_repo(tmp_path / "app")
    code = broken_copy(tmp_path, truncate)
    proc = run_copy(code, "memory_capture", repo)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    first, = error_log(repo).splitlines()
    assert ("EOFError" in first or "ValueError" in first) and first.endswith("damaged bytecode files removed: 1")
    proc = run_copy(code, "session_start", repo)  # the cut file is gone: this run compiles hookrun again
    assert proc.returncode == 0 and b"## Project Memory" in proc.stdout


def test_undamaged_the_same_copy_answers(tmp_path):
    """The guard changes nothing when the code loads: the copy's session start answers, no error line."""
    code = broken_copy(tmp_path, lambda memory: None)
    repo = make_repo(tmp_path / "app")
    proc = run_copy(code, "session_start", repo)
    assert proc.returncode == 0 and b"## Project Memory" in proc.stdout and error_log(repo) == "", proc


@pytest.mark.parametrize("damage", ["empty", "cut", "missing"])
def test_the_packages_own_init_damaged(tmp_path, damage):
    """memory/__init__.py itself half-copied, empty or missing (every import of the package runs it, the fallback
    `memory.unusable` too): still exit 0 with nothing on stdout, a line on stderr (errors.log is the package's
    own code), never a traceback and exit 1 on every tool call."""
    def hit(memory: Path) -> None:
        init = memory / "__init__.py"
        if damage == "missing":
            init.unlink()
        else:
            init.write_text("" if damage == "empty" else init.read_text()[:1200] + "\nx = (\n")

    code, repo = broken_copy(tmp_path, hit), make_repo(tmp_path / "app")
    for hook in HOOKS:
        proc = run_copy(code, hook, repo)
        assert (proc.returncode, proc.stdout) == (0, b""), (hook, proc.stderr)
        assert proc.stderr.decode().startswith(f"memory-hooks {hook}: its code does not load, nothing done: ")


@pytest.mark.parametrize("module", ["core/layout.py", "core/errorlog.py", "surface/action_gate.py",
                                    "capture/capture.py"])
def test_a_module_missing_from_a_half_copied_install(tmp_path, module):
    """A module the hooks import only later, or the error log's own code, gone (an upgrade copied halfway): the
    failure is recorded (or said on stderr when the recorder is the missing part), never a traceback and exit 1
    (the error path imported errorlog unguarded; the action hook imported its gate outside the frame)."""
    code, repo = broken_copy(tmp_path, lambda memory: (memory / module).unlink()), make_repo(tmp_path / "app")
    failure = dict(fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json"), cwd=str(repo))
    capture = dict(fixture_payload("claude-code/2.1.330/PostToolUse-15.json"), cwd=str(repo))
    capture["tool_input"] = {"command": 'bd comment BD-1 "LEARNED: the queue drains first"'}
    for hook in HOOKS:
        for payload in (None, failure, capture):
            proc = run_copy(code, hook, repo) if payload is None else subprocess.run(
                [sys.executable, str(code / "hooks" / f"{hook}.py")], input=json.dumps(payload).encode(), cwd=repo,
                env=clean_env(CLAUDE_PROJECT_DIR=str(repo), MEMORY_HOOKS_FOREGROUND="1"), capture_output=True,
                timeout=60)
            assert proc.returncode == 0 and b"Traceback" not in proc.stderr, (hook, proc.stderr[-600:])
            assert proc.stdout == b"" or proc.stdout.startswith(b"{") and json.loads(proc.stdout), hook
