"""Session start's "## Last Session" block: a handoff (memory.runtimes.handoff) rendered within a character budget.

Fields by priority (the lowest go first when the budget is short): what the completion gate said of a claim it
could not verify, task, failing command, files changed, open todos, beads, last message (its lines kept, as
indented lines), insights captured, git status. Older than STALE_DAYS: one line only.
"""
from __future__ import annotations

from memory.core import render

STALE_DAYS = 7
MESSAGE_CHARS = 600
_INDENT = "\n    "  # the last message's lines after its first


def age(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    return "just now"


def _fields(h: dict) -> list[str]:
    """The block's lines after its heading, highest priority first."""
    lines = []
    if h.get("gate"):  # before all: the last message may claim what the gate could not verify
        lines.append(f"  Completion gate: {render.one_line(h['gate'], 300)}")
    task = h.get("task") or {}
    if task.get("first"):
        lines.append(f"  Task: {render.one_line(task['first'], 300)}")
        if task.get("latest") and task["latest"] != task["first"]:
            lines.append(f"  Latest request: {render.one_line(task['latest'], 300)}")
    failure = h.get("failure")
    if failure:
        lines.append(f"  Last failing command: `{render.one_line(failure.get('command', ''), 200)}` → "
                     f"{render.one_line(failure.get('error', ''), 300)}")
    if h.get("files"):
        files = [_in_tree(f, h.get("tree")) for f in h["files"] if isinstance(f, str)]
        lines.append(f"  Files changed: {render.one_line(', '.join(files), 600)}")
    if h.get("todos"):
        todos = "; ".join(f"[{t.get('status')}] {t.get('content')}" for t in h["todos"])
        lines.append(f"  Open todos: {render.one_line(todos, 600)}")
    if h.get("beads"):
        beads = ", ".join(f"{b} ({'/'.join(v)})" for b, v in h["beads"].items())
        lines.append(f"  Beads: {render.one_line(beads, 300)}")
    if h.get("last_message"):
        lines.append("  Last message: " + _INDENT.join(_message_lines(h["last_message"])))
    if h.get("insights"):
        lines.append(f"  Insights captured: {render.one_line(', '.join(h['insights']), 300)}")
    if h.get("git_status"):
        lines.append(f"  Uncommitted: {render.one_line(', '.join(h['git_status']), 300)}")
    return lines


def _message_lines(text: str) -> list[str]:
    """The last message's lines (each on one line, control characters folded), MESSAGE_CHARS in all with the
    indentation they are shown with (_INDENT)."""
    kept: list[str] = []
    left = MESSAGE_CHARS - 2  # room for a " …" after the last line kept
    for line in (render.one_line(raw, MESSAGE_CHARS) for raw in text.splitlines()):
        if not line:
            continue
        cost = len(line) + (len(_INDENT) if kept else 0)
        if cost > left and left < 40:
            kept[-1] += " …"  # too little room for a part of the next line worth reading
            break
        if cost > left:
            kept.append(render.cut(line, left - (len(_INDENT) if kept else 0)))
            break
        kept.append(line)
        left -= cost
    return kept


def _in_tree(path: str, tree: object) -> str:
    """A file the session changed, relative to its work tree when inside it (the runtime names it absolute)."""
    base = tree.rstrip("/") + "/" if isinstance(tree, str) and tree else ""
    return path[len(base):] if base and path.startswith(base) else path


def render_block(h: dict, now: float, budget: int) -> str:
    """The block, at most `budget` characters ('' when not even its heading fits)."""
    value = h.get("ended")
    ended = float(value) if isinstance(value, (int, float)) else now
    where = ", ".join(x for x in (f"branch {h['branch']}" if h.get("branch") else "",
                                  f"bead {h['bead']}" if h.get("bead") else "", str(h.get("event") or "")) if x)
    head = f"## Last Session ({age(now - ended)}; {where})"
    footer = f"  Whole handoff: .beads/memory/recall.sh --handoff {h.get('id')}"
    if now - ended > STALE_DAYS * 86400:
        task = (h.get("task") or {}).get("first") or ""
        line = f"## Last Session ({age(now - ended)}): {render.one_line(task, 200)} (recall.sh --handoff {h.get('id')})"
        return line if len(line) <= budget else ""
    lines = _fields(h)
    while lines and len("\n".join([head, *lines, footer])) > budget:
        lines.pop()
    text = "\n".join([head, *lines, footer])
    return text if len(text) <= budget else ""
