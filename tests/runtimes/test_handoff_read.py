"""memory.runtimes.handoff_read: handoffs.jsonl read back tolerantly, and the one handoff a session start shows."""
import json
import time

import pytest

from memory.core import layout
from memory.runtimes import handoff_read

NOW = 1_800_000_000.0


def handoff(hid, **fields):
    return {"id": hid, "event": "SessionEnd", "tree": "/w/app", "branch": "main", "session_id": "old", "ended": 1,
            "task": {"first": f"task of {hid}"}, **fields}


def test_load_skips_torn_lines_and_other_shapes(tmp_path):
    good = handoff("h1")
    lines = [json.dumps(good), '{"id": "torn', "[1, 2]", json.dumps(handoff("h2", files="a.py")),
             json.dumps(handoff("h3", beads={"BD-1": ["update"]}))]
    (tmp_path / layout.HANDOFFS).write_text("\n".join(lines) + "\n")
    assert [h["id"] for h in handoff_read.load(str(tmp_path))] == ["h1", "h3"]
    assert handoff_read.load(str(tmp_path / "none")) == []


@pytest.mark.parametrize("field, value", [("id", 7), ("ended", "x"), ("task", {"first": 1}), ("todos", [1]),
                                          ("beads", {"BD-1": "update"}), ("insights", [None])])
def test_a_field_of_another_type_is_not_well_formed(field, value):
    assert handoff_read.well_formed(handoff("h")) and not handoff_read.well_formed(handoff("h", **{field: value}))


def test_a_precompact_handoff_has_ended_once_its_transcript_is_still(tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n")
    running = handoff("h", event="PreCompact", transcript_path=str(transcript))
    assert not handoff_read.ended(running, time.time())
    assert handoff_read.ended(running, time.time() + handoff_read.ENDED_AFTER + 1)
    assert handoff_read.ended(dict(running, transcript_path=str(tmp_path / "gone")), time.time())
    assert handoff_read.ended(handoff("h"), time.time())  # a SessionEnd one


def test_choose_by_source_bead_tree_and_branch():
    older, newer = handoff("h1"), handoff("h2")
    other_branch = handoff("h3", branch="feature")
    compacted = handoff("h4", event="PreCompact", session_id="me", tree="/w/elsewhere")
    beads = handoff("h5", tree="/w/app/.worktrees/bd-BD-9", branch="bd-BD-9", bead="BD-9")
    all_ = [older, newer, other_branch, compacted, beads]

    def choose(source, session="me", beads_=frozenset()):
        found = handoff_read.choose(all_, session, source, "/w/app", "main", set(beads_), NOW)
        return found and found["id"]

    assert choose("startup") == "h2"  # the newest ended one of this tree and branch, not this session's own
    assert choose("compact") == "h4"  # after compaction: this session's own PreCompact handoff
    assert choose("compact", session="another") is None
    assert choose("startup", beads_={"bd-9"}) == "h5"  # a supervisor: its bead's newest
    assert choose("fork") is None  # a fork carries its parent's conversation on
    assert choose("resume", session="old") == "h2" and choose("startup", session="old") is None


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_handoffs_file_that_is_no_regular_file_costs_the_last_session_block_not_the_session_start(tmp_path, kind):
    """handoffs.jsonl unreadable (a FIFO, a folder): no handoff to show, and session start still gives the digest.
    Before, load raised and the whole session start answered nothing (an errors.log line, no knowledge)."""
    import os

    from helpers import bash_payload, fixture_payload, make_repo, run_hook

    repo = make_repo(tmp_path / "app")
    capture = bash_payload('bd comment BD-1 "LEARNED: the staging database is shared; never migrate it"', repo)
    assert run_hook("memory_capture", capture, repo).returncode == 0
    path = repo / ".beads" / "memory" / layout.HANDOFFS
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    assert handoff_read.load(str(path.parent)) == []
    start = fixture_payload("claude-code/2.1.330/SessionStart-1.json")
    start.update(cwd=str(repo), session_id="next")
    proc = run_hook("session_start", start, repo, timeout=20)
    assert proc.returncode == 0
    assert "never migrate it" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_startup_takes_a_sessions_handoff_that_tells_something_never_a_subagents():
    """A supervisor's SubagentStop handoff (the parent's session id, its tree and branch) is its bead's, not the
    session's last state; a handoff with nothing to tell (an older version saved them) never displaces another."""
    session_end = handoff("h1", last_message="refunds done")
    subagent = handoff("h2", event="SubagentStop", bead="BD-1", session_id="parent", last_message="BEAD BD-1 BLOCKED")
    empty = handoff("h3", task=None, git_status=["?? scratch.txt"])
    found = handoff_read.choose([session_end, subagent, empty], "new", "startup", "/w/app", "main", set(), NOW)
    assert found is not None and found["id"] == "h1"
    found = handoff_read.choose([session_end, subagent, empty], "new", "startup", "/w/app", "main", {"bd-1"}, NOW)
    assert found is not None and found["id"] == "h2"  # a supervisor on BD-1: its bead's
    assert not handoff_read.tells_something(empty)
    assert handoff_read.tells_something(handoff("h4", task=None, files=["a"]))
