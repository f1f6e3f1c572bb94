#!/usr/bin/env python3
"""PreToolUse on file tools, a failed tool call: the knowledge about that file or error. Handler: memory.action_context."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.action_context import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
