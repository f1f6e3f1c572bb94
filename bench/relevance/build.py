#!/usr/bin/env python3
"""Build bench/relevance/<project>/knowledge.jsonl from the hand-curated bench/relevance/source/<project>.jsonl.

    python bench/relevance/build.py          # rewrite every project's knowledge.jsonl
    python bench/relevance/build.py --check  # exit 1 if a written file differs from what would be built

It also (re)assigns the dev/test split of prompts.jsonl (dataset.expected_split: stratified by project and
kind, ordered by a hash of the id), so adding a prompt never needs a hand-picked split, and builds
actions.jsonl from source/actions.jsonl: each event as the hook payload Claude Code sends (PreToolUse for a
file tool, PostToolUseFailure for a failed Bash call) plus its labels and split (build_actions).

Each source line is {"content": ..., "origin": {"repo", "path", "commit"}}: one insight from a public
agent-instruction file, in the engineers' own wording. Everything else is derived here, deterministically,
with the project's own code (memory.store.entry.build: key = make_key slug rule, tags = detect_tags), so the
entries are reproducible and match what a real capture would store:
  ts    spread evenly over ~6 months in source order (the order the files were read), plus a few hours of
        jitter from a hash of the content, so newer-first baselines see a realistic history;
  bead  BD-<n>, a new bead for each source file and every 3 insights within one (a bead's worth of work).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from memory.store import entry  # noqa: E402

sys.path.insert(0, str(HERE))
import dataset  # noqa: E402

# Reserved for an independent evaluation: never a source here.
EXCLUDED_REPOS = frozenset({"getsentry/sentry", "oven-sh/bun", "apache/airflow", "openai/codex"})
PROJECTS = ("posthog", "calcom", "grafana", "uv")
START_TS = 1735689600  # 2025-01-01T00:00:00Z
SPAN_SECONDS = 182 * 86400
JITTER_SECONDS = 3 * 3600
INSIGHTS_PER_BEAD = 3
FIRST_BEAD = {"posthog": 100, "calcom": 300, "grafana": 500, "uv": 700}


def read_source(project: str) -> list:
    """The curated source records of one project, validated."""
    records = []
    for line_no, line in enumerate((HERE / "source" / f"{project}.jsonl").read_text().splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        origin = rec["origin"]
        if origin["repo"].lower() in EXCLUDED_REPOS:
            raise SystemExit(f"{project}:{line_no}: {origin['repo']} is reserved for the independent evaluation")
        if len(origin["commit"]) != 40:
            raise SystemExit(f"{project}:{line_no}: commit must be 40 hex digits")
        records.append(rec)
    return records


def _jitter(content: str) -> int:
    return int(hashlib.sha1(content.encode("utf-8")).hexdigest()[:8], 16) % JITTER_SECONDS


def build_project(project: str) -> list:
    """The knowledge entries of one project, in source order."""
    records = read_source(project)
    entries, seen = [], {}
    bead, in_bead, last_path = FIRST_BEAD[project] - 1, 0, None
    for i, rec in enumerate(records):
        path = rec["origin"]["path"]
        if path != last_path or in_bead == INSIGHTS_PER_BEAD:
            bead, in_bead, last_path = bead + 1, 0, path
        in_bead += 1
        ts = START_TS + i * SPAN_SECONDS // len(records) + _jitter(rec["content"])
        e = entry.build(rec["content"], f"BD-{bead}", entry.ORCHESTRATOR, ts=ts, origin=rec["origin"])
        if e["content"] != rec["content"] or "redacted" in e:
            raise SystemExit(f"{project}: content changed by cleaning (trim or redact it in the source):"
                             f" {rec['content']!r}")
        if e["key"] in seen:
            raise SystemExit(f"{project}: duplicate key {e['key']} (make the first 60 characters differ)")
        seen[e["key"]] = True
        entries.append(e)
    return entries


def _tool_use_id(event_id: str) -> str:
    return "toolu_" + hashlib.sha1(event_id.encode("utf-8")).hexdigest()[:24]


def action_payload(rec: dict) -> dict:
    """The hook payload of one source event: PreToolUse (Read/Edit/Write/MultiEdit, `file_path` made
    absolute under the project's recorded cwd) or PostToolUseFailure (Bash, `error` = "Exit code N" + output,
    as Claude Code 2.1.x sends them; tests/fixtures' recorded payloads have the same fields)."""
    cwd = dataset.payload_cwd(rec["project"])
    session = f"actions-{rec['id']}"
    project_slug = re.sub(r"[^A-Za-z0-9]", "-", cwd)  # how Claude Code names a project's transcript folder
    payload: dict[str, object] = {"session_id": session,
               "transcript_path": f"/home/dev/.claude/projects/{project_slug}/{session}.jsonl",
               "cwd": cwd, "permission_mode": "default"}
    tool_input = dict(rec["tool_input"])
    if rec["kind"] == "file":
        tool_input["file_path"] = f"{cwd}/{tool_input['file_path']}"
        payload.update(hook_event_name="PreToolUse", tool_name=rec["tool_name"], tool_input=tool_input,
                       tool_use_id=_tool_use_id(rec["id"]))
    else:
        payload.update(hook_event_name="PostToolUseFailure", tool_name="Bash", tool_input=tool_input,
                       tool_use_id=_tool_use_id(rec["id"]), error=rec["error"], is_interrupt=False,
                       duration_ms=1000 + int(hashlib.sha1(rec["id"].encode("utf-8")).hexdigest()[:4], 16) % 9000)
    return payload


def build_actions() -> list:
    """actions.jsonl records from source/actions.jsonl: labels, notes and the payload, split assigned."""
    records = []
    for line in (HERE / "source" / "actions.jsonl").read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            out = {k: v for k, v in rec.items() if k not in ("tool_name", "tool_input", "error")}
            out["payload"] = action_payload(rec)
            records.append(out)
    split_of = dataset.expected_action_split(records)
    for rec in records:
        rec["split"] = split_of[rec["id"]]
    return records


def render(entries: list) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify instead of writing")
    args = parser.parse_args(argv)
    stale = 0
    for project in PROJECTS:
        text = render(build_project(project))
        out = HERE / project / "knowledge.jsonl"
        if args.check:
            if not out.exists() or out.read_text() != text:
                print(f"stale: {out.relative_to(ROOT)}")
                stale += 1
            continue
        out.parent.mkdir(exist_ok=True)
        out.write_text(text)
        print(f"{project}: {text.count(chr(10))} entries -> {out.relative_to(ROOT)}")
    text = render(build_actions())
    actions_path = HERE / "actions.jsonl"
    if args.check:
        if not actions_path.exists() or actions_path.read_text() != text:
            print(f"stale: {actions_path.relative_to(ROOT)}")
            stale += 1
    else:
        actions_path.write_text(text)
        print(f"actions: {text.count(chr(10))} events -> {actions_path.relative_to(ROOT)}")
    prompts_path = HERE / "prompts.jsonl"
    if prompts_path.exists():
        prompts = [json.loads(line) for line in prompts_path.read_text().splitlines() if line.strip()]
        split_of = dataset.expected_split(prompts)
        for p in prompts:
            p["split"] = split_of[p["id"]]
        text = render(prompts)
        if args.check:
            if prompts_path.read_text() != text:
                print(f"stale: {prompts_path.relative_to(ROOT)} (splits)")
                stale += 1
        else:
            prompts_path.write_text(text)
            print(f"prompts: {len(prompts)} splits assigned -> {prompts_path.relative_to(ROOT)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
