"""The Python package: the wheel built from this tree, installed into a fresh virtualenv with no network, then
`memory-hooks install` into a real git repository does what ./install.sh does, and the hooks it put there run
on the standard library alone."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import INSTALL, ROOT, assert_protocol, bash_payload, clean_env, knowledge, make_repo, source_copy
from memory import __version__
from memory.commands import console
from memory.runtimes import registration

# pip with no index and no configured links: nothing is fetched, whatever the machine's pip.conf says
OFFLINE = {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _can_build_wheels() -> str | None:
    """Why this interpreter cannot build our wheel offline (pip wheel --no-build-isolation), or None."""
    try:
        import setuptools
    except ImportError:
        return "setuptools is not installed (tests/requirements.txt installs it)"
    major_minor = tuple(int(p) for p in re.findall(r"\d+", setuptools.__version__)[:2])
    if major_minor >= (70, 1):
        return None  # bdist_wheel is built in
    try:
        import wheel  # noqa: F401
    except ImportError:
        return (f"setuptools {setuptools.__version__} needs the `wheel` package to build a wheel "
                "(tests/requirements.txt installs setuptools>=70.1)")
    return None


def _pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text()


def test_every_memory_package_is_listed_in_pyproject():
    listed = re.search(r"^packages = \[(.*?)\]", _pyproject(), re.M)
    assert listed, "pyproject.toml [tool.setuptools] packages is missing"
    names = set(re.findall(r'"([^"]+)"', listed.group(1)))
    found = {os.path.relpath(here, ROOT).replace(os.sep, ".") for here, _, files in os.walk(ROOT / "memory")
             if "__init__.py" in files}
    assert found - names == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert names - found == {"memory_hooks"}


def test_the_version_lives_in_one_place():
    text = _pyproject()
    assert 'dynamic = ["version"]' in text and 'version = { attr = "memory.__version__" }' in text
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    assert not re.search(r"^version\s*=", project, re.M)  # no second literal in [project]
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert plugin.get("version", __version__) == __version__


def test_console_dispatches_and_refuses_unknown_commands(capsys):
    assert console.main(["--version"]) == 0
    assert capsys.readouterr().out == f"memory-hooks {__version__}\n"
    assert console.main(["frobnicate"]) == 2
    assert "no command 'frobnicate'" in capsys.readouterr().err
    assert console.main([]) == 2
    assert console.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("install", "uninstall", "doctor", "recall", "import", "report"))


def _tree(repo: Path) -> dict:
    out = {}
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        for name in files:
            path = Path(folder) / name
            out[str(path.relative_to(repo))] = (path.read_bytes(), os.stat(path).st_mode & 0o777)
    return out


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory) -> Path:
    """A fresh virtualenv with only our wheel in it, built and installed with no network."""
    reason = _can_build_wheels()
    if reason:
        pytest.skip(f"cannot build the wheel offline: {reason}")
    base = tmp_path_factory.mktemp("package")
    source = source_copy(base / "source")
    env = clean_env(**OFFLINE)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                            str(base / "dist"), str(source)], capture_output=True, text=True, env=env, timeout=300)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = list((base / "dist").glob("memory_hooks-*.whl"))
    assert [w.name for w in wheels] == [f"memory_hooks-{__version__}-py3-none-any.whl"]
    venv = base / "venv"
    # a virtualenv without pip of its own (seeding pip costs ~2 s of CPU): this pip installs into it (--python)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True,
                   timeout=300)
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                          "--no-deps", str(wheels[0])], capture_output=True, text=True, env=env, timeout=300)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    return venv


def _memory_hooks(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    # the venv's command alone: not this tree (PYTHONPATH unset, cwd elsewhere), not this interpreter's packages
    env = clean_env(PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin")
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(venv / "bin" / "memory-hooks"), *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_wheel_installs_into_a_repository_like_install_sh(wheel_venv, tmp_path):
    version = _memory_hooks(wheel_venv, "--version", cwd=tmp_path)
    assert version.stdout == f"memory-hooks {__version__}\n"
    by_wheel, by_script = make_repo(tmp_path / "by-wheel"), make_repo(tmp_path / "by-script")
    proc = _memory_hooks(wheel_venv, "install", ".", "--no-venv", "--no-self-check", cwd=by_wheel)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    script = subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(by_script)],
                            capture_output=True, text=True, env=clean_env())
    assert script.returncode == 0, script.stderr
    wheel_tree, script_tree = _tree(by_wheel), _tree(by_script)
    manifest = os.path.join(registration.INSTALL_DIR, "install.json")
    # the same files, bytes and modes; only install.json may differ (a clone names its origin as the source)
    assert {k: v for k, v in wheel_tree.items() if k != manifest} == \
           {k: v for k, v in script_tree.items() if k != manifest}
    assert json.loads(wheel_tree[manifest][0])["files"] == json.loads(script_tree[manifest][0])["files"]
    assert not any("/install/" in name for name in wheel_tree)  # the installer stays in the package


def test_installed_hooks_run_on_the_standard_library_alone(wheel_venv, tmp_path):
    repo = make_repo(tmp_path / "project")
    proc = _memory_hooks(wheel_venv, "install", str(repo), "--no-venv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "answered" in proc.stdout  # install's self-check ran the installed hooks
    # the registered command, as Claude Code runs it, with the wheel's virtualenv nowhere on PATH
    hook = os.path.join(repo, registration.INSTALL_DIR, "hooks", "memory_capture.py")
    payload = bash_payload('bd comment BD-7 "LEARNED: the wheel installs hooks that need nothing"', repo)
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo), MEMORY_HOOKS_FOREGROUND="1", PATH="/usr/bin:/bin")
    env.pop("PYTHONPATH", None)
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    # -I -S: no site-packages, no user site, no PYTHONPATH: the standard library and the installed copy only
    run = subprocess.run([python, "-I", "-S", hook], input=json.dumps(payload), text=True, capture_output=True,
                         cwd=repo, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    assert_protocol(run.stdout)
    assert [e["content"] for e in knowledge(repo)] == ["the wheel installs hooks that need nothing"]
    found = _memory_hooks(wheel_venv, "recall", "nothing", cwd=repo)
    assert found.returncode == 0 and "the wheel installs hooks" in found.stdout
    doctor = _memory_hooks(wheel_venv, "doctor", cwd=repo)
    assert doctor.returncode in (0, 1), doctor.stdout + doctor.stderr  # warnings allowed: no venv was made
    gone = _memory_hooks(wheel_venv, "uninstall", str(repo), cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert not (repo / registration.INSTALL_DIR).exists()
    assert knowledge(repo)  # the knowledge stays
