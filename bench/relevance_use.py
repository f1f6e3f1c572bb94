#!/usr/bin/env python3
"""Use as a signal (issue #20 item 4): does what past sessions used get a title in a map too small for all?

    python bench/relevance_use.py                  # uv padded to 300 and 1,000 active entries
    python bench/relevance_use.py --size 1000

At 300 and 1,000 entries the map titles only part of the knowledge (bench/relevance_view.py --coverage), so
its priority decides what the agent can see. memory.surface.use counts how the agent used entries; the map
ranks used entries first within a type. Per size, in one git repo holding uv's knowledge padded
(bench/relevance/scale.py), every step a real hook process or a real recall.sh:

1. before: uv's held-out (test) prompts, a fresh session each (session start, then the prompt hook):
   visible recall as bench/relevance_view.py measures it;
2. history, past sessions that never look at a label:
   - each uv dev prompt (those that need no entry too): session start, the prompt hook, then the agent
     looks its need up with `recall.sh "<the prompt>"` (the best answer counts as fetched);
   - each uv dev file event: session start, a Read of the file, then an Edit of it (the Read's entries
     about the file count as applied);
3. after: the same held-out prompts again, each in a fresh session.
Also printed: how many entries the history counted, and how many of those a held-out prompt needs.

No label steers the history: what counts is what the real ranker answered and the real hooks gave. The
held-out prompts need mostly other entries than the dev prompts (prompts.jsonl was written to cover the
knowledge), so the gain measured here is a floor for a team whose sessions need the same entries again.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "relevance"))

import dataset  # noqa: E402
import hook_session as hs  # noqa: E402
import relevance_view  # noqa: E402
import scale  # noqa: E402

RECALL = HERE.parent / "bin" / "recall.sh"
USE_FILE = Path(".beads") / "memory" / "use.json"


def look_up(repo: str, words: str) -> None:
    """The agent runs recall.sh with its words, as the map tells it to."""
    env = {k: v for k, v in hs.hook_env(repo).items() if k != "CLAUDE_PROJECT_DIR"}
    subprocess.run([str(RECALL), words], cwd=repo, env=env, capture_output=True, timeout=hs.TIMEOUT)


def read_then_edit(event: dict, repo: str, session: str) -> None:
    """A past session reads the event's file, then edits it (the event's own edit, or a line added)."""
    payload = dataset.payload_for(event, repo, session)
    path = payload["tool_input"]["file_path"]
    base = {k: payload[k] for k in ("session_id", "transcript_path", "cwd", "permission_mode")}
    read = dict(base, hook_event_name="PreToolUse", tool_name="Read", tool_input={"file_path": path})
    edit = payload if payload["tool_name"] != "Read" else dict(
        base, hook_event_name="PreToolUse", tool_name="Edit",
        tool_input={"file_path": path, "old_string": "", "new_string": "// reviewed\n", "replace_all": False})
    hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, session), repo)
    hs.run_hook(hs.ACTION_CONTEXT, read, repo)
    hs.run_hook(hs.ACTION_CONTEXT, edit, repo)


def history(repo: str, prompts: list[dict], events: list[dict]) -> None:
    for p in prompts:
        session = f"past-{p['id']}"
        relevance_view.run_prompt(repo, session, p["prompt"])
        look_up(repo, p["prompt"])
    for event in events:
        read_then_edit(event, repo, f"past-{event['id']}")


def held_out(repo: str, prompts: list[dict], entries: list[dict], tag: str) -> dict:
    records = [relevance_view.measure(dict(p, id=f"{tag}-{p['id']}"), repo, entries) for p in prompts]
    return relevance_view.summarize(records)


def map_shows(repo: str, events: list[dict], entries: list[dict], tag: str) -> tuple[int, int]:
    """Of the labelled events, those for which a fresh session start already shows a labelled entry (its title
    in the map, or the entry in full): the knowledge later work needs, in view before the work starts."""
    start = hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, f"{tag}-map"), repo)
    by_key = {e["key"]: e for e in entries}
    labelled = [e for e in events if e.get("relevant")]
    return sum(1 for e in labelled if any(hs.visible(by_key[k], start) for k in e["relevant"])), len(labelled)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, action="append", help="active entries (default: 300 and 1000)")
    args = parser.parse_args(argv)
    _, prompts = dataset.load()
    mine = [p for p in prompts if p["project"] == scale.PROJECT]
    past_prompts = dataset.split(mine, "dev")  # all of them: which need an entry is a label
    test_prompts = dataset.split(mine, "test")
    past_events = [e for e in dataset.load_actions() if e["project"] == scale.PROJECT and e["kind"] == "file"
                   and e["split"] == "dev"]
    needed = {k for p in test_prompts for k in p.get("relevant") or []}
    workdir = tempfile.mkdtemp(prefix="relevance-use-")
    print(f"history: {len(past_prompts)} dev prompts looked up, {len(past_events)} dev file events read and edited; "
          f"held out: {len(test_prompts)} test prompts ({sum(1 for p in test_prompts if p.get('relevant'))} need "
          "an entry)")
    for size in args.size or [300, 1000]:
        entries = scale.padded(size)
        repo = hs.make_repo(workdir, f"{scale.PROJECT}-{size}", entries, {"semantic": False})
        before = held_out(repo, test_prompts, entries, "before")
        later = [e for e in dataset.load_actions() if e["project"] == scale.PROJECT and e["split"] == "test"]
        shown_before = map_shows(repo, later, entries, "before")
        history(repo, past_prompts, past_events)
        used = json.loads((Path(repo) / USE_FILE).read_text()) if (Path(repo) / USE_FILE).exists() else {}
        after = held_out(repo, test_prompts, entries, "after")
        shown_after = map_shows(repo, later, entries, "after")
        past_needs = {k for p in past_prompts for k in p.get("relevant") or []}
        print(f"{scale.PROJECT}@{size}: {len(used)} entries used in the history ({len(set(used) & past_needs)} of "
              f"them labelled for a dev prompt), {len(set(used) & needed)} needed by a held-out prompt")
        print(f"  held-out prompts  before  {relevance_view.fmt(before)}")
        print(f"  held-out prompts  after   {relevance_view.fmt(after)}")
        print(f"  held-out actions (test split) whose entry session start shows: before {shown_before[0]}/"
              f"{shown_before[1]}, after {shown_after[0]}/{shown_after[1]}")
    return 0


if __name__ == "__main__":
    os.environ.pop("MEMORY_HOOKS_ANCHOR", None)
    raise SystemExit(main())
