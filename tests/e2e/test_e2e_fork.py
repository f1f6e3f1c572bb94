"""End to end with the real Claude Code CLI (../shared/tools/claude-real): a fork is not given again what its
parent's conversation holds.

The parent session gets the digest at its start and an old entry in full at its prompt; `claude --resume <parent>
--fork-session` then asks the same: the fork's request carries the parent's conversation, those blocks in it, once.
"""
import json

import pytest

from helpers import CLAUDE, HARNESS, installed_project
from helpers import claude_run as run
from memory.store import entry, store

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (HARNESS / "run-scenario.sh").exists() or not CLAUDE.exists(),
    reason=f"real Claude Code CLI not installed (run {HARNESS}/install-claude.sh; .ci/run does)")]

OLD = "Database migrations must be reversible: every alembic upgrade needs a working downgrade."
IN_FULL = "every alembic upgrade needs a working downgrade."  # the map titles it shorter


def _scenario(path, prompt, extra_args=()):
    path.write_text(json.dumps({
        "name": path.stem, "prompt": prompt, "claude_args": list(extra_args),
        # a fork's first user message is its parent's: one scripted agent answers both, turn by turn
        "agents": [{"name": "main", "match": {"first_user_contains": "alembic"}, "turns": [
            {"content": [{"type": "text", "text": "Parent answer."}]},
            {"content": [{"type": "text", "text": "Fork answer."}]}]}],
        "fallback": {"content": [{"type": "text", "text": "OK"}]},
    }))
    return path


def _last_request(requests: str) -> str:
    return json.dumps(json.loads(requests.splitlines()[-1])["body"])


def test_a_fork_carries_its_parents_entries_once_with_the_real_client(tmp_path):
    project = installed_project(tmp_path / "app")
    memory = project / ".beads" / "memory"
    store.append(str(memory), [entry.build(OLD, "BD-3", "orchestrator", ts=1_600_000_000)])
    store.append(str(memory), [entry.build(f"Note {i}: the release notes rule number {i} applies here.",
                                           f"BD-{100 + i}", "orchestrator", ts=1_700_000_000 + i) for i in range(120)])
    home = tmp_path / "home"  # one HOME for both runs: the fork resumes the parent's transcript
    prompt = "add an alembic migration for the invoices"

    parent = _last_request(run(_scenario(tmp_path / "parent.json", prompt), project, home))
    assert parent.count("## Recent Knowledge") == 1 and parent.count(IN_FULL) == 1  # the map, then the prompt
    ledger = json.loads((memory / "injected.json").read_text())
    [parent_id] = list(ledger)

    fork = _scenario(tmp_path / "fork.json", prompt, ["--resume", parent_id, "--fork-session"])
    forked = _last_request(run(fork, project, home))
    assert "Parent answer." in forked and forked.count(prompt) == 2  # the parent's conversation, the fork's prompt
    assert forked.count("## Recent Knowledge") == 1  # the parent's session start block, carried
    assert forked.count(IN_FULL) == 1  # the parent's prompt-time block, carried; not given again
    ledger = json.loads((memory / "injected.json").read_text())
    [fork_id] = [s for s in ledger if s != parent_id]
    assert set(ledger[fork_id]["keys"]) >= set(ledger[parent_id]["keys"]) and ledger[fork_id]["started"]
    assert not (memory / "errors.log").exists()
