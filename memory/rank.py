"""Which knowledge is relevant to a text: BM25F over the entries' fields, concepts for paraphrases, a gate.

    rank(entries, text, limit)      the best `limit` entries, whatever their score
    relevant(entries, text, limit)  only those that pass the gate: [] is a real answer ("nothing relevant")

`entries` are what memory.store.latest returns; superseded versions of a key are dropped here too, so a
caller passing more cannot surface a stale entry. Deterministic: ties go to the newer entry, then the key.
"""
from __future__ import annotations

import math

from memory import corpus as corpus_mod
from memory.concepts import concepts
from memory.tokenize import terms

TYPE_CHECKING = False  # typing costs ~3 ms to import; annotations are strings here
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Tuple

    from memory.corpus import Corpus


class Params:
    """Ranking and gate constants (measured on the development set: bench/relevance.py)."""

    k1 = 1.2
    weights = {"c": 1.0, "k": 0.3, "t": 0.5, "b": 1.0}  # content, key, tags, bead
    b = {"c": 0.75, "k": 0.5, "t": 0.3, "b": 0.0, "x": 0.75}
    concept_weight = 0.3  # a concept match counts for this much of a word match
    # the gate: a result passes when its score reaches `min_fraction` of what the query could score at
    # best against this knowledge, and it shares at least `min_terms` words with the query (or, with no
    # shared word, its concept score alone reaches `concept_fraction`)
    min_fraction = 0.25
    min_terms = 1
    concept_fraction = 1.0


class Scored:
    """One ranked entry: its score, the gate's view of it, and why it matched."""

    __slots__ = ("entry", "score", "why", "fraction", "matched", "concept_fraction")

    def __init__(self, entry: dict, score: float, why: List[str], fraction: float = 0.0, matched: int = 0,
                 concept_fraction: float = 0.0) -> None:
        self.entry, self.score, self.why = entry, score, why
        self.fraction = fraction  # score / the best score this query could reach against this knowledge
        self.matched = matched  # distinct query words (not concepts) found in the entry
        self.concept_fraction = concept_fraction  # concept score / the best concept score possible

    def __repr__(self) -> str:
        return f"Scored({self.entry.get('key')!r}, {self.score:.3f}, {self.why!r})"


class Query:
    """A text as distinct ranking terms and concepts, in first-seen order."""

    def __init__(self, text: str) -> None:
        self.terms = list(dict.fromkeys(terms(text)))
        self.concepts = list(dict.fromkeys(concepts(self.terms)))


def _idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _field_scores(corpus: Corpus, fields: Tuple[str, ...], term: str, params: type) -> Dict[int, float]:
    """BM25F pseudo-frequency of `term` per live document: weighted, length-normalised tf summed over fields."""
    acc: Dict[int, float] = {}
    live = corpus.live
    for field in fields:
        weight = params.weights.get(field, 1.0)
        b = params.b[field]
        lens = corpus.lens[field]
        avg = corpus.avg_len(field)
        for pairs, base in corpus.postings(field + term):
            for i in range(0, len(pairs), 2):
                doc = pairs[i] + base
                if live[doc]:
                    norm = 1.0 - b + b * lens[doc] / avg
                    acc[doc] = acc.get(doc, 0.0) + weight * pairs[i + 1] / norm
    return acc


def score_all(corpus: Corpus, query: Query, params: type = Params) -> Tuple[Dict[int, float], Dict[int, int], Dict[int, float], float, float]:
    """(score per doc, query words matched per doc, concept score per doc, best possible word score,
    best possible concept score) for every live document matching anything."""
    n = max(corpus.live_count(), 1)
    k1 = params.k1
    scores: Dict[int, float] = {}
    matched: Dict[int, int] = {}
    concept_scores: Dict[int, float] = {}
    best_words = best_concepts = 0.0
    for term in query.terms:
        acc = _field_scores(corpus, corpus_mod.LEXICAL_FIELDS, term, params)
        idf = _idf(n, len(acc))
        best_words += idf * (k1 + 1)
        for doc, x in acc.items():
            scores[doc] = scores.get(doc, 0.0) + idf * x * (k1 + 1) / (k1 + x)
            matched[doc] = matched.get(doc, 0) + 1
    for concept in query.concepts:
        acc = _field_scores(corpus, (corpus_mod.CONCEPT_FIELD,), concept, params)
        if not acc:
            continue  # a concept the knowledge never mentions says nothing about relevance
        idf = _idf(n, len(acc)) * params.concept_weight
        best_concepts += idf * (k1 + 1)
        for doc, x in acc.items():
            gain = idf * x * (k1 + 1) / (k1 + x)
            scores[doc] = scores.get(doc, 0.0) + gain
            concept_scores[doc] = concept_scores.get(doc, 0.0) + gain
    return scores, matched, concept_scores, best_words, best_concepts


def search(corpus: Corpus, text: str, limit: int = 5, params: type = Params, gate: bool = False) -> List[Scored]:
    """The top `limit` live documents of `corpus` for `text` (only those passing the gate when `gate`)."""
    query = Query(text)
    scores, matched, concept_scores, best_words, best_concepts = score_all(corpus, query, params)
    best = (best_words + best_concepts) or 1.0
    ts = corpus.ts
    # rounding makes ties exact whatever the summation order; the key is only read for the few ties
    order = sorted(scores, key=lambda d: (-round(scores[d], 9), -ts[d]))
    results: List[Scored] = []
    entry_at = corpus.entry_at
    for doc in order[:limit * 4 + 8]:
        entry = entry_at(doc) if entry_at else None
        if entry is None:
            continue
        scored = Scored(entry, scores[doc], [], scores[doc] / best, matched.get(doc, 0),
                        concept_scores.get(doc, 0.0) / (best_concepts or 1.0))
        if not gate or passes(scored, params):
            results.append(scored)
    results.sort(key=lambda s: (-round(s.score, 9), -corpus_mod.entry_ts(s.entry), str(s.entry.get("key"))))
    results = results[:limit]
    for scored in results:
        scored.why = explain(scored.entry, query)
    return results


def passes(scored: Scored, params: type = Params) -> bool:
    """The gate: strong enough against the query's best possible score, and grounded in shared words
    (or, without any, in a strong concept match)."""
    if scored.fraction < params.min_fraction:
        return False
    return scored.matched >= params.min_terms or scored.concept_fraction >= params.concept_fraction


def rank(entries: List[dict], text: str, limit: int = 5, params: type = Params) -> List[Scored]:
    """The `limit` entries that match `text` best (no gate), best first."""
    return search(corpus_mod.from_entries(entries), text, limit, params)


def relevant(entries: List[dict], text: str, limit: int = 5, params: type = Params) -> List[Scored]:
    """Like rank, but only entries that pass the gate: an empty list means nothing here is relevant."""
    return search(corpus_mod.from_entries(entries), text, limit, params, gate=True)


def explain(entry: dict, query: Query) -> List[str]:
    """Which query words matched which fields (`cache@content`), then shared concepts (`~cache`)."""
    from memory.concepts import concept_name

    fields = corpus_mod.entry_terms(entry)
    names = {"c": "content", "k": "key", "t": "tags", "b": "bead"}
    why = []
    for term in query.terms:
        hit = [names[f] for f in corpus_mod.LEXICAL_FIELDS if term in fields[f]]
        if hit:
            why.append(f"{term}@{'+'.join(hit)}")
    shared = set(fields[corpus_mod.CONCEPT_FIELD])
    why.extend(dict.fromkeys("~" + concept_name(c) for c in query.concepts if c in shared))
    return why
