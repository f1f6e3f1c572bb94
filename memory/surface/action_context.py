"""Action time: the knowledge about a file as the agent reads or edits it, and about an error as it hits it.

Claude Code: PreToolUse on Read|Edit|Write|MultiEdit, PostToolUse on Bash (a file the shell printed or changed)
and PostToolUseFailure on Bash answer with `hookSpecificOutput.additionalContext` (shown next to the tool
result). Gemini CLI: AfterTool (its BeforeTool carries no context). Codex CLI: PreToolUse/PostToolUse
(apply_patch names its files; a shell call's output says how it exited). Cursor: postToolUse on Read|Write|Shell
(flat `additional_context` after the tool result; its other tool hooks carry no model-visible context).

- File-scoped: entries about the file, its folder or its kind (memory.search.action_paths, a derived cue map).
- Error-triggered: what the failing command ran and the lines of its output that say what failed
  (memory.search.error_text) ranked against the knowledge (memory.search.rank over the derived index), behind a
  bar of its own (a lower one for an entry holding several rare words of them), and only entries sharing a
  rare word with those lines.
- At most `action_max_entries` entries in `action_budget_chars`; nothing when nothing passes; never an entry
  the session was already given (memory.surface.injected, shared with session start and prompt time), claimed under
  the state lock so parallel tool calls never both show one.
- What an event found is cached per session (memory.surface.action_cache): a repeated Read of the same file
  costs one file read, not a lookup in the knowledge.

The path to "nothing to add" (most file reads) imports json and the cue map only: no git, no index, no lock.
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.core import layout
from memory.runtimes import hookrun

if TYPE_CHECKING:
    from collections.abc import Callable

    from memory.search.rank import Scored

HOOK = "action_context"
FILE_HEADING = "## Knowledge about this file"
ERROR_HEADING = "## Knowledge about this error"
ERROR_QUERY_CHARS = 4000  # the command and the end of its output: where the error is
# what an event keeps (and caches) of its ranking: the block skips what the session was given, so a file thirty
# entries are about still gets three after session start showed the first fifteen (it got none)
CANDIDATES = 30
def handle(ctx: hookrun.Context) -> str | None:
    from memory.core import config, paths
    from memory.runtimes import payload, tool_files

    data = payload.parse(ctx.raw)
    if payload.runtime(data) == payload.CURSOR and payload.event_name(data) != "postToolUse" \
            or not payload.answers_context(data):
        return None  # of Cursor's tool hooks, only postToolUse carries model-visible context
    codex = layout.FLAG_CODEX in ctx.argv
    # Codex reads files through the shell, and so does Claude Code in bypass-permissions mode; Claude's PostToolUse
    # follows a call that succeeded (a failure is PostToolUseFailure), so only Codex's is read for a failure
    succeeded = payload.event_name(data) == "PostToolUse" and not codex
    files = tool_files.tool_files(data, shell_reads=codex or succeeded)
    failure = None
    if not files and not succeeded:  # how a shell call ended is read only for one that named no file
        from memory.runtimes import shell_outcome

        failure = shell_outcome.failure_text(data)
    if not files and (not failure or shell_outcome.runs_our_command(payload.shell_command(data))):
        return None
    project = payload.project_dir(data)
    ctx.memory_dir = memory_dir = paths.memory_dir_quick(payload.cwd(data), project)
    from memory.search import action_paths
    from memory.surface import action_cache

    session = payload.session_id(data)
    root = os.path.dirname(os.path.dirname(memory_dir))
    from memory.runtimes import registration

    if registration.another_copy_answers(data, ctx.argv, root, HOOK):
        return None  # Cursor runs .claude/settings.json's copy beside its own (PostToolUse[Bash] as postToolUse)
    if payload.runtime(data) == payload.CURSOR:  # its transcript is not read: a capture's provenance comes from here
        _note_trail(memory_dir, session, root, files, failure, payload.shell_command(data), data)
    fp = action_paths.fingerprint(memory_dir)
    if fp is None:
        return None
    settings = config.load(memory_dir)
    bars = ",".join(str(settings[name]) for name in sorted(settings) if name.startswith("action_"))
    added = tool_files.added_text(data) if files else ""
    here = payload.cwd(data)  # a relative path is the shell's: Codex started in a subfolder reads `x/y.go` there
    rels = [action_paths.relative(f if os.path.isabs(f) or not here else os.path.join(here, f), root) for f in files]
    event = f"f:{bars}:" + "\n".join(rels) + "\n" + added if files else f"e:{bars}:{failure}"
    found = action_cache.get(memory_dir, session, event, fp)
    if found is None:
        if files:
            found = file_entries(memory_dir, fp, rels, settings)
            if added:  # an edit: also what it writes; the file's own entries first
                known = {key for key, _ in found}
                found += [hit for hit in edit_entries(memory_dir, added, settings) if hit[0] not in known]
        else:
            found = error_entries(memory_dir, str(failure), settings, payload.shell_command(data))
        action_cache.put(memory_dir, session, event, fp, found)
    if not found:
        return None
    from memory.surface import injected

    given = injected.given(memory_dir, session)
    # an edit, counted at its first event: Codex runs this hook before and after the same shell call, and what
    # its PreToolUse showed was not known to the agent when it wrote the patch
    if files and tool_files.changes_files(data) and (payload.event_name(data) != "PostToolUse" or not codex):
        credit_use(memory_dir, session, found, given)
    text = answer(memory_dir, session, found, settings, FILE_HEADING if files else ERROR_HEADING, given,
                  lambda t: hookrun.answered_length(ctx, t))
    return payload.context_answer(data, text, event=payload.event_name(data)) if text else None


def file_entries(memory_dir: str, fp: list[int], rels: list[str], settings: dict) -> list[list[str]]:
    """[key, line] of the entries about the files, best first (a few more than the budget takes)."""
    from memory.search import action_paths, path_cues

    cues = path_cues.load(memory_dir, fp)
    seen: dict[str, tuple[float, str]] = {}
    for rel in rels:
        for score, key, kind, content, _ in action_paths.about(cues, rel, float(settings["action_file_min_score"])):
            if key not in seen or score > seen[key][0]:
                seen[key] = (score, line(kind, content))
    ranked = sorted(seen.items(), key=lambda kv: -kv[1][0])  # stable: about()'s order among equals
    # never padded with weaker entries: only those within `action_file_follow` of the best
    floor = ranked[0][1][0] * float(settings["action_file_follow"]) if ranked else 0.0
    return [[key, text] for key, (score, text) in ranked[:CANDIDATES]
            if score >= floor]


def error_entries(memory_dir: str, failure: str, settings: dict, command: str | None = None) -> list[list[str]]:
    """[key, line] of the entries the error calls for. First those captured right after this same error
    (memory.search.recurrence); then the ranked ones: ranked on what the command ran and the lines that
    report the failure (memory.search.error_text: no paths, numbers or words every failure uses), behind the
    error bar, and grounded (memory.search.grounded): an entry must share with those lines a word few entries
    have (sharing only the command's words, it says how to run the command: done already)."""
    from memory.search import error_text

    if command is None or not failure.startswith(command):
        command, _, output = failure.partition("\n")
    else:
        output = failure[len(command):]
    if len(output) > ERROR_QUERY_CHARS:
        output = output.split("\n", 1)[0][:500] + "\n" + output[-ERROR_QUERY_CHARS:]
    text, errors = error_text.query(command, output)
    said = error_text.ranking_terms(errors)
    # an output that says only that it failed (a timeout): what the command ran is all there is to go on
    grounding = said or error_text.ranking_terms(error_text.command_words(command))
    weighty = (float(settings["action_error_low_fraction"]), float(settings["action_error_rare_weight"]))
    found = _grounded(memory_dir, error_text.ranking_terms(text), grounding, settings, "error", weighty)
    # never padded with weaker entries: only those within `action_error_follow` of the best one's score
    floor = found[0].score * float(settings["action_error_follow"]) if found else 0.0
    seen = seen_before(memory_dir, command, output, float(settings["action_error_recurrence"]))
    known = {key for key, _ in seen}
    # an entry that only says to run what just failed was followed; not when it timed out (how to run it is the fix)
    followed = [] if error_text.timed_out(output) else said
    return seen + [[str(s.entry.get("key")), _line(s)] for s in found
                   if s.score >= floor and str(s.entry.get("key")) not in known
                   and not error_text.runs_already(str(s.entry.get("content", "")), command, followed)]


def seen_before(memory_dir: str, command: str, output: str, bar: float) -> list[list[str]]:
    """[key, line] of the entries captured right after a failure that printed a line of `output` (or a timeout
    of the same command), newest first, each saying so."""
    from memory.search import path_cues, recurrence

    return [[key, line(kind, content, prefix=recurrence.MARK)]
            for key, kind, content, _ in path_cues.seen_before(memory_dir, command, output, bar)]


def edit_entries(memory_dir: str, added: str, settings: dict) -> list[list[str]]:
    """[key, line] of the entries about what an edit writes (`std::fs::read_dir`, `@dataclass`, a new
    dependency line): its words ranked, behind the edit bar (or, holding enough of its rare words, the lower
    one: a whole new file spreads the best reachable score over all its words), grounded in a rare word of it."""
    from memory.search.tokenize import terms

    words = list(dict.fromkeys(terms(added)))
    weighty = (float(settings["action_edit_low_fraction"]), float(settings["action_edit_rare_weight"]))
    return [[str(s.entry.get("key")), _line(s)] for s in _grounded(memory_dir, words, words, settings, "edit",
                                                                    weighty)]


def _grounded(memory_dir: str, words: list[str], grounding: list[str], settings: dict, kind: str,
              weighty: tuple[float, float] | None = None) -> list[Scored]:
    from memory.search import grounded

    if not words:
        return []
    return grounded.passing(memory_dir, words, grounding, float(settings[f"action_{kind}_min_fraction"]),
                            int(settings[f"action_{kind}_min_terms"]), float(settings["action_rare_share"]),
                            CANDIDATES, weighty)


def _line(scored: Scored) -> str:
    return line(str(scored.entry.get("type", "")), str(scored.entry.get("content", "")))


def line(kind: str, content: str, limit: int = 900, prefix: str = "") -> str:
    from memory.core import render

    return f"  [{render.label(kind)}] {prefix}{render.one_line(content, limit)}"


def credit_use(memory_dir: str, session: str | None, found: list[list[str]], given: set[str]) -> None:
    """An edit of a file: the entries about it that this session had been given in full were used
    (memory.surface.use raises them in the map)."""
    used = [key for key, _ in found if key in given]
    if used and session:
        from memory.surface import use

        use.credit(memory_dir, used, session)


def answer(memory_dir: str, session: str | None, found: list[list[str]], settings: dict, heading: str,
           given: set[str], measure: Callable[[str], int] = len) -> str:
    """The block: entries this session was not given yet (`given`), within the budget as `measure` counts it
    (the answer's: hookrun.answered_length), claimed in the ledger."""
    from memory.core import render
    from memory.surface import injected

    heading = f"{heading}\n{render.FRAMING}"  # what follows is data, never orders
    budget, most = int(settings["action_budget_chars"]), int(settings["action_max_entries"])
    chosen: list[list[str]] = []
    size = measure(heading)
    for key, text in found:
        if key in given or len(chosen) >= most:
            continue
        if size + 1 + measure(text) > budget:
            if chosen:
                continue  # a shorter one further down may still fit
            growth = measure(text) - len(text)  # what the answer adds to it (the plugin's longer recall.sh)
            text = render.cut(text, max(0, budget - size - 2 - growth))  # one long entry: its start
        chosen.append([key, text])
        size += 1 + measure(text)
    if not chosen:
        return ""
    claimed = set(injected.claim(memory_dir, session, [key for key, _ in chosen]))
    shown = [text for key, text in chosen if key in claimed]
    return "\n".join([heading] + shown) if shown else ""


def _note_trail(memory_dir: str, session: str | None, root: str, files: list[str], failure: str | None,
                command: str | None, data: dict) -> None:
    """The session's trail (memory.capture.trail): the files of a file call, or the error lines of a failure."""
    from memory.capture import trail
    from memory.runtimes import tool_files

    if files:
        from memory.capture.provenance import relative_path

        trail.note(memory_dir, session, files=[relative_path(f, root) for f in files],
                   edited=tool_files.changes_files(data))
    elif failure and command is not None:
        from memory.search import recurrence

        trail.note(memory_dir, session, errors=recurrence.signature(command, failure[len(command) + 1:]))


def _prefilter(raw: bytes) -> bool:
    from memory.surface.action_gate import prefilter  # here: inside the frame that fails open

    return prefilter(raw)


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv, prefilter=_prefilter)
