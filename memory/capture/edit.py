"""recall.sh's writing commands: --add TEXT, --forget KEY, --pin KEY, --unpin KEY.

Each appends lines through the store (lock, redaction, the same records a capture builds); none deletes
or rewrites a line (`--redact`, memory.commands.rewrite, is the one command that does). Exit status: 0 done, 1 nothing
to do (already so), 2 refused (with the reason), 3 the knowledge file could not be written (nothing stored).
"""
from __future__ import annotations

import os
import sys

from memory import TYPE_CHECKING
from memory.capture import bdcomment, capture
from memory.core import cli, paths
from memory.store import entry, store, view

if TYPE_CHECKING:
    from typing import TextIO

DONE, NOTHING, REFUSED, NOT_WRITTEN = 0, 1, 2, 3


def add(memory_dir: str, text: str, cwd: str) -> int:
    """Record the marked insights of `text` (`LEARNED: …`, `DECISION[key]: …`, `FORGET: KEY`…)."""
    found = bdcomment.split_marked(text)
    if not found:
        return _say(REFUSED, "recall.sh: nothing to add: start the text with LEARNED:, DECISION:, WARNING: or "
                             "PATTERN: (e.g. recall.sh --add \"LEARNED: <what is true>\")")
    records, problems = capture.build_records(memory_dir, found, entry.detect_source(cwd, None),
                                              provenance(cwd, session_work=True), bead=bead_in_progress(cwd))
    for problem in problems:
        print(problem.replace("memory-hooks: ", "recall.sh: "), file=sys.stderr)
    if not records:
        return REFUSED
    try:
        result = store.append(memory_dir, records)
    except OSError as exc:
        return not_written(capture.not_stored_note(records, exc))
    # relative to the shell's own folder (the anchor may be the main checkout, the shell in a worktree)
    note = capture.capture_note(records, result, where=capture.shown_path(memory_dir, os.getcwd()),
                                memory_dir=memory_dir)
    print(note.replace("memory-hooks: ", ""))
    return DONE if result.written or result.spooled else NOTHING


def control(memory_dir: str, kind: str, name: str, cwd: str) -> int:
    """Append a forget / pin / unpin line for the key `name` stands for (view.resolve)."""
    try:
        lines = store.load(memory_dir, include_archive=True).entries
    except OSError as exc:
        return cli.cannot_read(exc, memory_dir)
    key = resolve_or_suggest(lines, name, f"--{kind}")
    if key is None:
        return REFUSED
    state = view.State(lines)
    if kind != entry.FORGET and state.forgotten(key):
        return _say(REFUSED, f"recall.sh: `{key}` is forgotten; record it again to {kind} it")
    already = {entry.FORGET: state.forgotten(key), entry.PIN: state.pinned(key),
               entry.UNPIN: not state.pinned(key)}[kind]
    if already:
        return _say(NOTHING, f"recall.sh: `{key}` is already {_past(kind)}")
    try:
        store.append(memory_dir, [entry.build_control(kind, key, bead_in_progress(cwd), **provenance(cwd))])
    except OSError as exc:
        return not_written(f"recall.sh: NOT {_past(kind)}: {exc.filename or store.ACTIVE} could not be "
                                f"written ({exc.strerror or exc})")
    return _say(DONE, f"{_past(kind)} `{key}`" + (" (recall.sh --all --history shows it still)"
                                                  if kind == entry.FORGET else ""), sys.stdout)


def resolve_or_suggest(lines: list[dict], name: str, option: str, every_version: bool = False) -> str | None:
    """The one key `name` stands for (view.resolve), or None after saying on stderr which keys it may mean:
    a near match is proposed with the command to run, never applied."""
    keys = view.resolve(lines, name)
    if len(keys) == 1:
        return keys[0]
    if keys:
        _say(REFUSED, f"recall.sh: `{name}` may mean {', '.join(keys)}: give the whole key")
        return None
    near = view.suggest(lines, name, every_version=every_version)
    if not near:
        _say(REFUSED, f"recall.sh: no entry has the key `{name}`, and no key or entry text holds it "
                      "(recall.sh WORD finds entries)")
    elif len(near) == 1:
        _say(REFUSED, f"recall.sh: no entry has the key `{name}`; did you mean `{near[0]}`? "
                      f"(recall.sh {option} {near[0]})")
    else:
        _say(REFUSED, f"recall.sh: no entry has the key `{name}`; keys that match: "
                      + ", ".join(f"`{k}`" for k in near) + " (give the whole key)")
    return None


def not_written(message: str) -> int:
    """Say that nothing was stored, and why, in one line (never a traceback)."""
    return _say(NOT_WRITTEN, " ".join(message.replace("memory-hooks: ", "recall.sh: ").split()))


def _past(kind: str) -> str:
    return {entry.FORGET: "forgotten", entry.PIN: "pinned", entry.UNPIN: "unpinned"}[kind]


def _say(code: int, message: str, stream: TextIO | None = None) -> int:
    print(message, file=stream or sys.stderr)
    return code


def provenance(cwd: str, session_work: bool = False) -> dict:
    """Where a recall.sh write comes from: session, branch, commit; with `session_work`, when Claude Code's Bash
    tool runs it, also what the session had worked on and run into (memory.capture.provenance), as a hook's
    capture records it: the failure recurring brings the insight back."""
    git = paths.git_info(cwd)
    session = os.environ.get("CLAUDE_CODE_SESSION_ID") or os.environ.get("CLAUDE_SESSION_ID") or None
    found: dict[str, object] = {"session_id": session, "branch": git.branch if git else None,
                                "commit": git.head if git else None, "via": "recall.sh"}
    if session_work and session:
        from memory.capture.provenance import session_provenance
        from memory.runtimes import transcript

        work = session_provenance(transcript.claude_session_transcript(session), git.toplevel if git else cwd)
        found.update((k, v) for k, v in work.items() if v)
    return found


def bead_in_progress(cwd: str) -> str:
    """The bead in progress when the branch or worktree names one (`bd-<ID>`), else ''."""
    from memory.core import focus

    git = paths.git_info(cwd)
    return focus.bead_id(git.branch if git else None, cwd).upper()  # one spelling: readers match either case
