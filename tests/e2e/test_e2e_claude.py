"""End to end with the real Claude Code CLI (../shared/tools/claude-real) against a scripted model.

Session 1: the model runs `bd comment … "LEARNED: …"` through the real Bash tool; our installed
PostToolUse hook must write it to knowledge.jsonl. Session 2: the request Claude Code sends to the
model must carry our Recent Knowledge block.
"""
import json
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, knowledge
from helpers import CLAUDE, HARNESS
from helpers import claude_run as run
from helpers import claude_scenario as scenario
from memory.store import entry, store

INSIGHT = "TaskGroup requires @Sendable closures in strict concurrency mode."

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (HARNESS / "run-scenario.sh").exists() or not CLAUDE.exists(),
    reason=f"real Claude Code CLI not installed (run {HARNESS}/install-claude.sh; .ci/run does)")]


def test_capture_then_surface_with_the_real_client(tmp_path):
    project = tmp_path / "app"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"],
                   cwd=project, check=True)
    install = subprocess.run([str(ROOT / "install.sh"), str(project)], capture_output=True, text=True)
    assert install.returncode == 0, install.stdout + install.stderr
    venv = project / ".claude" / "hooks" / "memory-hooks" / ".venv"
    # nothing imported at every start beyond the hooks' own (setuptools' distutils hack: ~0.4 ms a hook call)
    assert not list(venv.glob("lib/*/site-packages/distutils-precedence.pth"))
    assert subprocess.run([str(venv / "bin" / "python"), "-c", "import orjson, filelock"]).returncode == 0
    (project / ".fake-bd").mkdir()  # bd comments only on a bead that exists (comment.go)
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-001": {"status": "open"}}))
    (project / ".fake-bd" / "config.json").write_text(json.dumps({"status.custom": "inreview"}))  # declared

    first = scenario(tmp_path / "capture.json", "e2e-capture", "E2E-CAPTURE: record what you learned.", [
        {"content": [{"type": "text", "text": "Recording the lesson."},
                     {"type": "tool_use", "name": "Bash", "input": {
                         "command": f'bd comment BD-001 "LEARNED: {INSIGHT}" && bd update BD-001 --status inreview',
                         "description": "Record the lesson"}}]},
        {"content": [{"type": "text", "text": "Recorded."}]},
    ])
    run(first, project)
    entries = knowledge(project)
    assert [(e["bead"], e["content"], e["source"]) for e in entries] == [("BD-001", INSIGHT, "orchestrator")]
    assert entries[0]["session_id"] and entries[0]["tags"][0] == "learned"
    calls = [json.loads(line)["argv"] for line in (project / ".fake-bd" / "calls.jsonl").read_text().splitlines()]
    assert calls[0][:2] == ["comment", "BD-001"]  # the real Bash tool ran our fake bd

    second = scenario(tmp_path / "recall.json", "e2e-recall", "E2E-RECALL: what do we know?", [
        {"content": [{"type": "text", "text": "Here is what we know."}]},
    ])
    requests = run(second, project)
    assert "## Recent Knowledge (1 entry)" in requests
    assert f"[LEARN] {INSIGHT}" in requests
    assert not (project / ".beads" / "memory" / "errors.log").exists()


def test_completion_gate_and_dispatch_log_with_the_real_client(tmp_path):
    """A supervisor subagent claims BD-12 with an unpushed branch: our SubagentStop hook sends it back
    (the real client delivers the reason as Stop hook feedback) twice, then lets it finish; the dispatch
    with its BEAD_ID marker is logged and commented on the bead."""
    project = tmp_path / "app"
    project.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "i"], cwd=project, check=True)
    subprocess.run(["git", "worktree", "add", "-q", ".worktrees/bd-BD-12", "-b", "bd-BD-12"], cwd=project, check=True)
    (project / ".fake-bd").mkdir()
    (project / ".fake-bd" / "issues.json").write_text(json.dumps({"BD-12": {"status": "inreview"}}))
    assert subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(project)]).returncode == 0
    report = "Work done.\n\nBEAD BD-12 COMPLETE\nWorktree: .worktrees/bd-BD-12\nBranch: bd-BD-12"
    path = tmp_path / "gate.json"
    path.write_text(json.dumps({
        "name": "e2e-gate", "prompt": "E2E-GATE: dispatch the supervisor.",
        "files": {".claude/agents/swift-supervisor.md":
                  "---\nname: swift-supervisor\ndescription: Supervises one bead in its worktree\n---\n"
                  "You supervise a bead.\n"},
        "agents": [
            {"name": "sub", "match": {"first_user_contains": "BEAD_ID: BD-12"},
             "turns": [{"content": [{"type": "text", "text": report}]}] * 4},
            {"name": "main", "match": {"first_user_contains": "E2E-GATE"}, "turns": [
                {"content": [{"type": "tool_use", "name": "Agent", "input": {
                    "description": "Supervise BD-12", "subagent_type": "swift-supervisor", "run_in_background": False,
                    "prompt": "BEAD_ID: BD-12\n\nImplement the feature in .worktrees/bd-BD-12."}}]},
                {"content": [{"type": "text", "text": "Supervisor finished."}]}]},
        ],
        "fallback": {"content": [{"type": "text", "text": "OK"}]},
    }))
    requests = run(path, project)
    assert "Completion check for BEAD BD-12 failed" in requests
    assert "- pushed: branch bd-BD-12 has no upstream" in requests and "push -u origin bd-BD-12" in requests
    state = json.loads((project / ".beads" / "memory" / "completion-state.json").read_text())
    assert [v["blocks"] for v in state.values()] == [3]  # blocked twice, then let through with a warning
    [dispatch] = knowledge(project, "dispatch.jsonl")
    assert dispatch["bead"] == "BD-12" and dispatch["subagent_type"] == "swift-supervisor"
    calls = [json.loads(line)["argv"] for line in (project / ".fake-bd" / "calls.jsonl").read_text().splitlines()]
    assert any(c[:2] == ["comment", "BD-12"] and c[2].startswith("DISPATCH_PROMPT [swift-supervisor]") for c in calls)


def test_prompt_brings_an_old_entry_with_the_real_client(tmp_path):
    """121 entries; the prompt needs one written long before the newest 5: session start shows it as a title
    on the map, and the request after the prompt carries it in full (UserPromptSubmit context)."""
    project = tmp_path / "app"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"],
                   cwd=project, check=True)
    assert subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(project)]).returncode == 0
    old = "Database migrations must be reversible: every alembic upgrade needs a working downgrade."
    memory = str(project / ".beads" / "memory")
    store.append(memory, [entry.build(old, "BD-3", "orchestrator", ts=1_600_000_000)])
    store.append(memory, [entry.build(f"Note {i}: the release notes rule number {i} applies here.", f"BD-{100 + i}",
                                      "orchestrator", ts=1_700_000_000 + i) for i in range(120)])
    path = scenario(tmp_path / "prompt.json", "e2e-prompt", "add an alembic migration for refunds",
                    [{"content": [{"type": "text", "text": "On it."}]}])
    requests = run(path, project)
    assert "## Recent Knowledge (121 entries)" in requests and "Map of the other 116 entries" in requests
    assert "- Database migrations must be reversible: every alembic" in requests  # its title, on the map
    relevant = requests[requests.index("## Relevant Knowledge"):]
    assert "every alembic upgrade needs a working downgrade." in relevant  # in full, at the prompt
    assert not (project / ".beads" / "memory" / "errors.log").exists()


def _project(tmp_path: Path, name: str) -> Path:
    project = tmp_path / name
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"],
                   cwd=project, check=True)
    assert subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(project)],
                          capture_output=True).returncode == 0
    return project


def test_handoff_across_compaction_and_sessions_with_the_real_client(tmp_path):
    """Session 1 writes a file and runs a failing command, then /compact: the first request after the
    compaction carries the failing command and the file (SessionStart compact). A new session in the same
    repo gets the Last Session block; a second repository does not."""
    project = _project(tmp_path, "app")
    failing = "python3 -c \"import sys; sys.exit('REFUND-ROUNDING-FAILURE 3 != 4')\""
    path = tmp_path / "handoff.json"
    path.write_text(json.dumps({
        "name": "e2e-handoff",
        "stdin_messages": ["E2E-HANDOFF: fix the refund rounding, then I will compact.", "/compact",
                           "continue where you were"],
        "agents": [{"name": "main", "match": {"first_user_contains": "E2E-HANDOFF"}, "turns": [
            {"content": [{"type": "tool_use", "name": "Write", "input": {
                "file_path": "$PROJECT/refunds_rounding.py", "content": "ROUNDING = 'half-even'\n"}}]},
            {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": failing,
                                                                        "description": "Run the check"}}]},
            {"content": [{"type": "text", "text": "The check fails; next I fix the rounding."}]},
            {"content": [{"type": "text",
                          "text": "<analysis>x</analysis>\n<summary>We worked on something.</summary>"}]},
        ]}],
        "fallback": {"content": [{"type": "text", "text": "OK"}]},
    }))
    requests = run(path, project).splitlines()
    summary_at = next(i for i, r in enumerate(requests) if "create a detailed summary" in r)
    after = requests[summary_at + 1:]
    assert after and "## Last Session" in after[0]
    assert "REFUND-ROUNDING-FAILURE" in after[0] and "refunds_rounding.py" in after[0]
    next_session = scenario(tmp_path / "next.json", "e2e-next", "E2E-NEXT: carry on.",
                            [{"content": [{"type": "text", "text": "Carrying on."}]}])
    second = run(next_session, project)
    assert "## Last Session" in second and "E2E-HANDOFF: fix the refund rounding" in second
    other = _project(tmp_path, "other")
    assert "## Last Session" not in run(next_session, other)
    assert not (project / ".beads" / "memory" / "errors.log").exists()


def test_supervisor_redispatched_on_a_bead_gets_its_handoff_with_the_real_client(tmp_path):
    """A supervisor stops BLOCKED on BD-12 (its handoff is keyed by the bead at SubagentStop); dispatched again,
    the subagent's own first request carries that handoff (SubagentStart)."""
    project = _project(tmp_path, "app")
    agent = {".claude/agents/swift-supervisor.md": "---\nname: swift-supervisor\ndescription: Supervises one bead"
                                                   "\n---\nYou supervise a bead.\n"}

    def dispatch(name: str, sub_turns: list) -> str:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({
            "name": name, "prompt": f"{name.upper()}: dispatch the supervisor.", "files": agent,
            "agents": [
                {"name": "sub", "match": {"first_user_contains": "BEAD_ID: BD-12"}, "turns": sub_turns},
                {"name": "main", "match": {"first_user_contains": name.upper()}, "turns": [
                    {"content": [{"type": "tool_use", "name": "Agent", "input": {
                        "description": "Supervise BD-12", "subagent_type": "swift-supervisor",
                        "run_in_background": False, "prompt": "BEAD_ID: BD-12\n\nImplement refunds."}}]},
                    {"content": [{"type": "text", "text": "Supervisor finished."}]}]}],
            "fallback": {"content": [{"type": "text", "text": "OK"}]},
        }))
        return run(path, project)

    dispatch("e2e-first", [{"content": [{"type": "text", "text":
                                         "Stopped.\n\nBEAD BD-12 BLOCKED: the PAYMENTS-KEY-MISSING blocker"}]}])
    handoffs = knowledge(project, "handoffs.jsonl")
    assert [(h["event"], h["bead"]) for h in handoffs] == [("SubagentStop", "BD-12"), ("SessionEnd", None)]
    requests = dispatch("e2e-again", [{"content": [{"type": "text", "text": "Carrying on."}]}]).splitlines()
    sub_requests = [r for r in requests if "SubagentStart hook additional context: ## Last Session" in r]
    assert sub_requests and all("PAYMENTS-KEY-MISSING" in r and "bead BD-12" in r for r in sub_requests)
