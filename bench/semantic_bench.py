#!/usr/bin/env python3
"""What the semantic option costs a prompt hook, measured as the hook pays it: a fresh process each time.

    python bench/semantic_bench.py [--entries 1000] [--rounds 15]

Interleaves, round by round: a bare `python -c pass`; the lexical hook's floor (read the knowledge); and
the semantic path (read the knowledge, import numpy, map the model, embed the prompt, score every cached
vector, fuse). Prints medians, the ratio to the bare interpreter (the budget: <= 20x), peak RSS, and the
capture-time cost of embedding entries (per entry in a batch, and one new entry in a fresh process).
Run it with the interpreter that has numpy and the model (the hooks' venv).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from memory.search import semantic  # noqa: E402
from memory.store import store  # noqa: E402

WORDS = [
    "cache", "build", "test", "lockfile", "migration", "schema", "deploy", "docker", "branch", "rebase", "token",
    "session", "config", "flag", "retry", "timeout", "logger", "metrics", "query", "index", "worker", "queue",
    "async", "thread", "render", "component", "style", "route", "endpoint", "handler", "fixture", "mock",
    "coverage", "release", "version", "tag", "changelog", "lint", "format", "import", "module", "package",
    "dependency", "install", "upgrade", "pin", "wheel", "binary", "compile", "linker", "target", "platform",
    "windows", "macos", "linux", "shell", "path", "env", "secret", "credential", "database", "table", "column",
    "replica", "shard", "cluster", "node",
]

READ = "import sys; sys.path.insert(0, {root!r}); from memory.store import store; " \
       "entries = store.latest(store.load({memory!r}).entries)"
SEMANTIC = READ + "; from memory.search import semantic; " \
    "scores = semantic.similarities({memory!r}, entries, {prompt!r}, max_new=0, budget_s=60); " \
    "assert scores is not None and len(scores) == len(entries), scores; " \
    "semantic.fuse({{}}, (), scores)"
CAPTURE = "import sys; sys.path.insert(0, {root!r}); from memory.search import semantic; " \
          "entries = [{{'key': 'new', 'content': {content!r}}}] + {old!r}; " \
          "assert semantic.refresh({memory!r}, entries) == 1"


def make_knowledge(memory_dir: str, n: int, seed: int = 7) -> list:
    rng = random.Random(seed)
    entries = []
    for i in range(n):
        content = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 40)))
        entries.append({"key": f"learned-{i}", "type": "learned", "content": content, "source": "orchestrator",
                        "tags": [], "ts": 1_700_000_000 + i, "bead": f"BD-{i}"})
    os.makedirs(memory_dir, exist_ok=True)
    store.append(memory_dir, entries, rotate=False)
    return entries


# the child reports its own peak RSS (VmHWM): ru_maxrss would count the parent's image it was forked from
PEAK = "; import sys as _s; _s.stderr.write(open('/proc/self/status').read())"


def run(argv: list) -> tuple:
    """(wall seconds, peak RSS in MB or nan) of one fresh process."""
    start = time.perf_counter()
    result = subprocess.run(argv[:-1] + [argv[-1] + PEAK], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    err = result.stderr.decode(errors="replace")
    if result.returncode != 0:
        raise SystemExit(f"failed: {argv[-1][:120]}\n{err}")
    peak = [line.split()[1] for line in err.splitlines() if line.startswith("VmHWM:")]
    return wall, int(peak[0]) / 1024 if peak else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if semantic.model() is None:
        print("semantic_bench: numpy or the model is not installed", file=sys.stderr)
        return 2
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        memory_dir = os.path.join(tmp, "memory")
        entries = make_knowledge(memory_dir, args.entries)
        start = time.perf_counter()
        computed = semantic.refresh(memory_dir, store.latest(store.load(memory_dir).entries))
        fill = time.perf_counter() - start
        prompt = "why does the wheel build fail on windows after the linker upgrade"
        commands = {
            "bare python -c pass": [py, "-c", "pass"],  # (+ the VmHWM read, in every command alike)
            "read knowledge (lexical floor)": [py, "-c", READ.format(root=ROOT, memory=memory_dir)],
            "semantic: read+import+load+embed+score+fuse": [py, "-c", SEMANTIC.format(
                root=ROOT, memory=memory_dir, prompt=prompt)],
        }
        times = {name: [] for name in commands}
        rss = {name: [] for name in commands}
        for argv in commands.values():
            run(argv)  # warm the page cache and .pyc files once
        for _ in range(args.rounds):
            for name, argv in commands.items():
                wall, peak = run(argv)
                times[name].append(wall)
                rss[name].append(peak)
        bare = statistics.median(times["bare python -c pass"])
        print(f"{args.entries} entries, {args.rounds} interleaved rounds, {py}")
        print(f"{'':46} {'median ms':>10} {'x bare':>7} {'peak RSS MB':>12}")
        for name in commands:
            median = statistics.median(times[name])
            print(f"{name:46} {median * 1000:>10.1f} {median / bare:>7.1f} {max(rss[name]):>12.1f}")
        old = [{"key": e["key"], "content": e["content"]} for e in entries[:50]]
        capture_dir = os.path.join(tmp, "capture")
        semantic.refresh(capture_dir, old)
        one = [run([py, "-c", CAPTURE.format(root=ROOT, memory=capture_dir, old=old,
                                             content=f"entry {i}: " + entries[i]["content"])])[0]
               for i in range(5)]
        print(f"capture time: {computed} entries embedded in {fill:.1f} s = {fill / max(computed, 1) * 1000:.1f} ms "
              f"per entry in batches; one new entry in a fresh process {statistics.median(one) * 1000:.0f} ms")
        print(f"cache file: {os.path.getsize(os.path.join(memory_dir, semantic.VECTORS)) / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
