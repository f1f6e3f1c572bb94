"""The capture hook's front door: PostToolUse(Bash) / afterShellExecution runs it on every shell command.

This module imports only `memory.runtimes.hookrun` and decides from the raw stdin bytes whether there can be
anything to capture; only then is memory.capture.capture (JSON, the lexer, the store) imported. Import costs and
the annotation convention: see memory/__init__.py. The hook script is a shim because a script is
compiled on every run while a module comes byte-compiled.
"""
from memory.runtimes import hookrun

HOOK = "memory_capture"
# Raw stdin bytes that can lead to a capture from a bd comment: a marker (`LEARNED` in any case:
# `EARNED`/`earned`; the other types and FORGET in capitals), or a comment body read from elsewhere:
# `-f`/`--file` (also attached, `-fnotes.md`), `--stdin` (a pipe or `< file`).
_FAST_MARKERS = (b"EARNED", b"earned", b"DECISION", b"WARNING", b"PATTERN", b"FORGET", b"-f", b"--stdin")
# bd's own memory commands need no marker: `bd remember …`, `bd forget KEY` (memory.capture.bdmemory).
_BD_MEMORY = (b"remember", b"forget")


def might_capture(raw: bytes) -> bool:
    """Cheap test on the raw hook stdin: False means there is certainly nothing to capture."""
    if b"comment" in raw and any(marker in raw for marker in _FAST_MARKERS):
        return True
    return b"bd" in raw and any(word in raw for word in _BD_MEMORY)  # not every output that says "remember"


def handle(ctx: hookrun.Context) -> "str | None":
    from memory.core import paths

    project = paths.project_dir_from_env()
    if project:  # a capture asks git about the project: git runs on the other core while the handler imports
        paths.start_git_info(project)
    from memory.capture import capture  # the first heavy import: past the gate

    return capture.handle(ctx)


def main(argv: "list[str] | None" = None) -> int:
    """The hook: decide from the raw bytes, then capture; always exit 0."""
    return hookrun.run(HOOK, handle, argv, prefilter=might_capture)
