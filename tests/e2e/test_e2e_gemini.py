"""End to end with the real Gemini CLI (tests/e2e/install-clis.sh) against a scripted fake of its model API.

Session 1: the model runs `bd comment … "LEARNED: …"` through Gemini's run_shell_command; our AfterTool hook
(registered by install.sh in .gemini/settings.json) writes it to knowledge.jsonl. Session 2: the request
Gemini sends to the model carries our Recent Knowledge block (SessionStart additionalContext).
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, knowledge
from helpers import fake_model_api, installed_project
from memory.runtimes import ours

HOME = Path(os.environ.get("GEMINI_REAL_HOME", Path.home() / ".cache" / "gemini-real"))
GEMINI = HOME / "node_modules" / ".bin" / "gemini"
INSIGHT = "Gemini sessions share the same knowledge file as Claude Code."

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not GEMINI.exists(), reason="real Gemini CLI not installed (run tests/e2e/install-clis.sh; .ci/run does)")]


def run(tmp_path: Path, project: Path, name: str, prompt: str, turns: list) -> list:
    """One headless Gemini session against the fake; the requests the fake received."""
    out = tmp_path / name
    with fake_model_api("fake_gemini.py", turns, out) as port:
        home = out / "home"
        (home / ".gemini").mkdir(parents=True)
        (home / ".gemini" / "settings.json").write_text(json.dumps(
            {"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}}))
        env = dict(os.environ, HOME=str(home), GEMINI_API_KEY="fake", GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{port}",
                   PATH=f"{ROOT / 'tests' / 'fake_bd'}{os.pathsep}{os.environ['PATH']}")
        proc = subprocess.run([str(GEMINI), "-p", prompt, "--yolo"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=180)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [json.loads(line) for line in (out / "requests.jsonl").read_text().splitlines()]


def test_capture_then_surface_with_the_real_gemini_cli(tmp_path):
    project = installed_project(tmp_path / "app")
    (project / ".fake-bd").mkdir()  # bd comments only on a bead that exists (comment.go)
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-1": {"status": "open"}}))
    assert ours.registered_events(json.loads((project / ".gemini" / "settings.json").read_text()))
    command = f'bd comment BD-1 "LEARNED: {INSIGHT}"'
    run(tmp_path, project, "capture", "record what you learned",
        [[{"functionCall": {"name": "run_shell_command", "args": {"command": command}}}], [{"text": "Recorded."}]])
    entries = knowledge(project)
    assert [(e["bead"], e["content"]) for e in entries] == [("BD-1", INSIGHT)]
    assert entries[0]["session_id"]
    requests = run(tmp_path, project, "surface", "what do we know?", [[{"text": "Here is what we know."}]])
    agent_calls = [r["body"] for r in requests if "streamGenerateContent" in r["path"]]
    assert agent_calls and "## Recent Knowledge (1 entry)" in agent_calls[0] and INSIGHT in agent_calls[0]
    assert not (project / ".beads" / "memory" / "errors.log").exists()


def test_prompt_context_and_reply_capture_with_the_real_gemini_cli(tmp_path):
    """BeforeAgent brings an old entry the prompt needs; AfterAgent captures a marked line of the reply."""
    from memory.store import entry, store

    project = installed_project(tmp_path / "app")
    old = "Database migrations must be reversible: every alembic upgrade needs a working downgrade."
    memory = str(project / ".beads" / "memory")
    store.append(memory, [entry.build(old, "BD-3", "orchestrator", ts=1_600_000_000)])
    store.append(memory, [entry.build(f"Note {i}: the release notes rule number {i} applies here.", f"BD-{100 + i}",
                                      "orchestrator", ts=1_700_000_000 + i) for i in range(120)])
    requests = run(tmp_path, project, "prompt", "add an alembic migration for refunds",
                   [[{"text": "Done.\nDECISION: refund migrations ship with their downgrade in the same PR"}]])
    agent_calls = [r["body"] for r in requests if "streamGenerateContent" in r["path"]]
    assert "## Relevant Knowledge" in agent_calls[0] and "every alembic upgrade needs a working downgrade" in \
        agent_calls[0]
    decisions = [e for e in store.latest(knowledge(project)) if e["type"] == "decision"]
    assert [e["content"] for e in decisions] == ["refund migrations ship with their downgrade in the same PR"]
    ended = knowledge(project, "handoffs.jsonl")
    assert [h["event"] for h in ended] == ["SessionEnd"]  # no PreCompress one: no compression was near
    assert ended[-1]["task"]["latest"] == "add an alembic migration for refunds"  # from Gemini's chat log
    assert ended[-1]["last_message"].startswith("Done.")
