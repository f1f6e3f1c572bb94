#!/usr/bin/env python3
"""PostToolUse(Bash) / PostToolUseFailure(Bash) / Cursor afterShellExecution: `bd comment ID "LEARNED: …"`
-> knowledge.jsonl. Handler: memory.capture.capture_gate (runs on every shell command)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.capture.capture_gate import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
