#!/usr/bin/env python3
"""PostToolUse(Agent|Task): dispatch prompts with `BEAD_ID: <id>` -> dispatch.jsonl and the bead.
Handler: memory.orchestration.dispatch."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from memory.orchestration.dispatch import main
except Exception as error:  # its code does not load (an upgrade copied halfway, a damaged file): fail open
    from memory import unusable

    main = unusable(__file__, error)

if __name__ == "__main__":
    raise SystemExit(main())
