#!/usr/bin/env python3
"""PostToolUse(Bash) / Cursor afterShellExecution: `bd comment ID "LEARNED: …"` -> knowledge.jsonl.

Runs on every shell command. The handler is memory.capture.handle (a module is byte-compiled, this
script is compiled on every run); it decides from the raw stdin bytes, before parsing or importing
anything heavy, whether there can be anything to capture.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.capture import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
