"""Near-identical entries: one insight recorded twice in other words (two teammates, two sessions).

The store keeps one copy of the same text (memory.store.view.same_text: case, spaces and punctuation aside);
a reworded copy ("shared with QA; never run…" / "shared with QA, so never run…") is a second entry that
session start, the prompt block and recall each show beside the first. `pairs` finds them for a person to
decide (`recall.sh --similar`); `resembling` names, at capture, the live entry a new one nearly repeats
(memory.capture.capture.near_copy_notes). Nothing is merged on its own, since a near-identical text may differ
where it matters (`build-constraint-dependencies` / `constraint-dependencies`).
"""
from __future__ import annotations

import re

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Callable

THRESHOLD = 0.8  # Jaccard of the two word sets: at 1,000 entries, 10 pairs, each worth a look
COMMON_SHARE = 0.05  # a word in more than this share of the entries proposes no candidate pair (it still counts)
MAX_HOLDERS = 50  # ...nor one in more than this many: candidates stay linear in the knowledge's size
MIN_WORDS = 4  # shorter texts are left out: "Use pnpm." and "Use npm." share half their words
_WORD = re.compile(r"[^\W_]+(?:[-_.][^\W_]+)*")


def words(text: str) -> frozenset[str]:
    """The text's words, case-folded (`constraint-dependencies` one word: it is not `dependencies`)."""
    return frozenset(w.casefold() for w in _WORD.findall(text))


def pairs(entries: list[dict], threshold: float = THRESHOLD) -> list[tuple[dict, dict, float]]:
    """(newer, older, similarity) of every two entries whose word sets overlap at least `threshold`, most
    similar first. Candidates come from the words few entries hold, so a thousand entries are not compared
    pair by pair."""
    sets = [words(str(e.get("content", ""))) for e in entries]
    shared: dict[tuple[int, int], int] = {}
    for docs in _rare_holders(sets).values():
        for a in range(len(docs)):
            for b in range(a + 1, len(docs)):
                shared[(docs[a], docs[b])] = shared.get((docs[a], docs[b]), 0) + 1
    found = []
    for (a, b), rare in shared.items():
        score = _alike(sets[a], sets[b], rare, threshold)
        if score:
            newer, older = sorted((entries[a], entries[b]), key=_ts, reverse=True)
            found.append((newer, older, score))
    found.sort(key=lambda p: (-p[2], -_ts(p[0]), str(p[0].get("key"))))
    return found


def resembling(new: list[dict], live: list[dict], threshold: float = THRESHOLD) -> list[tuple[dict, dict, float]]:
    """(new entry, the live entry under another key it is most like, similarity) for each of `new` that has
    one: what a capture tells the agent. One entry against the live ones is linear already, so each is compared
    exactly (no rare-word cut as in `pairs`), after `may_resemble` has left out the texts that cannot be alike."""
    found = []
    for fresh in new:
        mine = words(str(fresh.get("content", "")))
        if len(mine) < MIN_WORDS:
            continue
        probe = probes(mine, threshold)
        best: tuple[float, dict] | None = None
        for old in live:
            content = str(old.get("content", ""))
            if old.get("key") == fresh.get("key") or not may_resemble(probe, content):
                continue
            theirs = words(content)
            score = _alike(mine, theirs, 2, threshold) if len(theirs) >= MIN_WORDS else 0.0
            if score and (best is None or (score, _ts(old)) > (best[0], _ts(best[1]))):
                best = (score, old)
        if best is not None:
            found.append((fresh, best[1], best[0]))
    return found


def probes(mine: frozenset[str], threshold: float = THRESHOLD,
           held_by: Callable[[str], int] | None = None) -> list[str]:
    """Words of `mine` of which every text alike to it holds one: alike, it holds at least `threshold` of
    `mine` (Jaccard <= |shared| / |mine|), so it misses at most the rest; any one more than that is a probe.
    The rarest (`held_by`: how often the knowledge holds a word), else the longest, so few texts pass."""
    missable = len(mine) + int((1e-9 - threshold * len(mine)) // 1)  # len - ceil(threshold * len); no math import
    return sorted(mine, key=lambda w: (held_by(w) if held_by else 0, -len(w), w))[:missable + 1]


def may_resemble(probe: list[str], content: str) -> bool:
    """False when `content` holds none of the probes even as a substring: it cannot be alike (a word of it,
    case-folded, is a substring of the case-folded text)."""
    folded = content.casefold()
    return any(p in folded for p in probe)


def _rare_holders(sets: list[frozenset[str]]) -> dict[str, list[int]]:
    """{word: the indexes of the sets holding it} for the words few sets hold (see COMMON_SHARE, MAX_HOLDERS),
    over the sets of at least MIN_WORDS words."""
    holders: dict[str, list[int]] = {}
    for i, ws in enumerate(sets):
        if len(ws) >= MIN_WORDS:
            for w in ws:
                holders.setdefault(w, []).append(i)
    most = min(MAX_HOLDERS, max(2, int(len(sets) * COMMON_SHARE)))
    return {w: docs for w, docs in holders.items() if len(docs) <= most}


def _alike(a: frozenset[str], b: frozenset[str], rare: int, threshold: float) -> float:
    """The Jaccard similarity of `a` and `b` when they share at least two rare words and reach `threshold`, else 0."""
    small, large = sorted((len(a), len(b)))
    if rare < 2 or small < threshold * large:  # Jaccard <= |smaller| / |larger|
        return 0.0
    score = len(a & b) / len(a | b)
    return score if score >= threshold else 0.0


def _ts(entry: dict) -> float:
    ts = entry.get("ts")
    return float(ts) if isinstance(ts, (int, float)) else 0.0
