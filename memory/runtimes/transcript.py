"""Reading a Claude Code transcript (JSONL, unstable format) from its end, tolerating torn lines; Cursor's
agent transcripts (`{"role": …, "message": {"content": […]}}` lines, undocumented) for the last assistant text."""
from __future__ import annotations

import json
import os
import re

TAIL_BYTES = 512 * 1024
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def claude_session_transcript(session_id: str | None, env: dict | None = None) -> str | None:
    """The transcript of a running Claude Code session by its id (CLAUDE_CODE_SESSION_ID, which Claude Code gives
    its Bash tool's commands): `<config>/projects/<project folder>/<id>.jsonl`; None when there is none."""
    if not session_id or not _SESSION_ID.fullmatch(session_id):
        return None
    from memory.runtimes import automemory

    projects = os.path.join(automemory.config_home(os.environ if env is None else env), "projects")
    try:
        folders = os.listdir(projects)
    except OSError:
        return None
    for folder in folders:  # the folder is named after where the session started: not known here
        path = os.path.join(projects, folder, session_id + ".jsonl")
        if os.path.isfile(path):
            return path
    return None


def last_assistant_text(path: str | None) -> str | None:
    """The text of the last assistant message in a transcript, or None."""
    from memory.core import fsio

    if not path:
        return None
    try:  # a FIFO or a device named as the transcript: unreadable, not a wait
        lines = fsio.read_tail(path, TAIL_BYTES, follow=True).split(b"\n")
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        # Claude Code names the role in the message, Cursor beside it ({"role": "assistant", "message": {…}})
        if not isinstance(message, dict) or (message.get("role") or record.get("role")) != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str) and content.strip():
            return content
        texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        if any(t.strip() for t in texts):
            return "\n".join(texts)
    return None
