"""Precision and recall of `recall.sh --stale`'s path detection (memory.search.stale.named) on labelled texts.

bench/stale_paths.jsonl: the entry texts of bench/relevance/source/*.jsonl (real CLAUDE.md / AGENTS.md rules
of four projects) holding a path-shaped word, plus the three examples of issue #21 item 16; each with the
words that name a file or folder (`paths`) and the path-shaped words that do not (`not_paths`: scoped
packages, MIME types, git refs, placeholders, prose such as `and/or`). Labelled by hand. `split`: "dev" rows
are the texts the rules were written against; "held-out" rows (the path-shaped words of
bench/relevance/prompts.jsonl, labelled before they were measured) were not looked at while writing them.

    python bench/stale_paths.py                       # the detection as it is
    git show main:memory/search/stale.py > /tmp/old.py && python bench/stale_paths.py --module /tmp/old.py
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "stale_paths.jsonl"


def load_named(module_path: str | None):  # type: ignore[no-untyped-def]
    if module_path is None:
        sys.path.insert(0, str(ROOT))
        from memory.search import stale

        return stale.named
    spec = importlib.util.spec_from_file_location("stale_under_test", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.named


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", help="a stale.py to measure instead of memory/search/stale.py")
    parser.add_argument("--show", action="store_true", help="print every false positive and miss")
    args = parser.parse_args(argv)
    named = load_named(args.module)
    rows = [json.loads(line) for line in LABELS.read_text().splitlines() if line.strip()]
    for split in ("dev", "held-out"):
        chosen = [row for row in rows if row["split"] == split]
        tp = fp = fn = 0
        for row in chosen:
            found, truth = named(row["text"])[0], set(row["paths"])
            tp += len(found & truth)
            fp += len(found - truth)
            fn += len(truth - found)
            if args.show:
                for word in sorted(found - truth):
                    print(f"false path: {word!r}  ({row['from']})")
                for word in sorted(truth - found):
                    print(f"missed:     {word!r}  ({row['from']})")
        labelled = sum(len(r["paths"]) for r in chosen), sum(len(r["not_paths"]) for r in chosen)
        print(f"{split}: {len(chosen)} texts, {labelled[0]} paths and {labelled[1]} path-shaped non-paths; flagged "
              f"{tp + fp}: precision {tp / max(1, tp + fp):.2f} ({tp}/{tp + fp}), recall {tp / max(1, tp + fn):.2f} "
              f"({tp}/{tp + fn})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
