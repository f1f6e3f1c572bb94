"""memory-hooks beside `bd prime` (issue 21.4): a memory of `bd remember` reaches the session once.

Real hooks as subprocesses, the fake bd's `bd prime` (modelled on cmd/bd/prime.go) for what bd prints, and
the runtimes' real settings files registering bd's SessionStart hook as `bd setup …` writes it.
"""
import json
import os
import subprocess

import pytest

from conftest import bash_payload, bd_env, knowledge, run_hook
from helpers import copy_tree, make_repo
from memory.surface import bdprime

MEMORY = "the staging deploy needs the VPN up before kubectl can reach the cluster"
OTHER = "alembic migrations must be generated against a fresh database"
PROMPT = "why can kubectl not reach the cluster on the staging deploy"


def bd_hook(command="bd prime --hook-json"):
    return {"hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]}}


def _env(base):
    """The fake bd's state in base/bd, HOME in base/home."""
    home = base / "home"
    return {**bd_env(base / "bd"), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


@pytest.fixture(scope="module")
def remembered(tmp_path_factory):
    """base/project, whose agent ran `bd remember` (bd stored it, the hook captured it) and one bd comment;
    base/bd holds bd's state, base/home is HOME. Made once for this module."""
    base = tmp_path_factory.mktemp("bdprime")
    repo = make_repo(base / "project")
    (base / "home").mkdir()
    (base / "bd").mkdir()
    (base / "bd" / "issues.json").write_text(json.dumps({"BD-1": {"status": "open"}}))
    env = _env(base)
    for command in [f'bd remember "{MEMORY}" --key staging-vpn', f'bd comment BD-1 "LEARNED: {OTHER}"']:
        subprocess.run(["bash", "-c", command], cwd=repo, env={**os.environ, **env}, check=True, capture_output=True)
        assert run_hook("memory_capture", bash_payload(command, repo), repo, env=env).returncode == 0
    assert [e.get("bd_key") for e in knowledge(repo)] == ["staging-vpn", None]
    return base


@pytest.fixture
def setup(repo, tmp_path, remembered):
    """A copy of the `remembered` project (and bd's state, HOME) at tmp_path, for the test to change."""
    copy_tree(remembered, tmp_path)
    return repo, _env(tmp_path), tmp_path / "home"


def start(repo, env, args=(), session="s-1", source="startup") -> str:
    proc = run_hook("session_start", {"hook_event_name": "SessionStart", "session_id": session, "source": source,
                                      "cwd": str(repo)}, repo, env=env, args=args)
    assert proc.returncode == 0
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else ""


def prompt(repo, env, session="s-1") -> str:
    proc = run_hook("prompt_recall", {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": str(repo),
                                      "prompt": PROMPT}, repo, env=env)
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else ""


def bd_prime(repo, env) -> str:
    proc = subprocess.run(["bd", "prime"], cwd=repo, env={**os.environ, **env}, capture_output=True, text=True)
    return proc.stdout


def write(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def test_with_bd_prime_registered_each_memory_reaches_the_session_once(setup):
    repo, env, _ = setup
    write(repo / ".claude" / "settings.json", bd_hook())
    ours, bds = start(repo, env), bd_prime(repo, env)
    assert MEMORY in bds and OTHER in ours  # bd prints its memory; we print the rest
    assert (ours + bds).count(MEMORY[:40]) == 1
    assert MEMORY[:40] not in prompt(repo, env)  # counted as given: prompt-time recall does not repeat it


def test_without_bd_prime_the_digest_shows_bd_memories(setup):
    repo, env, _ = setup
    assert MEMORY[:40] in start(repo, env)
    assert MEMORY[:40] in prompt(repo, env, session="s-2")  # a new session, nothing given yet: found at prompt time


@pytest.mark.parametrize("place, settings, args", [
    (".claude/settings.local.json", bd_hook("bd prime --stealth --hook-json"), []),
    ("HOME/.claude/settings.json", bd_hook("bd prime"), []),
    (".claude/settings.json", {"enabledPlugins": {"beads@beads-marketplace": True}}, []),
    (".gemini/settings.json", bd_hook(), ["--gemini"]),
    ("HOME/.codex/hooks.json", bd_hook("bd codex-hook SessionStart"), ["--codex"]),
])
def test_every_way_bd_registers_its_session_start_hook(setup, place, settings, args):
    repo, env, home = setup
    write((home / place[5:]) if place.startswith("HOME/") else repo / place, settings)
    shown = start(repo, env, args=args)
    assert OTHER[:40] in shown and MEMORY[:40] not in shown


@pytest.mark.parametrize("case", ["prime.md", "other runtime", "export only", "config off", "bd gone", "bd forgot",
                                  "bd text differs"])
def test_the_digest_keeps_the_memory_wherever_bd_prime_would_not_print_it(setup, case):
    repo, env, home = setup
    write(repo / ".claude" / "settings.json", bd_hook("bd prime --export" if case == "export only" else "bd prime"))
    args = []
    if case == "prime.md":
        (repo / ".beads" / "PRIME.md").write_text("# our own workflow\n")  # prime.go prints this instead
    elif case == "other runtime":
        args = ["--gemini"]  # Gemini's settings don't run bd prime
    elif case == "config off":
        (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"leave_bd_memories_to_bd_prime": False}))
    elif case == "bd gone":
        env = dict(env, PATH="/usr/bin:/bin")
    elif case == "bd forgot":
        subprocess.run(["bd", "forget", "staging-vpn"], cwd=repo, env={**os.environ, **env}, check=True)
    elif case == "bd text differs":  # a teammate's memory merged through git, not in this bd's database
        memories = home.parent / "bd" / "memories.json"
        memories.write_text(json.dumps({"staging-vpn": "something else"}))
    assert MEMORY[:40] in start(repo, env, args=args)


def test_runs_prime_reads_the_command_as_a_shell_would():
    assert bdprime._runs_prime("bd prime --hook-json")
    assert bdprime._runs_prime("/usr/local/bin/bd prime")
    assert bdprime._runs_prime("cd /x && bd --quiet prime --memories-only")
    assert bdprime._runs_prime("bd codex-hook SessionStart")
    assert not bdprime._runs_prime("bd prime --export")
    assert not bdprime._runs_prime("echo bd prime")
    assert not bdprime._runs_prime("bd codex-hook PreCompact")


def test_a_memory_held_only_by_bd_prime_is_not_called_empty(repo, tmp_path):
    state, home = tmp_path / "bd", tmp_path / "home"
    home.mkdir()
    env = {**bd_env(state), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    command = f'bd remember "{MEMORY}" --key staging-vpn'
    subprocess.run(["bash", "-c", command], cwd=repo, env={**os.environ, **env}, check=True, capture_output=True)
    run_hook("memory_capture", bash_payload(command, repo), repo, env=env)
    write(repo / ".claude" / "settings.json", bd_hook())
    start(repo, env)  # the first session after install: the welcome
    again = start(repo, env, session="s-2")
    assert MEMORY[:40] not in again and "empty so far" not in again
