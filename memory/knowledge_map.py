"""The knowledge map: every live entry that session start does not show in full, as a short title, by topic.

The model judges relevance better than a ranker when it can see what exists, so the map puts a title of
every entry in view and `recall.sh "<words of a title>"` prints one in full. Over its budget, a stated
priority decides which entries keep a title (see `priority`); the rest stand as topic counts.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter

from memory import render
from memory.tokenize import STOP_WORDS

_WORD = re.compile(r"[^\W_][\w-]*[^\W_]")

GENERAL = "general"  # the topic of an entry with no vocabulary tag
TITLE_CHARS = (72, 60, 50, 44)  # tried longest first until every title fits
MIN_TITLE = 40  # a title cut shorter than this at a word boundary looks for the next boundary instead
OVERSHOOT = 12  # ...at most this far past the limit; else the cut falls mid-word
TYPE_ORDER = {"decision": 0, "warning": 0, "pattern": 1}  # everything else (learned) after
TOPIC_HINT = '.beads/memory/recall.sh "<topic>"'
READ_HINT = '.beads/memory/recall.sh "<words of a title>"'


def title(text: str, limit: int) -> str:
    """The entry's first words on one line: the whole text when it fits in `limit`, else cut at a word
    boundary (in scripts written without spaces, at a character that starts a new one) and marked `…`."""
    flat = " ".join(render.strip_control(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit + 1)
    if cut < MIN_TITLE:
        later = flat.find(" ", MIN_TITLE)
        cut = later if 0 < later <= limit + OVERSHOOT else limit
        while 0 < cut < len(flat) and unicodedata.combining(flat[cut]):
            cut -= 1  # never part a letter from its accent
    return flat[:cut].rstrip() + "…"


# instruction words every rule uses: no topic ("never use", "always run", "prefer", "avoid")
_GENERIC = frozenset(["use", "using", "used", "run", "running", "avoid", "prefer", "never", "don", "dont",
    "instead", "file", "files", "code", "add", "should", "must", "new", "make", "keep", "check", "sure", "write",
    "note", "default", "only", "first", "want", "work", "set", "need", "also", "like", "via", "always", "example",
    "e.g", "i.e", "one", "two", "all", "any"])
_MIN_TOPIC = 3  # entries a word must gather to be a topic
_MAX_SHARE = 0.34  # ...and at most this share of them (a word in half the entries says nothing)


def topics(entries: list[dict]) -> dict[str, str]:
    """{key: topic}: a word several entries share, chosen greedily (the word gathering the most entries not
    yet placed first), so `recall.sh WORD` lists a topic; `general` for an entry no such word holds."""
    words_of: dict[str, set[str]] = {}
    spelling: dict[str, Counter[str]] = {}
    for entry in entries:
        found = set()
        for word in _WORD.findall(str(entry.get("content", ""))):
            low = word.lower()
            if len(low) >= 3 and low not in STOP_WORDS and low not in _GENERIC and not low.isdigit():
                found.add(low)
                spelling.setdefault(low, Counter())[word] += 1
        words_of[str(entry["key"])] = found
    most = max(3 * _MIN_TOPIC, int(len(entries) * _MAX_SHARE))
    holders: dict[str, set[str]] = {}
    for key, found in words_of.items():
        for word in found:
            holders.setdefault(word, set()).add(key)
    holders = {w: keys for w, keys in holders.items() if len(keys) <= most}
    placed: dict[str, str] = {}
    while holders:
        word = max(holders, key=lambda w: (len(holders[w]), len(w), w))  # ties: the longer, rarer-looking word
        members = holders.pop(word)
        if len(members) < _MIN_TOPIC:
            break
        name = spelling[word].most_common(1)[0][0]
        for key in members:
            placed[key] = name
        for other in list(holders):  # an entry joins one topic only
            holders[other] -= members
    return {str(e["key"]): placed.get(str(e["key"]), GENERAL) for e in entries}


def priority(entries: list[dict], branch_files: list[str]) -> list[dict]:
    """Which entries keep a title first when not all fit: decisions and warnings, then patterns, then the
    rest; within each, entries naming a file this branch changed, then the newest."""
    from memory.digest import names_a_file

    def rank(entry: dict) -> tuple[int, int, float]:
        ts = entry.get("ts")
        return (TYPE_ORDER.get(str(entry.get("type")), 2),
                0 if branch_files and names_a_file(entry, branch_files) else 1,
                -float(ts) if isinstance(ts, (int, float)) else 0.0)

    return sorted(entries, key=rank)


def render_map(entries: list[dict], branch_files: list[str], budget: int) -> tuple[str, list[dict]]:
    """The map of `entries` within `budget` characters, and the entries it titles; ('', []) when there is
    nothing to map or not even the heading fits."""
    if not entries:
        return "", []
    placed = topics(entries)
    for limit in TITLE_CHARS:
        text = _compose(entries, entries, placed, limit)
        if len(text) <= budget:
            return text, entries
    ordered = priority(entries, branch_files)
    low, high = 0, len(ordered)  # the most titles that fit: composing is linear, so search for it
    while low < high:
        middle = (low + high + 1) // 2
        if len(_compose(entries, ordered[:middle], placed, TITLE_CHARS[-1])) <= budget:
            low = middle
        else:
            high = middle - 1
    text = _compose(entries, ordered[:low], placed, TITLE_CHARS[-1])
    return (text, ordered[:low]) if len(text) <= budget else ("", [])


def _compose(entries: list[dict], titled: list[dict], placed: dict[str, str], limit: int) -> str:
    keys = {str(e["key"]) for e in titled}
    per_topic: dict[str, list[dict]] = {}
    for entry in entries:  # topics in order of size, then name; titles newest first within a topic
        per_topic.setdefault(placed[str(entry["key"])], []).append(entry)
    order = sorted(per_topic, key=lambda t: (t == GENERAL, -len(per_topic[t]), t))
    lines = [f"  Map of the other {_count(len(entries))} by topic (read one in full: {READ_HINT}):"]
    untitled: list[str] = []
    for name in order:
        members = per_topic[name]
        shown = sorted((e for e in members if str(e["key"]) in keys), key=_newest_first)
        if not shown:
            untitled.append(f"{name} ({len(members)})")
            continue
        more = f", {len(members) - len(shown)} more" if len(shown) < len(members) else ""
        lines.append(f"  {name} ({len(members)}{more}):")
        for entry in shown:
            kind = str(entry.get("type"))
            tag = f"[{render.label(kind)}] " if kind in TYPE_ORDER else ""
            lines.append(f"  - {tag}{title(str(entry.get('content', '')), limit)}")
    hidden = len(entries) - len(titled)
    if hidden:
        topics_left = f"; only counted: {', '.join(untitled)}" if untitled else ""
        lines.append(f"  Not listed: {_count(hidden)}{topics_left}. List a topic: {TOPIC_HINT}")
    return "\n".join(lines)


def _newest_first(entry: dict) -> float:
    ts = entry.get("ts")
    return -float(ts) if isinstance(ts, (int, float)) else 0.0


def _count(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"
