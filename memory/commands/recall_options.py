"""recall.sh's command line: its options and their defaults (Options), read without argparse for the plain
keyword form (`recall.sh KEYWORD [--all]`, what a person waits for) and by argparse for everything else."""
from __future__ import annotations

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


RANKED_LIMIT = 10  # results of a ranked search without --limit
# a listing (one keyword, --type, --pinned) printed to an agent's tool, not a terminal, without --limit: one word
# matched 214 entries (66 KB) and Claude Code kept a 2 KB preview of it
AGENT_LIST_LIMIT = 25


def entry_type(value: str) -> str:
    """--type's value as entries store it: any case, the map's label or a plural (`WARN`, `warnings`) mean
    `warning`; anything else as given."""
    from memory.core.shape import TYPE_TAGS

    word = value.strip().lower()
    for kind, tag in TYPE_TAGS.items():
        if word in (kind, kind + "s", tag.lower(), tag.lower() + "s"):
            return kind
    return value


class Options:
    """recall.sh's command line. The class attributes are the defaults: argparse fills an instance
    (build_parser), and `parse` does for the plain keyword form without argparse."""

    keywords: Sequence[str] = ()  # not []: parse_intermixed_args drops an attribute that equals []
    exact = False
    limit: int | None = None  # ranked: RANKED_LIMIT; a listing: all
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
    (tests/commands/test_recall_options.py holds the two to the same options)."""
    words = [arg for arg in argv if arg != "--all"]
    limit = None
    if len(words) > 2 and words[-2] == "--limit" and words[-1].isascii() and words[-1].isdigit() \
            and words[-1] != "0" * len(words[-1]):
        words, limit = words[:-2], int(words[-1])  # a script's `recall.sh deploy --limit 100000`
    if words and not any(word.startswith("-") for word in words):
        options = Options()
        options.keywords, options.all, options.limit = words, "--all" in argv, limit
        return options
    return build_parser().parse_intermixed_args(argv, Options())  # `recall.sh pytest --all ci`: words around


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
    parser.add_argument("--limit", type=int, metavar="N",
                        help="at most N results (ranked: 10; a listing such as --type or one keyword: all at a "
                             f"terminal, else the newest {AGENT_LIST_LIMIT}; with N: the newest N)")
    parser.add_argument("--explain", action="store_true", help="ranked: why each entry scored")
    parser.add_argument("--type", dest="entry_type", metavar="T", type=entry_type,
                        help="only entries of this type: learned, decision, warning or pattern (or the map's "
                             "LEARN, DECIDE, WARN)")
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
                        help="check the installation (memory-doctor); --doctor --repair fixes the files, "
                             "--doctor --compact folds the inbox and rotates (then commit)")
    parser.add_argument("--import", dest="import_source", metavar="SOURCE",
                        help="bring existing memory in once: claude (Claude Code's auto memory: project and reference "
                             "notes) or bd (bd memories); with --dry-run, show what would be added")
    parser.add_argument("--memory-dir", help=argparse.SUPPRESS)
    return parser
