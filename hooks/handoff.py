#!/usr/bin/env python3
"""PreCompact / SessionEnd (Claude Code), preCompact / sessionEnd (Cursor): where the session stopped.
Handler: memory.surface.handoff_hook."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from memory.surface.handoff_hook import main
except Exception as error:  # its code does not load (an upgrade copied halfway, a damaged file): fail open
    from memory import unusable

    main = unusable(__file__, error)

if __name__ == "__main__":
    raise SystemExit(main())
