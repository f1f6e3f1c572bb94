"""The "## Last Session" block (memory.surface.lastsession) as session start gives it, from handoffs the real hook
files wrote (hooks/handoff.py on recorded payloads)."""
import json

from helpers import fixture_payload, hook_context, run_hook
from memory.surface import lastsession

REPLY = """The refund rounding is fixed.

> LEARNED: quoted line must not be captured

Some prose: the ledger compares to the cent.

```python
LEARNED: in a code block, not captured
assert round_half_even(2.5) == 2
```

Next: open the PR."""


def session_with_reply(repo, tmp_path, session, reply):
    """A session whose transcript ends in `reply`, ended (SessionEnd), as Claude Code runs the hook."""
    transcript = tmp_path / f"{session}.jsonl"
    lines = [{"type": "user", "message": {"role": "user", "content": "fix refund rounding"}},
             {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}}]
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines))
    payload = dict(fixture_payload("claude-code/2.1.330/SessionEnd-1.json"), cwd=str(repo), session_id=session,
                   transcript_path=str(transcript))
    assert run_hook("handoff", payload, repo).returncode == 0


def last_session(repo, session):
    text = hook_context("session_start", "claude-code/2.1.330/SessionStart-6.json", repo, session_id=session,
                        source="startup")
    return text.split("\n\n## ", 1)[0]


def test_the_last_message_keeps_its_lines_and_leaves_code_out(repo, tmp_path):
    """A first-hour review: the block showed `Last message: > LEARNED: quoted line must not be captured Some prose:
    … ``` LEARNED: in a code block, not captured ````: the reply's quote, prose and code run into one line."""
    session_with_reply(repo, tmp_path, "s1", REPLY)
    block = last_session(repo, "s2")
    message = block.split("  Last message: ", 1)[1].split("\n  Whole handoff:", 1)[0]
    assert message.split("\n") == ["The refund rounding is fixed.",
                                   "    > LEARNED: quoted line must not be captured",
                                   "    Some prose: the ledger compares to the cent.",
                                   "    [2 lines of code left out]",
                                   "    Next: open the PR."]
    assert "```" not in block and "in a code block" not in block and "\n\n" not in block


def test_a_long_last_message_stays_within_its_budget(repo, tmp_path):
    reply = "\n".join(f"step {i}: " + "checked the ledger totals " * 3 for i in range(60))
    session_with_reply(repo, tmp_path, "s1", reply)
    block = last_session(repo, "s2")
    message = block.split("  Last message: ", 1)[1].split("\n  Whole handoff:", 1)[0]
    shown = [line.strip() for line in message.split("\n")]
    assert shown[0].startswith("step 0: ") and shown[-1].endswith("…") and len(shown) > 5
    assert lastsession.MESSAGE_CHARS - 40 < len(message) <= lastsession.MESSAGE_CHARS  # its indentation counted


def test_a_handoff_of_an_older_version_still_reads_on_one_line():
    old = {"id": "h1", "ended": 100.0, "event": "SessionEnd", "last_message": "flat " * 200}
    block = lastsession.render_block(old, 160.0, 4000)
    [line] = [x for x in block.split("\n") if x.startswith("  Last message: ")]
    assert len(line) <= len("  Last message: ") + lastsession.MESSAGE_CHARS and line.endswith("…")


def test_a_message_of_many_short_lines_counts_their_indentation():
    h = {"id": "h1", "ended": 100.0, "event": "SessionEnd", "last_message": "\n".join(["- ok"] * 400)}
    line = lastsession.render_block(h, 160.0, 4000).split("  Last message: ", 1)[1].split("\n  Whole", 1)[0]
    assert len(line) <= lastsession.MESSAGE_CHARS and line.endswith("- ok …") and line.count("\n") > 50
