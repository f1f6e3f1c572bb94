"""Handoffs read back (memory.runtimes.handoff writes them): every well-formed line of handoffs.jsonl, and the one a
session start shows. Session start and the supervisor's SubagentStart read handoffs with this module alone:
never a transcript, never the store's modules."""
from __future__ import annotations

import json
import os

from memory import TYPE_CHECKING
from memory.core import layout

if TYPE_CHECKING:
    from collections.abc import Iterable

ENDED_AFTER = 15 * 60  # a PreCompact handoff whose transcript has been still this long: that session ended
# what a session start outside a bead takes: a supervisor's SubagentStop handoff is its bead's, not the session's
SESSION_EVENTS = ("SessionEnd", "PreCompact")
# the fields that tell what a session did; `git status` alone is the tree's state, which anyone can read
_STORY = ("task", "failure", "files", "todos", "beads", "last_message", "insights")


def load(memory_dir: str) -> list[dict]:
    """Every readable handoff, oldest first; none when handoffs.jsonl is unreadable (a FIFO, a folder, a link): a
    session start then shows no Last Session block, and everything else."""
    from memory.core import fsio  # not memory.store.store: session start reads handoffs without the store's modules

    out = []
    try:
        data = fsio.read_file(os.path.join(memory_dir, layout.HANDOFFS))
    except OSError:
        return []
    for raw in data.split(b"\n"):
        try:
            obj = json.loads(raw) if raw.strip() else None
        except ValueError:
            continue
        if isinstance(obj, dict) and well_formed(obj):
            out.append(obj)
    return out


_TEXTS = ("id", "event", "session_id", "trigger", "agent_type", "transcript_path", "tree", "branch", "commit", "bead",
          "last_message", "started", "gate")
_TEXT_LISTS = ("files", "git_status", "insights")
_TEXT_MAPS = ("task", "failure")


def well_formed(handoff: dict) -> bool:
    """Whether every field a reader uses has the type `build` gives it (a missing one is fine: older records):
    a line written by hand or by another version is skipped like a torn one, never fails a session start."""
    def texts(values: Iterable[object]) -> bool:
        return all(isinstance(v, str) for v in values)

    if not isinstance(handoff.get("id"), str) or not isinstance(handoff.get("ended", 0), (int, float)):
        return False
    for name in _TEXTS:
        if handoff.get(name) is not None and not isinstance(handoff[name], str):
            return False
    for name in _TEXT_LISTS:
        if handoff.get(name) is not None and not (isinstance(handoff[name], list) and texts(handoff[name])):
            return False
    for name in _TEXT_MAPS:
        if handoff.get(name) is not None and not (isinstance(handoff[name], dict) and texts(handoff[name].values())):
            return False
    todos, beads = handoff.get("todos"), handoff.get("beads")
    if todos is not None and not (isinstance(todos, list)
                                  and all(isinstance(t, dict) and texts(t.values()) for t in todos)):
        return False
    return beads is None or isinstance(beads, dict) and all(isinstance(v, list) and texts(v) for v in beads.values())


def tells_something(handoff: dict) -> bool:
    """Whether the handoff says anything of its session (a Cursor sessionEnd without a transcript says nothing): one
    that does not is never saved, nor shown, so it cannot displace the useful one before it."""
    return any(handoff.get(name) for name in _STORY)


def ended(handoff: dict, now: float) -> bool:
    """Written when its session ended, or its session has been silent for ENDED_AFTER (a crashed terminal)."""
    if handoff.get("event") == "SessionEnd":
        return True
    path = handoff.get("transcript_path")
    try:
        return now - os.stat(path).st_mtime > ENDED_AFTER if isinstance(path, str) else True
    except OSError:
        return True


def choose(handoffs: list[dict], session: str | None, source: str | None, tree: str | None, branch: str | None,
           beads: set[str], now: float) -> dict | None:
    """The handoff session start shows, of those that tell something: after `compact`, this session's PreCompact
    one; a supervisor on a bead, that bead's newest; else the newest SessionEnd or PreCompact one (never a
    subagent's) of this tree and branch from a session that ended. None for a `fork`: it carries its parent's
    conversation on, which holds the parent's block (or, when the parent has ended, is the very session the newest
    handoff tells of)."""
    if source == "fork":
        return None
    newest_first = [h for h in reversed(handoffs) if tells_something(h)]
    if source == "compact":
        return next((h for h in newest_first if h.get("session_id") == session and h.get("event") == "PreCompact"),
                    None)
    if beads:
        found = next((h for h in newest_first if str(h.get("bead") or "").lower() in beads
                      or any(b.lower() in beads for b in h.get("beads") or {})), None)
        if found:
            return found
    return next((h for h in newest_first if h.get("event") in SESSION_EVENTS and h.get("tree") == tree
                 and h.get("branch") == branch and (h.get("session_id") != session or source == "resume")
                 and ended(h, now)), None)
