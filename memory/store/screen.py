"""Screening an entry's text for what would steer an agent rather than inform it: text -> reasons ([] = clean).

Looks for hidden characters (zero-width, bidi controls, Unicode tags: anywhere in the text), homoglyph words
(Latin mixed with Cyrillic or Greek look-alikes), and, on the text with those undone (NFKC, look-alikes
folded, hidden characters dropped), the phrasings of memory.store.screen_patterns: instruction overrides and
role changes in several languages, fake system markers, text addressed to the model, downloads run as code,
secrets sent out. Clean text costs a few cheap searches (each category has a trigger that must match before its
pattern runs); the patterns compile on first need, so importing this module costs nearly nothing.
"""
from __future__ import annotations

from memory import TYPE_CHECKING
from memory.store import screen_patterns as sp

if TYPE_CHECKING:
    from re import Pattern

VERSION = sp.VERSION
HIDDEN = "hidden characters"
HOMOGLYPHS = "homoglyphs"

# invisible or reordering characters no rule needs: zero-width and joiners, bidi marks/embeddings/overrides/
# isolates, invisible operators, fillers, interlinear annotations, Unicode tags, variation selectors 17-256
_HIDDEN_RANGES = ((0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
                  (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0x3164, 0x3164),
                  (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB), (0x1D173, 0x1D17A), (0xE0000, 0xE007F),
                  (0xE0100, 0xE01EF))
_ZWJ, _TAG_END, _BLACK_FLAG = 0x200D, 0xE007F, 0x1F3F4
# Cyrillic and Greek letters drawn like Latin ones (a subset of Unicode's confusables: the ones attacks use)
_LOOKALIKES = {
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X",
    "І": "I", "Ј": "J", "Ѕ": "S", "Ү": "Y",
    "ο": "o", "α": "a", "ε": "e", "ι": "i", "ν": "v", "τ": "t", "κ": "k", "ρ": "p", "υ": "u",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X",
}
_compiled: dict[str, Pattern[str]] = {}
_verdicts: dict[str, list[str]] = {}  # text -> reasons, this process: computed here or known from the index


def remember(text: str, found: list[str]) -> None:
    """Record the verdict on `text` someone already computed (memory.search.find has it from the index)."""
    _verdicts[text] = list(found)


def _re(name: str, source: str, ignore_case: bool = True) -> Pattern[str]:
    pattern = _compiled.get(name)
    if pattern is None:
        import re

        pattern = _compiled[name] = re.compile(source, re.IGNORECASE if ignore_case else 0)
    return pattern


def _is_hidden(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _HIDDEN_RANGES)


def hidden_characters(text: str) -> list[tuple[int, int]]:
    """(position, code point) of each hidden character. A zero-width joiner inside an emoji sequence and the
    tag letters of a subdivision flag (🏴 + tags + cancel tag) are how emoji are spelled, and pass."""
    found = []
    flag_tags = False
    for at, char in enumerate(text):
        code = ord(char)
        if code < 0x034F:
            continue
        if code == _BLACK_FLAG:
            flag_tags = True
            continue
        if flag_tags and 0xE0020 <= code <= _TAG_END:
            flag_tags = code != _TAG_END
            continue
        flag_tags = False
        if code == _ZWJ and 0 < at < len(text) - 1 and ord(text[at - 1]) > 0x2000 and ord(text[at + 1]) > 0x2000:
            continue  # 👩‍💻: joins two pictographs
        if _is_hidden(code):
            found.append((at, code))
    return found


def _script(char: str) -> str:
    code = ord(char)
    if char.isascii() or 0xC0 <= code <= 0x24F:
        return "latin"
    if 0x370 <= code <= 0x3FF:
        return "greek"
    if 0x400 <= code <= 0x52F:
        return "cyrillic"
    return "other"


def homoglyph_words(text: str) -> list[str]:
    """Words spelled with look-alike letters: Latin mixed with Cyrillic/Greek look-alikes (`іgnore`), or, in
    mostly-Latin text, a word of three or more look-alikes only (`ѕуѕтем`)."""
    words = _re("words", r"[^\W\d_]+").findall(text)
    latin_letters = sum(1 for c in text if c.isascii() and c.isalpha())
    foreign_letters = sum(1 for c in text if c.isalpha() and _script(c) in ("greek", "cyrillic"))
    found = []
    for word in words:
        scripts = {_script(c) for c in word}
        if not scripts & {"greek", "cyrillic"}:
            continue
        foreign = [c for c in word if _script(c) in ("greek", "cyrillic")]
        if not all(c in _LOOKALIKES for c in foreign):
            continue
        if "latin" in scripts or (len(word) >= 3 and latin_letters > 2 * foreign_letters):
            found.append(word)
    return found


def unmasked(text: str) -> str:
    """The text as it reads: compatibility forms normalised (fullwidth, styled letters), look-alike words
    spelled in Latin, hidden characters dropped."""
    if text.isascii():
        return text
    import unicodedata

    plain = unicodedata.normalize("NFKC", "".join(c for c in text if not _is_hidden(ord(c))))
    for word in homoglyph_words(plain):
        plain = plain.replace(word, "".join(_LOOKALIKES.get(c, c) for c in word))
    return plain


def reasons(text: str) -> list[str]:
    """Why `text` should be held for review before any agent reads it; [] when nothing was found."""
    if not isinstance(text, str) or not text:
        return []
    known = _verdicts.get(text)
    if known is not None:
        return list(known)
    found = _screen(text)
    _verdicts[text] = found
    return list(found)


def _words(text: str) -> set[str]:
    """An ASCII text's lowercase words, a secret-named one (GITHUB_TOKEN) also as `token`; the markup that wakes
    the marker and addressed patterns as words of its own."""
    low = text.lower()
    # case-blind matching would add nothing to lowercased ASCII, and costs its compile ~0.2 ms (Unicode case folds)
    words = set(_re("ascii-words", r"[a-z0-9_]+", ignore_case=False).findall(low))
    if any(w.endswith(sp.SECRET_SUFFIXES) for w in words if "_" in w):
        words.add("token")
    if "<!--" in low:
        words.add("ai")
    if "<|" in low:
        words.add("system")
    return words


def suspect(text: str) -> bool:
    """False only for ASCII text none of whose words a pattern needs: the cheap test that spares the patterns."""
    return not text.isascii() or not _words(text).isdisjoint(sp.SUSPECT_WORDS)


def _screen(text: str) -> list[str]:
    if not suspect(text):
        return []
    found: list[str] = []
    if not text.isascii():
        hidden = hidden_characters(text)
        if hidden:
            where = ", ".join(f"U+{code:04X} at {at}" for at, code in hidden[:3])
            found.append(f"{HIDDEN} ({where}{', …' if len(hidden) > 3 else ''})")
        lookalike = homoglyph_words(text)
        if lookalike:
            found.append(f"{HOMOGLYPHS} ({', '.join(lookalike[:3])})")
        text = unmasked(text)
    # a pattern runs when the text may hold what it needs: for ASCII text, one of its words (screen_patterns);
    # for other scripts, where words are not split by spaces, a match of its trigger
    words = _words(text) if text.isascii() else None

    def may(name: str, needed: frozenset, trigger: str) -> bool:
        return not words.isdisjoint(needed) if words is not None else bool(_re(name + "?", trigger).search(text))

    for reason, trigger, pattern in sp.CATEGORIES:
        if may(reason, sp.CATEGORY_WORDS[reason], trigger) and _re(reason, pattern).search(text):
            found.append(reason)
    if may("remote", sp.REMOTE_WORDS, sp.REMOTE_TRIGGER) and _re("remote", sp.REMOTE_PATTERN).search(text):
        found.append(sp.REMOTE)
    if ((may("exfil-cmd", sp.EXFIL_COMMAND_WORDS, sp.EXFIL_COMMAND_TRIGGER)
         and _re("exfil-cmd", sp.EXFIL_COMMAND_PATTERN).search(text))
            or (may("exfil-words", sp.SECRET_WORDS, sp.EXFIL_WORDS_TRIGGER)
                and (words is None or not (words.isdisjoint(sp.PLACE_WORDS) or words.isdisjoint(sp.ACTION_WORDS)))
                and _exfiltrates(text))):
        found.append(sp.EXFIL)
    return found


def _exfiltrates(text: str) -> bool:
    # in words: per sentence, a secret, a destination and an action that is not negated
    for sentence in _re("sentences", r"[^;!?。！？\n]+(?:[;!?。！？\n]|$)").findall(text):
        if not (_re("exfil-secret", sp.EXFIL_SECRET).search(sentence)
                and _re("exfil-place", sp.EXFIL_PLACE).search(sentence)):
            continue
        for action in _re("exfil-action", sp.EXFIL_ACTION).finditer(sentence):
            before = sentence[max(0, action.start() - 40):action.start()]
            after = sentence[action.end():action.end() + 6]
            if not (_re("negation", sp.NEGATION).search(before) or after.startswith(("ないで", "しない", "禁止"))):
                return True
    return False
