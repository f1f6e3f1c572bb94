#!/usr/bin/env python3
"""What screening adds to the hooks, measured in process (min of N: steadier than hook timings on a busy machine).

    python bench/screen_cost.py

- session start: `store.latest` over bench/run.py's 1,000 entries, unscreened / screened from the verdict cache /
  screened without it (a first session, or a new screen VERSION);
- cold screening of the harvested benign rules (bench/poisoning/benign.jsonl);
- capture: importing memory.store.hold and screening one captured text, in fresh interpreters that have `re` already
  (as the capture hook has).
Run it with bytecode written (no PYTHONDONTWRITEBYTECODE), or the import figure includes compiling.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from memory.store import hold, screen, store  # noqa: E402

CAPTURE = ("import re, time; t = time.perf_counter(); from memory.store import hold; "
           "hold.note([{'key': 'k', 'content': 'benchmark insight number 3 about caching'}]); "
           "print((time.perf_counter() - t) * 1000)")


def best(run, n: int = 15) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    import run as bench_run

    mem = Path(tempfile.mkdtemp()) / ".beads" / "memory"
    mem.mkdir(parents=True)
    bench_run.write_entries(mem / store.ACTIVE, 1000)
    lines = store.load(str(mem)).entries
    screened = hold.reasons
    hold.reasons = lambda entry, approved=(): []  # type: ignore[assignment]
    off = best(lambda: store.latest(lines))
    hold.reasons = screened  # type: ignore[assignment]
    store.latest(lines, cache_dir=str(mem))  # the first session fills knowledge.screen

    def cached() -> None:
        screen._verdicts.clear()
        store.latest(lines, cache_dir=str(mem))

    def uncached() -> None:
        screen._verdicts.clear()
        store.latest(lines)

    on, cold = best(cached), best(uncached, 5)
    print(f"session start, latest() over 1,000 bench entries: {off:.2f} ms unscreened, {on:.2f} ms screened from "
          f"the cache (+{on - off:.2f} ms), {cold:.1f} ms screened without it")
    with open(ROOT / "bench" / "poisoning" / "benign.jsonl", encoding="utf-8") as fh:
        rules = [json.loads(line)["content"] for line in fh]

    def cold_rules() -> None:
        screen._verdicts.clear()
        for rule in rules:
            screen.reasons(rule)

    print(f"screening the {len(rules)} harvested rules without a cache: {best(cold_rules, 5):.0f} ms")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [float(subprocess.run([sys.executable, "-c", CAPTURE], cwd=ROOT, env=env, capture_output=True,
                                 text=True, check=True).stdout) for _ in range(15)]
    print(f"capture: importing memory.store.hold and screening the captured text: {min(runs):.2f} ms (min of 15)")


if __name__ == "__main__":
    main()
