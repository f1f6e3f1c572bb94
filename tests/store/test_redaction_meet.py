"""Two redactions of one line, made in two clones, as one line with both (memory.store.redaction_meet)."""
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.store.redaction_meet import MARKER, meet, meet_lines


def test_each_side_hides_its_part_and_the_result_hides_both():
    one = f"project codename {MARKER} and the vault phrase orangekettle ninety"
    two = f"project codename bluefalcon and the vault phrase {MARKER} ninety"
    assert meet(one, two) == meet(two, one) == f"project codename {MARKER} and the vault phrase {MARKER} ninety"
    assert meet(one, one) == one


def test_a_part_of_a_word_hides_the_whole_word():
    assert meet(f"key ghp_{MARKER} here", "key ghp_abc123 here") == f"key {MARKER} here"


def test_texts_that_differ_otherwise_are_not_one_line():
    assert meet("deploys need two steps", "deploys need three steps") is None
    assert meet(f"token {MARKER} for staging", "token abc for production") is None


def test_lines_meet_field_by_field_and_derived_fields_are_the_firsts():
    a = {"key": "k", "ts": 1, "content": f"a {MARKER} c", "tags": ["x"], "files": ["src/a.py"]}
    b = {"key": "k", "ts": 1, "content": f"a b {MARKER}", "tags": ["y"], "files": ["src/a.py"]}
    assert meet_lines(a, b, ("tags",)) == dict(a, content=f"a {MARKER}")  # overlapping: one
    assert meet_lines(a, dict(b, ts=2), ("tags",)) is None
    assert meet_lines(a, {k: v for k, v in b.items() if k != "files"}, ("tags",)) is None


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_no_word_either_side_hid_comes_back(seed):
    rng = random.Random(seed)
    words = [f"w{i}x{rng.randrange(10**6)}" for i in range(rng.randint(2, 30))]  # each word once
    text = " ".join(words)

    def redacted():
        start = rng.randrange(len(words))
        end = rng.randint(start + 1, min(len(words), start + 4))
        return " ".join(words[:start] + [MARKER] + words[end:]), set(words[start:end])

    (one, hid_one), (two, hid_two) = redacted(), redacted()
    both = meet(one, two)
    assert both is not None
    assert not any(word in both for word in hid_one | hid_two)
    assert all(word in both for word in set(words) - hid_one - hid_two)  # what neither hid stays
    assert text not in both
