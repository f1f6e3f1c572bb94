"""The active view of the knowledge lines: latest per key, forgotten keys left out, pins applied.

The files hold two kinds of lines (docs/entries.md): entries, which carry `content`, and control lines
(`forget`, `pin`, `unpin`, `approve`, no `content`) that apply to a key. Nothing is deleted (only
`recall.sh --redact` rewrites lines: memory.commands.rewrite): every read path goes through `latest`, so a forget hides
a key everywhere at once, and a later entry with the same key brings it back (the documented way to correct
an insight). Order is latest-wins: the highest `ts`, then the later line.

One insight under two keys (two teammates recorded it, each in their clone, before a merge brought both
lines together; a capture refuses the second copy only where it sees the first) is one entry: the newest
copy (a pinned one first) stands for it, the other is left out (`same_text`).

Held entries (memory.store.hold: text the screen flags, not approved as it stands) are left out of `latest` too,
unless a caller that shows them to a person asks for them (`include_held`): every path that injects
knowledge into a session reads through here or through memory.search.index, which applies the same rule.
"""
from __future__ import annotations

from memory import TYPE_CHECKING
from memory.core.shape import APPROVE, FORGET, PIN, UNPIN

if TYPE_CHECKING:
    from collections.abc import Iterable

Rank = tuple  # (ts, position)


def is_control(line: dict) -> bool:
    """A control line (the readers admit only entries and control lines: no content means control)."""
    return "content" not in line


def _rank(line: dict, position: int) -> Rank:
    ts = line.get("ts", 0)
    return (ts if isinstance(ts, (int, float)) else 0, position)


class State:
    """Per key: the latest entry, the latest forget and the latest pin or unpin, each with its rank."""

    def __init__(self, lines: Iterable[dict]) -> None:
        self.entries: dict[str, tuple[Rank, dict]] = {}
        self.forgets: dict[str, tuple[Rank, dict]] = {}
        self.pins: dict[str, tuple[Rank, dict]] = {}
        self.approved: dict[str, set] = {}  # key -> the sha of each text approved for it
        for position, line in enumerate(lines):
            kind = line.get("type")
            if kind == APPROVE and is_control(line):
                sha = line.get("sha")
                if isinstance(sha, str):  # any other sha (a hand edit) approves no text, and hashes as none
                    self.approved.setdefault(line["key"], set()).add(sha)
                continue
            if not is_control(line):
                table = self.entries
            elif kind == FORGET:
                table = self.forgets
            elif kind in (PIN, UNPIN):
                table = self.pins
            else:
                continue
            rank = _rank(line, position)
            current = table.get(line["key"])
            if current is None or rank > current[0]:
                table[line["key"]] = (rank, line)

    def forgotten(self, key: str) -> bool:
        """The key's latest line of content is older than its latest forget (or it has none)."""
        forget = self.forgets.get(key)
        if forget is None:
            return False
        held = self.entries.get(key)
        return held is None or forget[0] > held[0]

    def pinned(self, key: str) -> bool:
        """The key's latest pin/unpin is a pin, given after its latest forget."""
        pin = self.pins.get(key)
        if pin is None or pin[1].get("type") != PIN:
            return False
        forget = self.forgets.get(key)
        return forget is None or pin[0] > forget[0]

    def held(self, key: str) -> list[str]:
        """Why the key's latest entry is held for review ([] when it is not: clean, or this text approved)."""
        from memory.store import hold

        return hold.reasons(self.entries[key][1], self.approved.get(key, ()))

    def _current(self) -> list[tuple[str, dict]]:
        newest_first = sorted(self.entries.items(), key=lambda item: item[1][0], reverse=True)
        return [(key, entry) for key, (_, entry) in newest_first if not self.forgotten(key)]

    def current(self) -> list[dict]:
        """Each key's latest entry unless it is forgotten, held or not, as stored (no screening, no pin
        marks), newest first: what a write compares its text with."""
        return [entry for _, entry in self._current()]

    def live(self, include_held: bool = False, cache_dir: str | None = None, every_copy: bool = False) -> list[dict]:
        """The live entries, newest first; a pinned one comes as a copy with `"pinned": True`. Held entries
        are left out, or with `include_held` come as a copy with `"held": [reasons]`. With `cache_dir` (a
        memory folder) the screen's verdicts come from its cache (memory.store.hold.warm). One text under
        several keys comes once (`distinct`), or with `every_copy` under each (a person cleaning up)."""
        ordered = self._current()
        if cache_dir is not None:
            from memory.store import hold

            hold.warm(cache_dir, [entry["content"] for _, entry in ordered])
        out = []
        for key, entry in ordered:
            held = self.held(key)
            if held and not include_held:
                continue
            if self.pinned(key):
                entry = dict(entry, pinned=True)
            if held:
                entry = dict(entry, held=held)
            elif "held" in entry:  # `held` is this view's verdict, never a line's own field (a hand edit's)
                entry = {name: value for name, value in entry.items() if name != "held"}
            out.append(entry)
        return out if every_copy else distinct(out)


_PUNCTUATION = b"!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"  # ASCII; `_` joins words, as in `\w`
_TO_SPACE = bytes.maketrans(_PUNCTUATION, b" " * len(_PUNCTUATION))


def same_text(content: object) -> bytes:
    """What two copies of one insight share: the words, case-folded, ASCII punctuation read as a space
    ("Run `make itest`." = "run make itest"); b"" for no text. As memory.store.dedupe.normalized compares,
    without `re` (keyword recall imports none), at a microsecond an entry (bytes.translate)."""
    if not isinstance(content, str):
        return b""
    return b" ".join(content.casefold().encode("utf-8", "surrogatepass").translate(_TO_SPACE).split())


def distinct(entries: list[dict]) -> list[dict]:
    """`entries` (newest first) with each text once: the first copy, or a pinned one in its place."""
    out: list[dict] = []
    first: dict[bytes, int] = {}
    for entry in entries:
        text = same_text(entry.get("content"))
        at = first.get(text) if text else None
        if at is None:
            if text:
                first[text] = len(out)
            out.append(entry)
        elif entry.get("pinned") and not out[at].get("pinned"):
            out[at] = entry
    return out


def latest(lines: list[dict], include_held: bool = False, cache_dir: str | None = None,
           every_copy: bool = False) -> list[dict]:
    """One entry per key, the latest (highest ts, then later line) winning; newest first. Forgotten keys
    are left out; pinned entries come back with `"pinned": True`; held ones are left out (with
    `include_held`, marked `"held": [reasons]`). `cache_dir`, `every_copy`: see State.live."""
    return State(lines).live(include_held, cache_dir, every_copy)


def deciding(lines: list[dict], limit: int) -> tuple[list[dict], dict[str, float]]:
    """The lines of `lines` that decide the view of them followed by any later lines, in their order: per
    key the latest entry (unless forgotten), forget and pin or unpin, and each distinct approval, with
    entries for the `limit` newest live keys and the pinned ones only; and the live keys past the limit, with
    the `ts` of their entry. Latest-wins takes a maximum per key and kind, so the other lines can change
    nothing: a forgotten key's entry is never shown again, and a later entry comes back on its own, as long as
    its forget is kept. A later line of a key past the limit needs that key's lines (memory.store.archived)."""
    state = State(lines)
    current = state._current()
    shown = {key for key, _ in current[:limit]} | {key for key, _ in current[limit:] if state.pinned(key)}
    keep = {id(state.entries[key][1]) for key in shown}
    keep |= {id(line) for table in (state.forgets, state.pins) for _, line in table.values()}
    approvals: set[tuple] = set()
    out = []
    for line in lines:
        if id(line) in keep:
            out.append(line)
        elif line.get("type") == APPROVE and is_control(line) and isinstance(line.get("sha"), str):
            approval = (line["key"], line["sha"])
            if approval not in approvals:
                approvals.add(approval)
                out.append(line)
    past = {key: float(state.entries[key][0][0]) for key, _ in current[limit:] if key not in shown}
    return out, past


def history(lines: list[dict], key: str) -> list[dict]:
    """Every line of `key` (versions, forgets, pins), oldest first in latest-wins order."""
    mine = [(_rank(line, at), line) for at, line in enumerate(lines) if line.get("key") == key]
    return [line for _, line in sorted(mine, key=lambda item: item[0])]


def resolve(lines: list[dict], name: str) -> list[str]:
    """The keys `name` may mean: itself when some line has it, else every `<type>-<name>` that exists."""
    keys = {line["key"] for line in lines}
    if name in keys:
        return [name]
    return sorted(k for k in keys if k.split("-", 1)[-1] == name)


SUGGESTIONS = 5


def suggest(lines: list[dict], name: str, limit: int = SUGGESTIONS, every_version: bool = False) -> list[str]:
    """Keys a person may have meant by `name` when `resolve` finds none (`--pin werkzeug`; keys are 60-char
    slugs nobody types): live keys holding every word of it, then live entries whose text holds every word,
    newest first. With `every_version`, forgotten keys and older versions too (a leaked secret may be in
    any). Only proposed, never applied."""
    from memory.core import textmatch

    terms = textmatch.terms_of([name.replace("-", " ")])
    if not terms:
        return []
    live = [e for e in reversed(lines) if not is_control(e)] if every_version else latest(lines)
    in_key = [e["key"] for e in live if all(term in textmatch.fold(e["key"]) for term in terms)]
    in_text = [e["key"] for e in live if textmatch.matches(e, terms)]
    return list(dict.fromkeys(in_key + in_text))[:limit]
