"""Near-identical entries: one insight recorded twice in other words (two teammates, two sessions).

The store keeps one copy of the same text (memory.store.view.same_text: case, spaces and punctuation aside);
a reworded copy ("shared with QA; never run…" / "shared with QA, so never run…") is a second entry that
session start, the prompt block and recall each show beside the first. `pairs` finds them for a person to
decide (`recall.sh --similar`); nothing is merged on its own, since a near-identical text may differ where it
matters (`build-constraint-dependencies` / `constraint-dependencies`).
"""
from __future__ import annotations

import re

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
    holders: dict[str, list[int]] = {}
    for i, ws in enumerate(sets):
        if len(ws) >= MIN_WORDS:
            for w in ws:
                holders.setdefault(w, []).append(i)
    most = min(MAX_HOLDERS, max(2, int(len(entries) * COMMON_SHARE)))
    shared: dict[tuple[int, int], int] = {}
    for docs in holders.values():
        if len(docs) <= most:
            for a in range(len(docs)):
                for b in range(a + 1, len(docs)):
                    shared[(docs[a], docs[b])] = shared.get((docs[a], docs[b]), 0) + 1
    found = []
    for (a, b), rare in shared.items():
        small, large = sorted((len(sets[a]), len(sets[b])))
        if rare < 2 or small < threshold * large:  # Jaccard <= |smaller| / |larger|
            continue
        score = len(sets[a] & sets[b]) / len(sets[a] | sets[b])
        if score >= threshold:
            newer, older = sorted((entries[a], entries[b]), key=_ts, reverse=True)
            found.append((newer, older, score))
    found.sort(key=lambda p: (-p[2], -_ts(p[0]), str(p[0].get("key"))))
    return found


def _ts(entry: dict) -> float:
    ts = entry.get("ts")
    return float(ts) if isinstance(ts, (int, float)) else 0.0
