"""The installed copy's bytecode (memory.install.bytecode): current for every module, so no hook compiles."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT, clean_env, make_repo
from memory.install import bytecode

INSTALLED = os.path.join(".claude", "hooks", "memory-hooks")


def _pyc_matches(path: str) -> bool:
    cached = importlib.util.cache_from_source(path)
    if not os.path.exists(cached):
        return False
    with open(cached, "rb") as fh:
        header = fh.read(16)
    st = os.stat(path)
    return (header[:4] == importlib.util.MAGIC_NUMBER
            and int.from_bytes(header[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == st.st_size & 0xFFFFFFFF)


def _fresh_clone(dest):
    """What install.sh runs from in a fresh clone of memory-hooks: its files, no bytecode of its own."""
    ignore = shutil.ignore_patterns("__pycache__")
    for name in ("install.sh", "requirements.txt"):
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    for folder in ("hooks", "memory", "bin"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    return dest


@pytest.mark.parametrize("bundle", ["this checkout", "a fresh clone"])
def test_every_installed_module_has_current_bytecode_and_a_hook_compiles_nothing(tmp_path, bundle):
    """From a checkout whose bytecode is current (tests/run.sh compiles it first) install.sh copies it; from
    a fresh clone, which has none, it compiles every module."""
    source = ROOT if bundle == "this checkout" else _fresh_clone(tmp_path / "memory-hooks")
    repo = make_repo(tmp_path / "app")
    subprocess.run([str(source / "install.sh"), "--no-venv", "--no-self-check", str(repo)], check=True,
                   capture_output=True, env=clean_env())
    modules = [os.path.join(folder, name) for folder, _, names in os.walk(repo / INSTALLED)
               for name in names if name.endswith(".py")]
    assert len(modules) > 50 and all(_pyc_matches(m) for m in modules), [m for m in modules if not _pyc_matches(m)]
    payload = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo)}
    hook = subprocess.run([sys.executable, "-v", str(repo / INSTALLED / "hooks" / "session_start.py")],
                          input=json.dumps(payload), capture_output=True, text=True, cwd=repo,
                          env=clean_env(CLAUDE_PROJECT_DIR=str(repo), PYTHONDONTWRITEBYTECODE="1"))
    assert hook.returncode == 0 and "## " in hook.stdout
    ours = str(repo / INSTALLED)
    loaded = [line for line in hook.stderr.splitlines() if line.startswith("# code object from") and ours in line]
    assert loaded and all(".pyc" in line for line in loaded), [x for x in loaded if ".pyc" not in x]


def test_a_stale_source_pyc_is_not_copied_but_compiled(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("X = 1\n")
    import py_compile

    py_compile.compile(str(source), doraise=True)
    assert bytecode._current_pyc(str(source), source.read_bytes()) is not None
    source.write_text("X = 22\n")  # changed after it was compiled: its .pyc no longer matches
    assert bytecode._current_pyc(str(source), source.read_bytes()) is None
