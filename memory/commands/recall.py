"""recall.sh: search the knowledge files by keywords, type or recency, or summarise them.

Exit status: 0 when something was found, 1 when nothing was, 2 on a usage error or when a knowledge file
cannot be read (a directory, a symlink, no permission), 3 when a file could not be written (nothing stored)
or on an unexpected failure: always one line on stderr, never a traceback.

`recall.sh KEYWORD [--all]` is what a person or an agent types and waits for, in place of `grep | jq`; its
path imports no argparse, `re` or `json` (each ~5 ms, with `re`, of the ~20 ms `grep | jq` takes:
docs/performance.md). Everything else imports what it needs where it needs it.

Here: the command's course (which command a command line is, the writes, printing what a search found); the
command line in memory.commands.recall_options, the searches in memory.commands.recall_search, the other
commands (--stats, --stale, --handoffs, --setup-git) in memory.commands.recall_commands.
"""
from __future__ import annotations

import os
import sys

from memory import TYPE_CHECKING
from memory.core import cli, layout, paths, render
from memory.core.cli import FAILED, FOUND, NOTHING, USAGE
from memory.core.render import format_entry
from memory.core.shape import TYPES
from memory.core.textmatch import terms_of

if TYPE_CHECKING:
    from typing import Any

    from memory.commands.recall_options import Options


def main(argv: list[str] | None = None) -> int:
    """recall.sh: every failure is one line on stderr and an exit status (recall.sh --help), never a traceback."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # an emoji on a Latin-1 terminal is a "?", not a traceback
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except OSError as exc:  # a write (or a read) that only failed past the checks: say which file and why
        if isinstance(exc, BrokenPipeError):
            raise
        print(f"recall.sh: {exc.filename or 'a knowledge file'}: {exc.strerror or exc} (nothing more was "
              "done; recall.sh --doctor checks the files)", file=sys.stderr)
        return FAILED
    except Exception as exc:  # noqa: BLE001 - a person gets one line, errors.log the details
        from memory.core import errorlog

        # the options only: a TEXT (--add, --redact KEY TEXT, --add=TEXT) may be the very secret being removed
        options = [word.split("=", 1)[0] + ("=…" if "=" in word else "") if word.startswith("-") else "…"
                   for word in argv]
        errorlog.record("recall.sh", f"{type(exc).__name__}: {exc} (argv {options!r})")
        print(f"recall.sh: unexpected failure: {type(exc).__name__}: {render.one_line(str(exc), 200)} "
              "(recorded in .beads/memory/errors.log; please report it)", file=sys.stderr)
        return FAILED


def _main(argv: list[str]) -> int:
    if "--doctor" in argv:
        from memory.commands import doctor
        return doctor.main([a for a in argv if a != "--doctor"])
    if any(a == "--import" or a.startswith("--import=") for a in argv):
        from memory.capture import importer
        return importer.main(importer.from_recall_argv(argv))
    from memory.commands import recall_options

    args = recall_options.parse(argv)
    if args.recent is not None and args.recent < 1:
        _usage_error("--recent takes a positive number")
    if args.limit is not None and args.limit < 1:
        _usage_error("--limit takes a positive number")
    # a map title's closing `…` is no part of a word (a title in Thai or Chinese is one keyword)
    terms = terms_of([k[:-1] if k.endswith("…") else k for k in args.keywords])
    memory_dir = args.memory_dir or _memory_dir()
    writes = [(kind, value) for kind, value in (("add", args.add), ("forget", args.forget), ("pin", args.pin),
                                                ("unpin", args.unpin), ("redact", args.redact),
                                                ("approve", args.approve))
              if value is not None]
    if writes:
        return _write(memory_dir, writes, terms)
    status = _command(memory_dir, args)
    if status is not None:
        return status
    if not (terms or args.entry_type or args.recent or args.stats or args.pinned):
        recall_options.build_parser().print_usage(sys.stderr)
        widen = " (--all adds the archive to one of them: `recall.sh --recent 50 --all` lists the newest of both)" \
            if args.all else ""
        print(f"recall.sh: give a KEYWORD, --type, --recent N, --pinned or --stats{widen} (see --help)",
              file=sys.stderr)
        return USAGE
    if args.stats:
        from memory.commands import recall_commands

        return recall_commands.stats(memory_dir, args.all)
    from memory.commands.recall_search import ranked, search

    try:
        chosen, malformed = search(memory_dir, terms, args.entry_type, args.recent, args.all, args.history)
        if args.pinned:
            chosen = [e for e in chosen if e.get("pinned")]
        in_archive = [] if chosen or args.all or args.pinned else \
            search(memory_dir, terms, args.entry_type, args.recent, True, args.history)[0]
    except OSError as exc:
        return cli.cannot_read(exc, memory_dir)
    if len(terms) > 1 and not (args.exact or args.history or args.pinned):
        return ranked(memory_dir, " ".join(args.keywords), args)
    from memory.commands.review import at_a_terminal

    if args.explain:  # a listing has no scores to explain: said, not silently ignored
        print("recall.sh: --explain scores a ranked search (two or more words, without --exact, --pinned or "
              "--history); this is a listing, with no scores", file=sys.stderr)
    limit = args.limit
    if limit is None and not (args.json or args.history or args.recent or at_a_terminal()):  # --recent N: asked
        limit = recall_options.AGENT_LIST_LIMIT  # an agent's tool keeps a preview of a long output, not all of it
    if limit is not None and len(chosen) > limit and not args.history:
        how = "--limit" if args.limit is not None else \
            "more words rank instead; --type, --topic NAME or --limit N narrow or widen"
        print(f"recall.sh: the newest {limit} of {len(chosen)} shown ({how})", file=sys.stderr)
        chosen = chosen[:limit]  # newest first
    return _print_found(chosen, in_archive, malformed, args, argv, memory_dir)


def _memory_dir() -> str:
    """The memory folder of recall.sh's anchor (the installed copy's project, else the current folder):
    without running git where the answer is git's own (memory.core.paths)."""
    anchor = os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()
    return paths.memory_dir_without_git(anchor) or paths.memory_dir(anchor)


def _usage_error(message: str) -> None:
    from memory.commands.recall_options import build_parser

    build_parser().error(message)  # exits with USAGE, the usage line first


def _command(memory_dir: str, args: Options) -> int | None:
    """The commands that are not a search (--held, --setup-git, --handoffs, --stale, --topic, --similar); None
    for a search."""
    if args.held:
        from memory.commands import review

        return review.list_held(memory_dir, args.json)
    if not (args.setup_git or args.handoffs is not None or args.handoff or args.stale is not None or args.topic
            or args.similar):
        return None
    from memory.commands import recall_commands

    if args.topic:
        return recall_commands.topic(memory_dir, args.topic, args.json, args.limit)
    if args.similar:
        return recall_commands.similar(memory_dir, args.json, args.limit)
    if args.setup_git:
        return recall_commands.setup_git()
    if args.stale is not None:
        return recall_commands.stale(memory_dir, args.stale, args.json)
    return recall_commands.handoffs(memory_dir, args.handoffs, args.handoff)


def _print_found(chosen: list[dict], in_archive: list[dict], malformed: int, args: Options, argv: list[str],
                 memory_dir: str) -> int:
    """The keyword / filter answer: entries (or JSON lines), then what the agent should know on stderr."""
    from memory.commands import review

    chosen = review.withhold(chosen, history=args.history)
    out = sys.stdout
    if args.json:
        from memory.core import jsonio

        out.write("".join(render.escape_control(jsonio.dumps(e)) + "\n" for e in chosen))
    else:
        if args.history:
            out.write("\n\n".join(format_entry(e) for e in chosen) + ("\n" if chosen else ""))
            if chosen:
                out.write(f"\n{len(chosen)} line{'' if len(chosen) == 1 else 's'} (every version, oldest first)\n")
        else:
            out.write(render.found(chosen))
    sys.stderr.write(render.found_notes(malformed, bool(chosen)))
    if args.entry_type and not chosen and args.entry_type not in TYPES:
        print(f"recall.sh: the types are {', '.join(TYPES)}", file=sys.stderr)
    if chosen and not args.all and not args.recent and os.path.exists(os.path.join(memory_dir, layout.ARCHIVE)):
        # rotation moved older entries, live ones too, into the archive: a listing of the active file is not all
        print(f"recall.sh: older entries rotated into {layout.ARCHIVE} were not searched: add --all", file=sys.stderr)
    if in_archive:
        import shlex

        again = " ".join(shlex.quote(render.strip_control(arg)) for arg in argv + ["--all"])
        count = f"{len(in_archive)} match{'' if len(in_archive) == 1 else 'es'}"
        print(f"recall.sh: {count} in {layout.ARCHIVE} (older entries, rotated out); to see: recall.sh {again}",
              file=sys.stderr)
    return FOUND if chosen else NOTHING


def _write(memory_dir: str, writes: list[tuple[str, Any]], terms: list[str]) -> int:
    """--add / --forget / --pin / --unpin / --redact / --approve: one at a time, never mixed with a search."""
    from memory.capture import edit

    if len(writes) > 1 or terms:
        _usage_error("--add, --forget, --pin, --unpin, --redact and --approve go alone (quote a TEXT with spaces)")
    kind, value = writes[0]
    cwd = os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()
    if kind == "redact":
        from memory.commands import rewrite

        if len(value) > 2 or not value[0].strip() or (len(value) == 2 and not value[1]):
            _usage_error("--redact takes KEY and an optional TEXT (quote a TEXT with spaces)")
        return rewrite.main(memory_dir, value[0].strip(), value[1] if len(value) == 2 else None)
    if kind == "add":
        return edit.add(memory_dir, value, cwd)
    if kind == "approve":
        from memory.commands import review

        return review.approve(memory_dir, value.strip(), cwd)
    return edit.control(memory_dir, kind, value.strip(), cwd)


if __name__ == "__main__":
    from memory.core.cli import run_cli

    run_cli(main)
