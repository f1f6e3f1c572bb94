"""bench/relevance_recurrence.py: one line of the set through the real capture, session-start and action hooks,
with and without the failure in the learning session's transcript."""
from __future__ import annotations

import sys

from helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "relevance"))

import relevance_recurrence  # noqa: E402

from memory.store import entry  # noqa: E402

VENV = "Open `make shell` first: the interpreter with the project's packages lives in the dev container."
DJANGO = ("Exit code 4\nImportError while loading conftest '{}/conftest.py'.\n"
          "E   ModuleNotFoundError: No module named 'django'")


def test_a_line_with_and_without_the_failure_in_the_learning_session(tmp_path):
    entries = [entry.build(VENV, "BD-1", entry.ORCHESTRATOR, ts=1_600_000_000)] + [
        entry.build(f"Filler insight {i} about the release calendar and who writes the notes.", "BD-2",
                    entry.ORCHESTRATOR, ts=1_700_000_000 + i) for i in range(8)]
    line = {"id": "x-r01", "project": "x", "entry": entries[0]["key"], "kind": "same",
            "origin": {"command": "pytest posthog/api", "error": DJANGO.format("/home/dev/work/posthog")},
            "recurrence": {"command": "pytest ee/billing -k period", "error": DJANGO.format("/srv/ci/ee")},
            "other": {"command": "pytest posthog/api", "error": DJANGO.replace("django", "yaml").format("/srv")}}
    learned = relevance_recurrence.run_line(str(tmp_path), line, entries, "with")
    assert learned["recorded"] and learned["recurrence"] and not learned["other"]
    assert not learned["recurrence_start"]  # dated back: session start's newest are the fillers
    plain = relevance_recurrence.run_line(str(tmp_path), line, entries, "without")
    assert not plain["recorded"] and not plain["recurrence"] and not plain["other"]


def test_an_unrelated_failure_before_the_capture_marks_the_entry_on_its_recurrence(tmp_path):
    """The unrelated condition: the learning session failed on another line's origin; that failure's recurrence
    shows the entry as recorded right after it (what attribution of the last failure does)."""
    entries = [entry.build(VENV, "BD-1", entry.ORCHESTRATOR, ts=1_600_000_000)] + [
        entry.build(f"Filler insight {i} about the release calendar and who writes the notes.", "BD-2",
                    entry.ORCHESTRATOR, ts=1_700_000_000 + i) for i in range(8)]
    line = {"id": "x-r01", "project": "x", "entry": entries[0]["key"], "kind": "same"}
    yaml = DJANGO.replace("django", "yaml")
    partner = {"id": "x-r02", "project": "x", "entry": entries[1]["key"], "kind": "same",
               "origin": {"command": "pytest posthog/api", "error": yaml.format("/home/dev")},
               "recurrence": {"command": "pytest ee/billing", "error": yaml.format("/srv/ci")}}
    got = relevance_recurrence.run_line(str(tmp_path), line, entries, "unrelated", partner)
    assert got["recorded"] and got["shown"] and got["marked"]
    assert relevance_recurrence._partner(line, [line, partner]) is partner
    assert relevance_recurrence._partner(partner, [line, partner]) is line
