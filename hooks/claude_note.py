#!/usr/bin/env python3
"""PostToolUse(Write|Edit|MultiEdit): Claude Code's own auto memory notes (project / reference) into the shared
knowledge, when `"capture_claude_notes": true` is set. Handler: memory.capture.note_capture."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from memory.capture.note_capture import main
except Exception as error:  # its code does not load (an upgrade copied halfway, a damaged file): fail open
    from memory import unusable

    main = unusable(__file__, error)

if __name__ == "__main__":
    raise SystemExit(main())
