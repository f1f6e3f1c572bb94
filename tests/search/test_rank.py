"""memory.search.rank: the order of results, the gate's silence on unrelated text, determinism, explanations."""
from __future__ import annotations

import random

import pytest

from memory.search import corpus, rank
from memory.store import entry

INSIGHTS = [
    ("pnpm install fails on node 18 because the lockfile version is too new; run corepack enable first", "BD-1"),
    ("The pytest tmp_path fixture must be used instead of /tmp so tests can run in parallel with xdist", "BD-2"),
    ("Alembic migrations must be generated with autogenerate after changing models.py", "BD-3"),
    ("The login endpoint returns 401 when the JWT clock skew exceeds 30 seconds", "BD-4"),
    ("useEffect cleanup must cancel the fetch or React warns about state updates on unmounted components", "BD-5"),
    ("Docker builds are slow because the node_modules folder is copied into the build context", "BD-6"),
    ("The Stripe webhook handler must verify the signature with the raw request body", "BD-7"),
    ("Log lines must never contain the session cookie; the logger redacts it in formatters.py", "BD-8"),
]


def kb(insights=INSIGHTS, start=1000):
    return [entry.build(text, bead, "orchestrator", ts=start + i) for i, (text, bead) in enumerate(insights)]


def keys(results):
    return [s.entry["key"] for s in results]


@pytest.mark.parametrize("prompt, wanted", [
    ("pnpm lockfile corepack", 0),
    ("run tests in parallel with pytest-xdist", 1),
    ("alembic autogenerate", 2),
    ("JWT clock skew", 3),
    ("useEffect fetch", 4),
    ("use_effect cleanup", 4),  # another spelling of the identifier
    ("BD-7", 6),  # a bead id
])
def test_the_entry_sharing_the_distinctive_words_ranks_first(prompt, wanted):
    entries = kb()
    assert keys(rank.rank(entries, prompt))[0] == entries[wanted]["key"]


@pytest.mark.parametrize("prompt, wanted", [
    ("why can't the package manager set up the dependencies?", 0),  # no shared word: concepts
    ("the database schema change script", 2),
    ("users get signed out, the auth token looks expired", 3),
])
def test_a_paraphrase_finds_its_entry_through_concepts(prompt, wanted):
    entries = kb()
    assert entries[wanted]["key"] in keys(rank.rank(entries, prompt, limit=3))


@pytest.mark.parametrize("prompt", [
    "write a haiku about autumn leaves",
    "what is the capital of France?",
    "thanks, that's all for today",
    "",
    "   ",
])
def test_the_gate_is_silent_on_unrelated_text(prompt):
    assert rank.relevant(kb(), prompt) == []


def test_the_gate_passes_a_clearly_relevant_entry():
    entries = kb()
    assert keys(rank.relevant(entries, "alembic autogenerate migrations"))[:1] == [entries[2]["key"]]


def test_limit_is_respected_and_scores_descend():
    results = rank.rank(kb(), "the build must run tests and migrations before the login endpoint", limit=3)
    assert len(results) == 3
    assert [s.score for s in results] == sorted((s.score for s in results), reverse=True)


def test_the_order_of_the_entries_does_not_change_the_ranking():
    entries = kb()
    prompt = "node build slow tests parallel"
    expected = [(s.entry["key"], round(s.score, 9)) for s in rank.rank(entries, prompt)]
    for seed in range(5):
        shuffled = entries[:]
        random.Random(seed).shuffle(shuffled)
        assert [(s.entry["key"], round(s.score, 9)) for s in rank.rank(shuffled, prompt)] == expected


def test_ties_go_to_the_newer_entry_then_the_key():
    same = [dict(entry.build(f"flaky retry logic in the queue worker {word}", "BD-1", "orchestrator", ts=ts), key=key)
            for key, ts, word in (("learned-c", 5, "alpha"), ("learned-b", 9, "bravo"), ("learned-a", 9, "delta"))]
    # texts alike but for a word the query lacks (one text under several keys is one entry: memory.store.view)
    results = rank.rank(same, "flaky retry queue worker")
    assert len({round(s.score, 9) for s in results}) == 1
    assert keys(results) == ["learned-a", "learned-b", "learned-c"]  # ts 9 before ts 5; then by key


def test_a_superseded_version_is_never_returned():
    old = entry.build("the cache TTL is 60 seconds for the pricing endpoint", "BD-1", "orchestrator", ts=10)
    new = dict(old, content="the cache TTL is 300 seconds now", ts=20)
    results = rank.rank([old, new], "pricing endpoint cache TTL 60 seconds")
    assert [s.entry["content"] for s in results] == ["the cache TTL is 300 seconds now"]


def test_explain_names_the_matched_words_fields_and_concepts():
    entries = kb()
    top = rank.rank(entries, "alembic migrations in the database")[0]
    assert top.entry["key"] == entries[2]["key"]
    assert "alembic@content+key" in top.why
    assert any(w.startswith("migr") and "content" in w for w in top.why)
    assert "~database" in top.why  # "database" is not in the entry: it came in through the concept


def test_entries_missing_optional_fields_do_not_break_ranking():
    odd = [{"key": "learned-x", "type": "learned", "content": "deploy the worker with helm", "source": "s",
            "tags": None, "ts": "yesterday", "bead": None}]
    assert keys(rank.rank(odd, "helm deploy")) == ["learned-x"]


def test_the_gate_judges_the_best_result_and_then_keeps_its_followers():
    best = rank.Scored({"key": "a"}, 10.0, [], fraction=0.5, matched=2)
    weak = rank.Scored({"key": "b"}, 2.0, [], fraction=0.1, matched=1)
    strict = type("Strict", (rank.Params,), {"min_fraction": 0.3, "min_terms": 1, "follow": 0.5})
    assert rank.gated([best, weak], strict) == [best]  # b is below half the best and fails the gate itself
    assert rank.gated([best, weak], type("Loose", (strict,), {"follow": 0.0})) == [best, weak]
    assert rank.gated([weak, weak], strict) == []  # the best fails: nothing at all


def test_a_large_knowledge_base_skips_words_and_concepts_most_entries_share():
    """Past Params.large entries, a word in a quarter of them (here: in every one) is treated as a stop word,
    so it neither costs the prompt its time nor ranks anything; the distinctive word still decides."""
    entries = [entry.build(f"release step {i} needs care", f"BD-{i}", "orchestrator", ts=i)
               for i in range(rank.Params.large + 10)]
    entries.append(entry.build("release step: the zeppelin hangar must be locked", "BD-Z", "orchestrator", ts=1))
    top = rank.rank(entries, "lock the zeppelin hangar before the release step", limit=3)
    assert [s.entry["bead"] for s in top] == ["BD-Z"]  # the shared words scored nothing anywhere


def test_a_large_knowledge_base_scores_its_rarest_words_within_the_posting_budget():
    """Past Params.large entries a prompt scores at most posting_budget rows, rarest words first: a word
    that would overflow it (here `widget`, in 40 entries) is left out, the rarer ones still decide."""
    small = type("Small", (rank.Params,), {"large": 50, "posting_budget": 30, "common_word_share": 1.0,
                                          "common_concept_share": 1.0})
    entries = [entry.build(f"note {i} about the widget", f"BD-{i}", "orchestrator", ts=i) for i in range(40)]
    entries += [entry.build(f"filler number {i}", f"BD-F{i}", "orchestrator", ts=i) for i in range(40)]
    entries.append(entry.build("the zeppelin hangar door sticks", "BD-Z", "orchestrator", ts=1))
    corpus_ = corpus.from_entries(entries)
    words, _ = rank.planned(corpus_, rank.Query("zeppelin widget"), small)
    assert words == ["zeppelin"]
    assert [s.entry["bead"] for s in rank.rank(entries, "zeppelin widget", 3, small)] == ["BD-Z"]
    everything, _ = rank.planned(corpus_, rank.Query("zeppelin widget"), type("Roomy", (small,), {"large": 100}))
    assert everything == ["zeppelin", "widget"]  # below `large` entries every word counts
    assert len(rank.rank(entries, "zeppelin widget", 50, type("Roomy", (small,), {"large": 100}))) == 41


def test_a_knowledge_base_of_one_entry_can_pass_the_gate():
    """A new user's first insight: with IDF from one entry every word it holds weighed next to nothing, so
    no prompt ever reached it. IDF now counts at least Params.min_idf_entries entries."""
    only = kb(INSIGHTS[:1])
    assert keys(rank.relevant(only, "why does pnpm break on the new laptop")) == [only[0]["key"]]
    assert rank.relevant(only, "add a dark mode toggle to the settings page") == []
    old = type("Old", (rank.Params,), {"min_idf_entries": 1})
    assert rank.relevant(only, "why does pnpm break on the new laptop", params=old) == []


def test_a_long_prompt_is_not_silenced_by_its_extra_words():
    """The gate compares with the best the prompt's strongest words could score: a tail of generic words
    ("then run the tests and open a PR") must not push a real match under it. Real knowledge: the
    relevance set's PostHog entries."""
    from pathlib import Path

    from memory.store import store

    path = Path(__file__).resolve().parents[2] / "bench" / "relevance" / "posthog" / "knowledge.jsonl"
    entries = store.latest(store.read(str(path)).entries)
    prompt = "write the ClickHouse migration to add a column to the sharded events table"
    for tail in ("", ", then run the tests and open a PR"):
        keys = [s.entry["key"] for s in rank.relevant(entries, prompt + tail)]
        assert "learned-use-sharded-true-when-altering-sharded-clickhouse-tables" in keys, tail


def test_one_text_under_two_keys_is_ranked_once_as_the_newest_copy():
    """Session start shows the newest copy (memory.store.view.distinct); the ranked paths show the same one, at
    the best score any copy had, so the prompt hook never gives a session that text again under the other key."""
    older = entry.build("the nightly export job locks the orders table", "", "orchestrator", "warning", ts=100,
                        key_name="nightly-export-orders-lock")  # its key holds the query's words: it scores higher
    newer = entry.build("The nightly export job locks the `orders` table.", "", "orchestrator", "warning", ts=200)
    assert keys(rank.rank([older, newer], "nightly export orders lock")) == [newer["key"]]
