"""Load the relevance set: knowledge entries per project and the labelled prompts (stdlib only, Python >= 3.9).

    from bench.relevance import dataset
    projects, prompts = dataset.load("bench/relevance")
    dev = dataset.split(prompts, "dev")
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

KINDS = ("paraphrase", "lexical", "unrelated")
SPLITS = ("dev", "test")
HERE = Path(__file__).resolve().parent  # the default root: this folder holds the dataset


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load(root: str | Path = HERE) -> tuple[dict[str, list[dict]], list[dict]]:
    """(projects: name -> its knowledge entries in file order, prompts: every labelled prompt)."""
    root = Path(root)
    projects = {p.parent.name: _read_jsonl(p) for p in sorted(root.glob("*/knowledge.jsonl"))}
    return projects, _read_jsonl(root / "prompts.jsonl")


def split(prompts: list[dict], name: str) -> list[dict]:
    """The prompts of one split, "dev" (for tuning) or "test" (for reporting)."""
    if name not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {name!r}")
    return [p for p in prompts if p["split"] == name]


def expected_split(prompts: list[dict]) -> dict[str, str]:
    """id -> split: within each (project, kind), ids ordered by sha1(id); the first half (rounded up
    alternately per stratum) is dev, the rest test. Deterministic and stratified."""
    strata: dict[tuple, list[str]] = {}
    for p in prompts:
        strata.setdefault((p["project"], p["kind"]), []).append(p["id"])
    out = {}
    for i, key in enumerate(sorted(strata)):
        ids = sorted(strata[key], key=lambda x: hashlib.sha1(x.encode("utf-8")).hexdigest())
        n_dev = (len(ids) + (1 if i % 2 == 0 else 0)) // 2
        for j, pid in enumerate(ids):
            out[pid] = "dev" if j < n_dev else "test"
    return out
