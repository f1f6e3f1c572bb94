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
    return fold("\n".join(_values(entry)))


def _values(entry: dict) -> list[str]:
    tags = entry.get("tags")
    values = [entry.get(name) for name in SEARCHED_FIELDS] + (tags if isinstance(tags, list) else [])
    return [value for value in values if isinstance(value, str)]


def words(text: str) -> set[str]:
    """The runs of word characters (letters, digits, underscore: `\\w`) of a folded text: a term made of
    word characters only is in the text exactly when it is inside one of them (memory.search.find's word index)."""
    import re

    return set(re.findall(r"\w+", text))


def word_part(term: str) -> str:
    """The longest run of word characters of a term ("" when it has none): every text holding the term
    holds this run inside one of its words. Character by character as `\\w` decides (isalnum or "_"),
    without importing re."""
    runs, run = [], []
    for char in term:
        if char.isalnum() or char == "_":
            run.append(char)
        elif run:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    return max(runs, key=len)


def matches(entry: dict, terms: Sequence[str]) -> bool:
    """Every term occurs somewhere in the entry (each on its own, in any field). One term: a plain
    case-insensitive substring search. Field by field, as in `haystack` (a term holds no newline, and
    folding never joins two fields), stopping at the first that holds it."""
    content = entry.get("content")
    content = fold(content) if isinstance(content, str) else ""
    values: list[str] | None = None
    for term in terms:
        if term in content:  # where a keyword nearly always is: the other fields only when it is not
            continue
        if values is None:
            values = [fold(value) for value in _values(entry)]
        if not any(term in value for value in values):
            return False
    return True
