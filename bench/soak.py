#!/usr/bin/env python3
"""Soak: the torture loops for longer. Writers, readers and random SIGKILLs against one memory folder.

    python bench/soak.py --minutes 10 [--writers 48]

Every round: `writers` processes append through memory.store.store while readers load active + archive and
check that nothing seen before has vanished and no line is torn; one writer is SIGKILLed at a random
instant; then the invariants are checked on disk (no loss, no duplicate, no torn line). Prints counts.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tests" / "crash_worker.py"
READER = ROOT / "tests" / "test_torture.py"


def on_disk(memory: Path) -> list:
    raw = b""
    inbox = sorted((memory / "inbox").glob("*.jsonl")) if (memory / "inbox").is_dir() else []
    for path in [memory / "knowledge.jsonl", memory / "knowledge.archive.jsonl", *inbox]:  # + memory.store.inbox
        raw += path.read_bytes() if path.exists() else b""
    return [json.loads(line)["bead"] for line in raw.split(b"\n") if line]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--writers", type=int, default=48)
    args = parser.parse_args(argv)
    reader_code = READER.read_text().split('READER = r"""')[1].split('"""')[0]
    work = Path(tempfile.mkdtemp(prefix="memory-hooks-soak-"))
    memory = work / "memory"
    memory.mkdir()
    rng = random.Random()
    deadline = time.monotonic() + args.minutes * 60
    rounds = kills = 0
    known: set = set()
    try:
        while time.monotonic() < deadline:
            stop = work / f"stop-{rounds}"
            readers = [subprocess.Popen([sys.executable, "-c", reader_code, str(ROOT), str(memory), str(stop)],
                                        stdout=subprocess.PIPE, text=True) for _ in range(2)]
            base = rounds * 1_000_000
            writers = [subprocess.Popen([sys.executable, str(WORKER), str(memory), str(base + i * 1000), "40"])
                       for i in range(args.writers)]
            victim = rng.choice(writers)
            time.sleep(rng.uniform(0.05, 1.0))
            victim.send_signal(signal.SIGKILL)
            kills += 1
            for w in writers:
                w.wait()
            stop.write_text("")
            for r in readers:
                out, _ = r.communicate()
                if r.returncode != 0:
                    print(f"round {rounds}: reader saw a problem: {out.strip()}")
                    return 1
            subprocess.run([sys.executable, str(WORKER), str(memory), str(base + 999_999), "1"], check=True)
            beads = on_disk(memory)
            if len(beads) != len(set(beads)) or not known <= set(beads):
                print(f"round {rounds}: duplicates or lost entries")
                return 1
            known = set(beads)
            rounds += 1
            print(f"round {rounds}: {len(known)} entries, {kills} kills, all invariants hold", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"soak passed: {rounds} rounds, {kills} SIGKILLs, {len(known)} entries, no loss/duplicate/torn line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
