#!/usr/bin/env python3
"""PostToolUse(Agent|Task): log dispatch prompts that carry `BEAD_ID: <id>` to dispatch.jsonl and the bead.

Handles both foreground (`status: completed`) and background (`async_launched`) tool responses: only
the dispatch itself (tool_input) is logged. The work runs in a detached child, so the client never waits
for bd and a session that ends right after the dispatch does not cut the log short.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory import hookrun  # noqa: E402

HOOK = "log_dispatch_prompt"
DISPATCH_TOOLS = ("Agent", "Task")


def handle(ctx: hookrun.Context):
    from memory import completion, dispatch, errorlog, paths, payload, store

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name", "tool_input"))
    if data.get("tool_name") not in DISPATCH_TOOLS:
        return None
    tool_input = payload.tool_input(data)
    bead = dispatch.bead_of(str(tool_input.get("prompt") or ""))
    if bead is None:
        return None
    cwd, project = payload.cwd(data), payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    entry = dispatch.record(bead, tool_input, data.get("tool_response"), payload.session_id(data),
                            payload.text_field(data, "tool_use_id"))
    result = store.append(ctx.memory_dir, [entry], capture_id=entry["capture_id"], name=dispatch.DISPATCH_LOG)
    if result.written:
        timeout = float(completion.load_config(ctx.memory_dir)["timeout"])
        problem = dispatch.comment_on_bead(entry, paths.project_root(cwd, project), timeout)
        if problem:
            errorlog.record(HOOK, problem, ctx.memory_dir)
    return None


def main(argv=None) -> int:
    # Detached rather than registered "async": `claude -p` kills async hooks still running when it ends,
    # while a synchronous hook is waited for, and this one returns as soon as its child is forked.
    return hookrun.run(HOOK, handle, argv, prefilter=lambda raw: b"BEAD_ID" in raw, detach=True)


if __name__ == "__main__":
    raise SystemExit(main())
