"""recall.sh: search the knowledge files by keywords, type or recency, or summarise them.

Exit status: 0 when something was found, 1 when nothing was, 2 on a usage error or when a knowledge file
cannot be read (a directory, a symlink, no permission), 3 when a file could not be written (nothing stored)
or on an unexpected failure: always one line on stderr, never a traceback.

`recall.sh KEYWORD [--all]` is what a person or an agent types and waits for, in place of `grep | jq`; its
path imports no argparse, `re` or `json` (each ~5 ms, with `re`, of the ~20 ms `grep | jq` takes:
docs/performance.md). Everything else imports what it needs where it needs it.
"""
from __future__ import annotations

import os
import sys

from memory import TYPE_CHECKING
from memory.core import cli, paths, render
from memory.core.cli import FAILED, FOUND, NOTHING, USAGE  # noqa: F401 - recall's statuses too
from memory.core.render import format_entry
from memory.core.textmatch import fold, haystack, matches, terms_of  # noqa: F401 - recall's API too

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from memory.store import store

# Characters whose fold holds ASCII or vanishes (ß -> ss, ﬁ -> fi, KELVIN SIGN -> k, İ -> i, U+0307 -> ""):
# a line holding one may match an ASCII keyword its bytes do not contain, so the fast path parses it.
# tests/commands/test_recall.py checks that the list is complete for the running Python's Unicode tables.
FOLDS_TO_ASCII = ("\u00df\u0130\u0131\u0149\u017f\u01f0\u0307\u037e\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e"
                  "\u1fef\u212a\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")
# printable ASCII except the two characters JSON escapes: what a keyword shares byte for byte with a line
PLAIN_ASCII = r'[ !#-\[\]-~]+'


class Options:
    """recall.sh's command line. The class attributes are the defaults: argparse fills an instance
    (build_parser), and `parse` does for the plain keyword form without argparse."""

    keywords: Sequence[str] = ()  # not []: parse_intermixed_args drops an attribute that equals []
    exact = False
    limit = 10
    explain = False
    entry_type: str | None = None
    recent: int | None = None
    stats = False
    all = False
    json = False
    history = False
    pinned = False
    stale: int | None = None
    add: str | None = None
    forget: str | None = None
    pin: str | None = None
    unpin: str | None = None
    redact: list[str] | None = None
    approve: str | None = None
    held = False
    handoffs: int | None = None
    handoff: str | None = None
    setup_git = False
    doctor = False
    import_source: str | None = None
    topic: str | None = None
    similar = False
    memory_dir: str | None = None


def parse(argv: list[str]) -> Options:
    """The command line's options. Words and `--all` alone (the keyword search) need no argparse, whose
    import (with `re`) costs more than the search itself; anything else is argparse's
    (tests/commands/test_recall.py holds the two to the same options)."""
    words = [arg for arg in argv if arg != "--all"]
    if words and not any(word.startswith("-") for word in words):
        options = Options()
        options.keywords, options.all = words, len(words) < len(argv)
        return options
    return build_parser().parse_intermixed_args(argv, Options())  # `recall.sh pytest --all ci`: words around


def select(latest: list[dict], terms: Sequence[str], entry_type: str | None, recent: int | None) -> list[dict]:
    """Entries (newest first) passing the filters, cut to `recent` when given."""
    chosen = [e for e in latest
              if (entry_type is None or e.get("type") == entry_type) and (not terms or matches(e, terms))]
    return chosen[:recent] if recent is not None else chosen


def search(memory_dir: str, terms: Sequence[str], entry_type: str | None, recent: int | None,
           include_archive: bool, history: bool = False) -> tuple[list[dict], int]:
    """The chosen entries and how many malformed lines the files hold.

    A keyword is looked up in the derived index (memory.search.find), which reads only the matching lines.
    Where the index cannot answer, only the lines that can match are parsed: those holding the longest plain-ASCII run
    of a term (every line whose fold holds the term holds that run in its lowercased bytes) plus the
    lines bytes cannot judge (FOLDS_TO_ASCII, JSON escapes). `select` then decides on the parsed entries.
    tests/commands/test_recall.py holds this path to the answer of parsing every line.
    """
    if terms and not history:
        from memory.search import find

        found = find.find(memory_dir, terms, include_archive=include_archive)
        if found is not None:  # the index answered: only the matching lines were read
            return select(found[0], (), entry_type, recent), found[1]  # every one holds the terms
    import re

    from memory.store import store

    runs = [run for term in terms for run in re.findall(PLAIN_ASCII, term)]
    if runs:
        needle = max(runs, key=len)
        # a character can only add to a match of the needle with a letter the needle has (ß: an "s");
        # one that folds to nothing (U+0307) joins its neighbours, so it always counts
        unsure = "".join(c for c in FOLDS_TO_ASCII if not fold(c) or set(fold(c)) & set(needle))
        snapshot = store.load_matching(memory_dir, needle.encode("ascii"), include_archive, unsure)
    else:
        snapshot = store.load(memory_dir, include_archive)
    if history:
        return versions(snapshot.entries, terms, entry_type), snapshot.malformed
    latest = store.latest(snapshot.entries, include_held=True, cache_dir=memory_dir)  # a person reads: held marked
    return select(latest, terms, entry_type, recent), snapshot.malformed


def versions(lines: list[dict], terms: Sequence[str], entry_type: str | None) -> list[dict]:
    """Every line (versions, forgets, pins) of each key that has a matching version, key by key, each
    key's lines oldest first; keys ordered by their newest line."""
    from memory.store import view

    keys = {e["key"] for e in lines if not view.is_control(e) and (entry_type is None or e.get("type") == entry_type)
            and (not terms or matches(e, terms))}
    grouped = [view.history(lines, key) for key in keys]
    grouped.sort(key=lambda group: (max(_ts(e) for e in group), group[0]["key"]), reverse=True)
    return [line for group in grouped for line in group]


def _ts(line: dict) -> float:
    ts = line.get("ts", 0)
    return ts if isinstance(ts, (int, float)) else 0


def stats(memory_dir: str, snapshot: store.Snapshot, latest: list[dict]) -> str:
    """Counts per type, source and tag, with the archive's size and malformed lines."""
    from collections import Counter

    from memory.store import store

    archive = store.read_file(store.path(memory_dir, store.ARCHIVE))
    types = Counter(str(e.get("type")) for e in latest)
    sources = Counter(str(e.get("source")) for e in latest)
    tags = Counter(t for e in latest for t in (e["tags"] if isinstance(e.get("tags"), list) else [])
                   if isinstance(t, str) and t != e.get("type"))

    def fmt(counter: Counter) -> str:
        return ", ".join(f"{k} {v}" for k, v in counter.most_common(10)) or "-"

    rows = [
        ("memory", memory_dir),
        ("entries", f"{len(snapshot.entries)} lines, {len(latest)} unique keys"),
        ("by type", fmt(types)),
        ("by source", fmt(sources)),
        ("top tags", fmt(tags)),
        ("archive", f"{store.read('', archive).lines} lines, {len(archive) / 1024:.1f} KiB"),
        ("malformed", f"{snapshot.malformed} line(s) skipped"),
    ]
    return "\n".join(f"{name + ':':<11} {render.strip_control(value)}" for name, value in rows)


def build_parser() -> argparse.ArgumentParser:
    """The command line as argparse reads it (defaults: Options)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="recall.sh", description="Search the project's knowledge (.beads/memory/knowledge.jsonl).",
        epilog="Exit status: 0 found, 1 nothing found, 2 usage error or unreadable knowledge file, 3 a file "
               "could not be written (nothing stored) or an unexpected failure. Same key: the latest entry wins.")
    parser.add_argument("keywords", nargs="*", metavar="KEYWORD",
                        help="one word: case-insensitive text to find in content, key, tags or bead; "
                             "several words or a sentence: ranked, best first (--exact: entries holding all)")
    parser.add_argument("--exact", action="store_true", help="several words: every one must occur, no ranking")
    parser.add_argument("--limit", type=int, metavar="N", help="ranked: at most N results (10)")
    parser.add_argument("--explain", action="store_true", help="ranked: why each entry scored")
    parser.add_argument("--type", dest="entry_type", metavar="T", help="only entries of this type (e.g. learned)")
    parser.add_argument("--recent", type=int, nargs="?", const=10, metavar="N",
                        help="the N most recent entries (one per key; default 10)")
    parser.add_argument("--stats", action="store_true", help="counts per type, source and tag; archive size")
    parser.add_argument("--all", action="store_true", help="include knowledge.archive.jsonl")
    parser.add_argument("--json", action="store_true", help="print JSON lines (for jq)")
    parser.add_argument("--history", action="store_true",
                        help="every version of each matching key (forgotten ones too), oldest first")
    parser.add_argument("--pinned", action="store_true", help="the pinned entries")
    parser.add_argument("--similar", action="store_true",
                        help="pairs of near-identical entries (one insight recorded twice in other words)")
    parser.add_argument("--topic", metavar="NAME", help="the entries of a topic of the session-start map (general: "
                                                        "those sharing no topic word)")
    parser.add_argument("--stale", type=int, nargs="?", const=180, metavar="DAYS",
                        help="entries not re-confirmed for DAYS (180) that name files or symbols the repository "
                             "no longer has (nothing is removed)")
    writing = parser.add_argument_group("recording (each appends a line; only --redact rewrites lines)")
    writing.add_argument("--add", metavar="TEXT", help='record an insight: "LEARNED: …" (also DECISION:, WARNING:, '
                                                        'PATTERN:; LEARNED[key]: sets or replaces that key)')
    writing.add_argument("--forget", metavar="KEY", help="hide KEY from session start, prompts and recall")
    writing.add_argument("--pin", metavar="KEY", help="always show KEY first at session start")
    writing.add_argument("--unpin", metavar="KEY", help="undo --pin")
    writing.add_argument("--redact", nargs="+", metavar=("KEY", "TEXT"),
                         help="a leaked secret: rewrite KEY's lines in both files, TEXT (else the whole text) "
                              "replaced by a marker; the one command that rewrites lines (git history keeps them)")
    writing.add_argument("--approve", metavar="KEY", help="release an entry held for review (this text only)")
    parser.add_argument("--held", action="store_true", help="entries held for review, with why (never injected)")
    parser.add_argument("--handoffs", type=int, nargs="?", const=10, metavar="N",
                        help="the N newest session handoffs (where sessions stopped; default 10)")
    parser.add_argument("--handoff", metavar="ID", help="one handoff, whole (JSON)")
    parser.add_argument("--setup-git", action="store_true",
                        help="set this clone's git config for the knowledge files' merge driver (once per clone)")
    parser.add_argument("--doctor", action="store_true",
                        help="check the installation; --doctor --repair fixes the files (see memory-doctor)")
    parser.add_argument("--import", dest="import_source", metavar="SOURCE",
                        help="bring existing memory in once: claude (Claude Code's auto memory: project and reference "
                             "notes) or bd (bd memories); with --dry-run, show what would be added")
    parser.add_argument("--memory-dir", help=argparse.SUPPRESS)
    return parser


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
    args = parse(argv)
    if args.recent is not None and args.recent < 1:
        _usage_error("--recent takes a positive number")
    if args.limit < 1:
        _usage_error("--limit takes a positive number")
    terms = terms_of(args.keywords)
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
        build_parser().print_usage(sys.stderr)
        print("recall.sh: give a KEYWORD, --type, --recent N, --pinned or --stats (see --help)", file=sys.stderr)
        return USAGE
    if args.stats:
        from memory.store import store

        try:
            snapshot = store.load(memory_dir, include_archive=args.all)
            latest = store.latest(snapshot.entries, include_held=True, cache_dir=memory_dir)
            report = stats(memory_dir, snapshot, latest)
        except OSError as exc:  # not a regular file, a symlink, no permission: say which file and why
            return cli.cannot_read(exc, memory_dir)
        print(report)
        return FOUND if snapshot.entries else NOTHING
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
    return _print_found(chosen, in_archive, malformed, args, argv)


def _memory_dir() -> str:
    """The memory folder of recall.sh's anchor (the installed copy's project, else the current folder):
    without running git where the answer is git's own (memory.core.paths)."""
    anchor = os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()
    return paths.memory_dir_without_git(anchor) or paths.memory_dir(anchor)


def _usage_error(message: str) -> None:
    build_parser().error(message)  # exits with USAGE, the usage line first


def _command(memory_dir: str, args: Options) -> int | None:
    """The commands that are not a search (--held, --setup-git, --handoffs, --stale); None for a search."""
    if args.held:
        from memory.commands import review

        return review.list_held(memory_dir, args.json)
    if not (args.setup_git or args.handoffs is not None or args.handoff or args.stale is not None or args.topic
            or args.similar):
        return None
    from memory.commands import recall_commands

    if args.topic:
        return recall_commands.topic(memory_dir, args.topic, args.json)
    if args.similar:
        return recall_commands.similar(memory_dir)
    if args.setup_git:
        return recall_commands.setup_git()
    if args.stale is not None:
        return recall_commands.stale(memory_dir, args.stale, args.json)
    return recall_commands.handoffs(memory_dir, args.handoffs, args.handoff)


def _print_found(chosen: list[dict], in_archive: list[dict], malformed: int, args: Options, argv: list[str]) -> int:
    """The keyword / filter answer: entries (or JSON lines), then what the agent should know on stderr."""
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
    if in_archive:
        import shlex

        from memory.core import layout

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


def ranked(memory_dir: str, text: str, args: Options) -> int:
    """Several words: the knowledge ranked against them (memory.search.rank over the index, both files), best
    first, each with its score; no gate, since a person asked. An error pasted as the words first brings the
    entries captured right after that same error ("seen", memory.search.recurrence)."""
    from memory.core import jsonio
    from memory.search import index, rank

    corpus = index.load(memory_dir)
    seen = _seen_before(memory_dir, text, args)
    from memory.surface import knowledge_map

    results = rank.search(corpus, text, limit=(args.limit if not args.entry_type else 10 * args.limit)
                          + knowledge_map.TITLE_LOOKAHEAD)
    results = knowledge_map.title_first(results, text)  # the map's lookup: the titled entry is the answer
    shown = {e["key"] for e in seen}
    results = [s for s in results if (not args.entry_type or s.entry.get("type") == args.entry_type)
               and s.entry.get("key") not in shown][:max(0, args.limit - len(seen))]
    out = sys.stdout
    for found in seen:  # recorded right after a failure that printed this line: first, whatever their words
        if args.json:
            out.write(render.escape_control(jsonio.dumps(dict(found, seen_before=True))) + "\n")
        else:
            out.write(f"  seen  {format_entry(found)}\n\n")
    for scored in results:
        if args.json:
            record = dict(scored.entry, score=round(scored.score, 3))
            if args.explain:
                record["why"] = scored.why
            out.write(render.escape_control(jsonio.dumps(record)) + "\n")
            continue
        why = f"  [{', '.join(scored.why)}]" if args.explain else ""
        out.write(f"{scored.score:6.2f}{why}  {format_entry(scored.entry)}\n\n")
    if (results or seen) and not args.json:
        from memory.surface import use

        # a lookup (the map's `recall.sh "<words of a title>"`): its answer rises in the map
        use.credit(memory_dir, [e["key"] for e in seen] + [str(s.entry.get("key")) for s in results[:1]])
        also = f"{len(seen)} recorded right after this error (\"seen\"), " if seen else ""
        out.write(f"{also}{len(results)} ranked entr{'y' if len(results) == 1 else 'ies'} (both files, latest per "
                  "key; --exact: only entries holding every word)\n")
    sys.stderr.write(render.found_notes(corpus.malformed, bool(results or seen)))
    return FOUND if results or seen else NOTHING


def _seen_before(memory_dir: str, text: str, args: Options) -> list[dict]:
    """The live entries captured right after a failure that printed a line of `text` (an error pasted as the
    query: memory.search.action_paths.seen_in_text), as stored, newest first."""
    from memory.search import action_paths

    found = action_paths.seen_in_text(memory_dir, text, rebuild=True)
    if not found:
        return []
    from memory.store import store

    wanted = [key for key, kind, _, _ in found if not args.entry_type or kind == args.entry_type]
    by_key = {e.get("key"): e for e in store.latest(store.load(memory_dir).entries) if e.get("key") in wanted}
    return [by_key[key] for key in wanted if key in by_key][:args.limit]


if __name__ == "__main__":
    from memory.core.cli import run_cli

    run_cli(main)
