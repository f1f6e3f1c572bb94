"""Reading a Claude Code transcript (JSONL, unstable format) from its end, tolerating torn lines."""
from __future__ import annotations

import json
import os

TAIL_BYTES = 512 * 1024


def last_assistant_text(path: str | None) -> str | None:
    """The text of the last assistant message in a transcript, or None."""
    if not path or not os.path.isfile(path):
        return None
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - TAIL_BYTES))
        lines = fh.read().split(b"\n")
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str) and content.strip():
            return content
        texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        if any(t.strip() for t in texts):
            return "\n".join(texts)
    return None
