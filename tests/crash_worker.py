"""Test helper process: append entries through memory.store.store, each followed by the fold a person runs
(rotation.compact: the inbox into knowledge.jsonl, then rotation; every 10th append when there are many),
SIGKILLing itself at a chosen instant.

usage: crash_worker.py MEMORY_DIR FIRST COUNT [DIE_AT [MODE]]
  DIE_AT: the n-th filesystem operation (os.write/fsync/replace/unlink/ftruncate/link/rename) at which to die
  MODE:   before (default) | after | half (write half of the bytes, then die)
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.core import locking  # noqa: E402
from memory.store import entry, rotation, store  # noqa: E402


def arm(die_at: int, mode: str) -> None:
    counter = {"n": 0}

    def wrap(name):
        real = getattr(os, name)

        def op(*args, **kwargs):
            counter["n"] += 1
            if counter["n"] == die_at:
                if mode == "half" and name == "write" and len(args[1]) > 1:
                    real(args[0], bytes(args[1])[: len(args[1]) // 2])
                elif mode == "after":
                    real(*args, **kwargs)
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        setattr(os, name, op)

    for name in ("write", "fsync", "replace", "unlink", "ftruncate", "link", "rename"):
        wrap(name)


def main() -> int:
    memory_dir, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if len(sys.argv) > 4:
        arm(int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else "before")
    for i in range(first, first + count):
        store.append(memory_dir, [entry.build(f"insight {i}", f"BD-{i}", "orchestrator", ts=i)])
        if count <= 5 or (i - first) % 10 == 9 or i == first + count - 1:
            try:
                rotation.compact(memory_dir)
            except locking.LockTimeout:  # many workers at once: the next one folds it
                pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
