#!/usr/bin/env python3
"""Provenance `files`: of the files a session touched before it recorded an insight, which does the insight come
back at? On a blind labelled set (bench/relevance/source/PROVENANCE.md).

    python bench/relevance_provenance.py              # both batches (batch 2 was held out)
    python bench/relevance_provenance.py --verbose    # and each miss and false alarm

Per line: the session's tool calls become a Claude Code transcript (Read/Edit/Write with the path in a project
root, Bash with its command); the capture's own reader (memory.capture.provenance.session_provenance) records
`files` and `edited` on the entry, as a capture at the end of that session would; the project's knowledge with
that entry is mapped (memory.search.path_cues) and each labelled file is looked up as action time looks a file
up (memory.search.action_paths.about, at config.json's action_file_min_score). A file labelled `about` that
brings the entry is a hit; one labelled `not_about` that brings it is a false alarm. "before" counts every file
the session touched as if it had changed it (the rule until this set: a file read once was enough); "text only"
records no provenance (what the entry's words alone bring).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from memory.capture import provenance  # noqa: E402
from memory.core import config  # noqa: E402
from memory.search import action_paths, path_cues  # noqa: E402
from memory.store import view  # noqa: E402

DATA = HERE / "relevance" / "source" / "provenance.jsonl"
ROOT = "/home/dev/work/project"  # where the sessions ran
TOOLS = {"Read": "file_path", "Edit": "file_path", "Write": "file_path"}


def transcript(session: list[dict], folder: Path) -> str:
    """The session as a Claude Code transcript: one tool call per assistant line, each answered."""
    lines = []
    for n, step in enumerate(session):
        name = step["tool"]
        args = {TOOLS[name]: f"{ROOT}/{step['path']}"} if name in TOOLS else {"command": step["command"]}
        if name == "Edit":
            args.update(old_string="a", new_string="b")
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}", "name": name, "input": args}]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}]}})
    path = folder / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return str(path)


def run(batch: int | None, rule: str, verbose: bool) -> tuple[int, int, int, int]:
    """(hits, labelled about, false alarms, labelled not_about) under `rule`: "now", "before" or "text only"."""
    bar = float(config.DEFAULTS["action_file_min_score"])
    knowledge = {}
    hits = about = alarms = incidental = 0
    with tempfile.TemporaryDirectory() as tmp:
        for raw in DATA.read_text().splitlines():
            line = json.loads(raw)
            if batch is not None and line["batch"] != batch:
                continue
            project = line["project"]
            if project not in knowledge:
                path = HERE / "relevance" / project / "knowledge.jsonl"
                knowledge[project] = [json.loads(x) for x in path.read_text().splitlines()]
            found = provenance.session_provenance(transcript(line["session"], Path(tmp)), ROOT)
            recorded = {"files": found["files"], "edited": found["edited"]}
            if rule == "before":
                recorded["edited"] = found["files"]
            elif rule == "text only":
                recorded = {}
            entries = [dict(e, **{k: v for k, v in recorded.items() if v}) if e["key"] == line["entry"] else e
                       for e in knowledge[project]]
            cues = path_cues.build(view.latest(entries))
            for rel in line["about"] + line["not_about"]:
                hit = any(key == line["entry"] for _, key, _, _, _ in action_paths.about(cues, rel.lower(), bar))
                if rel in line["about"]:
                    about, hits = about + 1, hits + hit
                else:
                    incidental, alarms = incidental + 1, alarms + hit
                if verbose and hit != (rel in line["about"]):
                    print(f"  {rule:9s} {line['id']:14s} {'miss ' if not hit else 'alarm'} {rel}")
    return hits, about, alarms, incidental


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    print("provenance files, labelled blind (bench/relevance/source/PROVENANCE.md); a hit: a file labelled about "
          "brings the entry; an alarm: a file labelled not_about does")
    for batch in (1, 2):
        for rule in ("text only", "before", "now"):
            hits, about, alarms, incidental = run(batch, rule, args.verbose)
            print(f"  batch {batch}{' (held out)' if batch == 2 else ''}  {rule:9s}  hits {hits}/{about} "
                  f"({hits / max(1, about):.2f})  alarms {alarms}/{incidental} ({alarms / max(1, incidental):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
