#!/usr/bin/env python3
"""PreCompact / SessionEnd (Claude Code), preCompact / sessionEnd (Cursor): where the session stopped.
Handler: memory.surface.handoff_hook."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.surface.handoff_hook import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
