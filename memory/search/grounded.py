"""Ranking for action time: a text against the knowledge, keeping only entries grounded in a rare word.

A failed command's output or the code an edit adds is long and full of words every entry shares some of
(`test`, `run`, `import`, `return`). A share of the best reachable score alone lets an entry through on those;
so an entry passes only when it also holds one of the *rare* words of the part that matters (the error lines,
the added code): a word that at most `share` of the live entries hold.

    passing(memory_dir, terms, grounding, bar, min_terms, share, limit)   [(Scored), …] best first
"""
from __future__ import annotations

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.search.corpus import Corpus
    from memory.search.rank import Scored


def passing(memory_dir: str, words: list[str], grounding: list[str], bar: float, min_terms: int, share: float,
            limit: int) -> list[Scored]:
    """Entries ranked on the ranking terms `words` (memory.search.rank over the derived index) that reach
    `bar` of the best reachable score, share `min_terms` of the words, and hold one of the `grounding` terms
    that at most `share` of the live entries (at least two) hold; best first."""
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
    return [s for s in ranked if s.fraction >= bar and s.matched >= min_terms and holds(s.entry, rare)]


def rare_terms(corpus: Corpus, words: list[str], share: float) -> set[str]:
    """The `words` that at most `share` of the live entries (and at least one; two in a small knowledge) hold."""
    from memory.search import rank

    most = max(2.0, share * corpus.live_count())
    return {t for t in set(words) if 0 < rank.doc_freq(corpus, t) <= most}


def holds(entry: dict, words: set[str]) -> bool:
    """Whether the entry's content, key, tags or bead hold one of `words`."""
    from memory.search import corpus

    fields = corpus.entry_terms(entry)
    return any(words.intersection(fields[f]) for f in corpus.LEXICAL_FIELDS)
