#!/usr/bin/env python3
"""How many false near-copy hints real, distinct entries would get at capture (memory.search.similar.resembling),
at a few thresholds: each live entry of the four bench/relevance/*/knowledge.jsonl and of uv's doc sentences
(bench/relevance/scale/uv-docs.jsonl) as if captured again, against all the others.

    python bench/near_copy_rate.py        # ~10 s
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.search import similar  # noqa: E402
from memory.store import entry, view  # noqa: E402

THRESHOLDS = (0.8, 0.7, 0.6, 0.5)


def main() -> int:
    relevance = ROOT / "bench" / "relevance"
    project: list[dict] = []
    for path in sorted(relevance.glob("*/knowledge.jsonl")):
        project += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    docs = [entry.build(json.loads(line)["content"], "", "orchestrator", ts=1_700_000_000 + i)
            for i, line in enumerate((relevance / "scale" / "uv-docs.jsonl").read_text().splitlines())]
    live = view.latest(project + docs)
    project_keys = {e["key"] for e in project}
    print(f"{len(live)} distinct live entries ({len(project_keys & {e['key'] for e in live})} from project knowledge)")
    for threshold in THRESHOLDS:
        hits = [hit for e in live for hit in similar.resembling([e], live, threshold)]
        in_project = sum(1 for new, _, _ in hits if new["key"] in project_keys)
        print(f"threshold {threshold}: {len(hits)} would get a hint ({in_project} of them project entries)")
        for new, old, score in hits[:3] if threshold == similar.THRESHOLD else ():
            print(f"    {score:.2f}  {new['content'][:70]!r}\n          {old['content'][:70]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
