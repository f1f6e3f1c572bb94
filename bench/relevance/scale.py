#!/usr/bin/env python3
"""The scale case: uv's knowledge padded to 100, 300 or 1,000 active entries with realistic filler.

    python bench/relevance/scale.py 1000 > /tmp/knowledge.jsonl      # the padded knowledge, store format
    from scale import padded; entries = padded(1000)

Filler, in this order until the size is reached: the entries of the three other projects (calcom, grafana,
posthog: 259 engineers' rules about other stacks, round-robin), then `scale/uv-docs.jsonl`: 720 paragraphs of
uv's own documentation (docs/**/*.md at the commit uv's rules were read at; 80-320 characters, code blocks,
headings, tables, links and the generated reference pages left out; ordered by sha1 of the text). They are
real project knowledge in the project's vocabulary, so they compete with the labelled entries the way a
grown knowledge base would. Every entry is built with memory.store.entry.build like a capture; `ts` is spread
evenly over 2024-01-01..2025-06-30 in a hash order of the keys, so the newest entries are a mix of sources.
uv's labels (prompts.jsonl, actions.jsonl) stay valid: its 77 entries are all kept.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

import build  # noqa: E402
import dataset  # noqa: E402

from memory.store import entry  # noqa: E402

PROJECT = "uv"
OTHERS = ("calcom", "grafana", "posthog")
SIZES = (100, 300, 1000)
FILLER = HERE / "scale" / "uv-docs.jsonl"
FIRST_TS = 1704067200  # 2024-01-01
LAST_TS = 1751241600  # 2025-06-30
FILLER_BEAD = 900


def _round_robin(lists: list[list[dict]]) -> list[dict]:
    out: list[dict] = []
    for i in range(max(map(len, lists))):
        out.extend(items[i] for items in lists if i < len(items))
    return out


def _docs_entries() -> list[dict]:
    records = [json.loads(line) for line in FILLER.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [entry.build(r["content"], f"BD-{FILLER_BEAD + i // build.INSIGHTS_PER_BEAD}", entry.ORCHESTRATOR,
                        ts=0, origin=r["origin"]) for i, r in enumerate(records)]


def padded(size: int, root: str | Path = HERE) -> list[dict]:
    """uv's entries plus filler, `size` in all (store format, oldest first)."""
    projects, _ = dataset.load(root)
    own = projects[PROJECT]
    if size < len(own):
        raise ValueError(f"size {size} is below {PROJECT}'s own {len(own)} entries")
    filler = _round_robin([projects[name] for name in OTHERS]) + _docs_entries()
    if size > len(own) + len(filler):
        raise ValueError(f"at most {len(own) + len(filler)} entries")
    chosen = own + filler[: size - len(own)]
    keys = [e["key"] for e in chosen]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate keys in the padded knowledge")
    order = sorted(range(len(chosen)), key=lambda i: hashlib.sha1(keys[i].encode("utf-8")).hexdigest())
    out: list[dict] = []
    for rank, i in enumerate(order):
        e = dict(chosen[i])
        e["ts"] = FIRST_TS + rank * (LAST_TS - FIRST_TS) // max(len(chosen) - 1, 1)
        out.append(e)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    size = int(args[0]) if args else 1000
    sys.stdout.write(build.render(padded(size)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
