#!/usr/bin/env python3
"""Visible recall through the real hooks: what does the agent see of the entries a prompt needs?

    python bench/relevance_view.py                  # dev and test: session start + prompt hook, 4 projects
    python bench/relevance_view.py --split dev      # one split
    python bench/relevance_view.py --coverage       # the map's coverage at 100, 300 and 1,000 active entries
    python bench/relevance_view.py --scale 1000     # also uv's prompts against its knowledge padded to 1,000

Per prompt, a fresh session in a git repo holding the project's knowledge (bench/hook_session.py): the real
hooks/session_start.py, then the real hooks/prompt_recall.py with the prompt, each as its own process.
- visible: a labelled entry whose first 40 characters stand in what session start plus the prompt hook
  injected (share of the prompt's labelled entries, averaged over prompts that need one);
- full@5: labelled entries the prompt hook injected in full (whole text, or its first 200 characters where
  the hook cut it); full (SS+P) also counts what session start gave in full;
- SS chars / P chars: characters injected at session start / per prompt (mean over all prompts);
- unlabelled/P: entries the prompt hook injected in full that the prompt is not labelled with, per prompt
  that needs an entry;
- unrelated: unrelated prompts for which the prompt hook injected anything, n/N.
Coverage: the share of live entries whose first 40 characters are visible at session start.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "relevance"))

import dataset  # noqa: E402
import hook_session as hs  # noqa: E402
import scale  # noqa: E402

TARGETS = "targets: visible >= 0.90 (SS <= 9,000 chars), full@5 >= 0.35, unlabelled/P <= 1.0, unrelated <= 3/20"


def run_prompt(repo: str, session: str, prompt: str) -> tuple[str, str]:
    """(session start's context, the prompt hook's context) of one fresh session."""
    start = hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, session), repo)
    return start, hs.run_hook(hs.PROMPT_RECALL, hs.prompt_payload(repo, session, prompt), repo)


def measure(p: dict, repo: str, entries: list[dict]) -> dict[str, object]:
    """One prompt in a fresh session: what was injected, and which of the project's entries it shows."""
    start, answer = run_prompt(repo, f"view-{p['id']}", p["prompt"])
    record: dict[str, object] = {"kind": p["kind"], "project": p["project"], "ss_chars": len(start),
                                 "p_chars": len(answer), "answered": bool(answer)}
    if p.get("relevant"):
        by_key = {e["key"]: e for e in entries}
        wanted = [by_key[k] for k in p["relevant"]]
        both = start + "\n" + answer
        record.update(visible=sum(hs.visible(e, both) for e in wanted) / len(wanted),
                      full=sum(hs.in_full(e, answer) for e in wanted) / len(wanted),
                      full_any=sum(hs.in_full(e, both) for e in wanted) / len(wanted),
                      unlabelled=sum(1 for e in entries if e["key"] not in p["relevant"] and hs.in_full(e, answer)))
    return record


def summarize(records: list[dict]) -> dict[str, object]:
    """The figures of a set of measured prompts (see the module docstring)."""
    answerable = [r for r in records if "visible" in r]
    unrelated = [r for r in records if "visible" not in r]

    def avg(field: str, rows: list[dict]) -> float:
        return hs.mean([float(r[field]) for r in rows])

    return {"visible": avg("visible", answerable),
            "paraphrase": avg("visible", [r for r in answerable if r["kind"] == "paraphrase"]),
            "lexical": avg("visible", [r for r in answerable if r["kind"] == "lexical"]),
            "full": avg("full", answerable), "full_any": avg("full_any", answerable),
            "ss_chars": avg("ss_chars", records), "p_chars": avg("p_chars", records),
            "unlabelled": avg("unlabelled", answerable),
            "unrelated": (sum(1 for r in unrelated if r["answered"]), len(unrelated))}


def fmt(r: dict) -> str:
    got, of = r["unrelated"]
    return (f"visible {r['visible']:.2f} (para {r['paraphrase']:.2f}, lex {r['lexical']:.2f})  "
            f"full@5 {r['full']:.2f}  full(SS+P) {r['full_any']:.2f}  SS {r['ss_chars']:.0f} chars  "
            f"P {r['p_chars']:.0f} chars  unlabelled/P {r['unlabelled']:.2f}  unrelated {got}/{of}")


def coverage(workdir: str, sizes: tuple[int, ...] = scale.SIZES) -> list[tuple[int, float, int]]:
    """(size, share of live entries visible at session start, session start's characters) per size."""
    rows = []
    for size in sizes:
        entries = scale.padded(size)
        repo = hs.make_repo(workdir, f"coverage-{size}", entries)
        start = hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, f"coverage-{size}"), repo)
        rows.append((size, sum(hs.visible(e, start) for e in entries) / len(entries), len(start)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=dataset.SPLITS, action="append", help="default: dev and test")
    parser.add_argument("--coverage", action="store_true", help="only the map's coverage at 100/300/1,000 entries")
    parser.add_argument("--scale", type=int, default=0, help="also uv's prompts against its knowledge padded to N")
    parser.add_argument("--semantic", action="store_true",
                        help="with the semantic option (where it is installed); default: the default install, lexical")
    args = parser.parse_args(argv)
    settings = {"semantic": args.semantic}  # the figures must not depend on what this interpreter happens to have
    workdir = tempfile.mkdtemp(prefix="relevance-view-")
    if args.coverage:
        for size, share, chars in coverage(workdir):
            print(f"coverage at {size:>5} active entries: {share:.3f} of entries visible at session start"
                  f" ({chars} chars)")
        return 0
    projects, prompts = dataset.load()
    repos = {name: hs.make_repo(workdir, name, entries, settings) for name, entries in projects.items()}
    print(TARGETS)
    for split in args.split or list(dataset.SPLITS):
        chosen = dataset.split(prompts, split)
        print(f"{split}: {len(chosen)} prompts, a fresh session each, real hooks")
        records = [measure(p, repos[p["project"]], projects[p["project"]]) for p in chosen]
        for name in projects:
            print(f"  {name:<8} {fmt(summarize([r for r in records if r['project'] == name]))}")
        print(f"  {'all':<8} {fmt(summarize(records))}")
        if args.scale:
            padded = scale.padded(args.scale)
            big = hs.make_repo(workdir, f"{scale.PROJECT}-{args.scale}", padded, settings)
            mine = [measure(p, big, padded) for p in chosen if p["project"] == scale.PROJECT]
            print(f"  {scale.PROJECT + '@' + str(args.scale):<8} {fmt(summarize(mine))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
