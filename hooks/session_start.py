#!/usr/bin/env python3
"""SessionStart (startup, resume, clear, compact) / Cursor sessionStart: surface recent knowledge."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from memory import hookrun  # noqa: E402

HOOK = "session_start"
NO_VENV_FLAG = "--no-venv"  # added by the registered command when the project's virtualenv is missing


def handle(ctx: hookrun.Context):
    """The Recent Knowledge block in the runtime's envelope; nothing when there is no knowledge."""
    from memory import paths, payload, render, store

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    cwd = payload.cwd(data)
    if _another_copy_answers(data, ctx.argv, paths.project_root(cwd)):
        return None
    ctx.memory_dir = paths.memory_dir(cwd)
    snapshot = store.load(ctx.memory_dir)
    notes = []
    if snapshot.malformed:
        notes.append(f"{snapshot.malformed} malformed line(s) in knowledge.jsonl were skipped; "
                     "`.beads/memory/recall.sh --doctor` reports them.")
    if NO_VENV_FLAG in ctx.argv:
        from memory import registration
        notes.append("memory-hooks is running without its virtualenv on this machine; run "
                     f"{registration.reinstall_hint()} on this repo to set it up.")
    text = render.recent_knowledge(store.latest(snapshot.entries), notes)
    return payload.context_answer(data, text, event="SessionStart") if text else None


def _another_copy_answers(data: dict, argv: list, root: str) -> bool:
    """Cursor runs .claude/settings.json hooks besides its own, and the plugin may sit beside an install:
    one registration answers, so the agent gets the block once."""
    from memory import payload, registration

    if payload.runtime(data) == payload.CURSOR and "--cursor" not in argv:
        return registration.cursor_hooks_installed(root)
    if "--plugin" in argv:
        return registration.claude_hooks_installed(root)
    return False


def main(argv=None) -> int:
    return hookrun.run(HOOK, handle, argv)


if __name__ == "__main__":
    raise SystemExit(main())
