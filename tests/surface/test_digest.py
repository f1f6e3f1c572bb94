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


def test_many_pins_leave_room_for_the_bead_the_branch_and_the_newest(repo):
    """A team that pinned 40 long entries over the months: the pins took every entry's room, so the bead in
    progress, the branch's files and the newest were left out without a word (a walkthrough at 1,000 entries:
    45 pins, 21 in full, no other group). Now the pins take at most half, the line of the group says how many
    are in full, and the others keep the first titles of the map."""
    import json

    from conftest import fixture_payload, git, run_hook
    from memory.store import store
    from memory.surface import knowledge_map

    (repo / "src").mkdir()
    (repo / "src" / "refund_policy.py").write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True)
    (d / "welcomed").touch()
    pinned = [entry.build(f"DECISION {i}: the ledger service {i} " + "keeps every refund in cents " * 8, "",
                          "orchestrator", entry_type="decision", ts=1_600_000_000 + i) for i in range(40)]
    filler = [entry.build(f"note {i} about logging level {i} in the worker pool", f"BD-{i}", "orchestrator",
                          ts=1_650_000_000 + i) for i in range(300)]
    store.append(str(d), pinned + filler + [
        entry.build("refund_policy.py rounds half-even, never half-up", "BD-7", "orchestrator", ts=1_700_000_000),
        entry.build("the bead's own rule: refunds wait for the ledger lock", "BD-9", "orchestrator", ts=1_700_000_001)])
    for e in pinned:
        store.append(str(d), [{"key": e["key"], "type": "pin", "ts": 1_700_000_100}])
    git(repo, "checkout", "-q", "-b", "bd-BD-9")
    (repo / "src" / "refund_policy.py").write_text("x = 2\n")
    git(repo, "commit", "-qam", "change")
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= 8800
    assert "For the bead in progress:" in text and "refunds wait for the ledger lock" in text
    assert "About files changed on this branch:" in text and "rounds half-even" in text
    assert "Newest:" in text
    in_full = [e for e in pinned if f"] {e['content'][:60]}" in text]
    assert 0 < len(in_full) < 40 and f"Pinned ({len(in_full)} of 40 in full; .beads/memory/recall.sh --pinned " \
                                      "lists all):" in text
    titled = [e for e in pinned if "  - [DECIDE] " + knowledge_map.title(e["content"], 44)[:40] in text]
    assert len(in_full) + len(titled) == 40  # every other pin keeps a title


@pytest.mark.parametrize("kind", ["bead", "pinned"])
def test_when_every_entry_is_in_a_group_those_it_cannot_show_keep_the_map(repo, kind):
    """120 entries all of the bead in progress (or 80 all pinned): the groups took the whole budget, 58 (52) in
    full, and the rest were gone: no map, no count, and no line saying the pins were cut. Now the map's share
    stands for them, each a title or counted, and a group cut short says so."""
    import json
    import re

    from conftest import fixture_payload, git, run_hook
    from memory.store import store

    d = repo / ".beads" / "memory"
    d.mkdir(parents=True)
    (d / "welcomed").touch()
    n = 120 if kind == "bead" else 80
    notes = [entry.build(f"rule {i} of the ledger: refunds of kind {i} " + "wait for the ledger lock and " * 5,
                         "BD-7", "orchestrator", ts=1_700_000_000 + i) for i in range(n)]
    store.append(str(d), notes)
    if kind == "pinned":
        store.append(str(d), [{"key": e["key"], "type": "pin", "ts": 1_700_000_900} for e in notes])
    else:
        git(repo, "checkout", "-q", "-b", "bd-BD-7")
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    in_full = [e for e in notes if f"] {' '.join(e['content'].split())}" in text]
    titled = [e for e in notes if e not in in_full and f"{e['content'][:24]}" in text]
    counted = sum(int(m) for m in re.findall(r"Not listed: (\d+)", text))
    assert 0 < len(in_full) < n and len(in_full) + len(titled) + counted == n, text[-1500:]
    if kind == "pinned":
        assert f"Pinned ({len(in_full)} of {n} in full; .beads/memory/recall.sh --pinned lists all):" in text
