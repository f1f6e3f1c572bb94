#!/usr/bin/env python3
"""Stop / Cursor afterAgentResponse: insights on lines of the final message that start with a marker.
Handler: memory.capture.reply_capture."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory.capture.reply_capture import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
