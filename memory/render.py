"""The session-start block: how many live entries there are, the five newest, and how to search."""
from __future__ import annotations

import re

TYPE_CHECKING = False  # typing costs ~3 ms to import; annotations are strings here
if TYPE_CHECKING:
    pass

MAX_CHARS = 9000  # the runtimes cap injected context at 10,000 characters
SHOW = 5
LINE_CHARS = 100
SEARCH_HINT = '  Search: .beads/memory/recall.sh "keyword"'
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def one_line(text: str, limit: int = LINE_CHARS) -> str:
    """Text on a single line (control characters and newlines folded to spaces), cut to `limit`."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "…"


def label(entry_type: str) -> str:
    return "LEARN" if entry_type == "learned" else (entry_type or "note")[:5].upper()


def recent_knowledge(latest: list[dict], notes: list[str] | None = None) -> str:
    """The block for `latest` (deduplicated, newest first); '' when there is nothing to show."""
    if not latest:
        return ""
    lines = [f"## Recent Knowledge ({len(latest)} entries)", ""]
    for entry in latest[:SHOW]:
        source = one_line(str(entry.get("source") or "unknown"), 40)
        lines.append(f"  [{label(str(entry.get('type', '')))}] {one_line(entry['content'])}  ({source})")
    lines += ["", SEARCH_HINT]
    for note in notes or []:
        lines.append(f"  {one_line(note, 300)}")
    text = "\n".join(lines)
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"
