"""pytest fixtures; the helpers themselves live in tests/helpers.py (re-exported for older imports)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# `python3` in what the tests start (install.sh, recall.sh, hooks registered without a venv) is the interpreter
# under test: `PYTHON=python3.9 tests/run.sh` then tests 3.9 throughout, and no version-manager shim (a shell
# script, ~70 ms a start) runs in front of every process.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
# Each test installs a fresh copy of the code: with PYTHONDONTWRITEBYTECODE (set in some shells and images)
# every hook process the tests start would compile every module it imports, about 3x the process's cost.
# The tests are about what the hooks do, so the processes they start cache their bytecode as users' do.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from helpers import (  # noqa: E402,F401
    FIXTURES,
    ROOT,
    assert_protocol,
    bash_payload,
    bd_env,
    clean_env,
    error_log,
    fixture_payload,
    git,
    knowledge,
    make_repo,
    run_hook,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository with one commit."""
    return make_repo(tmp_path / "project")


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    """An empty memory folder (.beads/memory) in a plain folder, for the store-level tests."""
    d = tmp_path / ".beads" / "memory"
    d.mkdir(parents=True)
    return d
