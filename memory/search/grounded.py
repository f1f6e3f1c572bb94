"""Ranking for action time: a text against the knowledge, keeping only entries grounded in a rare word.

A failed command's output or the code an edit adds is long and full of words every entry shares some of
(`test`, `run`, `import`, `return`). A share of the best reachable score alone lets an entry through on those;
so an entry passes only when it also holds one of the *rare* words of the part that matters (the error lines,
the added code): a word that at most `share` of the live entries hold.

    passing(memory_dir, terms, grounding, bar, min_terms, share, limit, weighty)   [(Scored), …] best first

An entry holding several of those rare words is better grounded than one holding a single one; `weighty`
= (a lower bar, a weight) lets it pass at the lower bar when the rare words it holds weigh (IDF) at least
`weight` words that only one entry holds (2: two such words, or three somewhat rarer ones).
"""
from __future__ import annotations

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.search.corpus import Corpus
    from memory.search.rank import Scored


def passing(memory_dir: str, words: list[str], grounding: list[str], bar: float, min_terms: int, share: float,
            limit: int, weighty: tuple[float, float] | None = None) -> list[Scored]:
    """Entries ranked on the ranking terms `words` (memory.search.rank over the derived index) that reach
    `bar` of the best reachable score (or `weighty`'s lower bar, see above), share `min_terms` of the words,
    and hold one of the `grounding` terms that at most `share` of the live entries (at least two) hold; best
    first."""
    from memory.search import index, rank
    from memory.search.concepts import concepts

    corpus = index.load(memory_dir, inline_limit=index.INLINE_BUILD_BYTES)
    if corpus.partial:
        index.build_in_background(memory_dir)
    query = rank.Query("")
    query.concepts = list(dict.fromkeys(concepts(words)))
    query.terms = [t for t in dict.fromkeys(words) if corpus.postings(t)]  # the rest only lower every share
    if not query.terms:
        return []
    rare = rare_terms(corpus, grounding, share)
    if not rare:
        return []
    ranked = rank.search(corpus, " ".join(query.terms), limit=limit, query=query)
    low, weight = weighty if weighty else (bar, 0.0)
    needed = weight * _idf(corpus, 1)
    return [s for s in ranked if s.fraction >= min(bar, low) and s.matched >= min_terms and words_in(s.entry, rare)
            and (s.fraction >= bar or sum(_idf(corpus, rare[t]) for t in words_in(s.entry, rare)) >= needed)]


def rare_terms(corpus: Corpus, words: list[str], share: float) -> dict[str, int]:
    """The `words` that at most `share` of the live entries (and at least one; two in a small knowledge)
    hold, with the number of entries holding each."""
    from memory.search import rank

    most = max(2.0, share * corpus.live_count())
    counts = {t: rank.doc_freq(corpus, t) for t in set(words)}
    return {t: n for t, n in counts.items() if 0 < n <= most}


def _idf(corpus: Corpus, holders: int) -> float:
    """The ranker's IDF of a word `holders` live entries hold."""
    from memory.search import rank

    return rank.word_idf(max(corpus.live_count(), rank.Params.min_idf_entries), holders)


def words_in(entry: dict, words: dict[str, int]) -> set[str]:
    """Which of `words` the entry's content, key, tags or bead hold."""
    from memory.search import corpus

    fields = corpus.entry_terms(entry)
    return set().union(*(fields[f] for f in corpus.LEXICAL_FIELDS)).intersection(words)
