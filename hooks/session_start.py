#!/usr/bin/env python3
"""SessionStart (startup, resume, clear, compact) / Cursor sessionStart: surface the knowledge.
Handler: memory.surface.session_start."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.surface.session_start import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
