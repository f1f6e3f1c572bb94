#!/usr/bin/env python3
"""SubagentStart: a supervisor dispatched on a bead starts with that bead's last handoff.
Handler: memory.orchestration.subagent_start."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.orchestration.subagent_start import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
