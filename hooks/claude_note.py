#!/usr/bin/env python3
"""PostToolUse(Write|Edit|MultiEdit): Claude Code's own auto memory notes (project / reference) into the shared
knowledge, when `"capture_claude_notes": true` is set. Handler: memory.capture.note_capture."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.capture.note_capture import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
