"""The marked line of a message: one that starts with LEARNED:, DECISION:, WARNING: or PATTERN: (after a list
bullet or number, or bold, at most; a key in brackets is fine), outside fenced code blocks, with the lines that go
on with it (see _Run.goes_on). One definition for the reply capture (memory.capture.reply_capture) and the handoff
that leaves captured lines out (and code blocks)."""
from __future__ import annotations

import re

MARKERS = ("LEARNED", "DECISION", "WARNING", "PATTERN")
_MARKED_LINE = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?(?:\*\*|__)?(?:LEARNED|DECISION|WARNING|PATTERN)"
                          r"(?:\[[^\]\n]*\])?(?:\*\*|__)?[ \t]*:")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")


def _fence(line: str, opened: str | None, strict: bool = True) -> str | None:
    """The fence a code block is in after `line` (None: outside any): a line of three or more backticks or
    tildes opens one; only the same character, at least as many and nothing after them closes it (CommonMark: a
    ```` fence quotes ``` lines as code). Not `strict`: any fence line closes one."""
    found = _FENCE.match(line)
    if found is None:
        return opened
    mark, rest = found.group(1), found.group(2)
    if opened is None:
        return None if mark[0] == "`" and "`" in rest else mark  # `` ```a``` `` on one line is inline code
    if not strict:
        return None
    return None if mark[0] == opened[0] and len(mark) >= len(opened) and not rest.strip() else opened


def _code(lines: list[str]) -> list[str]:
    """Each line's part: "text", "open" (a fence opening a code block), "code" or "close". As CommonMark reads
    fences, unless that leaves a block open at the end: a model quoting a Markdown file with ``` inside ```
    would hide the rest of its message, so then any fence line closes a block (as fences were read before)."""
    parts: list[str] = []
    for strict in (True, False):
        parts = []
        fence: str | None = None
        for line in lines:
            before, fence = fence, _fence(line, fence, strict)
            parts.append("text" if before is None and fence is None else "open" if before is None
                         else "close" if fence is None else "code")
        if fence is None:
            break
    return parts


def marked_lines(text: str, marked: bool = True) -> str:
    """The lines of `text` that start with a marker, and those that go on with one (_Run.goes_on), outside fenced
    code blocks (`marked=False`: every other line, the fences too)."""
    runs = marked_runs(text)
    ours = {at for run in runs for at, _ in run}
    lines = text.splitlines()
    return "\n".join(line for at, line in enumerate(lines) if (at in ours) == marked)


def marked_runs(text: str) -> list[list[tuple[int, str]]]:
    """Each marked line with the lines that go on with it, as (line number, line)."""
    runs: list[list[tuple[int, str]]] = []
    run: _Run | None = None
    lines = text.splitlines()
    for at, (line, part) in enumerate(zip(lines, _code(lines))):
        if part != "text":  # a fence line, or code
            run = None
        elif _MARKED_LINE.match(line):
            run = _Run(line)
            runs.append([(at, line)])
        elif run is not None and run.goes_on(line):
            runs[-1].append((at, line))
        elif run is not None and not run.waits(line):
            run = None
    return runs


_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_BREAK = re.compile(r"[ \t]*(?:#|>|\||(?:[-*_][ \t]*){3,}$)")  # a heading, a quote, a table row, a rule


class _Run:
    """A marked line and the lines that went on with it so far."""

    def __init__(self, line: str) -> None:
        self.depth, self.last, self.listing, self.waited = _depth(line), line, -1, False
        self.item = bool(_ITEM.match(line))  # a list item itself: the items after it at its depth are siblings

    def goes_on(self, line: str) -> bool:
        """Whether `line` is part of the insight, as Markdown reads it: a line indented under the marked one (its
        sub-items: `deploys take two steps:` / `  1. make migrate`), or an item of the list its text opens with
        a colon at its own depth (when the marked line is no list item itself: an item's are its siblings).
        Anything else ends it (a blank line, a heading, a quote, another item, a line of prose even in lower
        case: the reply goes on to other things, and a line lost from an insight costs less than an unrelated
        line stored in it)."""
        if not line.strip() or _BREAK.match(line):
            return False
        depth = _depth(line)
        if depth > self.depth:
            goes_on = True
        elif _ITEM.match(line):
            goes_on = depth == self.listing or (depth == self.depth and not self.item
                                                and self.last.rstrip().endswith(":"))
            self.listing = depth if goes_on else self.listing
        else:
            goes_on = False
        self.last, self.waited = (line, False) if goes_on else (self.last, self.waited)
        return goes_on

    def waits(self, line: str) -> bool:
        """One blank line between a line ending in a colon and the list it opens (`two steps:` / `` / `1. …`)."""
        if line.strip() or self.waited or not self.last.rstrip().endswith(":"):
            return False
        self.waited = True
        return True


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def without_code(text: str) -> str:
    """`text` with each fenced code block (an unclosed one runs to the end) as one line saying how long it was: a
    reply's code spends a short excerpt's budget on what only reads whole."""
    kept: list[str] = []
    code: list[str] | None = None
    lines = text.splitlines()
    for line, part in zip(lines, _code(lines)):
        if part == "open":
            code = []
        elif part == "close":
            kept.append(_left_out(code or []))
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
