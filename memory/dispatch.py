"""Dispatch prompts: the `BEAD_ID: <id>` marker, the dispatch.jsonl record, and the origin's bd comment.

A dispatch (Agent/Task tool call) is logged when its prompt carries a line such as `BEAD_ID: BD-12`.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import time
from typing import Optional

from memory import redact

MARKER = re.compile(r"\bBEAD_ID:\s*`?([A-Za-z0-9][A-Za-z0-9._-]*)")
DISPATCH_LOG = "dispatch.jsonl"
MAX_PROMPT_CHARS = 2048


def bead_of(prompt: str) -> Optional[str]:
    """The bead a dispatch prompt is for, or None."""
    match = MARKER.search(prompt or "")
    return match.group(1) if match else None


def record(bead: str, tool_input: dict, response: object, session_id: Optional[str],
           tool_use_id: Optional[str]) -> dict:
    """The dispatch.jsonl line (the store redacts it again before writing)."""
    response = response if isinstance(response, dict) else {}
    prompt = str(tool_input.get("prompt") or "")
    return {
        "ts": int(time.time()), "bead": bead,
        "subagent_type": tool_input.get("subagent_type") or response.get("agentType") or "general-purpose",
        "description": tool_input.get("description"), "prompt": prompt[:MAX_PROMPT_CHARS],
        "status": response.get("status"), "agent_id": response.get("agentId"),
        "session_id": session_id, "tool_use_id": tool_use_id, "capture_id": tool_use_id,
    }


def comment_on_bead(entry: dict, cwd: str, timeout: float) -> Optional[str]:
    """Add the origin's `bd comment <id> "DISPATCH_PROMPT [<type>]: …"`; returns a problem, or None."""
    if shutil.which("bd") is None:
        return None
    text, _ = redact.redact(f"DISPATCH_PROMPT [{entry['subagent_type']}]:\n\n{entry['prompt']}")
    try:
        proc = subprocess.run(["bd", "comment", entry["bead"], text], cwd=cwd, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"bd comment {entry['bead']} timed out after {timeout:g}s"
    except OSError as exc:
        return f"bd comment could not run: {exc}"
    return None if proc.returncode == 0 else f"bd comment {entry['bead']} exited {proc.returncode}: {proc.stderr.strip()[:200]}"
