"""Per-session record of what the agent was already given."""
import json
import time

from memory.surface import injected


def test_remember_and_reset(tmp_path):
    d = str(tmp_path)
    assert injected.remember(d, "s1", ["a", "b"]) == []
    assert injected.remember(d, "s1", ["b", "c"]) == ["a", "b"]
    assert injected.given(d, "s1") == {"a", "b", "c"}
    assert injected.given(d, "s2") == set()
    injected.remember(d, "s1", ["z"], reset=True)
    assert injected.given(d, "s1") == {"z"}


def test_a_start_that_answered_is_remembered_until_a_new_context(tmp_path):
    d = str(tmp_path)
    injected.remember(d, "s1", [], reset=True, started=True)  # a block without entries (a Last Session)
    assert injected.start_answered(d, "s1") and injected.given(d, "s1") == set()
    assert injected.claim(d, "s1", ["a"]) == ["a"] and injected.start_answered(d, "s1")  # a prompt's entries
    injected.remember(d, "s1", ["b"])  # resume
    assert injected.start_answered(d, "s1") and not injected.start_answered(d, "s2")
    injected.remember(d, "s1", [], reset=True)  # clear, compact: a start that said nothing
    assert not injected.start_answered(d, "s1")


def test_old_sessions_are_pruned_and_the_count_is_bounded(tmp_path):
    d = str(tmp_path)
    old = {"old": {"ts": time.time() - 2 * injected.KEEP_SECONDS, "keys": ["x"]}}
    old.update({f"s{i}": {"ts": time.time() - i, "keys": ["k"]} for i in range(injected.MAX_SESSIONS + 10)})
    (tmp_path / "injected.json").write_text(json.dumps(old))
    injected.remember(d, "new", ["k"])
    state = json.loads((tmp_path / "injected.json").read_text())
    assert "old" not in state and "new" in state and len(state) == injected.MAX_SESSIONS


def test_corrupt_or_odd_state_is_not_an_error(tmp_path):
    d = str(tmp_path)
    for text in ("{not json", "[1]", '{"s1": {"ts": "x", "keys": "ab"}, "s2": 3}'):
        (tmp_path / "injected.json").write_text(text)
        assert injected.given(d, "s1") == set()
        injected.remember(d, "s1", ["a"])
        assert injected.given(d, "s1") == {"a"}


def test_no_session_no_state(tmp_path):
    assert injected.remember(str(tmp_path), None, ["a"]) == []
    assert not (tmp_path / "injected.json").exists()
