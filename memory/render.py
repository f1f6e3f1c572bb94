"""Rendering shared by every block and command line: one-line text, type labels, control characters, the hint."""
from __future__ import annotations

import re

LINE_CHARS = 100
SEARCH_HINT = '  Search: .beads/memory/recall.sh "keyword" (add --all to search the archive too)'
# what a terminal would act on rather than show: C0 and C1 controls (ESC, CSI 0x9b, BEL...), DEL, line and
# paragraph separators, and the bidi embeddings/overrides/isolates that reorder the text around them
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")


def strip_control(text: str) -> str:
    """`text` safe to print: every run of control characters becomes one space."""
    return _CONTROL.sub(" ", text)


def escape_control(json_text: str) -> str:
    """Compact JSON safe to print, same data: control characters left raw (C1, bidi) become \\uXXXX escapes.
    (In JSON text these can only occur inside strings, where the escape means the same character.)"""
    return _CONTROL.sub(lambda m: "".join(f"\\u{ord(c):04x}" for c in m.group()), json_text)


def one_line(text: str, limit: int = LINE_CHARS) -> str:
    """Text on a single line (control characters and newlines folded to spaces), cut to `limit`."""
    flat = " ".join(strip_control(text).split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "…"


def label(entry_type: str) -> str:
    """The render tag of an entry type: [LEARN] [DECIDE] [WARN] [PATTERN]; other types their first letters."""
    from memory.entry import CONTROL_TYPES, TYPE_TAGS

    if entry_type in CONTROL_TYPES:
        return entry_type.upper()
    return TYPE_TAGS.get(entry_type) or (entry_type or "note")[:5].upper()
