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


def test_a_new_entry_is_compared_with_the_live_ones_and_the_most_alike_named():
    live = [build(STAGING, 1), build("the staging cluster is shared with QA; ask in #infra before a load test", 2),
            build("pnpm is the package manager of the frontend; never commit a package-lock.json", 3)]
    again = build(STAGING_AGAIN, 4)
    [(new, old, score)] = similar.resembling([again], live + [again])  # the new one itself is already live
    assert (new["content"], old["content"]) == (STAGING_AGAIN, STAGING) and score >= similar.THRESHOLD
    distinct = build("the staging cluster is shared with QA; book it in #infra before a load test", 5)
    assert [old["content"] for _, old, _ in similar.resembling([distinct], live)] == [live[1]["content"]]
    assert similar.resembling([build("pnpm is the package manager here", 6)], live) == []


def test_a_correction_under_its_own_key_is_not_a_near_copy_of_itself():
    first = build(STAGING, 1)
    again = entry.build(STAGING_AGAIN, "", "orchestrator", ts=2, key_name=first["key"].split("-", 1)[1])
    assert again["key"] == first["key"] and similar.resembling([again], [first]) == []


def test_the_probes_never_leave_out_a_text_that_is_alike():
    """A text alike to another holds at least THRESHOLD of its words, so one of the probes: checked on every
    pair `pairs` finds among reworded variants (words dropped, added, swapped)."""
    import random

    rng = random.Random(3)
    vocabulary = [f"x{i}y" for i in range(60)]  # no word inside another
    texts = []
    for _ in range(300):
        base = rng.sample(vocabulary, rng.randint(similar.MIN_WORDS, 20))
        variant = base[:]
        for _ in range(rng.randint(0, 3)):
            variant[rng.randrange(len(variant))] = rng.choice(vocabulary)
        texts += [" ".join(base), " ".join(variant)]
    alike = 0
    for i in range(0, len(texts), 2):
        a, b = similar.words(texts[i]), similar.words(texts[i + 1])
        if len(a) >= similar.MIN_WORDS and len(a & b) / len(a | b) >= similar.THRESHOLD:
            alike += 1
            assert similar.may_resemble(similar.probes(a), texts[i + 1].upper())
            # chosen by any rarity (the capture counts a word's occurrences in the knowledge), still a probe
            assert similar.may_resemble(similar.probes(a, held_by=lambda w: int(w[1:-1]) % 7), texts[i + 1])
    assert alike > 50  # the check ran on many alike pairs
