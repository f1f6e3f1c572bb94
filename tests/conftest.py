"""Shared test helpers: real git repos, hook files run as the runtime runs them, real payload fixtures."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(ROOT))


def git(cwd, *args: str) -> str:
    """Run git quietly with a fixed identity; returns stdout."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "commit", "-q", "--allow-empty", "-m", "init")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository with one commit."""
    return make_repo(tmp_path / "project")


def fixture_payload(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def bash_payload(command: str, cwd: Path, **extra) -> dict:
    """A PostToolUse(Bash) payload shaped like the recorded Claude Code 2.1.330 ones."""
    payload = fixture_payload("claude-code/2.1.330/PostToolUse-8.json")
    payload["cwd"] = str(cwd)
    payload["tool_input"] = {"command": command, "description": "test"}
    payload["tool_use_id"] = "toolu_" + str(abs(hash((command, str(cwd)))))
    payload.update(extra)
    return payload


def run_hook(name: str, stdin, cwd: Path, env: Optional[dict] = None, args=(), python: str = sys.executable,
             timeout: float = 60, python_args=()) -> subprocess.CompletedProcess:
    """Run hooks/<name>.py exactly as a runtime does: JSON on stdin, CLAUDE_PROJECT_DIR, cwd = project."""
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CURSOR", "MEMORY_HOOKS"))}
    full_env["CLAUDE_PROJECT_DIR"] = str(cwd)
    full_env["MEMORY_HOOKS_FOREGROUND"] = "1"  # detached hooks finish before we look (set "" to detach)
    full_env.update(env or {})
    return subprocess.run([python, *python_args, str(ROOT / "hooks" / f"{name}.py"), *args], input=data, cwd=cwd,
                          env=full_env, capture_output=True, timeout=timeout)


def knowledge(repo_path: Path, name: str = "knowledge.jsonl") -> list:
    path = repo_path / ".beads" / "memory" / name
    if not path.exists():
        return []
    # split on "\n" only: str.splitlines() would also split inside content at U+2028 and friends
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def error_log(repo_path: Path) -> str:
    path = repo_path / ".beads" / "memory" / "errors.log"
    return path.read_text() if path.exists() else ""
