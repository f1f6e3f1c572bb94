"""Entries as ranking statistics: per-field postings, field lengths, liveness; built in memory or loaded.

One structure serves both paths: `rank.rank(entries, …)` builds it from entries in memory, memory.search.index
persists the same pieces (postings as packed bytes) so a hook does not re-tokenize the knowledge.
Postings: a word -> rows (doc id, tf in content, key, tags, bead); a concept id (`~12`) -> rows (doc id, tf),
flattened into one array('I') each.
"""
from __future__ import annotations

from array import array

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Callable

# content, key (without its type prefix), tags (without the type), bead id, concepts of the content's words
FIELDS = ("c", "k", "t", "b", "x")
CONCEPT_FIELD = "x"
LEXICAL_FIELDS = FIELDS[:-1]


def _str_field(entry: dict, name: str) -> str:
    value = entry.get(name)
    return value if isinstance(value, str) else ""


def _text_fields(entry: dict) -> tuple[str, str, str, str]:
    entry_type = _str_field(entry, "type")
    key = _str_field(entry, "key")
    if entry_type and key.startswith(entry_type + "-"):
        key = key[len(entry_type) + 1:]
    tags = entry.get("tags")
    tag_text = " ".join(t for t in tags if isinstance(t, str) and t != entry_type) if isinstance(tags, list) else ""
    return _str_field(entry, "content"), key, tag_text, _str_field(entry, "bead")


def entry_terms(entry: dict) -> dict[str, list[str]]:
    """The terms of each field of an entry (field letter -> terms, repeats kept)."""
    from memory.search.concepts import concepts
    from memory.search.tokenize import terms

    content, key, tags, bead = _text_fields(entry)
    content_terms = terms(content)
    return {"c": content_terms, "k": terms(key), "t": terms(tags), "b": terms(bead),
            "x": concepts(content_terms + terms(tags))}


def entry_ts(entry: dict) -> float:
    ts = entry.get("ts")
    return float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else 0.0


class Corpus:
    """Statistics of documents 0..n-1. `segments` are (postings, first doc id) pairs searched in turn
    (postings values: array('I') or its bytes, ids local to the segment), so an index hands over its
    archive and active parts without merging or renumbering them."""

    def __init__(self) -> None:
        self.n = 0
        self.segments: list[tuple[dict[str, array | bytes], int]] = []
        self.lens: dict[str, array] = {f: array("I") for f in FIELDS}
        self.ts = array("d")
        self.live = bytearray()
        self.keys: list[str] = []  # may stay empty on the index path (only liveness is needed to rank)
        self.pinned: set[str] = set()  # pinned keys, from an index (entries from memory.store.view carry the mark)
        self.entry_at: Callable[[int], dict | None] | None = None
        self._avg: dict[str, float] | None = None
        self.len_sums: dict[str, int] | None = None  # per field, the sum of lens (from an index), else summed here
        self.partial = False  # the archive was left out (its index is being built elsewhere)
        self.malformed = 0  # lines of the indexed files that are neither an entry nor a control line

    def postings(self, key: str) -> list[tuple[array, int]]:
        """(rows, first doc id) of `key` in every segment, doc ids local to the segment (bytes are unpacked
        on first use)."""
        out = []
        for segment, base in self.segments:
            value = segment.get(key)
            if value is None:
                continue
            if not isinstance(value, array):
                packed = array("I")
                packed.frombytes(value)
                segment[key] = value = packed
            out.append((value, base))
        return out

    def posting_rows(self, key: str) -> int:
        """How many numbers `key`'s postings hold in all segments, without reading them from an index."""
        total = 0
        for segment, _ in self.segments:
            size = segment.size(key) if hasattr(segment, "size") else None
            if size is None:
                value = segment.get(key)
                size = 0 if value is None else len(value) if isinstance(value, array) else len(value) // 4
            total += size
        return total

    def dead_docs(self) -> list[int]:
        """Ids of the superseded documents (usually few: found without a Python loop over all)."""
        dead, at = [], self.live.find(0)
        while at >= 0:
            dead.append(at)
            at = self.live.find(0, at + 1)
        return dead

    def avg_len(self, field: str) -> float:
        if self._avg is None:
            dead = self.dead_docs()
            count = (self.n - len(dead)) or 1
            sums = self.len_sums or {f: sum(self.lens[f]) for f in FIELDS}
            self._avg = {f: ((sums[f] - sum(self.lens[f][d] for d in dead)) / count) or 1.0 for f in FIELDS}
        return self._avg[field]

    def live_count(self) -> int:
        return self.n - self.live.count(0)

    def add(self, entry: dict, postings: dict[str, array]) -> int:
        """Append one document's statistics; returns its id."""
        doc = self.n
        self.n += 1
        fields = entry_terms(entry)
        counts: dict[str, list[int]] = {}  # word -> tf per lexical field
        for slot, field in enumerate(LEXICAL_FIELDS):
            self.lens[field].append(len(fields[field]))
            for term in fields[field]:
                tfs = counts.get(term)
                if tfs is None:
                    counts[term] = tfs = [doc, 0, 0, 0, 0]
                tfs[slot + 1] += 1
        for term, row in counts.items():
            _posting(postings, term).extend(row)
        concept_terms = fields[CONCEPT_FIELD]
        self.lens[CONCEPT_FIELD].append(len(concept_terms))
        for concept in dict.fromkeys(concept_terms):
            _posting(postings, concept).extend((doc, concept_terms.count(concept)))
        self.ts.append(entry_ts(entry))
        self.keys.append(_str_field(entry, "key"))
        self.live.append(1)
        self._avg = self.len_sums = None
        return doc


def _posting(postings: dict[str, array], key: str) -> array:
    found = postings.get(key)
    if found is None:
        postings[key] = found = array("I")
    return found


def latest_flags(keys: list[str], ts: array) -> bytearray:
    """1 for the latest document of each key (highest ts, then the later one), 0 for the superseded."""
    best: dict[str, int] = {}
    for doc, key in enumerate(keys):
        current = best.get(key)
        if current is None or ts[doc] >= ts[current]:
            best[key] = doc
    flags = bytearray(len(keys))
    for doc in best.values():
        flags[doc] = 1
    return flags


def from_entries(entries: list[dict]) -> Corpus:
    """A corpus over `entries` in memory (liveness: latest per key, as memory.store.store.latest decides)."""
    corpus = Corpus()
    postings: dict[str, array | bytes] = {}
    for entry in entries:
        corpus.add(entry, postings)  # type: ignore[arg-type]
    corpus.segments.append((postings, 0))
    corpus.live = latest_flags(corpus.keys, corpus.ts)
    corpus.entry_at = entries.__getitem__
    return corpus
