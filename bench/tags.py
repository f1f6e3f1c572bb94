#!/usr/bin/env python3
"""Auto-tags against a hand check: how many of the tags the dev knowledge's entries carry are wrong, and how many
the current rules (memory.store.entry.detect_tags) still give.

    python bench/tags.py --built 09273d5   # counts against the entries as built at that commit
    python bench/tags.py --verbose         # and every tag the current rules drop or add

bench/relevance/tags_checked.tsv: (key, tag, verdict, why) for the four projects' entries, read one by one
against the tags they were built with (bench/relevance/build.py: the rules at the time); `wrong` = the entry is
not about that topic (`javascript` for a path ending `.ts`, `deps` for `yarn test`), `right` = a tag the
current rules drop that was right. A dropped tag with no line is printed as unchecked.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from memory.store.entry import detect_tags  # noqa: E402

PROJECTS = ("calcom", "grafana", "posthog", "uv")
CHECKED = HERE / "relevance" / "tags_checked.tsv"


def _knowledge(project: str, rev: str | None) -> str:
    path = HERE / "relevance" / project / "knowledge.jsonl"
    if rev is None:
        return path.read_text(encoding="utf-8")
    import subprocess

    return subprocess.run(["git", "show", f"{rev}:bench/relevance/{project}/knowledge.jsonl"], cwd=HERE.parent,
                          capture_output=True, text=True, check=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--built", metavar="REV", help="the knowledge as a git revision holds it (default: the files)")
    args = parser.parse_args(argv)
    with CHECKED.open(encoding="utf-8") as f:
        verdict = {(r["key"], r["tag"]): r["verdict"] for r in csv.DictReader(f, delimiter="\t")}
    entries = [json.loads(line) for p in PROJECTS for line in _knowledge(p, args.built).splitlines()]
    stored = {(e["key"], t) for e in entries for t in e["tags"][1:]}
    now = {(e["key"], t) for e in entries for t in detect_tags(e["type"], e["content"])[1:]}
    wrong = {pair for pair, v in verdict.items() if v == "wrong"}
    built = args.built or "the files"
    print(f"{len(entries)} entries, {len(stored)} tags as built ({built}); checked wrong: {len(wrong & stored)} "
          f"tags on {len({k for k, _ in wrong & stored})} entries")
    dropped, added = stored - now, now - stored
    right_lost = {pair for pair in dropped if verdict.get(pair) == "right"}
    unchecked = {pair for pair in dropped if pair not in verdict}
    print(f"current rules: {len(now)} tags; wrong still given {len(wrong & now)}, wrong dropped "
          f"{len(wrong & dropped)}, right dropped {len(right_lost)}, dropped unchecked {len(unchecked)}, "
          f"added {len(added)}")
    if args.verbose:
        for label, pairs in (("dropped wrong", wrong & dropped), ("dropped right", right_lost),
                             ("dropped unchecked", unchecked), ("added", added), ("wrong kept", wrong & now)):
            for key, tag in sorted(pairs, key=lambda p: (p[1], p[0])):
                print(f"  {label:<17} {tag:<12} {key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
