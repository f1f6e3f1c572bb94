import json
import os

from helpers import forked_processes
from memory.core import layout
from memory.surface import use

NOW = 1_800_000_000.0


def test_a_use_counts_once_per_session_and_again_in_another(tmp_path):
    memory = str(tmp_path)
    assert use.credit(memory, ["k1", "k2", "k1"], "s1", now=NOW) == ["k1", "k2"]
    assert use.credit(memory, ["k1"], "s1", now=NOW + 5) == []  # the same session: counted already
    assert use.credit(memory, ["k1"], "s2", now=NOW + 10) == ["k1"]
    assert use.counts(memory, now=NOW + 20) == {"k1": 2, "k2": 1}


def test_a_lookup_again_soon_counts_once_and_later_counts_again(tmp_path):
    memory = str(tmp_path)
    assert use.credit(memory, ["k1"], now=NOW) == ["k1"]
    assert use.credit(memory, ["k1"], now=NOW + use.SAME_LOOKUP_SECONDS - 1) == []
    assert use.credit(memory, ["k1"], now=NOW + use.SAME_LOOKUP_SECONDS + 1) == ["k1"]
    assert use.counts(memory, now=NOW + use.SAME_LOOKUP_SECONDS + 2) == {"k1": 2}


def test_an_old_use_no_longer_counts(tmp_path):
    memory = str(tmp_path)
    use.credit(memory, ["old"], "s1", now=NOW)
    use.credit(memory, ["new"], "s1", now=NOW + use.KEEP_SECONDS)
    assert use.counts(memory, now=NOW + use.KEEP_SECONDS + 1) == {"new": 1}


def test_the_state_keeps_the_most_recently_used(tmp_path, monkeypatch):
    monkeypatch.setattr(use, "MAX_KEYS", 3)
    memory = str(tmp_path)
    for i in range(5):
        use.credit(memory, [f"k{i}"], "s1", now=NOW + i)
    assert set(use.counts(memory, now=NOW + 10)) == {"k2", "k3", "k4"}


def test_bad_state_reads_as_no_use_and_is_replaced(tmp_path):
    """Junk, the wrong shape, and numbers past what a float holds (JSON's 1e400 parses as infinity, NaN as
    not-a-number, a 400-digit integer overflows a float): none may raise (session start would lose its whole
    answer, recall.sh would fail after printing its results)."""
    memory = str(tmp_path)
    path = os.path.join(memory, layout.USE)
    for junk in (b"\xff\x00 not json", b"[1, 2]", json.dumps({"k1": "x", "k2": {"n": True, "ts": "y"}}).encode(),
                 b'{"k1": {"n": 1e400, "ts": 1.8e9, "by": "s0"}}', b'{"k1": {"n": NaN, "ts": 1.8e9, "by": "s0"}}',
                 b'{"k1": {"n": 2, "ts": Infinity, "by": "s0"}}', b'{"k1": {"n": 1' + b"0" * 400 + b', "ts": 1.8e9}}'):
        with open(path, "wb") as f:
            f.write(junk)
        assert use.counts(memory, now=NOW) == {}
        assert use.credit(memory, ["k1"], "s1", now=NOW) == ["k1"]
        assert use.counts(memory, now=NOW) == {"k1": 1}


def test_an_unwritable_folder_loses_the_count_and_nothing_else(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("")
    assert use.credit(str(target / "memory"), ["k1"], "s1") == []
    assert use.counts(str(target / "memory")) == {}


def test_sixteen_processes_at_once_lose_no_count(tmp_path):
    memory = str(tmp_path)
    code = ("import sys\nfrom memory.surface import use\n"
            "assert use.credit(sys.argv[1], ['shared', sys.argv[2]], sys.argv[2])\n")
    statuses = forked_processes(code, [[memory, f"s{i}"] for i in range(16)], preload="from memory.surface import use")
    assert statuses == [0] * 16
    counts = use.counts(memory)
    assert counts["shared"] == 16 and all(counts[f"s{i}"] == 1 for i in range(16))


def test_a_session_counts_an_entry_once_even_after_another_counted_it(tmp_path):
    memory = str(tmp_path)
    assert use.credit(memory, ["k1"], "s1", now=NOW) == ["k1"]
    assert use.credit(memory, ["k1"], "s2", now=NOW + 1) == ["k1"]
    assert use.credit(memory, ["k1"], now=NOW + 2) == ["k1"]  # a lookup between
    assert use.credit(memory, ["k1"], "s1", now=NOW + 3) == []  # s1 counted it already
    assert use.credit(memory, ["k1"], "s2", now=NOW + 4) == []
    assert use.credit(memory, ["k1"], now=NOW + 5) == []  # the same lookup within SAME_LOOKUP_SECONDS
    assert use.counts(memory, now=NOW + 6) == {"k1": 3}


def test_uses_older_than_keep_seconds_do_not_come_back_with_a_new_one(tmp_path):
    memory = str(tmp_path)
    for i in range(5):
        use.credit(memory, ["k1"], f"s{i}", now=NOW + i)
    later = NOW + 10 + use.KEEP_SECONDS
    assert use.credit(memory, ["k1"], "s9", now=later) == ["k1"]
    assert use.counts(memory, now=later + 1) == {"k1": 1}  # the five old uses no longer count


def test_a_state_written_before_several_counters_were_kept_still_dedups(tmp_path):
    memory = str(tmp_path)
    with open(os.path.join(memory, layout.USE), "w") as f:
        json.dump({"k1": {"n": 2, "ts": NOW, "by": "s1"}, "k2": {"n": 1, "ts": NOW, "by": use.LOOKUP}}, f)
    assert use.credit(memory, ["k1", "k2"], "s1", now=NOW + 1) == ["k2"]
    assert use.credit(memory, ["k1", "k2"], now=NOW + 2) == ["k1"]  # k2: the same lookup within the window
    assert use.counts(memory, now=NOW + 3) == {"k1": 3, "k2": 2}


def test_an_entry_remembers_the_counters_of_the_last_day_at_most_by_keep(tmp_path):
    memory = str(tmp_path)
    for i in range(use.BY_KEEP + 2):
        use.credit(memory, ["k1"], f"s{i}", now=NOW + i)
    with open(os.path.join(memory, layout.USE)) as f:
        assert sorted(json.load(f)["k1"]["by"]) == [f"s{i}" for i in range(2, use.BY_KEEP + 2)]
    use.credit(memory, ["k1"], "late", now=NOW + use.COUNTER_SECONDS + 10)
    with open(os.path.join(memory, layout.USE)) as f:
        assert list(json.load(f)["k1"]["by"]) == ["late"]
    assert use.counts(memory, now=NOW + use.COUNTER_SECONDS + 11) == {"k1": use.BY_KEEP + 3}


def test_a_use_counted_already_costs_no_write(tmp_path):
    memory = str(tmp_path)
    use.credit(memory, ["k1"], "s1", now=NOW)
    path = os.path.join(memory, layout.USE)
    before = os.stat(path)
    assert use.credit(memory, ["k1"], "s1", now=NOW + 5) == []
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not replaced
    assert use.credit(memory, ["k1", "k2"], "s1", now=NOW + 6) == ["k2"]  # one new: written
