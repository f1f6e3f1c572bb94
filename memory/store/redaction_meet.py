"""Two redactions of one line, made in two clones: the line with both.

Clone A redacts one secret of an entry, clone B another secret of the same entry; each records the line as it
now stores it (memory.store.redactions), and each record holds, in the clear, the secret the other redacted.
After a merge the two lines and the two records stood side by side, neither record matching the other's line:
both secrets were back in the committed files. `meet` gives the line with every part either redacted hidden,
and memory.store.redactions.heal gives it to both records (`meet_records` there), which then rewrite both lines.
One clone's redaction may have renamed the entry's key (its automatic key held that secret) and the other's not:
the records are of one entry when type, time, capture and text agree but for what was redacted, and neither names
the other's key as not its own; they take the renamed key, and a key of theirs that holds the other's secret is
named by that clone's pattern instead.

The texts are compared word by word (a marker is one word): a word the result keeps stands in the clear in both
texts, so no word either clone hid comes back.
"""
from __future__ import annotations

import re

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

MARKER = "<redacted:manual>"
_APART = object()  # two values that are not redactions of one value
_WORDS = re.compile(re.escape(MARKER) + r"|\w+|\s+|.", re.S)
_WORD = re.compile(r"\w")


def meet(a: str, b: str) -> str | None:
    """`a` and `b`, two redactions of one text, as one text with every part either hid as the marker; None when
    they differ other than by what was redacted."""
    if a == b:
        return a
    if MARKER not in a and MARKER not in b:
        return None
    out: list[str] = []
    for same, mine, theirs in _runs(a, b):
        if same:
            out.extend(str(word) for word in mine)
        elif not any(isinstance(word, tuple) for word in mine + theirs):
            return None  # another change: not the same line
        elif not out or out[-1] != MARKER:
            out.append(MARKER)
    return "".join(out)


def hidden_parts(text: str, merged: str) -> list[str]:
    """The parts of `text` (one clone's redaction of a line) that `merged` (`meet` of it and another's) hides."""
    found: list[str] = []
    for same, mine, theirs in _runs(text, merged):
        if not same and any(isinstance(word, tuple) for word in theirs):
            # split at the text's own markers: what stood on either side of one was never one word
            pieces = "".join(word if isinstance(word, str) else "\0" for word in mine).split("\0")
            found += [piece.strip() for piece in pieces if piece.strip()]
    return found


def _runs(a: str, b: str) -> list[tuple[bool, list, list]]:
    """`a` and `b` aligned word by word: (True, the words both hold, …) or (False, `a`'s words, `b`'s words) for a
    run of changes; a space or a comma alike between two changes is inside one (overlapping redactions)."""
    from difflib import SequenceMatcher  # only when two redactions of one line meet: never on a hook's path

    left, right = _tokens(a, "a"), _tokens(b, "b")
    parts = [(op == "equal", left[i1:i2], right[j1:j2])
             for op, i1, i2, j1, j2 in SequenceMatcher(None, left, right, autojunk=False).get_opcodes()]
    runs: list[tuple[bool, list, list]] = []
    mine: list = []
    theirs: list = []
    for at, (same, ours, other) in enumerate(parts):
        inside = same and 0 < at < len(parts) - 1 and not any(str(w).strip() and _WORD.match(str(w)) for w in ours)
        if not same or inside:
            mine, theirs = mine + ours, theirs + other
            continue
        if mine or theirs:
            runs.append((False, mine, theirs))
            mine, theirs = [], []
        runs.append((True, ours, other))
    if mine or theirs:
        runs.append((False, mine, theirs))
    return runs


def _tokens(text: str, side: str) -> list[str | tuple[str, int]]:
    """The words of `text`, each marker a token of its own that equals no other (two markers stand for two
    different hidden texts: aligned with each other, the words beside them went astray)."""
    return [(side, at) if word == MARKER else word for at, word in enumerate(_WORDS.findall(text))]


def meet_lines(a: dict, b: dict, derived: tuple[str, ...]) -> dict | None:
    """Two redacted copies of one stored line as one (`meet` on each text that differs; the `derived` fields are
    `a`'s); None when they are not copies of one line."""
    if set(a) - set(derived) != set(b) - set(derived):
        return None
    out = dict(a)
    for name in set(a) - set(derived):
        value = _meet_value(a[name], b[name])
        if value is _APART:
            return None
        out[name] = value
    return out


def _meet_value(a: Any, b: Any) -> Any:
    if a == b:
        return a
    if isinstance(a, str) and isinstance(b, str):
        met = meet(a, b)
        return _APART if met is None else met
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        items = [_meet_value(x, y) for x, y in zip(a, b)]
        return _APART if any(item is _APART for item in items) else items
    return _APART

