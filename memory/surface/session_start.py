"""The SessionStart hook (startup, resume, clear, compact, fork) / Cursor sessionStart: surface the knowledge."""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.core import config, focus, fsio, layout, paths, render
from memory.runtimes import hookrun, payload, registration
from memory.surface import digest, injected, start_cache, use

if TYPE_CHECKING:
    from collections.abc import Callable

HOOK = "session_start"
HANDOFF_SHARE = 0.4  # of the one session-start budget, what the Last Session block may take (knowledge gets the rest)


def handle(ctx: hookrun.Context) -> str | None:
    """The Recent Knowledge digest in the runtime's envelope; nothing when there is no knowledge."""
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    cwd, project = payload.cwd(data), payload.project_dir(data)
    root = paths.project_root(cwd, project)
    if registration.another_copy_answers(data, ctx.argv, root, HOOK):
        return None
    ctx.memory_dir = paths.memory_dir(cwd, project)
    session, source = payload.session_id(data), payload.text_field(data, "source")
    redacted = _apply_redactions(ctx.memory_dir)  # before anything reads the knowledge, and on every path
    # Codex replays the session's first messages on resume: this session's block is there already, whatever
    # it held (entries, only a Last Session, only the introduction)
    if source == "resume" and layout.FLAG_CODEX in ctx.argv and injected.start_answered(ctx.memory_dir, session):
        return None
    # a fork carries its parent's conversation on: the parent's given-set becomes its own, and when the parent's
    # session start answered, its block is in that conversation already (entries new since then come at prompt
    # and action time, like any entry not given yet)
    inherited = _inherit_from_parent(ctx.memory_dir, session, data) if source == "fork" else None
    if inherited:
        return None
    live = start_cache.live_view(ctx.memory_dir)
    latest = live.latest
    placed: dict[str, str] | None = live.topics
    settings = config.load(ctx.memory_dir)
    left = _left_to_bd_prime(latest, root, ctx.argv, settings)
    if left:
        left_keys = {e["key"] for e in left}
        latest = [e for e in latest if e["key"] not in left_keys]
        placed = None  # the map's topics are drawn over the entries it shows
    git = paths.work_tree_git(cwd, root)
    beads = focus.bead_candidates(git.branch if git else None, cwd)
    suffix = "_cursor" if payload.runtime(data) == payload.CURSOR else ""
    total = config.budget_chars(settings["session_budget_tokens" + suffix])
    handoff, now = _last_handoff(ctx.memory_dir, session, source, git, beads)
    intro = onboarding(ctx.memory_dir, bool(latest or left))  # bd prime shows `left`: the memory isn't empty
    if layout.FLAG_PLUGIN in ctx.argv:
        ignore_machine_local_files(ctx.memory_dir)
    for folder in (ctx.memory_dir, *(os.path.join(ctx.memory_dir, d) for d in layout.MACHINE_LOCAL_DIRS)):
        fsio.remove_stale_temps(folder)  # a killed writer's temp files: three listdirs, once a session
    files = paths.changed_files(git.toplevel) if git and latest else []
    again = sorted(injected.given(ctx.memory_dir, session)) if source == "compact" else []
    notes, counts = [digest.record_hint(paths.on_path("bd"))], use.counts(ctx.memory_dir)
    if live.older:  # past memory.store.archived.ARCHIVE_LIVE: neither counted nor mapped, so said
        notes.insert(0, digest.older_note(live.older))

    def compose(budget: int) -> tuple[str, set[str]]:
        """The Last Session block, the digest and the introduction within `budget`; the keys given in full."""
        from memory.surface import lastsession

        last = lastsession.render_block(handoff, now, int(budget * HANDOFF_SHARE)) if handoff else ""
        left_over = budget - (len(last) + 2 if last else 0) - (len(intro) + 2 if intro else 0)
        groups = digest.choose(latest, beads, files, again, settings["session_newest" + suffix])
        text = digest.render_digest(latest, groups, notes, left_over, settings["entry_chars"], files, placed, counts)
        in_full = {e["key"] for g in groups for e in g.entries}  # render_digest drops what its budget can't hold
        return "\n\n".join(part for part in (last, text, intro) if part), in_full

    text, in_full = compose(total)
    text, in_full = _within(total, text, in_full, compose, lambda t: hookrun.answered_length(ctx, t))
    # a new or rewritten context starts the session's set again; `resume` replays what it had, a fork what its
    # parent had (inherited above); entries left to bd prime count as given: bd prints them into this context
    # (memory.surface.bdprime)
    injected.remember(ctx.memory_dir, session, sorted(in_full | {e["key"] for e in left}),
                      reset=source != "resume" and inherited is None, started=bool(text))
    note = " ".join(redacted + _user_notes(live.malformed, ctx.argv, root, git))
    return payload.context_answer(data, text, event="SessionStart", user_note=note) if text else None


WELCOME = ("## Project Memory\n"
           "This project keeps a shared memory in .beads/memory/knowledge.jsonl (committed, so teammates and "
           "their agents get it). Record what the next agent should know and could not see in the code: a "
           "non-obvious cause of a failure, a decision and why, a trap, a convention. Start a line of your final "
           "message with LEARNED:, DECISION:, WARNING: or PATTERN: (or run the Record: line {where}); it is "
           "stored, shown at the start of later sessions and offered when a file, an error or (where the runtime "
           "passes prompts to hooks) a prompt needs it.")
EMPTY = "## Project Memory\nThis project's shared memory is empty so far."


def onboarding(memory_dir: str, has_knowledge: bool) -> str:
    """What the agent is told about the memory itself: the fuller text on this machine's first session
    after install (then a flag file remembers it), and for an empty memory at least how to record."""
    flag = os.path.join(memory_dir, layout.WELCOMED)
    if os.path.exists(flag):
        if has_knowledge:
            return ""
        return f"{EMPTY}\n  {digest.record_hint(paths.on_path('bd'))}\n{render.SEARCH_HINT}"
    try:
        os.makedirs(memory_dir, exist_ok=True)
        with open(flag, "a", encoding="utf-8"):
            pass
    except OSError:
        pass  # unwritable: the text comes again next session, which is harmless
    hints = "" if has_knowledge else \
        f"\n  {digest.record_hint(paths.on_path('bd'))}\n{render.SEARCH_HINT}"
    # with knowledge the introduction follows the block, whose last line is the Record: line
    return WELCOME.format(where="above" if has_knowledge else "below") + hints


def ignore_machine_local_files(memory_dir: str) -> None:
    """The plugin installs nothing into the repository: the memory folder's .gitignore (memory.core.layout) is
    written here when the folder has none, so `git add .beads/memory` never commits handoffs, locks or caches;
    where it holds our block from an older version, that block is brought up to date (the lines around it, and a
    file without our markers, are the user's: left alone)."""
    path = os.path.join(memory_dir, layout.MEMORY_IGNORE)
    if not os.path.isdir(memory_dir):
        return
    from memory.core import textblock

    block = [layout.MEMORY_IGNORE_BEGIN, *layout.memory_ignore_lines(), layout.MEMORY_IGNORE_END]
    try:
        current = fsio.read_bytes(path)
        if current is None:
            fsio.atomic_write(path, ("\n".join(block) + "\n").encode(), durable=False)
            return
        begin, end = layout.MEMORY_IGNORE_BEGIN, layout.MEMORY_IGNORE_END
        if textblock.count(current, begin) != 1 or textblock.count(current, end) != 1:
            return
        updated = textblock.put(current, begin, end, block[1:-1])  # the user's bytes around it kept as they are
        if textblock.find(textblock.lines(current), begin, end) is not None and updated != current:
            fsio.atomic_write(path, updated, durable=False)
    except OSError:
        pass  # a read-only folder, or a .gitignore that is no file: nothing is written there either


def _left_to_bd_prime(latest: list[dict], root: str, argv: list[str], settings: dict) -> list[dict]:
    """The entries from `bd remember` that bd prime prints in this session (memory.surface.bdprime)."""
    if not settings["leave_bd_memories_to_bd_prime"] or not any("bd_key" in e for e in latest):
        return []  # the common case: nothing from bd remember, nothing imported
    from memory.surface import bdprime

    return bdprime.left_to_bd_prime(latest, root, argv)


def _within(total: int, text: str, in_full: set[str], compose: Callable[[int], tuple[str, set[str]]],
            measure: Callable[[str], int]) -> tuple[str, set[str]]:
    """`compose`'s block as long as `total` allows once answered (`measure`: the plugin names its own, longer
    recall.sh path, hookrun.runnable_recall): the first one when it fits as it is; else composed again within a
    smaller budget, searched between one that fits and one that does not (how many paths a block holds changes
    with its size: a map comes with two), the longest that fits kept."""
    size = measure(text)
    if size <= total:
        return text, in_full
    best: tuple[int, str, set[str]] | None = None
    fits, over = -1, total  # the largest budget known to fit, the smallest known not to
    budget = max(0, total - (size - total))
    for _ in range(6):
        text, in_full = compose(budget)
        size = measure(text)
        if size <= total:
            fits = budget
            if best is None or size > best[0]:
                best = (size, text, in_full)
        else:
            over = budget
        if best is None:
            budget = max(0, budget - (size - total))
            if budget == over:
                break
        elif over - fits <= 32:
            break
        else:
            budget = (fits + over) // 2
    return (best[1], best[2]) if best else (text, in_full)


def _inherit_from_parent(memory_dir: str, session: str | None, data: dict) -> bool | None:
    """Give a fork its parent's given-set (memory.runtimes.fork finds the parent, memory.surface.injected takes
    the set over); whether the parent's session start answered, None when the parent is not known here."""
    from memory.runtimes import fork

    parent = fork.parent_session(payload.text_field(data, "transcript_path"), dict(os.environ))
    return injected.inherit(memory_dir, session, parent)


def _last_handoff(memory_dir: str, session: str | None, source: str | None, git: paths.GitInfo | None,
                  beads: set[str]) -> tuple[dict | None, float]:
    """The handoff for the "## Last Session" block (memory.runtimes.handoff_read; memory.surface.lastsession renders
    it), None when there is none to show; and the time it is judged at."""
    import time

    from memory.runtimes import handoff_read

    now = time.time()
    return handoff_read.choose(handoff_read.load(memory_dir), session, source, git.toplevel if git else None,
                               git.branch if git else None, beads, now), now


def _apply_redactions(memory_dir: str) -> list[str]:
    """Another clone's `recall.sh --redact`, recorded in the committed redactions.jsonl, applied to this clone's
    files when they changed since the last time (memory.store.redactions; one stat when there is no record)."""
    if not os.path.exists(os.path.join(memory_dir, layout.REDACTIONS)):
        return []
    from memory.store import redaction_apply, store

    try:
        if not redaction_apply.unchecked(memory_dir):
            return []
        done = store.apply_redactions(memory_dir, timeout=2.0)
    except Exception as exc:  # noqa: BLE001 - fail open: the next session start tries again
        from memory.core import errorlog

        errorlog.record(HOOK, f"recorded redactions not applied: {type(exc).__name__}: {exc}", memory_dir)
        return []
    if not done.lines:
        return []
    return [f"memory-hooks: rewrote {done.lines} line(s) of .beads/memory that another clone redacted "
            f"(recall.sh --redact; {layout.REDACTIONS}): commit .beads/memory."]


def _user_notes(malformed: int, argv: list[str], root: str, git: paths.GitInfo | None) -> list[str]:
    """Maintenance hints for the person (systemMessage), never the model's context."""
    notes = []
    if malformed:
        notes.append(f"memory-hooks: {malformed} malformed line(s) in knowledge.jsonl were skipped; "
                     "`.beads/memory/recall.sh --doctor` reports them.")
    if git is not None:
        from memory.store import gitmerge

        hint = gitmerge.setup_hint(root)
        if hint:
            notes.append(hint)  # it names memory-hooks already
    if layout.FLAG_NO_VENV not in argv:
        return notes
    worktree = git if git is not None and git.is_linked_worktree else None
    if registration.venv_declined(worktree.main_checkout if worktree else None):
        return notes  # install.sh --no-venv on this machine: python3 is the choice, not a gap
    quiet = "; to keep python3, run it with --no-venv and this note stops."
    if worktree:
        # the virtualenv is gitignored, so no worktree has the main checkout's: the worktree is the target
        notes.append("memory-hooks is running without its virtualenv in this git worktree (worktrees do not "
                     f"share the main checkout's): {registration.reinstall_hint(worktree.toplevel)} to give it one"
                     + quiet)
    else:
        notes.append("memory-hooks is running without its virtualenv on this machine: "
                     f"{registration.reinstall_hint('this repo')} to set it up" + quiet)
    return notes


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
