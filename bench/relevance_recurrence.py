#!/usr/bin/env python3
"""Failures seen before, through the real hooks: does an entry captured right after a failure come back when
that failure recurs, and stay away from other failures?

    python bench/relevance_recurrence.py               # bench/relevance/source/recurrences.jsonl
    python bench/relevance_recurrence.py --verbose     # and each line's outcome
    python bench/relevance_recurrence.py --batch 2     # only the second batch

Each line of the set (bench/relevance/source/RECURRENCES.md) names an entry of a dev project, the failure an
earlier session hit before it learned that entry (`origin`), the same failure weeks later (`recurrence`: the
same message in another run, kind "same", or the same cause with other names, kind "variant") and another
failure of the same tool the entry does not help with (`other`). Per line, in a git repo holding the
project's knowledge without that entry:
1. the learning session: a Claude Code transcript in which a Bash call failed with `origin`, then the real
   hooks/capture_reply.py on the Stop event whose final message says `LEARNED: <the entry>` (so the capture
   records its provenance from the transcript, as in a real session);
2. a fresh session (hooks/session_start.py) that hits `recurrence` (hooks/action_context.py,
   PostToolUseFailure): a hit when the entry's first 40 characters stand in what it injected;
3. a fresh session that hits `other`: a false alarm when the entry stands in what the action hook injected.
A short entry stands whole in session start's map, which counts as given in full (as in
bench/relevance_actions.py); how often is printed as "whole at start".
The same is run with a learning session whose transcript holds no failure ("without"): what the ranking of the
error's words alone brings; and with one whose failure is another line's `origin` of the same project, right before
the capture ("unrelated": the insight is not about it): then the other line's `recurrence` brings the entry back
marked "recorded right after this same error" (memory.search.recurrence.MARK) only by a wrong attribution.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "relevance"))
sys.path.append(str(HERE.parent))  # memory.store: the knowledge as the hooks read it (file and inbox)

import dataset  # noqa: E402
import hook_session as hs  # noqa: E402

from memory.search import recurrence  # noqa: E402

DATA = HERE / "relevance" / "source" / "recurrences.jsonl"
CAPTURE_REPLY = hs.HOOKS / "capture_reply.py"


def _write_transcript(path: Path, prompt: str, failure: dict | None, final: str) -> None:
    """A Claude Code transcript: the prompt, a failed Bash call when `failure` is given, the final message."""
    records: list[dict] = [{"type": "user", "message": {"role": "user", "content": prompt}}]
    if failure is not None:
        records.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_origin", "name": "Bash", "input": {"command": failure["command"]}}]}})
        records.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_origin", "content": failure["error"], "is_error": True}]}})
    records.append({"type": "assistant", "message": {"role": "assistant",
                                                     "content": [{"type": "text", "text": final}]}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _failure_payload(repo: str, session: str, failure: dict) -> dict:
    return {"session_id": session, "transcript_path": str(Path(repo) / ".t" / f"{session}.jsonl"), "cwd": repo,
            "permission_mode": "default", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
            "tool_input": {"command": failure["command"]}, "tool_use_id": f"toolu_{session}",
            "error": failure["error"], "is_interrupt": False}


def _age(memory_dir: str, content: str, ts: int) -> dict | None:
    """Weeks later: the captured entry dated back to `ts` (the rule's own date among the project's entries), so
    that session start's newest entries are others, as they would be; the entry as stored, or None."""
    from memory.store import store

    entries = store.load(memory_dir).entries
    captured = next((e for e in reversed(entries) if str(e.get("content", "")).startswith(content[:40])), None)
    if captured is not None:
        captured["ts"] = ts
    ordered = sorted(entries, key=lambda e: e.get("ts", 0))
    (Path(memory_dir) / "knowledge.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in ordered), encoding="utf-8")
    shutil.rmtree(Path(memory_dir) / "inbox", ignore_errors=True)  # merged into the file above
    return captured


def run_line(workdir: str, line: dict, entries: list[dict], condition: str, partner: dict | None = None) -> dict:
    """One line of the set in one condition (without / with / unrelated: `partner`'s origin before the capture):
    {"recorded", "recurrence", "other", …: bool}."""
    target = next(e for e in entries if e["key"] == line["entry"])
    name = f"{line['id']}-{condition}"
    repo = hs.make_repo(workdir, name, [e for e in entries if e["key"] != line["entry"]])
    learn = Path(repo) / ".t" / "learn.jsonl"
    content = " ".join(str(target["content"]).split())
    failure = line["origin"] if condition == "with" else partner["origin"] if condition == "unrelated" and partner \
        else None
    _write_transcript(learn, "Fix the failing command.", failure, f"Fixed it.\nLEARNED: {content}")
    hs.run_hook(CAPTURE_REPLY, {"session_id": "learn", "transcript_path": str(learn), "cwd": repo,
                                "hook_event_name": "Stop", "stop_hook_active": False,
                                "last_assistant_message": f"Fixed it.\nLEARNED: {content}"}, repo)
    captured = _age(str(Path(repo) / ".beads" / "memory"), content, int(target.get("ts", 0)))
    out = {"recorded": bool(captured and captured.get("errors"))}
    if condition == "unrelated" and partner is not None:
        session = f"partner-{name}"
        hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, session), repo)
        text = hs.run_hook(hs.ACTION_CONTEXT, _failure_payload(repo, session, partner["recurrence"]), repo)
        head = hs.flat(target["content"])[:hs.VISIBLE_CHARS].rstrip()
        out["marked"] = hs.flat(recurrence.MARK + head) in hs.flat(text)
        out["shown"] = hs.visible(target, text)
        return out
    for part in ("recurrence", "other"):
        session = f"{part}-{name}"
        start = hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, session), repo)
        text = hs.run_hook(hs.ACTION_CONTEXT, _failure_payload(repo, session, line[part]), repo)
        # the recurrence's hit counts what session start gave in full too (the hook gives an entry once per
        # session); the other failure's false alarm only what the action hook said
        out[part] = hs.visible(target, text) or (part == "recurrence" and hs.in_full(target, start))
        out[f"{part}_any"] = bool(text)
        out[f"{part}_start"] = hs.in_full(target, start)
    return out


def _partner(line: dict, lines: list[dict]) -> dict:
    """The next line of the same project and batch (the first after the last): its failure is unrelated to `line`'s
    entry."""
    same = [x for x in lines if x["project"] == line["project"] and x.get("batch", 1) == line.get("batch", 1)]
    return same[(same.index(line) + 1) % len(same)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--batch", type=int, help="only the lines of this batch (the first has no `batch`)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--unrelated", action="store_true", help="also the unrelated-failure condition")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.exists():
        print(f"skipped: {path} does not exist yet")
        return 0
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    lines = [x for x in lines if args.batch is None or x.get("batch", 1) == args.batch]
    projects, _ = dataset.load(HERE / "relevance")
    results: dict[str, dict[str, list[dict]]] = {}
    conditions = ("without", "with") + (("unrelated",) if args.unrelated else ())
    with tempfile.TemporaryDirectory() as workdir:
        for line in lines:
            for condition in conditions:
                got = run_line(workdir, line, projects[line["project"]], condition, _partner(line, lines))
                results.setdefault(condition, {}).setdefault(line["kind"], []).append(got)
                if args.verbose:
                    shown = (f"partner recurrence shows it={got['shown']!s:<5} marked={got['marked']}"
                             if condition == "unrelated" else
                             f"recurrence={got['recurrence']!s:<5} other={got['other']!s:<5} "
                             f"whole at start={got['recurrence_start']}")
                    print(f"{line['id']:<12} {line['kind']:<8} {condition:<9} recorded={got['recorded']!s:<5} {shown}",
                          file=sys.stderr)
    print(f"{len(lines)} lines, {path}")
    for condition in ("without", "with"):
        for kind in sorted(results[condition]):
            rows = results[condition][kind]
            hits = sum(r["recurrence"] for r in rows)
            alarms = sum(r["other"] for r in rows)
            anything = sum(r["other_any"] for r in rows)
            recorded = sum(r["recorded"] for r in rows)
            whole = sum(r["recurrence_start"] for r in rows)
            print(f"  {condition:<8} {kind:<8} recurrence hit {hits}/{len(rows)} = {hits / len(rows):.2f} "
                  f"(whole at start {whole})   other: entry shown {alarms}/{len(rows)}, anything shown "
                  f"{anything}/{len(rows)}   errors recorded {recorded}/{len(rows)}")
    rows = [r for kind in results.get("unrelated", {}).values() for r in kind]
    if rows:
        print(f"  unrelated failure before the capture: errors recorded {sum(r['recorded'] for r in rows)}/{len(rows)}"
              f", its recurrence shows the entry {sum(r['shown'] for r in rows)}/{len(rows)}, marked as after this "
              f"same error {sum(r['marked'] for r in rows)}/{len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
