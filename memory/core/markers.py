"""The marked line of a message: one that starts with LEARNED:, DECISION:, WARNING: or PATTERN: (after a list
bullet or number, or bold, at most; a key in brackets is fine), outside fenced code blocks, with the lines that go
on with it (see _goes_on). One definition for the reply capture (memory.capture.reply_capture) and the handoff
that leaves captured lines out (and code blocks)."""
from __future__ import annotations

import re

MARKERS = ("LEARNED", "DECISION", "WARNING", "PATTERN")
_MARKED_LINE = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?(?:\*\*|__)?(?:LEARNED|DECISION|WARNING|PATTERN)"
                          r"(?:\[[^\]\n]*\])?(?:\*\*|__)?[ \t]*:")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


def marked_lines(text: str, marked: bool = True) -> str:
    """The lines of `text` that start with a marker, and those that go on with one (_goes_on), outside fenced code
    blocks (`marked=False`: every other line, the fences too)."""
    kept, fenced = [], False
    run: _Run | None = None
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced, is_marked, run = not fenced, False, None
        elif fenced:
            is_marked = False
        elif _MARKED_LINE.match(line):
            is_marked, run = True, _Run(line)
        else:
            is_marked = run is not None and run.goes_on(line)
            run = run if is_marked else None
        if is_marked == marked:
            kept.append(line)
    return "\n".join(kept)


_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_BREAK = re.compile(r"[ \t]*(?:#|>|\||(?:[-*_][ \t]*){3,}$)")  # a heading, a quote, a table row, a rule


class _Run:
    """A marked line and the lines that went on with it so far."""

    def __init__(self, line: str) -> None:
        self.depth, self.last, self.listing = _depth(line), line, -1

    def goes_on(self, line: str) -> bool:
        """Whether `line` is part of the insight, as Markdown reads it: a line indented under the marked one (its
        sub-items: `deploys take two steps:` / `  1. make migrate`), the items of a list its text opens with a
        colon, or a hard-wrapped line of its sentence (the line before ends mid-sentence, this one goes on in
        lower case). A blank line, a heading, a quote or another item ends it: the reply goes on to other things,
        and a line lost from an insight costs less than an unrelated line stored in it."""
        if not line.strip() or _BREAK.match(line):
            return False
        depth, last = _depth(line), self.last.rstrip()
        if depth > self.depth:
            goes_on = True
        elif _ITEM.match(line):
            goes_on = depth == self.listing or last.endswith(":")
            self.listing = depth if goes_on else self.listing
        else:
            goes_on = not last.endswith((".", "!", "?", ":")) and line.lstrip()[:1].islower()
        self.last = line if goes_on else self.last
        return goes_on


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def without_code(text: str) -> str:
    """`text` with each fenced code block (an unclosed one runs to the end) as one line saying how long it was: a
    reply's code spends a short excerpt's budget on what only reads whole."""
    kept: list[str] = []
    code: list[str] | None = None
    for line in text.splitlines():
        if _FENCE.match(line):
            if code is None:
                code = []
                continue
            kept.append(_left_out(code))
            code = None
        elif code is None:
            kept.append(line)
        else:
            code.append(line)
    if code is not None:
        kept.append(_left_out(code))
    return "\n".join(kept)


def _left_out(code: list[str]) -> str:
    return f"[{len(code)} line{'s' if len(code) != 1 else ''} of code left out]"
