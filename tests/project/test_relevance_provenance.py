"""bench/relevance_provenance.py and its blind set: the set is whole (every touched file labelled once, every
entry in its project), and the recorded provenance brings an entry at the files it is about far more than at
the incidental ones (a file the session only read needs another cue)."""
from __future__ import annotations

import json
import sys

from helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import relevance_provenance  # noqa: E402


def test_the_set_labels_every_file_a_session_touched_once():
    lines = [json.loads(raw) for raw in relevance_provenance.DATA.read_text().splitlines()]
    assert len(lines) == 48 and len({line["id"] for line in lines}) == 48
    for line in lines:
        keys = {json.loads(raw)["key"] for raw in
                (ROOT / "bench" / "relevance" / line["project"] / "knowledge.jsonl").read_text().splitlines()}
        touched = {step["path"] for step in line["session"] if step["tool"] in ("Read", "Edit", "Write")}
        assert line["entry"] in keys, line["id"]
        assert sorted(line["about"] + line["not_about"]) == sorted(touched), line["id"]


def test_a_file_only_read_no_longer_brings_every_entry_recorded_after_it():
    before = relevance_provenance.run(None, "before", False)
    now = relevance_provenance.run(None, "now", False)
    text = relevance_provenance.run(None, "text only", False)
    assert before[0] == before[1] and before[2] == before[3]  # every file brought the entry, labelled or not
    hits, about, alarms, incidental = now
    assert hits >= 0.75 * about and alarms <= 0.35 * incidental  # measured: 76/97 hits, 28/97 alarms
    assert hits > text[0] + 0.4 * about  # the provenance carries most of the hits: the words alone bring 24
