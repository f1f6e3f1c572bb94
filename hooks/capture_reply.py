#!/usr/bin/env python3
"""Stop / Cursor afterAgentResponse: insights on lines of the final message that start with a marker.
Handler: memory.capture.reply_capture."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from memory.capture.reply_capture import main
except Exception as error:  # its code does not load (an upgrade copied halfway, a damaged file): fail open
    from memory import unusable

    main = unusable(__file__, error)

if __name__ == "__main__":
    raise SystemExit(main())
