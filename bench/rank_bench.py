#!/usr/bin/env python3
"""How long a prompt hook's ranking takes: a fresh process that imports the ranker, loads the knowledge
through the index and ranks one prompt, as a ratio to a bare `python -c pass` (runs interleaved).

    python bench/rank_bench.py            # 1,000 active entries; 100,000 active + archived
    python bench/rank_bench.py --quick    # small sizes, few runs

`measure(active, archived, runs)` is the function bench/run.py can call.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.search import concepts  # noqa: E402
from memory.store import entry  # noqa: E402

PYTHON = sys.executable
PROMPT = "the integration tests hang when the database migration runs before the cache is warmed"
PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); from memory.search import index, rank; "
         "rank.search(index.load(sys.argv[2]), sys.argv[3], 5, gate=True)")


def _vocabulary(rng: random.Random) -> list[str]:
    words = sorted({w for group in concepts.GROUPS for w in group.split()})
    syllables = ["ka", "lo", "mi", "ter", "sun", "vex", "dra", "pol", "qui", "ren", "tas", "zo"]
    identifiers = set()
    while len(identifiers) < 5000:  # a project's own names: camelCase, snake_case, paths
        parts = [rng.choice(syllables) + rng.choice(syllables) for _ in range(rng.randint(1, 3))]
        style = rng.random()
        identifiers.add("_".join(parts) if style < 0.3 else
                        parts[0] + "".join(p.title() for p in parts[1:]) if style < 0.7 else "/".join(parts) + ".py")
    return words + sorted(identifiers)


def write_knowledge(memory_dir: str, active: int, archived: int, seed: int = 7) -> None:
    """`archived` entries in knowledge.archive.jsonl and `active` in knowledge.jsonl, Zipf-ish words."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    filler = ["the", "a", "when", "before", "after", "so", "because", "must", "with", "of", "in", "on"]
    os.makedirs(memory_dir, exist_ok=True)
    for name, count, start in (("knowledge.archive.jsonl", archived, 0), ("knowledge.jsonl", active, archived)):
        if not count:
            continue
        with open(os.path.join(memory_dir, name), "w", encoding="utf-8") as fh:
            for i in range(start, start + count):
                words = rng.choices(vocab, weights, k=rng.randint(12, 30))
                text = " ".join(w if rng.random() < 0.7 else f"{w} {rng.choice(filler)}" for w in words)
                record = entry.build(f"{text} ({i})", f"BD-{i % 997}", "orchestrator", ts=1_700_000_000 + i)
                fh.write(json.dumps(record, separators=(",", ":")) + "\n")


def _once(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def measure(active: int, archived: int, runs: int = 20) -> dict[str, float]:
    """Median ms of the ranking process and of a bare interpreter (interleaved), their ratio, and the
    one-off index build time."""
    tmp = tempfile.mkdtemp(prefix="rank-bench-")
    try:
        memory_dir = os.path.join(tmp, ".beads", "memory")
        write_knowledge(memory_dir, active, archived)
        probe = [PYTHON, "-c", PROBE, str(ROOT), memory_dir, PROMPT]
        build_ms = _once(probe)  # the first run builds the index
        samples, bare = [], []
        for _ in range(runs):
            bare.append(_once([PYTHON, "-c", "pass"]))
            samples.append(_once(probe))
        ms, base = statistics.median(samples), statistics.median(bare)
        size = sum(os.path.getsize(os.path.join(memory_dir, n)) for n in os.listdir(memory_dir) if n.endswith(".index"))
        return {"ms": ms, "bare_ms": base, "ratio": ms / base, "build_ms": build_ms, "index_kib": size / 1024}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    cases = [(100, 0), (1000, 1000)] if args.quick else [(1000, 0), (1000, 99000)]
    runs = 5 if args.quick else 20
    for active, archived in cases:
        r = measure(active, archived, runs)
        print(f"rank hook, {active:,} active + {archived:,} archived: {r['ms']:.1f} ms vs bare {r['bare_ms']:.1f} ms"
              f" = {r['ratio']:.2f}x  (first run, building the index: {r['build_ms']:.0f} ms;"
              f" index {r['index_kib']:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
