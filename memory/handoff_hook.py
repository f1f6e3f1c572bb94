"""PreCompact / SessionEnd (Claude Code), preCompact / sessionEnd (Cursor): save where the session stopped.

Synchronous: the transcript is read in a few hundred milliseconds even at 10 MB (bench/run.py H1), within
Claude Code's 1.5 s SessionEnd budget; PreCompact must finish before the compaction's SessionStart reads it.
Never answers.
"""
from __future__ import annotations

from memory import hookrun

HOOK = "handoff"
EVENTS = {"PreCompact": "PreCompact", "preCompact": "PreCompact", "PreCompress": "PreCompact",
          "SessionEnd": "SessionEnd", "sessionEnd": "SessionEnd"}


def handle(ctx: hookrun.Context) -> None:
    from memory import edit, handoff, paths, payload

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    event = EVENTS.get(payload.event_name(data) or "")
    if event is None:
        return None
    cwd, project = payload.cwd(data), payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    record = handoff.build(data, ctx.memory_dir, event, bead=edit.bead_in_progress(cwd or project or ".") or None)
    handoff.save(ctx.memory_dir, record)
    return None


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
