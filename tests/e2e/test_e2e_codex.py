"""End to end with the real Codex CLI (tests/e2e/install-clis.sh) against a scripted fake of the Responses API.

Session 1: the model runs `bd comment … "LEARNED: …"` through Codex's exec_command tool; our PostToolUse hook
(registered by install.sh in .codex/hooks.json) writes it to knowledge.jsonl, and the model is told. Session 2:
the request Codex sends carries our Recent Knowledge block (SessionStart); a prompt that needs an old entry gets
it (UserPromptSubmit); a marked line of the final message is captured (Stop).
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, knowledge
from helpers import fake_model_api, installed_project
from memory.runtimes import ours
from memory.store import entry, store

HOME = Path(os.environ.get("CODEX_REAL_HOME", Path.home() / ".cache" / "codex-real"))
CODEX = HOME / "node_modules" / ".bin" / "codex"
INSIGHT = "Codex sessions share the same knowledge file as Claude Code."

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not CODEX.exists(), reason="real Codex CLI not installed (run tests/e2e/install-clis.sh; .ci/run does)")]


def say(text: str) -> dict:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def run(tmp_path: Path, project: Path, name: str, prompt: str, items: list, reviewed: str = "") -> list:
    """One `codex exec` session against the fake; the request bodies the fake received. `reviewed`: the
    config.toml lines a review in Codex's /hooks writes (without them the hooks run unreviewed)."""
    out = tmp_path / name
    with fake_model_api("fake_openai.py", items, out) as port:
        (out / "home").mkdir()
        (out / "home" / "config.toml").write_text(
            'model = "gpt-fake"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\n'
            f'env_key = "FAKE_OPENAI_KEY"\n[projects."{project}"]\ntrust_level = "trusted"\n{reviewed}')
        env = dict(os.environ, CODEX_HOME=str(out / "home"), FAKE_OPENAI_KEY="fake",
                   PATH=f"{ROOT / 'tests' / 'fake_bd'}{os.pathsep}{os.environ['PATH']}")
        # the hooks are the project's (.codex/hooks.json); a person reviews them once (/hooks), a test can't
        trust = [] if reviewed else ["--dangerously-bypass-hook-trust"]
        proc = subprocess.run([str(CODEX), "exec", "--dangerously-bypass-approvals-and-sandbox", *trust,
                               "--skip-git-repo-check", prompt],
                              cwd=project, env=env, capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [r["body"] for r in map(json.loads, (out / "requests.jsonl").read_text().splitlines())
            if r["method"] == "POST"]


def test_capture_surface_prompt_and_reply_with_the_real_codex_cli(tmp_path):
    project = installed_project(tmp_path / "app")
    (project / ".fake-bd").mkdir()  # bd comments only on a bead that exists (comment.go)
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-1": {"status": "open"}}))
    assert ours.registered_events(json.loads((project / ".codex" / "hooks.json").read_text()))
    call = {"type": "function_call", "call_id": "call_1", "name": "exec_command",
            "arguments": json.dumps({"cmd": f'bd comment BD-1 "LEARNED: {INSIGHT}"', "login": False})}
    requests = run(tmp_path, project, "capture", "record what you learned", [call, say("Recorded.")])
    assert [(e["bead"], e["content"]) for e in knowledge(project)] == [("BD-1", INSIGHT)]
    assert INSIGHT in (project / ".fake-bd" / "issues.json").read_text()  # bd ran (`login: false` keeps PATH)
    assert "memory-hooks: captured 1 insight" in requests[-1]  # the PostToolUse answer reached the model

    memory = str(project / ".beads" / "memory")
    old = "Database migrations must be reversible: every alembic upgrade needs a working downgrade."
    store.append(memory, [entry.build(old, "BD-3", "orchestrator", ts=1_600_000_000)])
    store.append(memory, [entry.build(f"Note {i}: the release notes rule number {i} applies here.", f"BD-{100 + i}",
                                      "orchestrator", ts=1_700_000_000 + i) for i in range(20)])  # newer than `old`
    requests = run(tmp_path, project, "next", "add an alembic migration for refunds",
                   [say("Done.\nWARNING: refund migrations must not lock the payments table")])
    assert "## Recent Knowledge" in requests[0] and INSIGHT in requests[0]
    assert "## Relevant Knowledge" in requests[0] and "every alembic upgrade needs a working downgrade" in requests[0]
    relevant = requests[0][requests[0].index("## Relevant Knowledge"):]
    assert "every alembic upgrade needs a working downgrade" in relevant  # in full from the prompt hook
    assert "Map of the other" in requests[0]  # the session-start digest had it as a title only
    warnings = [e["content"] for e in store.latest(knowledge(project)) if e["type"] == "warning"]
    assert warnings == ["refund migrations must not lock the payments table"]
    handoffs = knowledge(project, "handoffs.jsonl")
    assert [h["event"] for h in handoffs] == ["SessionEnd", "SessionEnd"]
    # read from Codex's own rollout log (memory.runtimes.transcript_formats)
    assert handoffs[-1]["task"]["latest"] == "add an alembic migration for refunds"
    assert handoffs[-1]["last_message"].startswith("Done.")
    assert not (project / ".beads" / "memory" / "errors.log").exists()


def test_completion_gate_with_a_real_codex_subagent(tmp_path):
    """The parent spawns a subagent (Codex's multi_agent_v1 spawn_agent, then wait_agent) for BD-12; the
    subagent reports BD-12 complete on a branch that was never pushed. Our SubagentStop hook (registered by
    install.sh in .codex/hooks.json) sends it back: Codex hands the reason to the subagent as its next input,
    twice, then the gate lets it finish with a warning."""
    project = installed_project(tmp_path / "app")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["worktree", "add", "-q", ".worktrees/bd-BD-12", "-b", "bd-BD-12"], cwd=project, check=True)
    (project / ".fake-bd").mkdir()
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-12": {"status": "inreview"}}))
    report = "Work done.\n\nBEAD BD-12 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: bd-BD-12"
    spawn = {"type": "function_call", "name": "spawn_agent", "namespace": "multi_agent_v1", "call_id": "c1",
             "arguments": json.dumps({"message": "BEAD_ID: BD-12\n\nImplement the feature in .worktrees/bd-BD-12."})}
    wait = {"type": "function_call", "name": "wait_agent", "namespace": "multi_agent_v1", "call_id": "c2",
            "arguments": json.dumps({"targets": ["{agent_id}"], "timeout_ms": 120000})}
    requests = run(tmp_path, project, "gate", "E2E-GATE: dispatch the supervisor.", {"agents": [
        {"match": "BEAD_ID: BD-12", "items": [say(report)] * 4},
        {"match": "E2E-GATE", "items": [spawn, wait, say("Supervisor finished.")]}]})
    sub = [r for r in requests if "BEAD_ID: BD-12" in r and "E2E-GATE" not in r]
    assert len(sub) == 3 and all("Completion check for BEAD BD-12 failed" in r for r in sub[1:])
    assert "- pushed: branch bd-BD-12 has no upstream" in sub[1]
    state = json.loads((project / ".beads" / "memory" / "completion-state.json").read_text())
    assert [v["blocks"] for v in state.values()] == [3]  # blocked twice, then let through with a warning


def test_bd_remember_is_captured_through_the_real_codex_cli(tmp_path):
    """Issue 21.4: bd's own memory command, no marker, through Codex's exec_command tool and our hook."""
    project = installed_project(tmp_path / "app")
    text = "Codex runs bd remember through exec_command too"
    call = {"type": "function_call", "call_id": "call_1", "name": "exec_command",
            "arguments": json.dumps({"cmd": f'bd remember "{text}" --key codex-remember', "login": False})}
    requests = run(tmp_path, project, "remember", "remember this", [call, say("Remembered.")])
    assert json.loads((project / ".fake-bd" / "memories.json").read_text()) == {"codex-remember": text}
    assert [(e["key"], e["bd_key"], e["content"]) for e in knowledge(project)] == [
        ("learned-codex-remember", "codex-remember", text)]
    assert "memory-hooks: captured 1 insight (`learned-codex-remember`)" in requests[-1]


def listed_hooks(project: Path, codex_home: Path) -> list:
    """What `codex app-server` lists for the project's hooks (key, currentHash, trustStatus, ...)."""
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')  # else none listed
    server = subprocess.Popen([str(CODEX), "app-server"], cwd=project, env=dict(os.environ, CODEX_HOME=str(codex_home)),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {
                            "name": "memory-hooks-tests", "version": "1"}}},
                        {"jsonrpc": "2.0", "method": "initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}}):
            server.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        for line in server.stdout:  # type: ignore[union-attr]
            answer = json.loads(line)
            if answer.get("id") == 2:
                return answer["result"]["data"][0]["hooks"]
        return []
    finally:
        server.kill()
        server.wait()


def test_the_doctor_tells_what_codex_reviewed_and_disabled(tmp_path):
    """The doctor reads Codex's review of each hook where Codex keeps it (`[hooks.state."<key>"]` in
    config.toml, as its /hooks writes it): reviewed, the hooks run without --dangerously-bypass-hook-trust and
    the doctor says nothing; one disabled there, Codex skips it and the doctor names it."""
    project = installed_project(tmp_path / "app")
    ours = [h for h in listed_hooks(project, tmp_path / "probe") if "memory-hooks" in h["command"]]
    assert ours and all(h["trustStatus"] == "untrusted" for h in ours)
    state = "".join(f'[hooks.state.{json.dumps(h["key"])}]\ntrusted_hash = {json.dumps(h["currentHash"])}\n'
                    + ("enabled = false\n" if h["eventName"] == "stop" else "") for h in ours)
    requests = run(tmp_path, project, "reviewed", "hello", [say("Done.\nLEARNED: reviewed hooks run")], state)
    assert "## Project Memory" in requests[0]  # SessionStart ran: reviewed
    assert not knowledge(project)  # Stop, disabled in /hooks, did not
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--json"], cwd=project, capture_output=True,
                            text=True, env=dict(os.environ, CODEX_HOME=str(tmp_path / "reviewed" / "home")))
    warned = [c["detail"] for c in json.loads(doctor.stdout)["checks"] if c["level"] != "OK"]
    assert [w for w in warned if w.startswith("Codex CLI")] == ["Codex CLI: Stop disabled in Codex's /hooks: skipped"]
