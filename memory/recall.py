"""recall.sh: search the knowledge files by keyword, type or recency, or summarise them.

Exit status: 0 when something was found, 1 when nothing was, 2 on a usage error.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from memory import jsonio, paths, render, store

FOUND, NOTHING, USAGE = 0, 1, 2
SEARCHED_FIELDS = ("content", "key", "bead")


def matches(entry: dict, needle: str) -> bool:
    """Case-insensitive fixed-string match over the entry's values (never over JSON field names)."""
    for name in SEARCHED_FIELDS:
        value = entry.get(name)
        if isinstance(value, str) and needle in value.casefold():
            return True
    tags = entry.get("tags")
    return isinstance(tags, list) and any(isinstance(t, str) and needle in t.casefold() for t in tags)


def select(latest: list[dict], keyword: str | None, entry_type: str | None, recent: int | None) -> list[dict]:
    """Entries (newest first) passing the filters, cut to `recent` when given."""
    needle = keyword.casefold() if keyword else None
    chosen = [e for e in latest
              if (entry_type is None or e.get("type") == entry_type) and (needle is None or matches(e, needle))]
    return chosen[:recent] if recent is not None else chosen


def format_entry(entry: dict) -> str:
    """Two or more readable lines: label, key and provenance; then the content, indented."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry["ts"])) if isinstance(entry.get("ts"), (int, float)) else "?"
    tags = [t for t in entry.get("tags") or [] if isinstance(t, str) and t != entry.get("type")]
    meta = " · ".join(str(x) for x in (entry.get("bead"), entry.get("source"), when) if x)
    head = f"[{render.label(str(entry.get('type', '')))}] {entry['key']}  {meta}"
    if tags:
        head += f"  #{' #'.join(tags)}"
    body = "\n".join("    " + line for line in entry["content"].splitlines() or [""])
    return f"{head}\n{body}"


def stats(memory_dir: str, snapshot: store.Snapshot, latest: list[dict]) -> str:
    """Counts per type, source and tag, with the archive's size and malformed lines."""
    archive = store.path(memory_dir, store.ARCHIVE)
    archive_lines = store.read(archive).lines if os.path.exists(archive) else 0
    archive_kb = os.path.getsize(archive) / 1024 if os.path.exists(archive) else 0.0
    types = Counter(str(e.get("type")) for e in latest)
    sources = Counter(str(e.get("source")) for e in latest)
    tags = Counter(t for e in latest for t in e.get("tags") or [] if isinstance(t, str) and t != e.get("type"))

    def fmt(counter: Counter) -> str:
        return ", ".join(f"{k} {v}" for k, v in counter.most_common(10)) or "-"

    rows = [
        ("memory", memory_dir),
        ("entries", f"{len(snapshot.entries)} lines, {len(latest)} unique keys"),
        ("by type", fmt(types)),
        ("by source", fmt(sources)),
        ("top tags", fmt(tags)),
        ("archive", f"{archive_lines} lines, {archive_kb:.1f} KiB"),
        ("malformed", f"{snapshot.malformed} line(s) skipped"),
    ]
    return "\n".join(f"{name + ':':<11} {value}" for name, value in rows)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recall.sh", description="Search the project's knowledge (.beads/memory/knowledge.jsonl).",
        epilog="Exit status: 0 found, 1 nothing found, 2 usage error. Same key: the latest entry wins.")
    parser.add_argument("keyword", nargs="?", help="case-insensitive text to find in content, key, tags or bead")
    parser.add_argument("--type", dest="entry_type", metavar="T", help="only entries of this type (e.g. learned)")
    parser.add_argument("--recent", type=int, metavar="N", help="the N most recent entries (one per key)")
    parser.add_argument("--stats", action="store_true", help="counts per type, source and tag; archive size")
    parser.add_argument("--all", action="store_true", help="include knowledge.archive.jsonl")
    parser.add_argument("--json", action="store_true", help="print JSON lines (for jq)")
    parser.add_argument("--doctor", action="store_true",
                        help="check the installation; --doctor --repair fixes the files (see memory-doctor)")
    parser.add_argument("--memory-dir", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # an emoji on a Latin-1 terminal is a "?", not a traceback
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--doctor" in argv:
        from memory import doctor
        return doctor.main([a for a in argv if a != "--doctor"])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.recent is not None and args.recent < 1:
        parser.error("--recent takes a positive number")
    if not (args.keyword or args.entry_type or args.recent or args.stats):
        parser.print_usage(sys.stderr)
        print("recall.sh: give a KEYWORD, --type, --recent N or --stats (see --help)", file=sys.stderr)
        return USAGE
    memory_dir = args.memory_dir or paths.memory_dir(os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd())
    needle = args.keyword.casefold().encode("utf-8") if args.keyword else b""
    if needle and needle.isascii() and b'"' not in needle and b"\\" not in needle and not args.stats:
        snapshot = store.load_matching(memory_dir, needle, include_archive=args.all)
    else:
        snapshot = store.load(memory_dir, include_archive=args.all)
    latest = store.latest(snapshot.entries)
    if args.stats:
        print(stats(memory_dir, snapshot, latest))
        return FOUND if latest else NOTHING
    chosen = select(latest, args.keyword, args.entry_type, args.recent)
    out = sys.stdout
    if args.json:
        out.write("".join(jsonio.dumps(e) + "\n" for e in chosen))
    else:
        out.write("\n\n".join(format_entry(e) for e in chosen) + ("\n" if chosen else ""))
        if chosen:
            out.write(f"\n{len(chosen)} entr{'y' if len(chosen) == 1 else 'ies'} (latest per key)\n")
    if snapshot.malformed:
        print(f"recall.sh: {snapshot.malformed} malformed line(s) skipped (recall.sh --doctor)", file=sys.stderr)
    if not chosen:
        print("recall.sh: nothing found", file=sys.stderr)
    return FOUND if chosen else NOTHING


def run_cli(entry_point) -> None:
    """Exit with `entry_point()`'s status; a closed pipe (`recall.sh … | head`) is not an error."""
    try:
        raise SystemExit(entry_point())
    except BrokenPipeError:
        sys.stderr.close()
        raise SystemExit(0)


if __name__ == "__main__":
    run_cli(main)
