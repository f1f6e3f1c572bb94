"""SubagentStart (Claude Code): a supervisor dispatched on a bead starts with that bead's last handoff.

SubagentStart carries the agent's type but not its prompt: the bead comes from the dispatching Agent/Task
call in the parent's transcript (`BEAD_ID: <id>` in its prompt, the newest call for this agent type), else
from the subagent's worktree (`.worktrees/bd-<ID>`). Only supervisor types (memory.orchestration.completion's list);
nothing when the bead has no handoff. The answer is context for the subagent only.
"""
from __future__ import annotations

import json
import os

from memory.runtimes import hookrun

HOOK = "subagent_start"
TAIL_BYTES = 1 << 20
# Claude Code can fire SubagentStart before the parent's dispatching call is in its transcript (seen with the
# real CLI on a loaded machine): a supervisor's transcript without it is read again after these pauses.
REREAD_AFTER_S = (0.05, 0.1, 0.2)


def dispatched_bead(transcript: str | None, agent_type: str) -> str | None:
    """The BEAD_ID of the newest Agent/Task call for `agent_type` in the last MiB of the parent transcript."""
    from memory.orchestration import dispatch

    if not transcript:
        return None
    from memory.core import fsio

    try:  # a FIFO or a device named as the transcript would block the open or never end the read
        with os.fdopen(fsio.open_regular(transcript, os.O_RDONLY, follow=True), "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - TAIL_BYTES))
            lines = fh.read().split(b"\n")
    except OSError:
        return None
    for raw in reversed(lines):
        if b"BEAD_ID" not in raw:
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        content = (record.get("message") or {}).get("content") if isinstance(record, dict) else None
        for block in reversed(content if isinstance(content, list) else []):
            args = block.get("input") if isinstance(block, dict) and block.get("type") == "tool_use" else None
            if isinstance(args, dict) and args.get("subagent_type") in (agent_type, None):
                found = dispatch.MARKER.search(str(args.get("prompt", "")))
                if found:
                    return found.group(1)
    return None


def handle(ctx: hookrun.Context) -> str | None:
    import time

    from memory.core import focus, paths
    from memory.orchestration import completion
    from memory.runtimes import handoff_read, payload
    from memory.surface import lastsession

    data = payload.parse(ctx.raw)
    agent_type = payload.text_field(data, "agent_type") or ""
    cwd, project = payload.cwd(data), payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    config = completion.load_config(ctx.memory_dir)
    if not completion.applies(agent_type, None, config):
        return None
    transcript = payload.text_field(data, "transcript_path")
    bead = dispatched_bead(transcript, agent_type)
    for pause in REREAD_AFTER_S if transcript and os.path.isfile(transcript) else ():
        if bead:
            break
        time.sleep(pause)
        bead = dispatched_bead(transcript, agent_type)
    git = paths.git_info(cwd or project or ".")
    beads = {bead.lower()} if bead else focus.bead_candidates(git.branch if git else None, cwd)
    if not beads:
        return None
    now = time.time()
    # a handoff written for this bead (a supervisor's), not any session that merely touched it
    chosen = next((h for h in reversed(handoff_read.load(ctx.memory_dir))
                   if str(h.get("bead") or "").lower() in beads and handoff_read.tells_something(h)), None)
    if chosen is None:
        return None
    text = lastsession.render_block(chosen, now, 3000)
    return payload.context_answer(data, text, event="SubagentStart") if text else None


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
