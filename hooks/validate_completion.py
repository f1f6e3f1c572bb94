#!/usr/bin/env python3
"""SubagentStop / Cursor subagentStop: a subagent claiming a bead must really have finished it.
Handler: memory.orchestration.subagent_stop."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.orchestration.subagent_stop import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
