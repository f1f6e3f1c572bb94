#!/usr/bin/env python3
"""Action-time relevance through the real hook: does touching a file or hitting an error bring the entry?

    python bench/relevance_actions.py                    # dev and test, hooks/action_context.py
    python bench/relevance_actions.py --split dev
    python bench/relevance_actions.py --scale 1000       # also uv's events against its knowledge padded to 1,000
    python bench/relevance_actions.py --hook path/to/hook.py --data path/to/set   # another hook or data set
    python bench/relevance_actions.py --split test --batch 2                 # only the second batch's events
    python bench/relevance_actions.py --split dev --set action_error_min_fraction=0.4   # try another bar

The events are bench/relevance/actions.jsonl: Claude Code's PreToolUse payloads for Read/Edit/Write/MultiEdit
("file") and PostToolUseFailure payloads of failed Bash calls ("error"), each labelled with the entries an
agent doing that needs, or none (a negative). Per event, a fresh session in a git repo holding the project's
knowledge (bench/hook_session.py): the real hooks/session_start.py, then the action hook with the event's
payload moved into that repo, each as its own process.
- hit: the event got a labelled entry: its first 40 characters stand in what the action hook injected, or
  session start had already given it in full (the hooks give an entry once per session);
  reported as events with a hit n/N, and as recall (share of the event's labelled entries, averaged);
- with map: the same, also counting a labelled entry whose title (first 40 characters) session start's map
  shows: the issue's definition of "visible" read literally. Printed beside the hit, never instead of it: at
  70-130 entries the map titles every entry, so this counts what session start shows, not what the action did;
- chars: what the action hook injected per event; unlabelled: entries it injected in full that the event is
  not labelled with;
- negatives: negative events for which the action hook injected anything, n/N.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "relevance"))
sys.path.append(str(HERE.parent))  # memory.core.config: the names and types --set accepts

import dataset  # noqa: E402
import hook_session as hs  # noqa: E402

TARGET_VISIBLE = 0.6  # per kind: share of labelled events that get a labelled entry
TARGET_NEGATIVE = 3 / 20  # at most this share of negative events may inject anything


def parse_setting(text: str) -> tuple[str, object]:
    """`NAME=VALUE` of `--set` as a config.json item: VALUE read as JSON, of the type of NAME's default."""
    from memory.core import config

    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or name not in config.DEFAULTS:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE, NAME one of memory/core/config.py DEFAULTS")
    default = config.DEFAULTS[name]
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    if type(default) is float and type(value) is int:
        value = float(value)
    if type(value) is not type(default):  # config.load would silently keep the default
        raise argparse.ArgumentTypeError(f"{text!r}: {name} takes a {type(default).__name__}")
    return name, value


def measure(event: dict, repo: str, entries: list[dict], hook: Path) -> dict[str, object]:
    """One event in a fresh session: session start, then the action hook with the event's payload."""
    session = f"action-{event['id']}"
    start = hs.run_hook(hs.SESSION_START, hs.session_start_payload(repo, session), repo)
    text = hs.run_hook(hook, dataset.payload_for(event, repo, session), repo)
    record: dict[str, object] = {"kind": event["kind"], "project": event["project"], "chars": len(text),
                                 "injected": bool(text), "negative": not event.get("relevant")}
    if event.get("relevant"):
        by_key = {e["key"]: e for e in entries}
        wanted = [by_key[k] for k in event["relevant"]]
        got = [hs.visible(e, text) or hs.in_full(e, start) for e in wanted]
        mapped = any(got) or any(hs.visible(e, start) for e in wanted)
        record.update(recall=sum(got) / len(got), hit=any(got), mapped=mapped,
                      unlabelled=sum(1 for e in entries if e["key"] not in event["relevant"] and hs.in_full(e, text)))
    return record


def summarize(records: list[dict], kind: str) -> dict[str, object]:
    """The figures of one kind ("file" or "error") over measured events."""
    labelled = [r for r in records if r["kind"] == kind and not r["negative"]]
    negative = [r for r in records if r["kind"] == kind and r["negative"]]
    return {"hits": (sum(1 for r in labelled if r["hit"]), len(labelled)),
            "mapped": sum(1 for r in labelled if r["mapped"]),
            "recall": hs.mean([float(r["recall"]) for r in labelled]),
            "chars": hs.mean([float(r["chars"]) for r in labelled + negative]),
            "unlabelled": hs.mean([float(r["unlabelled"]) for r in labelled]),
            "negatives": (sum(1 for r in negative if r["injected"]), len(negative))}


def fmt(s: dict) -> str:
    hits, labelled = s["hits"]
    bad, negatives = s["negatives"]
    share = hits / labelled if labelled else float("nan")
    bad_share = bad / negatives if negatives else 0.0
    return (f"visible {hits}/{labelled} = {share:.2f} [{'ok' if share >= TARGET_VISIBLE else 'below'} >= "
            f"{TARGET_VISIBLE}]  with map {s['mapped']}/{labelled}  recall {s['recall']:.2f}  "
            f"{s['chars']:.0f} chars/event  "
            f"unlabelled {s['unlabelled']:.2f}/event  negatives injecting {bad}/{negatives} "
            f"[{'ok' if bad_share <= TARGET_NEGATIVE + 1e-9 else 'over'} <= 3/20]")


def report(records: list[dict], label: str) -> None:
    for kind in dataset.ACTION_KINDS:
        if not any(r["kind"] == kind for r in records):
            continue  # a batch of error events only
        print(f"  {label:<8} {kind:<5} {fmt(summarize(records, kind))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hook", default=str(hs.ACTION_CONTEXT), help="the action hook file to run")
    parser.add_argument("--data", default=str(HERE / "relevance"), help="folder with actions.jsonl and knowledge")
    parser.add_argument("--split", choices=dataset.SPLITS, action="append", help="default: dev and test")
    parser.add_argument("--batch", type=int, choices=dataset.ACTION_BATCHES,
                        help="only the events of this batch (default: all)")
    parser.add_argument("--by-project", action="store_true", help="a line per project too")
    parser.add_argument("--scale", type=int, default=0, help="also uv's events against its knowledge padded to N")
    parser.add_argument("--set", type=parse_setting, action="append", default=[], metavar="NAME=VALUE",
                        help="a setting written to each session repo's .beads/memory/config.json (repeatable)")
    args = parser.parse_args(argv)
    hook = Path(args.hook)
    if not hook.is_file():
        print(f"skipped: {hook} does not exist yet (the action hook of issue #20 item 3 is not on this branch); "
              "nothing to evaluate. `--hook PATH` runs another hook file.")
        return 0
    projects, _ = dataset.load(args.data)
    events = dataset.load_actions(args.data)
    if not events:
        print(f"no actions.jsonl in {args.data}", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="relevance-actions-")
    settings = dict(args.set) or None
    repos = {name: hs.make_repo(workdir, name, entries, settings) for name, entries in projects.items()}
    if settings:
        print(f"settings (.beads/memory/config.json): {json.dumps(settings, sort_keys=True)}")
    print(f"targets: a labelled entry visible for >= {TARGET_VISIBLE} of file and of error events; "
          "<= 3/20 negative events inject anything")
    for split in args.split or list(dataset.SPLITS):
        chosen = [e for e in events if e["split"] == split and e["project"] in projects
                  and (args.batch is None or e.get("batch", 1) == args.batch)]
        print(f"{split}: {len(chosen)} events, a fresh session each, {hook.name}")
        records = [measure(e, repos[e["project"]], projects[e["project"]], hook) for e in chosen]
        if args.by_project:
            for name in projects:
                report([r for r in records if r["project"] == name], name)
        report(records, "all")
        if args.scale:
            import scale

            padded = scale.padded(args.scale)
            big = hs.make_repo(workdir, f"{scale.PROJECT}-{args.scale}", padded, settings)
            mine = [measure(e, big, padded, hook) for e in chosen if e["project"] == scale.PROJECT]
            report(mine, f"{scale.PROJECT}@{args.scale}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
