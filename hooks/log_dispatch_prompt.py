#!/usr/bin/env python3
"""PostToolUse(Agent|Task): dispatch prompts with `BEAD_ID: <id>` -> dispatch.jsonl and the bead.
Handler: memory.orchestration.dispatch."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.orchestration.dispatch import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
