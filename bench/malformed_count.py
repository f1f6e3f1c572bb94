"""What counting malformed lines costs a keyword scan (memory.store.reading.load_matching), clean and damaged files.

    python bench/malformed_count.py                                  # as it is
    git show main:memory/store/reading.py > /tmp/reading_before.py
    python bench/malformed_count.py /tmp/reading_before.py
"""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.core import jsonio  # noqa: E402
from memory.store import entry, reading  # noqa: E402


def main(argv: list[str]) -> int:
    module = reading
    if argv:
        spec = importlib.util.spec_from_file_location("memory.reading_under_test", argv[0])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    for lines in (1000, 100_000):
        for damaged in (False, True):
            folder = tempfile.mkdtemp()
            with open(os.path.join(folder, "knowledge.jsonl"), "wb") as fh:
                fh.write(b"".join(jsonio.dumps_line(entry.build(f"deploy queue thing {i} about pytest", "BD-1",
                                                                "orchestrator", ts=i)) for i in range(lines)))
                if damaged:
                    fh.write(b'garbage\n{"just":"json"}\n{"key":"torn","content":"x\n')
            times = []
            for _ in range(7):
                start = time.perf_counter()
                snap = module.load_matching(folder, b"zebra")
                times.append(time.perf_counter() - start)
            print(f"{lines:>7,} lines, {'3 malformed' if damaged else 'clean      '}: {min(times) * 1000:7.1f} ms, "
                  f"reported {snap.malformed} malformed (a full parse: {reading.load(folder).malformed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
