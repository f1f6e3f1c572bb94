"""The Claude Code plugin marketplace (.claude-plugin/marketplace.json), with the real Claude Code CLI: a
local-path marketplace added, the plugin installed from it, then sessions (against the scripted model of
../shared/tools/claude-real) in which the plugin's hooks capture an insight and surface it."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers import CLAUDE, HARNESS, INSTALL, ROOT, knowledge, make_repo, source_copy
from helpers import claude_run as run
from helpers import claude_scenario as scenario
from memory import __version__

INSIGHT = "The payments client retries three times with jittered backoff."
requires_claude = pytest.mark.skipif(
    not (HARNESS / "run-scenario.sh").exists() or not CLAUDE.exists(),
    reason=f"real Claude Code CLI not installed (run {HARNESS}/install-claude.sh; .ci/run does)")


def test_marketplace_manifest_lists_this_repository_as_the_plugin():
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert market["name"] == "memory-hooks" and market["owner"]["name"]
    [entry] = market["plugins"]
    assert entry["name"] == plugin["name"] == "memory-hooks"
    assert entry["source"] == "./"  # the repository root is the plugin (hooks/hooks.json, memory/)
    assert (ROOT / entry["source"] / "hooks" / "hooks.json").is_file()
    assert plugin["version"] == __version__


def claude(config: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CLAUDE_CONFIG_DIR": str(config), "LANG": "C.UTF-8",
           "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1"}
    return subprocess.run([str(CLAUDE), *args], capture_output=True, text=True, env=env, timeout=180)


def session(tmp_path: Path, project: Path, config: Path, name: str, prompt: str, turns: list) -> str:
    """One headless session of the real CLI with the plugin's config folder (test_e2e_claude's harness)."""
    path = scenario(tmp_path / f"{name}.json", name, prompt, turns)
    path.write_text(json.dumps(dict(json.loads(path.read_text()), env={"CLAUDE_CONFIG_DIR": str(config)})))
    return run(path, project)


@pytest.mark.slow
@requires_claude
def test_marketplace_add_install_then_the_plugin_captures_and_surfaces(tmp_path):
    clone, config, home = source_copy(tmp_path / "memory-hooks"), tmp_path / "config", tmp_path / "home"
    added = claude(config, home, "plugin", "marketplace", "add", str(clone))
    assert added.returncode == 0 and "memory-hooks" in added.stdout, added.stdout + added.stderr
    installed = claude(config, home, "plugin", "install", "memory-hooks@memory-hooks")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = claude(config, home, "plugin", "list")
    assert "memory-hooks@memory-hooks" in listed.stdout and "enabled" in listed.stdout, listed.stdout
    assert f"Version: {__version__}" in listed.stdout
    settings = json.loads((config / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"memory-hooks@memory-hooks": True}

    project = make_repo(tmp_path / "app")  # no install.sh here: the plugin alone
    (project / ".fake-bd").mkdir()
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-9": {"status": "open"}}))
    session(tmp_path, project, config, "plugin-capture", "PLUGIN-CAPTURE: record what you learned.", [
        {"content": [{"type": "tool_use", "name": "Bash", "input": {
            "command": f'bd comment BD-9 "LEARNED: {INSIGHT}"', "description": "Record the lesson"}}]},
        {"content": [{"type": "text", "text": "Recorded."}]},
    ])
    assert [(e["bead"], e["content"]) for e in knowledge(project)] == [("BD-9", INSIGHT)]
    requests = session(tmp_path, project, config, "plugin-recall", "PLUGIN-RECALL: what do we know?", [
        {"content": [{"type": "text", "text": "Here is what we know."}]},
    ])
    assert "## Recent Knowledge (1 entry)" in requests and INSIGHT in requests
    assert not (project / ".claude" / "hooks").exists()  # nothing was copied into the project
    assert not (project / ".beads" / "memory" / "errors.log").exists()

    # install.sh as well: both copies registered, one answers (the plugin's session start stays quiet)
    proc = subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(project)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    requests = session(tmp_path, project, config, "both-recall", "BOTH-RECALL: what do we know?", [
        {"content": [{"type": "text", "text": "Here is what we know."}]},
    ])
    first = next(json.dumps(r) for r in map(json.loads, requests.splitlines()) if "BOTH-RECALL" in json.dumps(r))
    assert first.count("## Recent Knowledge (1 entry)") == 1
