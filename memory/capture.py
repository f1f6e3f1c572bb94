"""The capture hook's handler: a shell tool call's `bd comment` insights -> knowledge.jsonl, and one line
telling the agent what was stored. Reached only through memory.capture_gate (the hot path)."""
from __future__ import annotations

from memory import bdcomment, entry, hookrun, paths, payload, store


def handle(ctx: hookrun.Context) -> str | None:
    """Capture every insight of the command and tell the agent what was stored (or why nothing was)."""
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    command = payload.shell_command(data)
    if command is None:
        is_shell = data.get("tool_name") in payload.SHELL_TOOLS
        if is_shell and not isinstance(payload.tool_input(data).get("command"), str):
            ctx.problems.append("shell tool call without a tool_input.command string")
        return None
    cwd = payload.cwd(data)
    found = bdcomment.insights_in_command(command, cwd)
    if found and not payload.succeeded(data):
        # `bd comment … "LEARNED: x" && git push` with a failing push: bd did record x. Keep what bd holds.
        found = [f for f in found if bdcomment.recorded_by_bd(f, cwd)]
    if not found:
        hint = bdcomment.marker_hint(command)
        return payload.context_answer(data, hint, event=payload.event_name(data)) \
            if hint and payload.answers_context(data) else None
    project = payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    git = paths.work_tree_git(cwd, paths.project_root(cwd, project))
    agent_type = payload.text_field(data, "agent_type")
    call = payload.capture_id(data, command)
    entries = [
        entry.build(insight.content, insight.bead, entry.detect_source(cwd, agent_type),
                    session_id=payload.session_id(data), agent_type=agent_type,
                    agent_id=payload.text_field(data, "agent_id"),
                    branch=git.branch if git else None, commit=git.head if git else None, capture_id=call)
        for insight in found
    ]
    result = store.append(ctx.memory_dir, entries, capture_id=call)
    if result.spooled:
        ctx.problems.append(f"{store.LOCK} stayed busy: {result.spooled} insight(s) parked in {store.SPOOL}/, "
                            "merged by the next write")
    if not (result.written or result.spooled) or not payload.answers_context(data):
        return None  # already stored by another copy of this hook: that copy answered
    return payload.context_answer(data, capture_note(entries, result), event=payload.event_name(data))


def capture_note(entries: list[dict], result: store.AppendResult) -> str:
    """One short line for the agent: what was stored under which key, and anything it should know."""
    keys = ", ".join(f"`{e['key']}`" for e in entries)
    notes = [f"memory-hooks: captured {len(entries)} insight{'s' if len(entries) > 1 else ''} "
             f"({keys}) into .beads/memory/knowledge.jsonl."]
    redacted = sorted({kind for e in entries for kind in e.get("redacted", ())})
    if redacted:
        notes.append(f"It contained credentials ({', '.join(redacted)}): stored as <redacted:TYPE>, never verbatim.")
    for key in result.replaced:
        notes.append(f"`{key}` replaced an earlier, different insight with the same first 60 characters "
                     "(same key: the latest wins). If both are worth keeping, reword the start of the new one.")
    return " ".join(notes)
