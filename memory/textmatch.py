"""What a keyword search compares: one definition for recall.sh's scan and for the index's search text."""
from __future__ import annotations

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

SEARCHED_FIELDS = ("content", "key", "bead")


def fold(text: str) -> str:
    """Text as the search compares it: composed (NFC, so macOS's decomposed é equals é), case-folded
    (ß = ss, ς = σ, ﬁ = fi), and Turkish dotted and dotless i read as plain i."""
    if text.isascii():
        return text.lower()
    import unicodedata

    folded = unicodedata.normalize("NFC", text).casefold()
    return folded.replace("\u0131", "i").replace("\u0307", "")


def terms_of(words: Sequence[str]) -> list[str]:
    """The folded search terms: every whitespace-separated word of every argument."""
    return [term for term in (fold(word) for arg in words for word in arg.split()) if term]


def haystack(entry: dict) -> str:
    """The folded values a keyword is looked for in (never the JSON field names), one per line: a term
    holds no whitespace, so it is in the haystack exactly when it is in one of the values."""
    tags = entry.get("tags")
    values = [entry.get(name) for name in SEARCHED_FIELDS] + (tags if isinstance(tags, list) else [])
    return fold("\n".join([value for value in values if isinstance(value, str)]))


def matches(entry: dict, terms: Sequence[str]) -> bool:
    """Every term occurs somewhere in the entry (each on its own, in any field). One term: a plain
    case-insensitive substring search."""
    text = haystack(entry)
    return all(term in text for term in terms)
