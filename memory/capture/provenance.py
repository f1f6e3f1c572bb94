"""Provenance from the session's transcript: what the session had worked on and run into before a capture.

- `files`: the files it had read or edited (project-relative, most recent first); memory.search.action_paths
  uses them: an entry captured while the session worked on a file is about that file.
- `errors`: the error lines of the last shell command among its last ERROR_WINDOW tool calls that failed
  naming something (memory.search.recurrence.signature: cleaned of numbers, hashes and folders); when a later
  failure prints one of them again, the entry is given (memory.search.recurrence). None once the session was
  done with that failure before the capture (`_moved_on`): what it records then is about later work.

Taken from the tail of the transcript (memory.runtimes.handoff reads it; Gemini's chat log and Codex's rollout
log through memory.runtimes.transcript_formats), so a capture pays for a bounded read, never the whole file.
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.runtimes import handoff

TAIL_BYTES = 256 * 1024
MAX_FILES = 8
ERROR_WINDOW = 20  # a failure further back than this many tool calls is not what the insight is about


def session_provenance(transcript_path: str | None, root: str | None) -> dict[str, list[str] | None]:
    """{"files": …, "errors": …} for a capture now (see the module docstring); None values when the
    transcript has none (or is unreadable)."""
    if not transcript_path or not os.path.isfile(transcript_path):
        return {"files": None, "errors": None}  # and no transcript reader imported for nothing
    from memory.runtimes import handoff

    reader = handoff.read_transcript(transcript_path, tail_bytes=TAIL_BYTES)
    return {"files": _files(reader, root), "errors": _errors(reader)}


def _errors(reader: handoff.Reader) -> list[str] | None:
    """The recorded lines of the last failed shell command among the last ERROR_WINDOW tool calls."""
    from memory.search import recurrence

    for at, command, error in reader.failed_calls(ERROR_WINDOW):
        lines = recurrence.signature(command, error)
        if lines:  # a failure that names nothing (`grep` finding nothing) does not hide the one before it
            return None if _moved_on(reader, at, command) else lines
    return None


_BOOKKEEPING = {"bd", "git", "recall.sh"}  # recording, committing: no new work


def _moved_on(reader: handoff.Reader, at: int, command: str) -> bool:
    """Whether the session was done with the failed call at `at` (in reader.order) before this capture: the same
    command ran again without failing, then other work followed. Right after that passing run (runs of it again,
    bd, git, recall.sh and todos aside) a capture is what the fix taught; after other work, it is about that."""
    from memory.runtimes.payload import SHELL_TOOLS

    def same(args: dict) -> bool:
        return isinstance(args.get("command"), str) and args["command"].split() == command.split()

    after = [(tool_id, *reader.tools[tool_id]) for tool_id in reader.order[at + 1:]]
    passed = next((i for i, (tool_id, name, args) in enumerate(after)
                   if name in SHELL_TOOLS and same(args) and tool_id not in reader.errors), None)
    return passed is not None and any(not (name == "TodoWrite" or name in SHELL_TOOLS and (
        same(args) or _bookkeeping(args.get("command")))) for _, name, args in after[passed + 1:])


def _bookkeeping(command: object) -> bool:
    """A shell command that records or commits (`git add -A && git commit`, `bd comment …`, recall.sh), after a
    `cd` maybe. Its first program decides: the chain split knows no quotes, and a recorded text may hold `;`."""
    from memory.search import error_text, recurrence

    programs = [recurrence.program(part) for part in error_text.command_parts(command)] \
        if isinstance(command, str) else []
    programs = programs[1:] if programs[:1] == ["cd"] else programs
    return bool(programs) and programs[0] in _BOOKKEEPING


def _files(reader: handoff.Reader, root: str | None, limit: int = MAX_FILES) -> list[str] | None:
    """The last `limit` distinct files the transcript's tool calls read or edited, newest first, relative to
    `root` when inside it; None when there are none."""
    from memory.runtimes.payload import FILE_TOOLS

    found: list[str] = []
    for tool_id in reversed(reader.order):
        name, args = reader.tools[tool_id]
        target = args.get("file_path") or args.get("notebook_path") or args.get("absolute_path") \
            if name in FILE_TOOLS else None
        if not isinstance(target, str) or not target.strip():
            continue
        path = _relative(target, root)
        if path not in found:
            found.append(path)
        if len(found) >= limit:
            break
    return found or None


def _relative(path: str, root: str | None) -> str:
    if root and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, root)
        except ValueError:  # another drive (Windows)
            return path
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return path.replace(os.sep, "/")
