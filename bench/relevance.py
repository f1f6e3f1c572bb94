#!/usr/bin/env python3
"""Relevance benchmark: does the entry a prompt needs reach the top 5, and do unrelated prompts stay silent?

    python bench/relevance.py                   # dev and test tables
    python bench/relevance.py --sweep           # the gate trade-off on dev (tune on dev only)
    python bench/relevance.py --hook            # ours through the real hooks/prompt_recall.py process
    RELEVANCE_DATA=/path/to/bench/relevance python bench/relevance.py

The data set: `<project>/knowledge.jsonl` per project, and prompts.jsonl lines {id, project, prompt,
relevant: [keys], kind: paraphrase|lexical|unrelated, split: dev|test}.
recall@5 = share of a prompt's relevant keys among what it injects (top 5, after the gate), averaged;
MRR over the same lists; false injections = unrelated prompts that inject >= 1 entry, as n/N.
Systems take (entries, prompt) and return the injected keys, best first, so a `--hook CMD` mode
(the real hook process per prompt) can slot in as one more system.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.search import corpus, rank  # noqa: E402
from memory.store import store  # noqa: E402

FALSE_BUDGET = 3 / 20  # at most 3 of 20 unrelated prompts may inject anything
System = Callable[[str, str], list[str]]  # (project, prompt) -> injected keys


def load_data(data_dir: str):
    """({project: latest entries}, [prompt records])."""
    projects: dict[str, list[dict]] = {}
    for path in sorted(glob.glob(os.path.join(data_dir, "*", "knowledge.jsonl"))):
        projects[os.path.basename(os.path.dirname(path))] = store.latest(store.read(path).entries)
    prompts = []
    for path in sorted(set(glob.glob(os.path.join(data_dir, "prompts.jsonl")) +
                           glob.glob(os.path.join(data_dir, "*", "prompts.jsonl")))):
        with open(path, encoding="utf-8") as fh:
            prompts.extend(json.loads(line) for line in fh if line.strip())
    return projects, prompts


def evaluate(system: System, prompts: list[dict]) -> dict[str, object]:
    recall: dict[str, list[float]] = {"overall": [], "paraphrase": [], "lexical": []}
    mrr: list[float] = []
    noise: list[int] = []  # unlabelled entries injected in full, per prompt that needs an entry
    false = unrelated = 0
    for p in prompts:
        keys = system(p["project"], p["prompt"])[:5]
        if p["kind"] == "unrelated" or not p.get("relevant"):
            unrelated += 1
            false += bool(keys)
            continue
        wanted = set(p["relevant"])
        r = len(wanted & set(keys)) / len(wanted)
        recall["overall"].append(r)
        recall.setdefault(p["kind"], []).append(r)
        mrr.append(next((1 / (i + 1) for i, k in enumerate(keys) if k in wanted), 0.0))
        noise.append(len(set(keys) - wanted))

    def mean(xs):
        return sum(xs) / len(xs) if xs else float("nan")

    return {"recall": mean(recall["overall"]), "paraphrase": mean(recall["paraphrase"]),
            "lexical": mean(recall["lexical"]), "mrr": mean(mrr), "false": (false, unrelated),
            "noise": mean(noise)}


# --- systems ---------------------------------------------------------------------------------------------

def newest(projects) -> System:
    return lambda project, prompt: [e["key"] for e in projects[project][:5]]


class PlainBM25:
    """Textbook BM25 over the content: lowercase \\w+ words, no stemming, no stop words, no concepts."""

    def __init__(self, projects, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b, self.stats = k1, b, {}
        for name, entries in projects.items():
            docs = [re.findall(r"\w+", e["content"].lower()) for e in entries]
            df: dict[str, int] = {}
            for words in docs:
                for w in set(words):
                    df[w] = df.get(w, 0) + 1
            avg = sum(map(len, docs)) / max(len(docs), 1) or 1
            self.stats[name] = (entries, docs, df, avg)

    def scores(self, project: str, prompt: str):
        entries, docs, df, avg = self.stats[project]
        n = len(docs)
        query = set(re.findall(r"\w+", prompt.lower()))
        out = []
        for entry, words in zip(entries, docs):
            s = 0.0
            for w in query:
                tf = words.count(w)
                if tf:
                    idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                    s += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * len(words) / avg))
            if s > 0:
                out.append((s, entry["key"]))
        out.sort(key=lambda x: -x[0])
        return out[:5]

    def system(self, threshold: float = 0.0) -> System:
        return lambda project, prompt: [k for s, k in self.scores(project, prompt) if s >= threshold]


class Ours:
    """memory.search.rank over a corpus built once per project; `gate` False gives the plain top 5."""

    def __init__(self, projects) -> None:
        self.corpora = {name: corpus.from_entries(entries) for name, entries in projects.items()}

    def candidates(self, project: str, prompt: str, params=rank.Params) -> list[rank.Scored]:
        return rank.search(self.corpora[project], prompt, 5, params)

    def system(self, params=rank.Params, gate: bool = True) -> System:
        return lambda project, prompt: [s.entry["key"] for s in self.gate(self.candidates(project, prompt, params),
                                                                           params, gate)]

    @staticmethod
    def gate(results, params, gate: bool = True):
        return rank.gated(results, params) if gate else results


class HookSystem:
    """The real UserPromptSubmit hook, one process per prompt, in a git repo per project; the injected
    entries are read back from its answer (each line starts with the entry's content)."""

    def __init__(self, projects, workdir: str, semantic: bool = False) -> None:
        import subprocess

        self.projects, self.repos, self.calls = projects, {}, 0
        for name, entries in projects.items():
            repo = os.path.join(workdir, name)
            os.makedirs(os.path.join(repo, ".beads", "memory"), exist_ok=True)
            subprocess.run(["git", "init", "-q", repo], check=True)
            with open(os.path.join(repo, ".beads", "memory", "knowledge.jsonl"), "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(e, ensure_ascii=False) + "\n" for e in reversed(entries))
            with open(os.path.join(repo, ".beads", "memory", "config.json"), "w", encoding="utf-8") as fh:
                json.dump({"semantic": semantic}, fh)
            self.repos[name] = repo

    def __call__(self, project: str, prompt: str) -> list[str]:
        import subprocess

        from memory.core import render

        self.calls += 1
        repo = self.repos[project]
        payload = {"session_id": f"bench-{self.calls}", "hook_event_name": "UserPromptSubmit", "cwd": repo,
                   "prompt": prompt}
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "MEMORY_HOOKS"))}
        env["CLAUDE_PROJECT_DIR"] = repo
        proc = subprocess.run([sys.executable, str(ROOT / "hooks" / "prompt_recall.py")], input=json.dumps(payload),
                              capture_output=True, text=True, cwd=repo, env=env, timeout=60)
        if not proc.stdout.strip():
            return []
        text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        shown = [line.split("] ", 1)[1].rstrip("…") for line in text.splitlines()[1:] if "] " in line]
        flat = {e["key"]: render.one_line(e["content"], 10**6) for e in self.projects[project]}
        return [next((k for k, c in flat.items() if c.startswith(line)), "?") for line in shown]


def budget(prompts: list[dict]) -> int:
    unrelated = sum(1 for p in prompts if p["kind"] == "unrelated" or not p.get("relevant"))
    return int(unrelated * FALSE_BUDGET + 1e-9)


def best_threshold(pbm: PlainBM25, prompts: list[dict]) -> float:
    """The lowest score threshold at which plain BM25 keeps false injections within budget (on these prompts)."""
    tops = sorted({s for p in prompts if p["kind"] == "unrelated" or not p.get("relevant")
                   for s, _ in pbm.scores(p["project"], p["prompt"])[:1]}, reverse=True)
    allowed = budget(prompts)
    return tops[allowed] + 1e-9 if len(tops) > allowed else 0.0


def params_with(**overrides) -> type:
    return type("Tuned", (rank.Params,), overrides)


def sweep(ours: Ours, dev: list[dict]) -> None:
    """The gate's trade-off on dev: recall@5 at each setting, best within the false-injection budget first."""
    allowed = budget(dev)
    rows = []
    for concept_weight in (0.2, 0.3, 0.5, 0.7, 1.0):
        ranking = params_with(concept_weight=concept_weight)
        cached = {p["id"]: ours.candidates(p["project"], p["prompt"], ranking) for p in dev}
        rows.extend(_gate_rows(dev, cached, allowed, concept_weight))
    rows.sort(key=lambda r: (not r[0], -r[1], -r[-1]["paraphrase"]))
    print(f"gate sweep on dev (false-injection budget {allowed}):")
    for _ok, _, cw, (mf, fo), mt, cf, r in rows[:20]:
        print(f"  concept_weight={cw} min_fraction={mf:.2f} relative_cut={fo} min_terms={mt} concept_fraction={cf:.2f}"
              f"  {_fmt(r)}")


def _gate_rows(dev, cached, allowed, concept_weight):
    rows = []
    for min_fraction in [x / 100 for x in range(0, 61, 2)]:
        for min_terms in (0, 1, 2):
            for concept_fraction in (0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.01):
              for relative_cut in (0.0, 0.5, 0.6, 0.7, 0.8, 0.9):
                params = params_with(min_fraction=min_fraction, min_terms=min_terms, concept_fraction=concept_fraction,
                                     relative_cut=relative_cut)
                result = evaluate(lambda project, prompt, _p=params, _c=cached: [
                    s.entry["key"] for s in rank.gated(_c[_prompt_id(dev, project, prompt)], _p)], dev)
                rows.append((result["false"][0] <= allowed, result["recall"], concept_weight,
                             (min_fraction, relative_cut), min_terms, concept_fraction, result))
    return rows


_ID_BY_PROMPT: dict[tuple, str] = {}


def _prompt_id(prompts: list[dict], project: str, prompt: str) -> str:
    if not _ID_BY_PROMPT:
        _ID_BY_PROMPT.update({(p["project"], p["prompt"]): p["id"] for p in prompts})
    return _ID_BY_PROMPT[(project, prompt)]


def _fmt(r: dict[str, object]) -> str:
    false, unrelated = r["false"]  # type: ignore[misc]
    return (f"recall@5 {r['recall']:.2f}  para {r['paraphrase']:.2f}  lex {r['lexical']:.2f}  "
            f"MRR {r['mrr']:.2f}  false {false}/{unrelated}  noise {r['noise']:.2f}")


def prompt_gate() -> type[rank.Params]:
    """The gate the prompt hook applies with the default config.json (memory.surface.prompt_context)."""
    from memory.core import config
    from memory.surface import prompt_context

    return prompt_context.gate_params(config.DEFAULTS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get("RELEVANCE_DATA", str(ROOT / "bench" / "relevance")))
    parser.add_argument("--sweep", action="store_true", help="print the gate trade-off on dev")
    parser.add_argument("--hook", action="store_true", help="also ours through the real prompt hook process")
    args = parser.parse_args(argv)
    projects, prompts = load_data(args.data)
    if not projects or not prompts:
        print(f"no data set in {args.data}", file=sys.stderr)
        return 2
    splits = {name: [p for p in prompts if p.get("split") == name and p["project"] in projects]
              for name in ("dev", "test")}
    pbm, ours = PlainBM25(projects), Ours(projects)
    if args.sweep:
        sweep(ours, splits["dev"])
        return 0
    threshold = best_threshold(pbm, splits["dev"])  # chosen on dev, applied unchanged to test
    systems = [("newest-5", newest(projects)), ("BM25 (no gate)", pbm.system()),
               (f"BM25 gate>={threshold:.2f}", pbm.system(threshold)),
               ("ours (no gate)", ours.system(gate=False)), ("ours", ours.system(prompt_gate()))]
    if args.hook:
        import tempfile

        from memory.search import embed

        systems.append(("ours, real hook", HookSystem(projects, tempfile.mkdtemp(prefix="relevance-hook-"))))
        if embed.find_model_dir() is not None:
            systems.append(("ours+semantic, real hook",
                            HookSystem(projects, tempfile.mkdtemp(prefix="relevance-hook-"), semantic=True)))
    for split, chosen in splits.items():
        kinds = {k: sum(p["kind"] == k for p in chosen) for k in ("paraphrase", "lexical", "unrelated")}
        print(f"{split}: {len(chosen)} prompts {kinds}, {len(projects)} projects, budget {budget(chosen)} false")
        for name, system in systems:
            print(f"  {name:<20} {_fmt(evaluate(system, chosen))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
