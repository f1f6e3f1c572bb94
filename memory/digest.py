"""The session-start digest: `## Recent Knowledge (N entries)`, filled by priority within a budget.

Priority (each entry shown once, in the first group that wants it):
0. pinned entries (`recall.sh --pin KEY`);
1. entries of the bead in progress (from the branch `bd-<ID>` or the worktree `.worktrees/bd-<ID>`);
2. on `compact`, what this session had been given before its context was rewritten;
3. entries whose text names a file this branch changed;
4. the newest (`session_newest` of memory.config, more under Cursor).
The block never passes its budget: entries are cut to `entry_chars` first, then groups lose their
last entries, lowest priority first. Nothing at all when the knowledge is empty.
"""
from __future__ import annotations

import os
import re

from memory import render

MAX_FILE_ENTRIES = 10
MIN_ENTRY_CHARS = 200
_BEAD_FOLDER = re.compile(r"(?:^|/)\.worktrees/(bd-[^/]+)")


def bead_candidates(branch: str | None, cwd: str | None) -> set[str]:
    """Lowercased bead ids a `bd-<ID>` branch or `.worktrees/bd-<ID>` folder may stand for
    (`bd-BD-12` -> {bd-12, bd-bd-12}; beads' own ids look like `bd-a3f8`, so both forms count)."""
    names = [branch or ""]
    match = _BEAD_FOLDER.search((cwd or "").replace(os.sep, "/"))
    if match:
        names.append(match.group(1))
    found = set()
    for name in names:
        if name.lower().startswith("bd-") and len(name) > 3:
            found.update({name.lower(), name[3:].lower()})
    return found


def names_a_file(entry: dict, files: list[str]) -> bool:
    """True when the entry's text names one of `files` by path or by a distinctive file name."""
    text = entry.get("content") or ""
    for path in files:
        name = os.path.basename(path)
        if path in text or ("." in name and len(name) >= 6 and name in text):
            return True
    return False


class Group:
    """One labelled run of entries in the digest."""

    def __init__(self, label: str, entries: list[dict]) -> None:
        self.label, self.entries = label, entries


def choose(latest: list[dict], beads: set[str], files: list[str], again: list[str], newest: int) -> list[Group]:
    """The digest's groups, in priority order, each entry in the first group that wants it."""
    shown: set[str] = set()

    def take(entries: list[dict], limit: int | None = None) -> list[dict]:
        picked = [e for e in entries if e["key"] not in shown][:limit]
        shown.update(e["key"] for e in picked)
        return picked

    by_key = {e["key"]: e for e in latest}
    groups = [
        Group("Pinned", take([e for e in latest if e.get("pinned")])),
        Group("For the bead in progress", take([e for e in latest if str(e.get("bead", "")).lower() in beads])),
        Group("Given before the compaction", take([by_key[k] for k in again if k in by_key])),
        Group("About files changed on this branch",
              take([e for e in latest if names_a_file(e, files)], MAX_FILE_ENTRIES) if files else []),
        Group("Newest", take(latest, newest)),
    ]
    return [g for g in groups if g.entries]


def render_digest(total: int, groups: list[Group], notes: list[str], budget: int, entry_chars: int) -> str:
    """The block within `budget` characters (lowest-priority entries dropped first); '' when empty."""
    if total == 0:
        return ""
    chars = max(MIN_ENTRY_CHARS, entry_chars)
    while True:
        text = _compose(total, groups, notes, chars)
        if len(text) <= budget or not any(g.entries for g in groups):
            return text if len(text) <= budget else text[:max(0, budget - 1)] + "…"
        if chars > MIN_ENTRY_CHARS:
            chars = MIN_ENTRY_CHARS
            continue
        for group in reversed(groups):
            if group.entries:
                group.entries.pop()
                break


def _compose(total: int, groups: list[Group], notes: list[str], chars: int) -> str:
    lines = [f"## Recent Knowledge ({total} entries)"]
    shown = [g for g in groups if g.entries]
    for group in shown:
        lines.append("")
        if len(shown) > 1:  # a plain list when only the newest are shown
            lines.append(f"  {group.label}:")
        for entry in group.entries:
            source = render.one_line(str(entry.get("source") or "unknown"), 40)
            kind = render.label(str(entry.get("type", "")))
            lines.append(f"  [{kind}] {render.one_line(entry['content'], chars)}  ({source})")
    lines += ["", render.SEARCH_HINT]
    lines += [f"  {render.one_line(note, 300)}" for note in notes]
    return "\n".join(lines)


def record_hint(has_bd: bool) -> str:
    """The digest's last line: how this agent records an insight here (bd when it is on PATH)."""
    how = 'bd comment <ID> "LEARNED: …"' if has_bd else '.beads/memory/recall.sh --add "LEARNED: …"'
    return (f"Record: {how} (also DECISION:, WARNING:, PATTERN:; LEARNED[some-key]: replaces that entry; "
            "recall.sh --forget KEY)")
