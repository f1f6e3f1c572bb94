#!/usr/bin/env python3
"""UserPromptSubmit: the knowledge relevant to the prompt, or nothing. Handler: memory.surface.prompt_context."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.surface.prompt_context import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
