"""Load the relevance set: knowledge entries per project, the labelled prompts and the labelled action events
(stdlib only, Python >= 3.9).

    from bench.relevance import dataset
    projects, prompts = dataset.load("bench/relevance")
    dev = dataset.split(prompts, "dev")
    events = dataset.load_actions("bench/relevance")      # actions.jsonl: file and error events
    payload = dataset.payload_for(events[0], "/tmp/repo", "session-1")
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

KINDS = ("paraphrase", "lexical", "unrelated")
ACTION_KINDS = ("file", "error")
# Where each project's payloads say the repository is (the recorded fixtures' normalized home, /home/dev/work);
# payload_for moves every event into the real checkout the evaluator made.
REPO_DIRS = {"calcom": "cal.com", "grafana": "grafana", "posthog": "posthog", "uv": "uv"}
PAYLOAD_HOME = "/home/dev/work"
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


def load_actions(root: str | Path = HERE) -> list[dict]:
    """Every labelled action event of actions.jsonl (empty when the file is absent)."""
    path = Path(root) / "actions.jsonl"
    return _read_jsonl(path) if path.exists() else []


ACTION_BATCHES = (1, 2, 3, 4, 5, 6, 7)  # an event without `batch` is of the first batch


def action_stratum(event: dict) -> str:
    """"file" / "error", with "-b<n>" for a later batch (2 and up) and "-negative" for events no entry helps: the strata
    the split balances. A first-batch event keeps the stratum it had before batches existed."""
    batch = "" if event.get("batch", 1) == 1 else f"-b{event['batch']}"
    return event["kind"] + batch + ("" if event.get("relevant") else "-negative")


def expected_action_split(events: list[dict]) -> dict[str, str]:
    """id -> split for action events, the prompts' rule over (project, kind, labelled or negative), each batch
    split on its own: expected_split alternates its rounding over the sorted strata, so a later batch's strata
    among the earlier ones would move earlier events between dev and test (the dev set was tuned on)."""
    out: dict[str, str] = {}
    for batch in sorted({e.get("batch", 1) for e in events}):
        out.update(expected_split([{"id": e["id"], "project": e["project"], "kind": action_stratum(e)}
                                   for e in events if e.get("batch", 1) == batch]))
    return out


def payload_cwd(project: str) -> str:
    return f"{PAYLOAD_HOME}/{REPO_DIRS[project]}"


def payload_for(event: dict, repo: str, session: str | None = None) -> dict:
    """The event's hook payload moved into the checkout at `repo` (every path under the recorded cwd is
    rewritten), with a fresh `session` id when one is given."""
    text = json.dumps(event["payload"]).replace(json.dumps(payload_cwd(event["project"]))[1:-1],
                                                json.dumps(str(repo))[1:-1])
    payload = json.loads(text)
    if session is not None:
        payload["session_id"] = session
    return payload
