"""Near-identical entries (`recall.sh --similar`): what two teammates recorded twice in other words."""
from memory.search import similar
from memory.store import entry

STAGING = "the staging database is shared with QA; never run destructive migrations against it"
STAGING_AGAIN = "the staging database is shared with QA, so never run destructive migrations against it"


def build(text, ts):
    return entry.build(text, "", "orchestrator", ts=ts)


def test_pairs_of_near_identical_entries_and_nothing_else():
    entries = [build(STAGING, 1), build(STAGING_AGAIN, 2),
               build("uv will also read `constraint-dependencies` from the `pyproject.toml` at the workspace root", 3),
               build("pnpm is the package manager of the frontend; never commit a package-lock.json", 4),
               build("the staging cluster is shared with QA; ask in #infra before a load test", 5)]
    pairs = similar.pairs(entries)
    assert [(a["content"], b["content"]) for a, b, _ in pairs] == [(STAGING_AGAIN, STAGING)]
    assert pairs[0][2] >= similar.THRESHOLD


def test_a_thousand_entries_are_compared_without_every_pair():
    entries = [build(f"rule {i}: the service {i} logs to stream-{i} at level {i % 7}", i) for i in range(1000)]
    assert similar.pairs(entries) == []  # shares only common words and its numbers
