"""Provenance `files`: the files a session had read or edited before it captured an insight.

Taken from the tail of the session's transcript (memory.runtimes.handoff reads it; Gemini's chat log and Codex's
rollout log through memory.runtimes.transcript_formats), so a capture pays for a bounded read, never the whole file.
Recorded on the new entry as `files` (project-relative, most recent first); memory.search.action_paths uses them:
an entry captured while the session worked on a file is about that file.
"""
from __future__ import annotations

import os

TAIL_BYTES = 256 * 1024
MAX_FILES = 8
_FILE_TOOLS = {"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "read_file", "write_file", "replace"}


def session_files(transcript_path: str | None, root: str | None, limit: int = MAX_FILES) -> list[str] | None:
    """The last `limit` distinct files the transcript's tool calls read or edited, newest first, relative to
    `root` when inside it; None when there are none (or the transcript is unreadable)."""
    if not transcript_path or not os.path.isfile(transcript_path):
        return None  # and no transcript reader imported for nothing
    from memory.runtimes import handoff

    reader = handoff.read_transcript(transcript_path, tail_bytes=TAIL_BYTES)
    found: list[str] = []
    for tool_id in reversed(reader.order):
        name, args = reader.tools[tool_id]
        target = args.get("file_path") or args.get("notebook_path") or args.get("absolute_path") \
            if name in _FILE_TOOLS else None
        if not isinstance(target, str) or not target.strip():
            continue
        path = _relative(target, root)
        if path not in found:
            found.append(path)
        if len(found) >= limit:
            break
    return found or None


def _relative(path: str, root: str | None) -> str:
    if root and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, root)
        except ValueError:  # another drive (Windows)
            return path
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return path.replace(os.sep, "/")
