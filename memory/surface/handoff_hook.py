"""PreCompact / SessionEnd (Claude Code), preCompact / sessionEnd (Cursor): save where the session stopped.

Synchronous: the transcript is read in a few hundred milliseconds even at 10 MB (bench/run.py H1), within
Claude Code's 1.5 s SessionEnd budget; PreCompact must finish before the compaction's SessionStart reads it.
Never answers.

Gemini CLI 0.61 fires PreCompress before every model call, before it checks whether the chat is anywhere
near its compression threshold (half the model's window: at least 128,000 tokens). An "auto" one whose chat
log is smaller than GEMINI_COMPRESSIBLE bytes cannot be followed by a compression, so it is answered at once,
without reading the log or running git: otherwise every turn would wait for a handoff nobody needs.
"""
from __future__ import annotations

from memory.runtimes import hookrun

HOOK = "handoff"
GEMINI_COMPRESSIBLE = 256 << 10
EVENTS = {"PreCompact": "PreCompact", "preCompact": "PreCompact", "PreCompress": "PreCompact",
          "SessionEnd": "SessionEnd", "sessionEnd": "SessionEnd"}


def handle(ctx: hookrun.Context) -> None:
    from memory.capture import edit
    from memory.core import paths
    from memory.runtimes import handoff, payload, registration

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    event = EVENTS.get(payload.event_name(data) or "")
    if event is None or _no_compression_ahead(data):
        return None
    cwd, project = payload.cwd(data), payload.project_dir(data)
    if registration.another_copy_answers(data, ctx.argv, paths.project_root(cwd, project), HOOK):
        return None  # the other copy saves it: two would write every handoff twice
    ctx.memory_dir = paths.memory_dir(cwd, project)
    record = handoff.build(data, ctx.memory_dir, event, bead=edit.bead_in_progress(cwd or project or ".") or None)
    handoff.save(ctx.memory_dir, record)
    return None


def _no_compression_ahead(data: dict) -> bool:
    """A Gemini PreCompress that no compression can follow (see the module docstring)."""
    import os

    from memory.runtimes import payload

    if payload.event_name(data) != "PreCompress" or payload.text_field(data, "trigger") != "auto":
        return False
    log = payload.text_field(data, "transcript_path")
    try:
        return bool(log) and os.stat(log).st_size < GEMINI_COMPRESSIBLE  # type: ignore[arg-type]
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
