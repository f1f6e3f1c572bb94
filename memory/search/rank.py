"""Which knowledge is relevant to a text: BM25F over the entries' fields, concepts for paraphrases, a gate.

    rank(entries, text, limit)      the best `limit` entries, whatever their score
    relevant(entries, text, limit)  only those that pass the gate: [] is a real answer ("nothing relevant")

`entries` are what memory.store.store.latest returns; superseded versions of a key are dropped here too, so a
caller passing more cannot surface a stale entry. Deterministic: ties go to the newer entry, then the key.
"""
from __future__ import annotations

import heapq
import math

from memory import TYPE_CHECKING
from memory.search import corpus as corpus_mod
from memory.search.concepts import concepts
from memory.search.tokenize import terms
from memory.store import view

if TYPE_CHECKING:
    from array import array

    from memory.search.corpus import Corpus


class Params:
    """Ranking and gate constants (measured on the development set: bench/relevance.py)."""

    k1 = 1.2
    weights = {"c": 1.0, "k": 0.3, "t": 0.5, "b": 1.0}  # content, key, tags, bead
    b = {"c": 0.75, "k": 0.5, "t": 0.3, "b": 0.0, "x": 0.75}
    concept_weight = 0.3  # a concept match counts for this much of a word match
    # In a large knowledge base a concept found in more than this share of the entries is skipped: at a
    # tenth of a word's weight and a low IDF it barely moves the order, and scoring it costs most of a
    # prompt's time (100,000 entries: ~0.1 s). Below `large` entries every concept counts.
    large = 5000
    common_concept_share = 0.05
    common_word_share = 0.25  # likewise a word in a quarter of a large knowledge base (IDF < 1.4): a stop word there
    # And a large knowledge base scores at most this many posting rows per prompt, its rarest words and
    # concepts first: the commonest left over weigh least and cost most (a row is ~0.5 µs of Python).
    posting_budget = 6000
    # The gate judges a text once, on its best result: that result must reach `min_fraction` of the best
    # score the text could reach against this knowledge and share `min_terms` distinct words with it (or
    # match its concepts at `concept_fraction` of their best: above 1 = off, it never paid on dev). Then
    # every result within `follow` of the best score (or passing itself) is injected. Swept on dev
    # (bench/relevance.py --sweep) with 12 unrelated prompts, so chosen with a margin: 0 of 12 on dev.
    min_fraction = 0.2
    best_terms = 6  # the best possible score counts only the prompt's this-many strongest words (0: all)
    # IDF from a knowledge base of a few entries says little (one entry: every word it holds is "in all of
    # them" and weighs next to nothing, so nothing ever passed the gate): count at least this many entries.
    min_idf_entries = 20
    min_terms = 1
    concept_fraction = 1.01
    follow = 0.0
    # Precision: the block holds only results scoring at least this share of the best one; with the map at
    # session start carrying recall, a weaker neighbour is noise the model reads on every later turn.
    relative_cut = 0.0  # the prompt hook reads its own from config.json (prompt_relative_cut, 0.7)


class Scored:
    """One ranked entry: its score, the gate's view of it, and why it matched."""

    __slots__ = ("entry", "score", "why", "fraction", "matched", "concept_fraction")

    def __init__(self, entry: dict, score: float, why: list[str], fraction: float = 0.0, matched: int = 0,
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


def word_idf(n: int, df: int) -> float:
    """BM25's inverse document frequency of a word `df` of `n` documents hold."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _norms(corpus: Corpus, params: type[Params]) -> list[tuple[float, float, float, array]]:
    """Per field: (weight, 1 - b, b / average length, lengths), so a field's tf becomes
    w * tf / (1 - b + b * len / avg)."""
    out = []
    for field in corpus_mod.FIELDS:
        b = params.b[field]
        out.append((params.weights.get(field, 1.0), 1.0 - b, b / corpus.avg_len(field), corpus.lens[field]))
    return out


def _word_scores(corpus: Corpus, term: str, norms: list) -> dict[int, float]:
    """BM25F pseudo-frequency of a word per live document: weighted, length-normalised tf summed over fields."""
    acc: dict[int, float] = {}
    live = corpus.live
    fields = list(enumerate(norms[:len(corpus_mod.LEXICAL_FIELDS)], 1))
    for rows, base in corpus.postings(term):
        for i in range(0, len(rows), 5):
            doc = rows[i] + base
            if live[doc]:
                x = 0.0
                for slot, (weight, one_minus_b, b_per_avg, lens) in fields:
                    tf = rows[i + slot]
                    if tf:
                        x += weight * tf / (one_minus_b + b_per_avg * lens[doc])
                acc[doc] = x
    return acc


def _concept_scores(corpus: Corpus, concept: str, norms: list) -> dict[int, float]:
    acc: dict[int, float] = {}
    live = corpus.live
    _, one_minus_b, b_per_avg, lens = norms[-1]
    for rows, base in corpus.postings(concept):
        for i in range(0, len(rows), 2):
            doc = rows[i] + base
            if live[doc]:
                acc[doc] = rows[i + 1] / (one_minus_b + b_per_avg * lens[doc])
    return acc


def _doc_freq(corpus: Corpus, key: str, width: int) -> int:
    """Documents a key's postings name (live or not: an upper bound, without reading them)."""
    return corpus.posting_rows(key) // width


def doc_freq(corpus: Corpus, term: str) -> int:
    """Live documents holding the word `term` (its postings read: exact, unlike _doc_freq)."""
    live = corpus.live
    return sum(1 for rows, base in corpus.postings(term) for i in range(0, len(rows), 5) if live[rows[i] + base])


def planned(corpus: Corpus, query: Query, params: type[Params] = Params) -> tuple[list[str], list[str]]:
    """The query words and concepts worth scoring, in query order: every one below `large` entries; in
    a large knowledge base not the common ones, and the rest rarest first within `posting_budget` rows."""
    n = max(corpus.live_count(), 1)
    if n <= params.large:
        return query.terms, query.concepts
    width = {term: 5 for term in query.terms}
    width.update((concept, 2) for concept in query.concepts)
    share = {term: params.common_word_share for term in query.terms}
    share.update((concept, params.common_concept_share) for concept in query.concepts)
    df = {key: _doc_freq(corpus, key, width[key]) for key in width}
    chosen, left = set(), params.posting_budget
    for key in sorted(width, key=lambda k: df[k]):  # stable: equally rare ones in query order
        if df[key] > share[key] * n or df[key] > left:
            continue
        chosen.add(key)
        left -= df[key]
    return [t for t in query.terms if t in chosen], [c for c in query.concepts if c in chosen]


def score_all(corpus: Corpus, query: Query, params: type[Params] = Params
              ) -> tuple[dict[int, float], dict[int, int], dict[int, float], float, float]:
    """(score per doc, query words matched per doc, concept score per doc, best possible word score,
    best possible concept score) for every live document matching anything."""
    n = max(corpus.live_count(), params.min_idf_entries)
    k1 = params.k1
    scores: dict[int, float] = {}
    matched: dict[int, int] = {}
    concept_scores: dict[int, float] = {}
    best_words = best_concepts = 0.0
    norms = _norms(corpus, params)
    word_bests = []
    words, concepts_ = planned(corpus, query, params)
    for term in words:
        acc = _word_scores(corpus, term, norms)
        idf = word_idf(n, len(acc))
        word_bests.append(idf * (k1 + 1))
        for doc, x in acc.items():
            scores[doc] = scores.get(doc, 0.0) + idf * x * (k1 + 1) / (k1 + x)
            matched[doc] = matched.get(doc, 0) + 1
    word_bests.sort(reverse=True)
    best_words = sum(word_bests[:params.best_terms] if params.best_terms else word_bests)
    for concept in concepts_:
        acc = _concept_scores(corpus, concept, norms)
        if not acc:
            continue  # a concept the knowledge never mentions says nothing about relevance
        idf = word_idf(n, len(acc)) * params.concept_weight
        best_concepts += idf * (k1 + 1)
        for doc, x in acc.items():
            gain = idf * x * (k1 + 1) / (k1 + x)
            scores[doc] = scores.get(doc, 0.0) + gain
            concept_scores[doc] = concept_scores.get(doc, 0.0) + gain
    return scores, matched, concept_scores, best_words, best_concepts


def search(corpus: Corpus, text: str, limit: int = 5, params: type[Params] = Params,
           gate: bool = False, query: Query | None = None) -> list[Scored]:
    """The top `limit` live documents of `corpus` for `text` (only those passing the gate when `gate`);
    `query` when the caller already made (and trimmed) the text's Query."""
    query = query or Query(text)
    scores, matched, concept_scores, best_words, best_concepts = score_all(corpus, query, params)
    best = (best_words + best_concepts) or 1.0
    ts = corpus.ts
    candidates: list[tuple[int, Scored]] = []
    # the best few without sorting every match (100,000 entries: ~60,000 matches): every document within
    # the best `keep` scores (ties included) is ordered by the full key, the rest never are
    keep = max(4 * limit, 20)
    floor = heapq.nlargest(keep, scores.values())[-1] - 1e-9 if len(scores) > keep else float("-inf")
    order = sorted((d for d, v in scores.items() if v >= floor), key=lambda d: (-round(scores[d], 9), -ts[d]))
    for doc in order:
        scored = Scored({}, scores[doc], [], scores[doc] / best, matched.get(doc, 0),
                        concept_scores.get(doc, 0.0) / (best_concepts or 1.0))
        if len(candidates) >= limit:  # past the limit only exact ties matter (the key decides them)
            last = candidates[-1][0]
            if (round(scores[doc], 9), ts[doc]) != (round(scores[last], 9), ts[last]):
                break
        candidates.append((doc, scored))
    results: list[Scored] = []
    # one insight two teammates each recorded under their own key: once, as the copy every read path shows
    # (memory.store.view.distinct: a pinned one, else the newest, the later line on a tie), at the best score
    copies: dict[bytes, tuple[Scored, tuple]] = {}
    for doc, scored in candidates:  # entries are read only now: from the index, that is a file read each
        entry = corpus.entry_at(doc) if corpus.entry_at else None
        if entry is None:
            continue
        said = view.same_text(entry.get("content"))
        standing = (bool(entry.get("pinned")) or entry.get("key") in corpus.pinned, corpus_mod.entry_ts(entry), doc)
        first = copies.get(said) if said else None
        if first is None:
            copies[said] = (scored, standing)
            scored.entry = entry
            results.append(scored)
        elif standing > first[1]:
            first[0].entry = entry
            copies[said] = (first[0], standing)
    # rounding makes ties exact whatever the summation order
    results.sort(key=lambda s: (-round(s.score, 9), -corpus_mod.entry_ts(s.entry), str(s.entry.get("key"))))
    results = results[:limit]
    if gate:
        results = gated(results, params)
    for scored in results:
        scored.why = explain(scored.entry, query)
    return results


def gated(results: list[Scored], params: type[Params] = Params) -> list[Scored]:
    """What a ranked list injects: nothing unless its best result passes the gate; then each result that
    passes too, or scores at least `follow` times the best (the question is judged once, on its best answer)."""
    if not results or not passes(results[0], params):
        return []
    floor = params.follow * results[0].score
    cut = params.relative_cut * results[0].score  # never padded with results far weaker than the best
    return [s for s in results if s.score >= cut and (s.score >= floor or passes(s, params))]


def passes(scored: Scored, params: type[Params] = Params) -> bool:
    """The gate: strong enough against the query's best possible score, and grounded in shared words
    (or, without any, in a strong concept match)."""
    if scored.fraction < params.min_fraction:
        return False
    return scored.matched >= params.min_terms or scored.concept_fraction >= params.concept_fraction


def rank(entries: list[dict], text: str, limit: int = 5, params: type[Params] = Params) -> list[Scored]:
    """The `limit` entries that match `text` best (no gate), best first."""
    return search(corpus_mod.from_entries(entries), text, limit, params)


def relevant(entries: list[dict], text: str, limit: int = 5, params: type[Params] = Params) -> list[Scored]:
    """Like rank, but only entries that pass the gate: an empty list means nothing here is relevant."""
    return search(corpus_mod.from_entries(entries), text, limit, params, gate=True)


def explain(entry: dict, query: Query) -> list[str]:
    """Which query words matched which fields (`cache@content`), then shared concepts (`~cache`)."""
    from memory.search.concepts import concept_name

    fields = corpus_mod.entry_terms(entry)
    names = {"c": "content", "k": "key", "t": "tags", "b": "bead"}
    held = {f: set(fields[f]) for f in corpus_mod.LEXICAL_FIELDS}  # a long prompt's terms against a long entry
    why = []
    for term in query.terms:
        hit = [names[f] for f in corpus_mod.LEXICAL_FIELDS if term in held[f]]
        if hit:
            why.append(f"{term}@{'+'.join(hit)}")
    shared = set(fields[corpus_mod.CONCEPT_FIELD])
    why.extend(dict.fromkeys("~" + concept_name(c) for c in query.concepts if c in shared))
    return why
