#!/usr/bin/env python3
"""P3 (SessionStart) and P2 (a capture) with N inbox files beside 1,000 active lines (memory.store.inbox), as ratios
against bare `python -c pass` (bench/run.py's helpers).

    python bench/inbox_bench.py 0 100 500
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402

from memory.store import entry, inbox  # noqa: E402


def measure(work: Path, count: int, runs: int = 9) -> list[str]:
    proj = bench.make_repo(work / f"p-{count}")
    mem = proj / ".beads" / "memory"
    mem.mkdir(parents=True)
    bench.write_entries(mem / "knowledge.jsonl", 1000)
    for i in range(count):
        e = entry.build(f"inbox insight {i} about the cache step", f"BD-{i}", "orchestrator", ts=1_800_000_000 + i)
        inbox.write(str(mem), (json.dumps(e, separators=(",", ":")) + "\n").encode())
    start = json.dumps({"session_id": "b", "hook_event_name": "SessionStart", "source": "startup",
                        "cwd": str(proj)}).encode()
    ms, base = bench.timed([bench.PYTHON, str(bench.ROOT / "hooks" / "session_start.py")], runs, stdin=start,
                           cwd=proj, env=bench.hook_env(proj))
    rows = [f"P3 SessionStart, 1,000 active + {count} inbox files  {ms:7.1f} ms  {ms / base:5.2f}x"]
    ms, base = bench.timed([bench.PYTHON, str(bench.ROOT / "hooks" / "memory_capture.py")], runs, cwd=proj,
                           env=bench.hook_env(proj), stdin=lambda i: bench.bash_payload(
                               f'bd comment BD-{i} "LEARNED: benchmark insight number {i} about caching"', proj, i))
    rows.append(f"P2 capture, 1,000 active + {count} inbox files       {ms:7.1f} ms  {ms / base:5.2f}x")
    return rows


def main(argv: list[str] | None = None) -> int:
    counts = [int(a) for a in (sys.argv[1:] if argv is None else argv)] or [0, 100, 500]
    work = Path(tempfile.mkdtemp(prefix="memory-hooks-inbox-bench-"))
    try:
        for count in counts:
            print("\n".join(measure(work, count)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
