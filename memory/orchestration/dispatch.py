"""The dispatch log hook, PostToolUse(Agent|Task): dispatch prompts that carry `BEAD_ID: <id>` are logged
to dispatch.jsonl and as a `DISPATCH_PROMPT` comment on the bead.

Handles both foreground (`status: completed`) and background (`async_launched`) tool responses: only
the dispatch itself (tool_input) is logged. The work runs in a detached child, so the client never waits
for bd and a session that ends right after the dispatch does not cut the log short.
"""
from __future__ import annotations

import re
import subprocess
import time

from memory.core import errorlog, layout, paths
from memory.orchestration import completion
from memory.runtimes import hookrun, payload
from memory.store import redact, store
from memory.surface import notices

HOOK = "log_dispatch_prompt"
DISPATCH_TOOLS = ("Agent", "Task")
MARKER = re.compile(r"\bBEAD_ID:\s*`?([A-Za-z0-9][A-Za-z0-9._-]*)")
DISPATCH_LOG = layout.DISPATCH_LOG
MAX_PROMPT_CHARS = 2048


def bead_of(prompt: str) -> str | None:
    """The bead a dispatch prompt is for, or None."""
    match = MARKER.search(prompt or "")
    return match.group(1) if match else None


def record(bead: str, tool_input: dict, response: object, session_id: str | None,
           tool_use_id: str | None) -> dict:
    """The dispatch.jsonl line, its prompt redacted before the cap (the store redacts it again before writing)."""
    response = response if isinstance(response, dict) else {}
    # redacted whole, then cut: a token across the cut would lose the shape that identifies it
    prompt, found = redact.redact(str(tool_input.get("prompt") or ""))
    line = {
        "ts": int(time.time()), "bead": bead,
        "subagent_type": tool_input.get("subagent_type") or response.get("agentType") or "general-purpose",
        "description": tool_input.get("description"), "prompt": prompt[:MAX_PROMPT_CHARS],
        "status": response.get("status"), "agent_id": response.get("agentId"),
        "session_id": session_id, "tool_use_id": tool_use_id, "capture_id": tool_use_id,
    }
    if found:
        line["redacted"] = found  # what the store's scrub would report, had it found them
    return line


def comment_on_bead(entry: dict, cwd: str, timeout: float) -> str | None:
    """Add `bd comment <id> "DISPATCH_PROMPT [<type>]: …"` (the form beads orchestrators read); returns a
    problem, or None."""
    if not paths.on_path("bd"):
        return None
    text, _ = redact.redact(f"DISPATCH_PROMPT [{entry['subagent_type']}]:\n\n{entry['prompt']}")
    try:
        proc = subprocess.run(["bd", "comment", entry["bead"], text], cwd=cwd, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"bd comment {entry['bead']} timed out after {timeout:g}s"
    except OSError as exc:
        return f"bd comment could not run: {exc}"
    if proc.returncode == 0:
        return None
    return f"bd comment {entry['bead']} exited {proc.returncode}: {proc.stderr.strip()[:200]}"


def handle(ctx: hookrun.Context) -> str | None:
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name", "tool_input"))
    if payload.tool_name(data) not in DISPATCH_TOOLS:
        return None
    tool_input = payload.tool_input(data)
    bead = bead_of(str(tool_input.get("prompt") or ""))
    cwd, project = payload.cwd(data), payload.project_dir(data)
    ctx.memory_dir = memory_dir = paths.memory_dir(cwd, project)
    response = data.get("tool_response")
    agent = response.get("agentId") if isinstance(response, dict) else None
    # a subagent the completion gate let finish unverified: its parent is told with the result it acts on
    notice = notices.take(memory_dir, agent) if isinstance(agent, str) and agent else ""
    if bead is not None:
        try:
            where = hookrun.fork_detached()  # the log and bd in a child nobody waits for
        except OSError:  # no process to spare: the log here, and the note still answered
            where = "inline"
        if where != "parent":
            _log(memory_dir, data, bead, tool_input, cwd, project)
        if where == "child":
            import os

            os._exit(0)  # the detached child never returns into the frame: its answer would be written twice
    return payload.context_answer(data, notice, event="PostToolUse") if notice else None


def _log(memory_dir: str, data: dict, bead: str, tool_input: dict, cwd: str | None, project: str | None) -> None:
    """dispatch.jsonl's line and the bead's comment (in a detached child: hookrun.fork_detached)."""
    try:
        entry = record(bead, tool_input, data.get("tool_response"), payload.session_id(data),
                       payload.text_field(data, "tool_use_id"))
        if store.append_log(memory_dir, DISPATCH_LOG, entry, capture_id=entry["capture_id"]):
            timeout = float(completion.load_config(memory_dir)["timeout"])
            problem = comment_on_bead(entry, paths.project_root(cwd, project), timeout)
            if problem:
                errorlog.record(HOOK, problem, memory_dir)
    except Exception as exc:  # noqa: BLE001 - the child's failure is logged; the parent answers on its own
        errorlog.record(HOOK, f"{type(exc).__name__}: {exc}", memory_dir)


def main(argv: list[str] | None = None) -> int:
    # The log is written in a detached child rather than a hook registered "async": `claude -p` kills async
    # hooks still running when it ends, while a synchronous hook is waited for, and this one answers (the gate's
    # notice, when there is one) as soon as its child is forked.
    return hookrun.run(HOOK, handle, argv, prefilter=lambda raw: b"BEAD_ID" in raw or b'"agentId"' in raw)
