"""Code-aware tokens for ranking: identifiers split into their words, lowercased, stop words out, stemmed.

`src/api/routes.py` -> src, api, route, py; `useEffect` -> use, effect and the whole `useeffect`;
`max_retries`, `maxRetries` and `max-retries` all give max, retri and `maxretries`, so a prompt finds
an entry whichever spelling either of them used. Deterministic: no locale, no hashing.
"""
from __future__ import annotations

import re

from memory.search.stemming import _DERIVED, stem  # noqa: F401 - _DERIVED: part of the index's fingerprint

# a run of identifier characters, joined by the punctuation identifiers and paths are made of
_CHUNK = re.compile(r"[A-Za-z0-9_]+(?:[-.:/\\]+[A-Za-z0-9_]+)*")
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


def split_identifier(chunk: str) -> list[str]:
    """The lowercase words of one identifier-like chunk (no stemming, no stop words)."""
    return [p.lower() for p in _PART.findall(chunk)]


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
            if len(words) > 1:
                out.append("".join(words))
    return out


def terms(text: str) -> list[str]:
    """The ranking terms of `text`: raw terms without stop words and one-letter words, stemmed."""
    return [stem(t) for t in raw_terms(text) if len(t) >= MIN_LEN and t not in STOP_WORDS]
