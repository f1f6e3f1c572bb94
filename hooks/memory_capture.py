#!/usr/bin/env python3
"""PostToolUse(Bash) / Cursor afterShellExecution: `bd comment ID "LEARNED: …"` -> knowledge.jsonl.

Runs on every shell command, so it decides from the raw stdin bytes, before parsing or importing
anything heavy, whether there can be anything to capture.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory import capture, hookrun  # noqa: E402  (both import only the standard library's core)

HOOK = "memory_capture"


def handle(ctx: hookrun.Context):
    """Capture every insight of the command; answer only when credentials had to be redacted."""
    from memory import entry, paths, payload, store

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    command = payload.shell_command(data)
    if command is None:
        if data.get("tool_name") in payload.SHELL_TOOLS and not isinstance(payload.tool_input(data).get("command"), str):
            ctx.problems.append("shell tool call without a tool_input.command string")
        return None
    cwd = payload.cwd(data)
    insights = capture.insights_in_command(command, cwd)
    if not insights:
        return None
    ctx.memory_dir = paths.memory_dir(cwd)
    git = paths.git_info(cwd) if cwd else None
    agent_type = payload.text_field(data, "agent_type")
    call = payload.capture_id(data, command)
    entries = [
        entry.build(found.content, found.bead, entry.detect_source(cwd, agent_type),
                    session_id=payload.session_id(data), agent_type=agent_type,
                    agent_id=payload.text_field(data, "agent_id"),
                    branch=git.branch if git else None, commit=git.head if git else None, capture_id=call)
        for found in insights
    ]
    result = store.append(ctx.memory_dir, entries, capture_id=call)
    notes = []
    redacted = sorted({kind for e in entries for kind in e.get("redacted", ())})
    if result.written and redacted:
        notes.append(f"the LEARNED insight contained credentials ({', '.join(redacted)}); they were stored as "
                     "<redacted:TYPE> in .beads/memory/knowledge.jsonl, never verbatim.")
    for key in result.replaced:
        notes.append(f"`{key}` replaced an earlier, different insight with the same first 60 characters "
                     "(same key: the latest wins). If both are worth keeping, reword the start of the new one.")
    if notes:
        return payload.context_answer(data, "memory-hooks: " + " ".join(notes), event="PostToolUse")
    return None


def main(argv=None) -> int:
    return hookrun.run(HOOK, handle, argv, prefilter=capture.might_capture)


if __name__ == "__main__":
    raise SystemExit(main())
