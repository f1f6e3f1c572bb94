"""Code-aware tokens for ranking: identifiers split into their words, lowercased, stop words out, stemmed.

`src/api/routes.py` -> src, api, route, py; `useEffect` -> use, effect and the whole `useeffect`;
`max_retries`, `maxRetries` and `max-retries` all give max, retri and `maxretries`, so a prompt finds
an entry whichever spelling either of them used. Deterministic: no locale, no hashing.
"""
from __future__ import annotations

import re

from memory.search.stemming import _DERIVED, stem  # noqa: F401 - _DERIVED: part of the index's fingerprint

# a word character in any script: \w, and the combining marks \w leaves out (accents, Arabic and Hebrew points,
# the vowel signs of Devanagari, Tamil, Thai and the other Indic and Southeast Asian scripts, whole blocks)
_WORD = (r"\w\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
         r"\u0900-\u0dff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
         r"\ufe20-\ufe2f")
# a run of identifier characters, joined by the punctuation identifiers and paths are made of
_CHUNK = re.compile(rf"[{_WORD}]+(?:[-.:/\\]+[{_WORD}]+)*")
# scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Myanmar, Khmer): a run of them is
# taken as its overlapping pairs of characters, so a title's first characters meet the entry's whole run
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
                       r"\uf900-\ufaff]+")
# words inside an identifier: "HTTPServerError2" -> HTTP, Server, Error, 2
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_PATHLIKE = re.compile(r"[./\\:]")
_COMPOUND_SEP = re.compile(r"[-_]+")

# English function words and the filler of requests to an assistant; never domain words (not "test", "fix")
STOP_WORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "almost", "also", "although", "always", "am", "an",
    "and", "another", "any", "anyone", "anything", "are", "around", "as", "at", "be", "because", "been", "before",
    "being", "below", "between", "both", "but", "by", "can", "cannot", "could", "did", "do", "does", "doing",
    "done", "down", "during", "each", "either", "else", "enough", "etc", "even", "ever", "every", "few", "for",
    "from", "further", "get", "gets", "getting", "go", "goes", "going", "gone", "got", "had", "has", "have",
    "having", "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in", "into", "is", "it",
    "its", "itself", "just", "let", "lets", "like", "ll", "made", "make", "makes", "many", "may", "me", "might",
    "mine", "more", "most", "much", "must", "my", "myself", "need", "needs", "no", "nor", "not", "now", "of", "off",
    "often", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own", "please", "quite",
    "rather", "re", "really", "same", "see", "seem", "seems", "she", "should", "since", "so", "some", "something",
    "still", "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "thing",
    "things", "this", "those", "though", "through", "thus", "to", "too", "under", "until", "up", "upon", "us",
    "very", "via", "want", "wants", "was", "way", "we", "well", "were", "what", "whatever", "when", "where",
    "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "would", "yet",
    "you", "your", "yours", "yourself", "ve", "d", "s", "t", "m", "hey", "hi", "hello", "thanks", "thank", "okay",
    "ok", "sure", "help", "tell", "know", "think", "wonder", "wondering", "guess", "maybe", "pretty", "kind",
    "sort", "stuff", "again", "already", "actually", "basically", "currently", "right", "new", "old", "good", "bad",
    "best", "better",
])

MIN_LEN = 2


def unspaced(text: str) -> int:
    """How many characters of `text` are of a script written without spaces (its words are not counted by
    spaces: a Chinese question is one run)."""
    return sum(len(run) for run in _UNSPACED.findall(text))


def split_identifier(chunk: str) -> list[str]:
    """The lowercase words of one identifier-like chunk (no stemming, no stop words)."""
    if chunk.isascii():
        return [p.lower() for p in _PART.findall(chunk)]
    return _other_scripts(chunk)


def _other_scripts(chunk: str) -> list[str]:
    """A chunk with letters beyond ASCII: its ASCII identifiers split as above, a run of an unspaced script as
    its pairs of characters, and any other word (Cyrillic, Greek, Arabic, Hebrew, Hangul, Devanagari) whole,
    lowercased."""
    out: list[str] = []
    at = 0
    for run in _UNSPACED.finditer(chunk):
        out.extend(_spaced(chunk[at:run.start()]))
        text = run.group()
        out.extend([text] if len(text) == 1 else [text[i:i + 2] for i in range(len(text) - 1)])
        at = run.end()
    out.extend(_spaced(chunk[at:]))
    return out


def _spaced(part: str) -> list[str]:
    if not part:
        return []
    if part.isascii():
        return [p.lower() for p in _PART.findall(part)]
    return [part.lower()]


def raw_terms(text: str) -> list[str]:
    """Lowercase words and whole identifiers of `text`, in order, before stop words and stemming.

    A path or dotted name gives its segments; a compound segment (camelCase, snake_case, kebab-case)
    gives its words then the words joined (`useeffect`), so every spelling of it meets the others.
    """
    out: list[str] = []
    for chunk in _CHUNK.findall(text):
        for segment in _PATHLIKE.split(chunk):
            if not segment:
                continue
            words = []
            for piece in _COMPOUND_SEP.split(segment):
                words.extend(split_identifier(piece))
            out.extend(words)
            if len(words) > 1 and (segment.isascii() or not _UNSPACED.search(segment)):  # pairs: no whole
                out.append("".join(words))
    return out


def terms(text: str) -> list[str]:
    """The ranking terms of `text`: raw terms without stop words and one-letter words, stemmed."""
    return [stem(t) for t in raw_terms(text) if len(t) >= MIN_LEN and t not in STOP_WORDS]
