#!/usr/bin/env python3
"""Two in-process baselines and the metrics to compare rankers on the relevance set (stdlib only).

    python bench/relevance/baselines.py        # recall@5 / MRR of newest-5 and BM25, dev and test

A ranker is `rank(entries, prompt) -> [key, ...]`, best first; an empty list means "stay silent".
"""
from __future__ import annotations

import math
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dataset  # noqa: E402

_TOKEN = re.compile(r"\w+")
K = 5


def newest5(entries: list[dict], prompt: str) -> list[str]:
    """The five newest entries, whatever the prompt: what a recency-only injector shows."""
    return [e["key"] for e in sorted(entries, key=lambda e: e["ts"], reverse=True)[:K]]


def tokens(text: str) -> list[str]:
    """Lowercase \\w+ tokens, no stemming, no stop words."""
    return _TOKEN.findall(text.lower())


def bm25(entries: list[dict], prompt: str, k1: float = 1.2, b: float = 0.75) -> list[str]:
    """Okapi BM25 over entry content; keys of the entries scoring > 0, best first (ties: file order)."""
    docs = [Counter(tokens(e["content"])) for e in entries]
    n = len(docs)
    avgdl = sum(sum(d.values()) for d in docs) / n if n else 0.0
    df = Counter(t for d in docs for t in d)
    scores = []
    for i, d in enumerate(docs):
        dl = sum(d.values())
        s = 0.0
        for t in set(tokens(prompt)):
            tf = d.get(t, 0)
            if tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
        if s > 0:
            scores.append((-s, i))
    return [entries[i]["key"] for _, i in sorted(scores)]


def evaluate(rank: Callable[[list[dict], str], list[str]], projects: dict[str, list[dict]],
             prompts: list[dict]) -> dict[str, float]:
    """recall@5 (overall / paraphrase / lexical, over answerable prompts), MRR, and the share of
    unrelated prompts where the ranker stayed silent (returned nothing)."""
    per_kind: dict[str, list[float]] = {"paraphrase": [], "lexical": []}
    rr, silent = [], []
    for p in prompts:
        ranked = rank(projects[p["project"]], p["prompt"])
        if p["kind"] == "unrelated":
            silent.append(1.0 if not ranked else 0.0)
            continue
        relevant = set(p["relevant"])
        per_kind[p["kind"]].append(len(relevant & set(ranked[:K])) / len(relevant))
        rr.append(next((1.0 / (i + 1) for i, key in enumerate(ranked) if key in relevant), 0.0))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {
        "recall@5": mean(per_kind["paraphrase"] + per_kind["lexical"]),
        "recall@5_paraphrase": mean(per_kind["paraphrase"]),
        "recall@5_lexical": mean(per_kind["lexical"]),
        "mrr": mean(rr),
        "silent_on_unrelated": mean(silent),
        "n": float(len(rr)),
    }


def main() -> int:
    projects, prompts = dataset.load()
    print(f"{'ranker':<8} {'split':<5} {'n':>4} {'R@5':>6} {'R@5 para':>9} {'R@5 lex':>8} {'MRR':>6} {'silent':>7}")
    for name, rank in (("newest5", newest5), ("bm25", bm25)):
        for split_name in dataset.SPLITS:
            m = evaluate(rank, projects, dataset.split(prompts, split_name))
            print(f"{name:<8} {split_name:<5} {int(m['n']):>4} {m['recall@5']:>6.3f} {m['recall@5_paraphrase']:>9.3f} "
                  f"{m['recall@5_lexical']:>8.3f} {m['mrr']:>6.3f} {m['silent_on_unrelated']:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
