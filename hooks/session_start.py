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
    from memory import paths, payload, registration, render, store

    data = payload.parse(ctx.raw)
    cwd = payload.cwd(data)
    if payload.runtime(data) == payload.CURSOR and "--cursor" not in ctx.argv \
            and registration.cursor_hooks_installed(paths.project_root(cwd)):
        return None  # Cursor also runs .claude/settings.json hooks: its own registration answers
    ctx.memory_dir = paths.memory_dir(cwd)
    snapshot = store.load(ctx.memory_dir)
    notes = []
    if snapshot.malformed:
        notes.append(f"{snapshot.malformed} malformed line(s) in knowledge.jsonl were skipped; "
                     "`.beads/memory/recall.sh --doctor` reports them.")
    if NO_VENV_FLAG in ctx.argv:
        notes.append("memory-hooks is running without its virtualenv on this machine; "
                     "run memory-hooks' install.sh on this repo to set it up.")
    text = render.recent_knowledge(store.latest(snapshot.entries), notes)
    return payload.context_answer(data, text, event="SessionStart") if text else None


def main(argv=None) -> int:
    return hookrun.run(HOOK, handle, argv)


if __name__ == "__main__":
    raise SystemExit(main())
