#!/usr/bin/env python3
"""PostToolUse(Bash) / PostToolUseFailure(Bash) / Cursor afterShellExecution: `bd comment ID "LEARNED: …"`
-> knowledge.jsonl. Handler: memory.capture.capture_gate (runs on every shell command)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from memory.capture.capture_gate import main
except Exception as error:  # its code does not load (an upgrade copied halfway, a damaged file): fail open
    from memory import unusable

    main = unusable(__file__, error)

if __name__ == "__main__":
    raise SystemExit(main())
