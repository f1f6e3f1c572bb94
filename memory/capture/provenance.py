"""Provenance from the session's transcript: what the session had worked on and run into before a capture.

- `files`: the files it had read or edited (project-relative, most recent first), and `edited`: those of them it
  changed; memory.search.action_paths uses them: an entry captured while the session changed a file is about
  that file, one captured after merely reading it only when something else says so too (a word of its path,
  its folder or kind).
- `errors`: the error lines of the last shell command among its last ERROR_WINDOW tool calls that failed
  naming something (memory.search.recurrence.signature: cleaned of numbers, hashes and folders); when a later
  failure prints one of them again, the entry is given (memory.search.recurrence).
- `failure_terms` (FAILURE_TERMS, beside `errors`, never stored): the terms of that command and its whole output;
  memory.capture.capture.build_records records `errors` only on an insight sharing one of them
  (memory.search.recurrence.about_failure). Under Cursor (the trail), the recorded lines' terms: its output is
  not kept.

Taken from the tail of the transcript (memory.runtimes.transcript reads it; Gemini's chat log and Codex's rollout
log through memory.runtimes.transcript_formats), so a capture pays for a bounded read, never the whole file.
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.runtimes import transcript

TAIL_BYTES = 256 * 1024
MAX_FILES = 8
ERROR_WINDOW = 20  # a failure further back than this many tool calls is not what the insight is about
FAILURE_TERMS = "failure_terms"


def session_provenance(transcript_path: str | None, root: str | None, memory_dir: str | None = None,
                       session: str | None = None) -> dict[str, list[str] | None]:
    """{"files": …, "edited": …, "errors": …, "failure_terms": …} for a capture now (see the module docstring);
    None values when the transcript has none (or is unreadable). With `memory_dir` and `session`, a transcript
    that tells neither gives way to the session's trail (memory.capture.trail: what the action hook saw of a
    Cursor session)."""
    found: dict[str, list[str] | None] = {"files": None, "edited": None, "errors": None, FAILURE_TERMS: None}
    if transcript_path and os.path.isfile(transcript_path):
        from memory.runtimes import transcript

        reader = transcript.read_transcript(transcript_path, tail_bytes=TAIL_BYTES)
        errors, seen = _errors(reader)
        files, edited = _files(reader, root)
        found = {"files": files, "edited": edited, "errors": errors, FAILURE_TERMS: seen}
    if found["files"] is None and found["errors"] is None:
        from memory.capture import trail

        kept = trail.provenance(memory_dir, session, MAX_FILES, ERROR_WINDOW)
        if kept is None:
            return found
        from memory.search import recurrence

        lines = kept.get("errors")
        return {**kept, FAILURE_TERMS: recurrence.failure_terms("", "\n".join(lines)) if lines else None}
    return found


def _errors(reader: transcript.Reader) -> tuple[list[str] | None, list[str] | None]:
    """The recorded lines of the last failed shell command among the last ERROR_WINDOW tool calls, and the terms
    of that command and its output."""
    from memory.runtimes import shell_outcome
    from memory.search import recurrence

    for command, error in reader.failed_commands(ERROR_WINDOW):
        if shell_outcome.runs_our_command(command):
            continue  # a mistyped `recall.sh --add`: the insight is not about it
        lines = recurrence.signature(command, error)
        if lines:  # a failure that names nothing (`grep` finding nothing) does not hide the one before it
            return lines, recurrence.failure_terms(command, error)
    return None, None


def _files(reader: transcript.Reader, root: str | None,
           limit: int = MAX_FILES) -> tuple[list[str] | None, list[str] | None]:
    """The last `limit` distinct files the transcript's tool calls read or changed (file tools, a patch, a shell
    command that prints or edits a file: Codex reads through its shell), newest first, relative to `root` when
    inside it, those a call changed kept before any only read (a `cat` of eight files must not push out the one
    edited); and those of them a call changed (an edit, a write, a patch, `sed -i`). None for none."""
    from memory.runtimes import tool_files
    from memory.runtimes.payload import SHELL_TOOLS
    from memory.store import entry

    found: list[str] = []
    seen: set[str] = set()  # `found` as a set: a `cat` of thousands of names stays linear
    changed: set[str] = set()
    for tool_id in reversed(reader.order):
        name, args = reader.tools[tool_id]
        call = {"tool_name": name, "tool_input": args}
        targets = [t for t in tool_files.tool_files(call, shell_reads=True) if isinstance(t, str) and t.strip()]
        if name in SHELL_TOOLS:
            edits = set(tool_files.shell_changed_files(str(args.get("command") or "")))
            if tool_id in reader.errors:  # `sed -i … && pytest` that fails later has still edited; an edit that
                error = reader.errors[tool_id]  # failed itself names its file ("can't read x.py", a patch rejected)
                edits = {f for f in edits if os.path.basename(f) not in error}
        elif tool_id in reader.errors:  # a patch or a Write the runtime rejected changed nothing (read, at most)
            edits = set()
        else:
            edits = set(targets) if targets and tool_files.changes_files(call) else set()
        for target in targets:
            path = relative_path(target, root)
            if path not in seen:
                seen.add(path)
                found.append(path)
            if target in edits:
                changed.add(path)
    kept: set[str] = set()
    for path in [path for path in found if path in changed] + [path for path in found if path not in changed]:
        if len(kept) == limit:
            break
        if entry.committable_path(path):
            kept.add(path)
    files = [path for path in found if path in kept]
    edited = [path for path in files if path in changed]
    return files or None, edited or None


def relative_path(path: str, root: str | None) -> str:
    """`path` relative to `root` when inside it, as named (case kept), with / separators; else as given."""
    if root and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, root)
        except ValueError:  # another drive (Windows)
            return path
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return path.replace(os.sep, "/")
