"""The marked line of a message: one that starts with LEARNED:, DECISION:, WARNING: or PATTERN: (after a list
bullet or number, or bold, at most; a key in brackets is fine), outside fenced code blocks. One definition for
the reply capture (memory.capture.reply_capture) and the handoff that leaves captured lines out (and code blocks)."""
from __future__ import annotations

import re

MARKERS = ("LEARNED", "DECISION", "WARNING", "PATTERN")
_MARKED_LINE = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?(?:\*\*|__)?(?:LEARNED|DECISION|WARNING|PATTERN)"
                          r"(?:\[[^\]\n]*\])?(?:\*\*|__)?[ \t]*:")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


def marked_lines(text: str, marked: bool = True) -> str:
    """The lines of `text` that start with a marker, outside fenced code blocks, one per line (`marked=False`:
    every other line, the fences too)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            is_marked = False
        else:
            is_marked = not fenced and bool(_MARKED_LINE.match(line))
        if is_marked == marked:
            kept.append(line)
    return "\n".join(kept)


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
