"""The SessionStart hook (startup, resume, clear, compact) / Cursor sessionStart: surface the knowledge."""
from __future__ import annotations

from memory import config, digest, hookrun, injected, layout, paths, payload, registration, store

HOOK = "session_start"
HANDOFF_SHARE = 0.4  # of the one session-start budget, what the Last Session block may take (knowledge gets the rest)


def handle(ctx: hookrun.Context) -> str | None:
    """The Recent Knowledge digest in the runtime's envelope; nothing when there is no knowledge."""
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    cwd, project = payload.cwd(data), payload.project_dir(data)
    root = paths.project_root(cwd, project)
    if another_copy_answers(data, ctx.argv, root):
        return None
    ctx.memory_dir = paths.memory_dir(cwd, project)
    snapshot = store.load(ctx.memory_dir)  # never rotated here: that would change committed files (memory.inbox)
    latest = store.latest(snapshot.entries)
    settings = config.load(ctx.memory_dir)
    git = paths.work_tree_git(cwd, root)
    beads = digest.bead_candidates(git.branch if git else None, cwd)
    session, source = payload.session_id(data), payload.text_field(data, "source")
    suffix = "_cursor" if payload.runtime(data) == payload.CURSOR else ""
    budget = config.budget_chars(settings["session_budget_tokens" + suffix])
    last = _last_session(ctx.memory_dir, session, source, git, beads, int(budget * HANDOFF_SHARE))
    if not latest:
        return payload.context_answer(data, last, event="SessionStart") if last else None
    files = paths.changed_files(git.toplevel) if git else []
    again = sorted(injected.given(ctx.memory_dir, session)) if source == "compact" else []
    groups = digest.choose(latest, beads, files, again, settings["session_newest" + suffix])
    budget -= len(last) + 2 if last else 0
    text = digest.render_digest(len(latest), groups, _notes(snapshot, ctx.argv, root), budget, settings["entry_chars"])
    text = f"{last}\n\n{text}" if last else text
    # a new or rewritten context starts the session's set again; `resume` replays what it had
    injected.remember(ctx.memory_dir, session, [e["key"] for g in groups for e in g.entries],
                      reset=source != "resume")
    return payload.context_answer(data, text, event="SessionStart")


def _last_session(memory_dir: str, session: str | None, source: str | None, git: paths.GitInfo | None,
                  beads: set[str], budget: int) -> str:
    """The "## Last Session" block (memory.handoff, memory.lastsession), '' when there is none to show."""
    import time

    from memory import handoff, lastsession

    now = time.time()
    chosen = handoff.choose(handoff.load(memory_dir), session, source, git.toplevel if git else None,
                            git.branch if git else None, beads, now)
    return lastsession.render_block(chosen, now, budget) if chosen else ""


def _notes(snapshot: store.Snapshot, argv: list[str], root: str) -> list[str]:
    notes = []
    if snapshot.malformed:
        notes.append(f"{snapshot.malformed} malformed line(s) in knowledge.jsonl were skipped; "
                     "`.beads/memory/recall.sh --doctor` reports them.")
    import shutil

    from memory import gitmerge

    hint = gitmerge.setup_hint(root)
    if hint:
        notes.append(hint)
    notes.append(digest.record_hint(shutil.which("bd") is not None))
    if layout.FLAG_NO_VENV in argv:
        notes.append("memory-hooks is running without its virtualenv on this machine; run "
                     f"{registration.reinstall_hint()} on this repo to set it up.")
    return notes


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
