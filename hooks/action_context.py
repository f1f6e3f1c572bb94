#!/usr/bin/env python3
"""A file read or edited, a failed command: the knowledge about it, or nothing.
Handler: memory.surface.action_context."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.surface.action_context import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
