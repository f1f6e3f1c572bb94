"""Choosing and fitting the session-start digest."""
import pytest

from memory.core import focus
from memory.store import entry
from memory.surface import digest


@pytest.mark.parametrize("branch, cwd, expected", [
    ("bd-BD-12", "/r", {"bd-bd-12", "bd-12"}),
    ("bd-a3f8", "/r", {"bd-a3f8", "a3f8"}),
    ("main", "/r/.worktrees/bd-7/src", {"bd-7", "7"}),
    ("feature/bd-9", "/r", set()),
    (None, "/r", set()),
    ("bd-", "/r", set()),
])
def test_bead_candidates(branch, cwd, expected):
    assert focus.bead_candidates(branch, cwd) == expected


def test_names_a_file_by_path_or_distinctive_name():
    e = {"content": "refund_policy.py rounds half-even; see docs/billing.md"}
    assert focus.names_a_file(e, ["src/refund_policy.py"])
    assert focus.names_a_file(e, ["docs/billing.md"])
    assert not focus.names_a_file(e, ["src/a.py"])  # too short a name to count
    assert not focus.names_a_file({"content": "make builds it"}, ["Makefile"])


def _entries(n, **kw):
    return [entry.build(f"entry {i} " + "x" * 400, f"BD-{i}", "orchestrator", ts=i, **kw) for i in range(n)]


def test_each_entry_once_in_its_first_group():
    latest = list(reversed(_entries(10)))
    groups = digest.choose(latest, {"bd-9"}, [], [latest[0]["key"]], newest=3)
    keys = [e["key"] for g in groups for e in g.entries]
    assert len(keys) == len(set(keys)) == 4  # BD-9 is the newest and was given before: shown once, as the bead's
    assert [g.label for g in groups] == ["For the bead in progress", "Newest"]


def test_budget_cuts_long_entries_then_drops_lowest_priority():
    latest = list(reversed(_entries(30)))
    groups = digest.choose(latest, {"bd-29", "bd-28"}, [], [], newest=20)
    text = digest.render_digest(latest, groups, [], budget=1500, entry_chars=300)
    assert len(text) <= 1500 and "entry 29" in text and "entry 28" in text
    assert groups[-1].label == "Newest" and len(groups[-1].entries) < 20


def test_empty_knowledge_renders_nothing():
    assert digest.render_digest([], [], ["a note"], 8000, 300) == ""
