"""The session-start digest: `## Recent Knowledge (N entries)`, filled by priority within a budget.

Priority (each entry shown once, in the first group that wants it):
0. pinned entries (`recall.sh --pin KEY`);
1. entries of the bead in progress (from the branch `bd-<ID>` or the worktree `.worktrees/bd-<ID>`);
2. on `compact`, what this session had been given before its context was rewritten;
3. entries whose text names a file this branch changed;
4. the newest (`session_newest` of memory.core.config, more under Cursor).
The block never passes its budget: entries are cut to `entry_chars` first, then groups lose their
last entries, lowest priority first. Nothing at all when the knowledge is empty.
"""
from __future__ import annotations

from memory.core import focus, render

MAX_FILE_ENTRIES = 10
MIN_ENTRY_CHARS = 200
class Group:
    """One labelled run of entries in the digest."""

    def __init__(self, label: str, entries: list[dict]) -> None:
        self.label, self.entries = label, entries
        self.cut = False  # some of its entries were dropped for the budget: its label says how many are shown


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
              take([e for e in latest if focus.names_a_file(e, files)], MAX_FILE_ENTRIES) if files else []),
        Group("Newest", take(latest, newest)),
    ]
    return [g for g in groups if g.entries]


MAP_SHARE = 0.6  # of the room for entries, what the map may take from the groups shown in full


def render_digest(latest: list[dict], groups: list[Group], notes: list[str], budget: int, entry_chars: int,
                  branch_files: list[str] | None = None, placed: dict[str, str] | None = None,
                  uses: dict[str, int] | None = None) -> str:
    """The block within `budget` characters: the groups in full (lowest-priority entries dropped first, and
    at least 1 - MAP_SHARE of the budget theirs), then a map of every other live entry of `latest`
    (memory.surface.knowledge_map). '' when the knowledge is empty. `placed`: knowledge_map.topics(latest),
    when known (memory.surface.start_cache); `uses`: how the agent used entries (memory.surface.use), for the
    map's priority."""
    if not latest:
        return ""
    from memory.surface import knowledge_map

    files = branch_files or []
    in_full = {e["key"] for g in groups for e in g.entries}
    placed = knowledge_map.topics(latest) if placed is None else placed
    outside = [e for e in latest if e["key"] not in in_full]
    frame = len(_compose(len(latest), [], notes, MIN_ENTRY_CHARS))  # headings and hints: no entry's room
    room = budget - frame
    # the map would take all it may (no need to draw it twice), or every entry is in a group and they cannot all
    # be shown in full: the map's share stands for those they drop (all went, with no map and no count)
    if knowledge_map.overflows(outside, room) or \
            not outside and len(_compose(len(latest), groups, notes, MIN_ENTRY_CHARS)) > budget:
        groups_budget = frame + int(room * (1 - MAP_SHARE))
    else:
        natural, _ = knowledge_map.render_map(outside, files, budget, placed)
        groups_budget = frame + max(room - len(natural) - 2, int(room * (1 - MAP_SHARE))) if natural else budget
    text = _fit(len(latest), groups, notes, groups_budget, entry_chars)
    in_full = {e["key"] for g in groups for e in g.entries}  # the budget may have dropped some
    rest = [e for e in latest if e["key"] not in in_full]
    head, hint, tail = text.partition("\n\n" + render.SEARCH_HINT)
    if not rest or not hint:  # nothing more to map, or the groups were cut short: no room left
        return text
    the_map, _ = knowledge_map.render_map(rest, files, budget - len(text) - 2, placed, uses)
    return f"{head}\n\n{the_map}\n\n{render.SEARCH_HINT}{tail}" if the_map else text


PINNED_SHARE = 0.5  # of the groups' room, what pins may take while another group has entries to show
PINNED_HINT = ".beads/memory/recall.sh --pinned lists all"


def _fit(total: int, groups: list[Group], notes: list[str], budget: int, entry_chars: int) -> str:
    chars = max(MIN_ENTRY_CHARS, entry_chars)
    pinned = groups[0] if groups and groups[0].label == "Pinned" else None
    pins = len(pinned.entries) if pinned else 0
    while True:
        text = _compose(total, groups, notes, chars)
        if len(text) <= budget or not any(g.entries for g in groups):
            return text if len(text) <= budget else text[:max(0, budget - 1)] + "…"
        if chars > MIN_ENTRY_CHARS:
            chars = MIN_ENTRY_CHARS
            continue
        # many pins would leave no room for the bead in progress, the branch's files or the newest: past their
        # share, pins go first (to the map, where they keep the first titles: memory.surface.knowledge_map)
        crowding = pinned is not None and len(pinned.entries) > 1 and any(g.entries for g in groups[1:]) \
            and sum(len(e["content"][:chars]) + 10 for e in pinned.entries) > PINNED_SHARE * budget
        for group in [pinned] if crowding else reversed(groups):
            if group and group.entries:
                group.entries.pop()
                if pinned and len(pinned.entries) < pins:
                    pinned.label = f"Pinned ({len(pinned.entries)} of {pins} in full; {PINNED_HINT})"
                    pinned.cut = True
                break


def _compose(total: int, groups: list[Group], notes: list[str], chars: int) -> str:
    lines = [f"## Recent Knowledge ({total} entr{'y' if total == 1 else 'ies'})", render.FRAMING]
    shown = [g for g in groups if g.entries]
    for group in shown:
        lines.append("")
        if len(shown) > 1 or group.cut:  # a plain list when only the newest are shown; a group cut short says so
            lines.append(f"  {group.label}:")  # (`Pinned (52 of 80 in full; …)`)
        for entry in group.entries:
            kind = render.label(str(entry.get("type", "")))
            lines.append(f"  [{kind}] {render.one_line(entry['content'], chars)}")
    lines += ["", render.SEARCH_HINT]
    lines += [f"  {render.one_line(note, 300)}" for note in notes]
    return "\n".join(lines)


def older_note(older: int) -> str:
    """The line for the archive's oldest live entries, which session start does not read
    (memory.store.archived.ARCHIVE_LIVE)."""
    return (f"Older: {older} more entr{'y' if older == 1 else 'ies'} stand only in the archive, not counted above "
            "(add --all to a search to read them).")


def record_hint(has_bd: bool) -> str:
    """The digest's last line: how this agent records an insight here (bd when it is on PATH)."""
    how = 'bd remember "…" or bd comment <ID> "LEARNED: …"' if has_bd else '.beads/memory/recall.sh --add "LEARNED: …"'
    return (f"Record: {how} (also DECISION:, WARNING:, PATTERN:; LEARNED[some-key]: replaces that entry; "
            ".beads/memory/recall.sh --forget KEY)")
