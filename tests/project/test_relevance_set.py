"""bench/relevance: the action set's build and validation, the split, payload relocation, the scale case, and
relevance_view's summary arithmetic."""
from __future__ import annotations

import copy
import sys

import pytest

from helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "relevance"))

import dataset  # noqa: E402
import relevance_view  # noqa: E402
import scale  # noqa: E402
import validate  # noqa: E402


def test_the_committed_set_validates() -> None:
    projects, _ = dataset.load()
    events = dataset.load_actions()
    assert validate.check_actions(projects, events) == []
    strata = {(e["kind"], bool(e["relevant"])) for e in events}
    assert strata == {("file", True), ("file", False), ("error", True), ("error", False)}


def test_broken_events_are_reported() -> None:
    projects, _ = dataset.load()
    events = dataset.load_actions()
    negative = next(e for e in events if e["kind"] == "file" and not e["relevant"])
    error = next(e for e in events if e["kind"] == "error" and e["relevant"])
    broken = copy.deepcopy(events)
    for e in broken:
        if e["id"] == negative["id"]:
            e.pop("closest")
            e["payload"]["tool_input"]["file_path"] = "relative/path.py"
        if e["id"] == error["id"]:
            e["payload"]["error"] = "it failed"
            e["relevant"] = ["learned-no-such-entry"]
    problems = "\n".join(validate.check_actions(projects, broken))
    assert f"{negative['id']}: a negative needs `closest`" in problems
    assert f"{negative['id']}: file_path relative/path.py is not absolute" in problems
    assert f"{error['id']}: wants a command and an error starting with 'Exit code N'" in problems
    assert f"{error['id']}: unknown key learned-no-such-entry" in problems
    assert "actions.jsonl differs from build.py output" in problems


def test_the_split_is_balanced_within_each_stratum() -> None:
    events = dataset.load_actions()
    split_of = dataset.expected_action_split(events)
    for project in dataset.REPO_DIRS:
        for stratum in ("file", "file-negative", "error", "error-negative", "error-b2", "error-b2-negative", "error-b3",
                        "error-b3-negative", "error-b4", "error-b4-negative", "error-b5", "error-b5-negative",
                        "error-b6", "error-b6-negative", "file-b7", "file-b7-negative"):
            ids = [e["id"] for e in events if e["project"] == project and dataset.action_stratum(e) == stratum]
            dev = sum(split_of[i] == "dev" for i in ids)
            assert ids and abs(dev - (len(ids) - dev)) <= 1, (project, stratum)


def test_a_later_batch_does_not_move_the_first_batch_between_splits() -> None:
    events = dataset.load_actions()
    first = [e for e in events if "batch" not in e]
    assert len(first) < len(events)  # the committed set has a second batch
    alone = dataset.expected_action_split(first)
    together = dataset.expected_action_split(events)
    assert {i: together[i] for i in alone} == alone
    # a batch with one new stratum per project (labelled only) would shift the alternating rounding of the first
    # batch's odd strata if all strata were split as one sequence; split per batch, nothing moves
    labelled_only = first + [e for e in events if e.get("batch") == 2 and e["relevant"]]
    assert {i: dataset.expected_action_split(labelled_only)[i] for i in alone} == alone
    mixed = dataset.expected_split([{"id": e["id"], "project": e["project"], "kind": dataset.action_stratum(e)}
                                    for e in labelled_only])
    assert any(mixed[i] != alone[i] for i in alone)


@pytest.mark.parametrize("batch", [3, 4, 5, 6, 7])
def test_a_later_batch_does_not_move_earlier_batches_between_splits(batch: int) -> None:
    events = dataset.load_actions()
    earlier = [e for e in events if e.get("batch", 1) < batch]
    assert any(e.get("batch") == batch for e in events)  # the committed set has this batch
    before = dataset.expected_action_split(earlier)
    after = dataset.expected_action_split([e for e in events if e.get("batch", 1) <= batch])
    assert {i: after[i] for i in before} == before
    alone = dataset.expected_action_split([e for e in events if e.get("batch") == batch])
    assert {i: after[i] for i in alone} == alone  # the batch is split on its own, too


def test_a_batch_is_checked() -> None:
    projects, _ = dataset.load()
    events = dataset.load_actions()
    broken = copy.deepcopy(events)
    first, second = next(e for e in broken if "batch" not in e), next(e for e in broken if "batch" in e)
    first["batch"], second["batch"] = 1, 8
    problems = "\n".join(validate.check_actions(projects, broken))
    assert f"{first['id']}: batch 1: leave it out" in problems
    assert f"{second['id']}: batch 8: leave it out" in problems
    later = [e["id"] for e in events if e.get("batch") in (2, 3, 4, 5, 6, 7) and e["id"] != second["id"]]
    assert later and not any(f"{i}: batch" in problems for i in later)
    assert dataset.action_stratum(next(e for e in events if "batch" not in e and e["kind"] == "error")) in (
        "error", "error-negative")


def test_payload_for_moves_the_event_into_the_checkout() -> None:
    event = next(e for e in dataset.load_actions() if e["kind"] == "file" and e["project"] == "calcom")
    payload = dataset.payload_for(event, "/tmp/checkout", "s-1")
    relative = event["seen"]["path"]
    assert payload["cwd"] == "/tmp/checkout" and payload["session_id"] == "s-1"
    assert payload["tool_input"]["file_path"] == f"/tmp/checkout/{relative}"
    assert event["payload"]["tool_input"]["file_path"] == f"/home/dev/work/cal.com/{relative}"  # not mutated


def test_the_scale_case_keeps_the_project_and_reaches_each_size() -> None:
    projects, _ = dataset.load()
    own = {e["key"] for e in projects[scale.PROJECT]}
    for size in scale.SIZES:
        entries = scale.padded(size)
        keys = [e["key"] for e in entries]
        assert len(entries) == size and len(set(keys)) == size and own <= set(keys)
        assert [e["ts"] for e in entries] == sorted(e["ts"] for e in entries)


def test_summarize_averages_over_the_right_prompts() -> None:
    records = [
        {"kind": "lexical", "project": "uv", "ss_chars": 900, "p_chars": 300, "answered": True,
         "visible": 1.0, "full": 0.5, "full_any": 1.0, "unlabelled": 2},
        {"kind": "paraphrase", "project": "uv", "ss_chars": 900, "p_chars": 0, "answered": False,
         "visible": 0.0, "full": 0.0, "full_any": 0.0, "unlabelled": 0},
        {"kind": "unrelated", "project": "uv", "ss_chars": 900, "p_chars": 120, "answered": True},
        {"kind": "unrelated", "project": "uv", "ss_chars": 900, "p_chars": 0, "answered": False},
    ]
    s = relevance_view.summarize(records)
    assert (s["visible"], s["paraphrase"], s["lexical"]) == (0.5, 0.0, 1.0)
    assert (s["full"], s["full_any"], s["unlabelled"]) == (0.25, 0.5, 1.0)
    assert (s["ss_chars"], s["p_chars"], s["unrelated"]) == (900, 105, (1, 2))
