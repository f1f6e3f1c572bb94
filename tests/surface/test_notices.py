"""memory.surface.notices: a note one hook keeps for an orchestrating agent and a later hook delivers, once."""
import json
import os
from pathlib import Path

from helpers import fixture_payload, forked_processes, hook_in_process, make_repo
from memory.store import entry, store
from memory.surface import notices


def test_a_note_is_taken_once_by_its_agent_or_by_its_session_and_by_no_other_session(tmp_path):
    d = str(tmp_path)
    notices.post(d, "agent-1", "s1", "note one")
    notices.post(d, "agent-2", "s1", "note two")
    notices.post(d, "agent-3", "s2", "note three")
    assert notices.take(d, "agent-2") == "note two" and notices.take(d, "agent-2") == ""
    assert notices.take_session(d, "s1") == ["note one"] and notices.take_session(d, "s1") == []
    assert notices.take_session(d, None) == [] and notices.take_session(d, "s2") == ["note three"]


TAKE = """
import json, sys
from memory.surface import notices
with open(sys.argv[2], "w") as fh:
    fh.write(json.dumps(notices.take_session(sys.argv[1], "s1")))
"""


def test_prompts_at_once_deliver_each_note_once(tmp_path):
    """Parallel prompts of one session (a report and the user's words): the notes go to one of them."""
    d = str(tmp_path / "m")
    for n in range(3):
        notices.post(d, f"agent-{n}", "s1", f"note {n}")
    outs = [str(tmp_path / f"out{n}") for n in range(8)]
    assert forked_processes(TAKE, [[d, out] for out in outs], preload="from memory.surface import notices") == [0] * 8
    taken = [note for out in outs for note in json.loads(Path(out).read_text())]
    assert sorted(taken) == ["note 0", "note 1", "note 2"]


def test_a_folder_that_cannot_keep_the_note_taken_still_answers_the_prompts_knowledge(tmp_path, monkeypatch):
    """A read-only memory folder with a note pending: taking it fails (the state lock can't be written); the
    prompt's knowledge is answered all the same, and the failure logged (before, every prompt got nothing)."""
    repo = make_repo(tmp_path / "app")
    memory = repo / ".beads" / "memory"
    store.append(str(memory), [entry.build("Database migrations must be reversible: every alembic upgrade needs a "
                                           "working downgrade.", "BD-3", "orchestrator")])
    notices.post(str(memory), "agent-1", "s1", "memory-hooks: BEAD BD-3 COMPLETE was not verified")

    def unwritable(*args, **kwargs):
        raise PermissionError(13, "Permission denied", os.path.join(str(memory), "state.lock"))

    monkeypatch.setattr("memory.core.state.update", unwritable)
    prompt = dict(fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json"), cwd=str(repo), session_id="s1",
                  prompt="how do we write the alembic migration downgrade")
    out = hook_in_process("prompt_recall", prompt, repo, monkeypatch)
    said = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "migrations must be reversible" in said and "not verified" not in said
    assert "a subagent's note not delivered: PermissionError" in (memory / "errors.log").read_text()
