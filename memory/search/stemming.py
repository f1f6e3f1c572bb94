"""The stemmer of memory.search.tokenize, apart so that a hook can stem a few words without importing `re`
(~5 ms: the action-time hook runs before every file read; see memory/__init__.py)."""
from __future__ import annotations

_STEM_CACHE: dict[str, str] = {}
# derivational endings -> a shorter common form, longest first; a trailing "e" is dropped afterwards, so
# migrate/migrated/migration -> migrat, configure/configuration -> configur, optimize/optimization -> optimiz
_DERIVED = (("ization", "ize"), ("isation", "ize"), ("ational", "ate"), ("uration", "ure"), ("ibility", "ible"),
            ("ability", "able"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"), ("ically", "ic"),
            ("ation", "ate"), ("ition", "ite"), ("ution", "ute"), ("ement", ""), ("ment", ""), ("ness", ""),
            ("iness", "y"), ("ency", "ent"), ("ancy", "ant"), ("ence", "ent"), ("ance", "ant"), ("able", ""),
            ("ible", ""), ("ity", ""), ("ise", "ize"), ("ent", ""), ("ant", ""), ("ly", ""), ("er", ""), ("al", ""))
_SHORT_SUFFIX_MIN_STEM = 4  # "er", "al", "ly", "ent", "ant": only on longer words (user, local, client stay)


def _has_vowel(s: str) -> bool:
    return any(c in "aeiouy" for c in s)


def stem(word: str) -> str:
    """A light, Porter-like suffix stripper: plurals, -ed/-ing, common derivational endings, final -e.

    Both sides go through it, so consistency matters more than linguistic truth: `caching`, `cached`,
    `caches` and `cache` all give `cach`. Short words and words with digits are kept as they are.
    """
    cached = _STEM_CACHE.get(word)
    if cached is not None:
        return cached
    w = word
    if len(w) > 3 and w.isalpha():
        if w.endswith("sses"):
            w = w[:-2]
        elif w.endswith(("ies", "ied")) and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix in ("ing", "ed"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3 and _has_vowel(w[:-len(suffix)]):
                w = w[:-len(suffix)]
                if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                    w = w[:-1]  # running -> run, stopped -> stop
                break
        for _ in range(2):  # twice: compatibility -> compatible -> compat
            for suffix, replacement in _DERIVED:
                rest = len(w) - len(suffix)
                if w.endswith(suffix) and rest >= (3 if len(suffix) > 3 else _SHORT_SUFFIX_MIN_STEM):
                    w = w[:-len(suffix)] + replacement
                    break
        if w.endswith("e") and len(w) > 4:
            w = w[:-1]
        if w.endswith("at") and len(w) > 5:
            w = w[:-2]  # migrate, migrated, migration -> migr
    _STEM_CACHE[word] = w
    return w
