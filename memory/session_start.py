"""The SessionStart hook (startup, resume, clear, compact) / Cursor sessionStart: surface the knowledge."""
from __future__ import annotations

from memory import hookrun, layout, paths, payload, registration, render, store

HOOK = "session_start"


def handle(ctx: hookrun.Context) -> str | None:
    """The Recent Knowledge block in the runtime's envelope; nothing when there is no knowledge."""
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    cwd, project = payload.cwd(data), payload.project_dir(data)
    if another_copy_answers(data, ctx.argv, paths.project_root(cwd, project)):
        return None
    ctx.memory_dir = paths.memory_dir(cwd, project)
    snapshot = store.load(ctx.memory_dir)
    notes = []
    if snapshot.malformed:
        notes.append(f"{snapshot.malformed} malformed line(s) in knowledge.jsonl were skipped; "
                     "`.beads/memory/recall.sh --doctor` reports them.")
    if layout.FLAG_NO_VENV in ctx.argv:
        notes.append("memory-hooks is running without its virtualenv on this machine; "
                     "run memory-hooks' install.sh on this repo to set it up.")
    text = render.recent_knowledge(store.latest(snapshot.entries), notes)
    return payload.context_answer(data, text, event="SessionStart") if text else None


def another_copy_answers(data: dict, argv: list[str], root: str) -> bool:
    """Cursor runs .claude/settings.json hooks besides its own, and the plugin may sit beside an install:
    one registration answers, so the agent gets the block once."""
    if payload.runtime(data) == payload.CURSOR and layout.FLAG_CURSOR not in argv:
        return registration.cursor_hooks_installed(root)
    if layout.FLAG_PLUGIN in argv:
        return registration.claude_hooks_installed(root)
    return False


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
