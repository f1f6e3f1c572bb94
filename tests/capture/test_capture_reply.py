"""Capture from the agent's final message (memory.capture.reply_capture): Stop, Cursor afterAgentResponse, and the
completion gate's SubagentStop step, run as the runtimes run them."""
import json

import pytest

from helpers import bash_payload, error_log, fixture_payload, git, knowledge, run_hook
from memory.store import store

MESSAGE = """Done: the flaky test is fixed.

LEARNED: the payments tests need STRIPE_MOCK=1 or they call the network
- **DECISION[queue]:** jobs go through the redis queue, not cron, because cron double-fires on deploys
Here I mention that a LEARNED: marker mid-sentence is nothing.
> WARNING: a quoted line is someone else's words
```
PATTERN: inside a code block is an example, not an insight
```
WARNING: never run the seed script against staging
"""


def stop_payload(repo, message, version="2.1.330", **fields):
    payload = fixture_payload(f"claude-code/{version}/Stop-1.json")
    payload.update(cwd=str(repo), last_assistant_message=message, **fields)
    return payload


def stop(repo, message, **fields):
    proc = run_hook("capture_reply", stop_payload(repo, message, **fields), repo)
    assert proc.returncode == 0 and proc.stdout == b""  # never answers: nothing that could block or inject
    return proc


def test_lines_that_start_with_a_marker_are_captured_and_nothing_else(repo):
    stop(repo, MESSAGE)
    got = {e["key"]: e for e in knowledge(repo)}
    assert sorted(got) == ["decision-queue", "learned-the-payments-tests-need-stripe-mock-1-or-they-call-the-netwo",
                           "warning-never-run-the-seed-script-against-staging"]
    assert all(e["via"] == "reply" and e["session_id"] for e in got.values())
    assert error_log(repo) == ""


def test_a_list_of_learnings_stores_each_without_the_next_items_bullet(repo):
    stop(repo, "Fixed.\n\n- **LEARNED:** the export uses a server-side cursor\n"
               "- WARNING: never connect at import time\n"
               "* DECISION: pool size 5\n  + PATTERN: ids, never ORM objects, go to celery\n")
    assert sorted(e["content"] for e in knowledge(repo)) == [
        "ids, never ORM objects, go to celery", "never connect at import time", "pool size 5",
        "the export uses a server-side cursor"]


def test_the_lines_that_go_on_with_a_marked_line_are_part_of_its_insight(repo):
    """A walkthrough's reply stored `deploys need two steps:` without the steps, and the Stop hook cannot tell the
    agent. Sub-items and the list a colon opens (after one blank line too; not a list item's siblings) go on with
    the marked line; a marker inside them is mid-sentence. A blank line, prose (in lower case too) or another item
    ends it."""
    stop(repo, "Done.\n\n- **LEARNED:** deploys need two steps:\n  1. run `make migrate`\n  2. run `make deploy`\n\n"
               "LEARNED: the release checklist has two gates:\n"
               "  - the changelog has no line starting with WARNING: left over\n  - the version is bumped\n"
               "WARNING: the seed takes three flags:\n\n- `--small`\n- `--no-media`\n\n- more work next week\n"
               "Done:\n- LEARNED: the staging env needs:\n- Rebased on main\n"
               "- Investigated the crash\n  - PATTERN: retries go through these modules:\n- Updated the docs\n"
               "DECISION: `make test` needs docker (not podman)\nthen I committed the fix and pushed it\n")
    got = sorted(" ".join(e["content"].split()) for e in knowledge(repo))
    assert got == ["`make test` needs docker (not podman)",
                   "deploys need two steps: 1. run `make migrate` 2. run `make deploy`",
                   "retries go through these modules:",  # the items after a list item are its siblings
                   "the release checklist has two gates: - the changelog has no line starting with WARNING: left "
                   "over - the version is bumped",
                   "the seed takes three flags: - `--small` - `--no-media`",
                   "the staging env needs:"]


def test_a_numbered_list_of_learnings_is_captured_too(repo):
    stop(repo, "What I found:\n\n1. LEARNED: the importer reads CSV as latin-1\n2) **WARNING:** never "
               "reimport a batch\nStep 3. LEARNED: mid-sentence after a number is not a marker\n")
    assert sorted(e["content"] for e in knowledge(repo)) == ["never reimport a batch",
                                                             "the importer reads CSV as latin-1"]


@pytest.mark.parametrize("version", ["2.1.197", "2.1.330"])
def test_recorded_stop_payloads_capture_nothing(repo, version):
    from helpers import FIXTURES
    for path in sorted((FIXTURES / "claude-code" / version).glob("Stop-*.json")):
        payload = json.loads(path.read_text())
        payload["cwd"] = str(repo)
        assert run_hook("capture_reply", payload, repo).stdout == b""
    assert knowledge(repo) == []


def test_a_bd_comment_of_the_same_turn_is_not_stored_twice(repo):
    run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: the cache lives in .turbo"', repo), repo)
    stop(repo, "Fixed.\nLEARNED: The cache lives in .turbo!")
    assert len(knowledge(repo)) == 1
    stop(repo, "Fixed.\nLEARNED: The cache lives in .turbo!")  # Stop fires again: still one
    assert len(knowledge(repo)) == 1


def test_opt_out_in_config(repo):
    (repo / ".beads" / "memory").mkdir(parents=True, exist_ok=True)
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"capture_replies": False}))
    stop(repo, "LEARNED: not wanted here")
    assert knowledge(repo) == []


def test_transcript_fallback_and_a_hostile_transcript(repo, tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b'{"type":"user","message":{"role":"user","content":"hi"}}\n\xff\xfe garbage\n'
                           + json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
                               {"type": "text", "text": "PATTERN: one module per hook"}]}}).encode()
                           + b'\n{"type":"assistant","message":{"role":"assis')  # a torn last line
    payload = stop_payload(repo, "", transcript_path=str(transcript))
    del payload["last_assistant_message"]
    assert run_hook("capture_reply", payload, repo).stdout == b""
    assert [e["key"] for e in knowledge(repo)] == ["pattern-one-module-per-hook"]


def test_cursor_after_agent_response(repo):
    payload = {"conversation_id": "c1", "generation_id": "g1", "hook_event_name": "afterAgentResponse",
               "cursor_version": "3.9.16", "workspace_roots": [str(repo)], "text": "All set.\nLEARNED: use pnpm here"}
    proc = run_hook("capture_reply", payload, repo, args=["--cursor"])
    assert proc.returncode == 0 and proc.stdout == b""
    assert [e["key"] for e in knowledge(repo)] == ["learned-use-pnpm-here"]


def test_a_continued_turn_is_left_to_the_next_stop(repo):
    stop(repo, "LEARNED: not yet", stop_hook_active=True)
    assert knowledge(repo) == []


@pytest.mark.parametrize("stdin", [b"", b"\xff\x00", b"[]", b'{"hook_event_name": 3}', b'{"last_assistant_message":1}'])
def test_fails_open(repo, stdin):
    proc = run_hook("capture_reply", stdin, repo)
    assert proc.returncode == 0 and proc.stdout == b""


def test_subagent_insights_are_captured_without_changing_the_gate(repo):
    """An ordinary (non-supervisor) subagent: the gate lets it finish; its marked lines are stored."""
    payload = fixture_payload("claude-code/2.1.330/SubagentStop-4.json")
    payload.update(cwd=str(repo), agent_type="general-purpose",
                   last_assistant_message="Report.\nDECISION: retries are capped at 3 because the API bans bursts")
    proc = run_hook("validate_completion", payload, repo)
    assert proc.returncode == 0 and proc.stdout == b""
    assert [e["type"] for e in knowledge(repo)] == ["decision"]


def test_a_supervisors_insight_is_tagged_with_the_bead_its_report_names(repo):
    """The branch names no bead (main): the report line does, and a supervisor working on BD-7 later sees BD-7's
    knowledge first."""
    payload = fixture_payload("claude-code/2.1.330/SubagentStop-4.json")
    payload.update(cwd=str(repo), agent_type="general-purpose", last_assistant_message=(
        "Done.\nLEARNED: the refund job needs the ledger lock\n\nBEAD BD-7 COMPLETE"))
    assert run_hook("validate_completion", payload, repo).returncode == 0
    [stored] = knowledge(repo)
    assert stored["content"] == "the refund job needs the ledger lock" and stored["bead"] == "BD-7"
    payload["last_assistant_message"] = "Done.\nLEARNED: refunds post after the lock\n\nBEAD bd-7 COMPLETE"
    assert run_hook("validate_completion", payload, repo).returncode == 0
    assert {e["bead"] for e in knowledge(repo)} == {"BD-7"}  # one bead, however the report spells it


def test_the_recorded_subagent_summary_mentioning_learned_is_not_captured(repo):
    payload = fixture_payload("claude-code/2.1.330/SubagentStop-1.json")  # "... LEARNED: auto compaction ..."
    assert "LEARNED:" in payload["last_assistant_message"]
    payload["cwd"] = str(repo)
    run_hook("validate_completion", payload, repo)
    assert knowledge(repo) == []


def test_supervisor_blocked_by_the_gate_still_has_its_insights_stored(repo):
    git(repo, "checkout", "-qb", "bd-BD-9")
    payload = fixture_payload("claude-code/2.1.330/SubagentStop-4.json")
    payload.update(cwd=str(repo), agent_type="swift-supervisor", agent_id="a9",
                   last_assistant_message="WARNING: the simulator must be booted first\n(no report)")
    out = json.loads(run_hook("validate_completion", payload, repo).stdout)
    assert out["decision"] == "block"  # the gate decided as before
    [e] = store.latest(knowledge(repo))
    assert e["type"] == "warning" and e["bead"] == "BD-9" and e["source"] == "supervisor"  # not BD-BD-9


def test_a_reply_line_taking_a_different_insights_key_is_told_to_the_user(repo):
    """Two insights opening with the same 60 characters share their automatic key, and the later one wins. A bd
    comment's capture tells the agent; a reply line's, captured after the reply, now tells the person at Stop
    (before: nothing, and the first insight was visible only with --history)."""
    opening = "before running the end-to-end suite on a developer laptop always "
    first = stop(repo, f"Done.\nLEARNED: {opening}export TZ=UTC\n", session_id="s-1")
    assert first.returncode == 0 and first.stdout == b""
    proc = run_hook("capture_reply", stop_payload(repo, f"Done.\nLEARNED: {opening}start the SMTP fake\n",
                                                  session_id="s-2"), repo)
    assert proc.returncode == 0
    answer = json.loads(proc.stdout)
    assert list(answer) == ["systemMessage"]
    assert "replaced an earlier, different insight with the same first 60 characters" in answer["systemMessage"]
    assert answer["systemMessage"].startswith("memory-hooks: `learned-before-running-the-end-to-end-suite")
    again = stop(repo, f"Done.\nLEARNED[e2e-tz]: {opening}export TZ=UTC\n", session_id="s-3")
    assert again.stdout == b""  # a new key replaces nothing


def test_lines_that_cannot_be_stored_are_told_to_the_person_and_the_doctor_finds_them(repo, tmp_path, monkeypatch):
    """A memory folder that cannot be written (another user's, full): the reply's lines were dropped with only a
    line in the per-user error log, which the doctor never read. Now Claude Code's Stop tells the person
    (systemMessage), and the doctor names the lines written elsewhere about this memory."""
    from helpers import doctor_report

    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    (memory / "inbox").write_text("")  # a file where the inbox folder goes: every capture's write fails
    (memory / "errors.log").mkdir()  # and the folder's own log cannot take the line either
    state = tmp_path / "state"
    proc = run_hook("capture_reply", stop_payload(repo, "Done.\nLEARNED: the queue drains first\n"), repo,
                    env={"XDG_STATE_HOME": str(state)})
    assert proc.returncode == 0
    said = json.loads(proc.stdout)["systemMessage"]
    assert said.startswith("memory-hooks: the LEARNED/DECISION/WARNING/PATTERN lines of this reply were NOT stored")
    assert knowledge(repo) == []
    logged = (state / "memory-hooks" / "errors.log").read_text()
    assert "reply lines not stored" in logged
    monkeypatch.setenv("XDG_STATE_HOME", str(state))  # the doctor's environment: the same user's
    elsewhere = doctor_report(repo)[2]["errors elsewhere"]
    assert elsewhere["level"] == "WARN" and "1 line(s) about this memory" in elsewhere["detail"]


def test_a_key_given_in_brackets_that_holds_a_credential_is_never_the_key(repo):
    """`LEARNED[xoxb-…]:` was stored under `learned-xoxb-…`: the text is redacted, a key never is (a `bd remember
    --key` of the same shape already took the automatic key)."""
    slack = "xoxb-2048593021-4829104857261-kd93jfh28shd73hf"
    stop(repo, f"Done.\nLEARNED[{slack}]: the slack bot posts to the ops channel\n"
               "LEARNED[deploy-notes]: the mirror bot pushes at noon\n")
    got = knowledge(repo)
    assert slack not in json.dumps(got) and slack.split("-")[1] not in json.dumps(got)
    assert sorted(e["key"] for e in got) == ["learned-deploy-notes",
                                             "learned-the-slack-bot-posts-to-the-ops-channel"]
