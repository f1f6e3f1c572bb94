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


def test_a_fork_takes_over_its_parents_set(tmp_path):
    d = str(tmp_path)
    injected.remember(d, "parent", ["a", "b"], reset=True, started=True)
    injected.claim(d, "fork", ["c"])  # a hook of the fork that came first
    assert injected.inherit(d, "fork", "parent") is True
    assert injected.given(d, "fork") == {"a", "b", "c"} and injected.start_answered(d, "fork")
    assert injected.claim(d, "fork", ["a", "d"]) == ["d"]  # the parent's entries are not given again
    assert injected.given(d, "parent") == {"a", "b"}  # the parent's own set is left as it was


def test_a_parent_whose_start_said_nothing_passes_on_its_keys_only(tmp_path):
    d = str(tmp_path)
    injected.remember(d, "parent", [], reset=True)
    injected.claim(d, "parent", ["a"])  # a prompt's entry
    assert injected.inherit(d, "fork", "parent") is False
    assert injected.given(d, "fork") == {"a"} and not injected.start_answered(d, "fork")


def test_an_unknown_parent_leaves_the_fork_as_it_was(tmp_path):
    d = str(tmp_path)
    injected.remember(d, "other", ["x"])
    before = (tmp_path / "injected.json").read_text()
    for parent in ("unknown", None, "fork"):
        assert injected.inherit(d, "fork", parent) is None
    assert injected.inherit(d, None, "other") is None
    assert (tmp_path / "injected.json").read_text() == before
    assert injected.inherit(str(tmp_path / "none"), "fork", "other") is None
    assert not (tmp_path / "none").exists()  # nothing to take over: nothing written
    (tmp_path / "injected.json").write_text('{"parent": [1], "fork": 3}')
    assert injected.inherit(d, "fork", "parent") is None


def test_inheriting_while_the_lock_is_held_fails_open(tmp_path, monkeypatch):
    from helpers import held_lock
    from memory.core import layout, state

    d = str(tmp_path)
    injected.remember(d, "parent", ["a"], started=True)
    monkeypatch.setattr(state, "LOCK_TIMEOUT", 0.2)
    with held_lock(tmp_path / layout.STATE_LOCK):
        assert injected.inherit(d, "fork", "parent") is None
    assert injected.given(d, "fork") == set()


def test_forks_and_their_parent_at_once_lose_no_update(tmp_path):
    """Eight forks inherit while the parent and each fork claim entries, all in real processes at once: every
    fork ends with the parent's first set plus its own claim, the parent with all of its claims."""
    from helpers import forked_processes

    d = str(tmp_path)
    injected.remember(d, "parent", ["p0"], reset=True, started=True)
    code = ("import sys\nfrom memory.surface import injected\n"
            "d, who, n = sys.argv[1], sys.argv[2], sys.argv[3]\n"
            "if who == 'parent':\n    assert injected.claim(d, 'parent', ['p' + n]) == ['p' + n]\n"
            "else:\n    assert injected.claim(d, who, ['own-' + who]) == ['own-' + who]\n"
            "    assert injected.inherit(d, who, 'parent') is True\n")
    argvs = [[d, f"fork{i}", str(i)] for i in range(8)] + [[d, "parent", str(i)] for i in range(1, 9)]
    assert forked_processes(code, argvs, preload="from memory.surface import injected") == [0] * 16
    assert injected.given(d, "parent") == {f"p{i}" for i in range(9)}
    for i in range(8):
        keys = injected.given(d, f"fork{i}")
        assert {"p0", f"own-fork{i}"} <= keys <= {f"p{j}" for j in range(9)} | {f"own-fork{i}"}
        assert injected.start_answered(d, f"fork{i}")


def test_a_fork_of_a_fork_has_what_both_were_given(tmp_path):
    d = str(tmp_path)
    injected.remember(d, "grandparent", ["a"], reset=True, started=True)
    assert injected.inherit(d, "parent", "grandparent") is True
    injected.claim(d, "parent", ["b"])
    assert injected.inherit(d, "child", "parent") is True
    assert injected.given(d, "child") == {"a", "b"}
