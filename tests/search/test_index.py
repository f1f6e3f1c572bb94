"""memory.search.index: never stale, never an error, incremental on appends, safe under concurrent builders."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from memory.search import index, rank, segfile
from memory.store import entry, rotation, store

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPICS = ["cache", "schema", "retry", "token", "layout", "worker", "queue", "deploy", "lint", "bundle"]


def make(i: int, text: str = "", ts: int = 0) -> dict:
    words = f"{TOPICS[i % 10]} {TOPICS[(i * 7) % 10]} step {i}"
    return entry.build(text or f"insight {i}: the {words} needs care", f"BD-{i}", "orchestrator",
                       ts=ts or 1_700_000_000 + i)


def write_lines(path, records) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


def ranked(memory_dir, prompt: str, limit: int = 5):
    return [(s.entry["key"], round(s.score, 9)) for s in rank.search(index.load(str(memory_dir)), prompt, limit)]


def expected(memory_dir, prompt: str, limit: int = 5):
    """The same query without any index: every line of both files, latest per key, ranked in memory."""
    entries = store.latest(store.load(str(memory_dir), include_archive=True).entries)
    return [(s.entry["key"], round(s.score, 9)) for s in rank.rank(entries, prompt, limit)]


def test_a_query_right_after_a_capture_returns_the_new_entry(mem):
    store.append(str(mem), [make(i) for i in range(20)])
    assert ranked(mem, "cache schema")  # builds the index
    store.append(str(mem), [make(99, "the zanzibar feature flag must stay off in staging")])
    key = entry.make_key("learned", "the zanzibar feature flag must stay off in staging")
    assert ranked(mem, "zanzibar flag")[0][0] == key


def test_rotation_keeps_results_equal_to_an_index_free_ranking(mem):
    store.append(str(mem), [make(i) for i in range(900)])
    assert ranked(mem, "retry token") == expected(mem, "retry token")
    store.append(str(mem), [make(i) for i in range(900, 1200)])
    assert ranked(mem, "retry token") == expected(mem, "retry token")  # knowledge.jsonl and the inbox
    rotation.compact(str(mem))  # folds the inbox into knowledge.jsonl, which passes 1,000 lines: rotation
    assert os.path.exists(mem / store.ARCHIVE)
    for prompt in ("retry token", "queue worker step 1150", "insight 3 deploy", "lint bundle layout"):
        assert ranked(mem, prompt) == expected(mem, prompt)


def test_a_replaced_source_file_is_reindexed(mem):
    write_lines(mem / store.ACTIVE, [make(i) for i in range(50)])
    index.load(str(mem))
    replacement = mem / "new.jsonl"
    write_lines(replacement, [make(i, f"rewritten insight number {i} about grpc deadlines") for i in range(5)])
    os.replace(replacement, mem / store.ACTIVE)  # what git checkout/pull/merge does
    assert ranked(mem, "grpc deadlines") == expected(mem, "grpc deadlines")
    assert len(ranked(mem, "grpc deadlines")) == 5


def test_an_edit_in_place_of_the_same_size_is_noticed(mem):
    write_lines(mem / store.ACTIVE, [make(1, "alpha beta gamma")])
    index.load(str(mem))
    data = (mem / store.ACTIVE).read_bytes()
    os.utime(mem / store.ACTIVE, ns=(1, 1))  # even an old mtime: the identity differs
    (mem / store.ACTIVE).write_bytes(data.replace(b"alpha beta gamma", b"delta beta gamma"))
    assert ranked(mem, "delta")[0][0] == entry.make_key("learned", "alpha beta gamma")


@pytest.mark.parametrize("damage", [b"", b"garbage", index.MAGIC + b"\x00" * 40, None])
def test_a_corrupt_index_is_rebuilt(mem, damage):
    write_lines(mem / store.ACTIVE, [make(i) for i in range(30)])
    index.load(str(mem))
    path = mem / index.INDEX[store.ACTIVE]
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2] if damage is None else damage)  # None: cut in half
    assert ranked(mem, "cache schema") == expected(mem, "cache schema")
    assert index.read_segment(str(path), index.fingerprint()) is not None  # rewritten whole


def test_an_index_of_another_version_is_rebuilt(mem, monkeypatch):
    write_lines(mem / store.ACTIVE, [make(i) for i in range(10)])
    index.load(str(mem))
    monkeypatch.setattr(index, "fingerprint", lambda: 12345)
    assert ranked(mem, "cache") == expected(mem, "cache")
    assert index.read_segment(str(mem / index.INDEX[store.ACTIVE]), 12345) is not None


def test_a_missing_memory_dir_is_an_empty_answer_and_creates_nothing(tmp_path):
    missing = tmp_path / "nowhere" / ".beads" / "memory"
    assert rank.search(index.load(str(missing)), "anything at all") == []
    assert not missing.exists()


def test_an_unwritable_index_is_bypassed(mem):
    write_lines(mem / store.ACTIVE, [make(i) for i in range(10)])
    (mem / index.INDEX[store.ACTIVE]).mkdir()  # os.replace onto a directory fails: the write is skipped
    assert ranked(mem, "cache schema") == expected(mem, "cache schema")


BUILDER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from memory.search import index, rank
hits = rank.search(index.load(sys.argv[2]), "queue worker step", 5)
print(json.dumps([[s.entry["key"], round(s.score, 9)] for s in hits]))
"""


def test_eight_concurrent_builders_all_get_correct_results(mem):
    write_lines(mem / store.ARCHIVE, [make(i) for i in range(1500)])
    write_lines(mem / store.ACTIVE, [make(i) for i in range(1500, 2000)])
    want = [list(pair) for pair in expected(mem, "queue worker step")]
    procs = [subprocess.Popen([sys.executable, "-c", BUILDER, ROOT, str(mem)], stdout=subprocess.PIPE)
             for _ in range(8)]
    outputs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outputs == [want] * 8
    fp = index.fingerprint()
    for name in (store.ACTIVE, store.ARCHIVE):
        seg = index.read_segment(str(mem / index.INDEX[name]), fp, with_keys=True)
        assert seg is not None and seg.src == index.sources(str(mem))[name]
    assert not [n for n in os.listdir(mem) if n.endswith(".tmp")]  # no temp file left behind
    assert [list(pair) for pair in ranked(mem, "queue worker step")] == want


def test_a_large_archive_without_an_index_is_left_to_a_background_build(mem):
    write_lines(os.path.join(mem, "knowledge.archive.jsonl"),
                [make(i, f"archived fact {i} about zeppelins") for i in range(300)])
    write_lines(os.path.join(mem, "knowledge.jsonl"), [make(1000, "active fact about zeppelins")])
    quick = index.load(mem, inline_limit=1000)  # the archive is larger: not indexed inline
    assert quick.partial and quick.n == 1
    assert not os.path.exists(os.path.join(mem, "knowledge.archive.index"))
    full = index.load(mem)  # what the background process does
    assert not full.partial and full.n == 301
    again = index.load(mem, inline_limit=1000)  # from now on the archive is current: nothing left out
    assert not again.partial and again.n == 301
    with open(os.path.join(mem, "knowledge.archive.jsonl"), "a") as fh:  # a rotation appends: extended inline
        fh.write(json.dumps(make(2000, "rotated fact about zeppelins")) + "\n")
    assert not index.load(mem, inline_limit=1000).partial


def test_the_recorded_fingerprint_is_this_versions():
    """recall.sh's keyword path checks an index's version against segfile.FINGERPRINT without importing the
    tokenizer: when tokens, concepts or tags change, set it to the value printed here."""
    assert index.fingerprint() == segfile.FINGERPRINT, \
        f"set memory/search/segfile.py FINGERPRINT = {index.fingerprint()}"


def test_one_background_builder_at_a_time(mem, monkeypatch):
    """Recalls and prompts during a long build start no second builder (each would take a core)."""
    import os

    from memory.runtimes import hookrun

    forks = []
    monkeypatch.setattr(hookrun, "fork_detached", lambda: forks.append(1) or "parent")
    held = index._build_lock(str(mem))  # a builder at work
    assert held is not None and held >= 0
    index.build_in_background(str(mem))
    assert forks == []
    os.close(held)  # it finished
    index.build_in_background(str(mem))
    assert forks == [1]


@pytest.mark.parametrize("column", ["off", "len", "lcrc"])
def test_a_damaged_line_column_is_rebuilt_not_an_entry_lost_until_the_source_changes(mem, column):
    """The columns a query reads item by item (a line's offset, length and CRC) carry no checksum of their own:
    a damaged item fails its line's CRC, so that entry is not shown; the index goes, so the next query has it
    (it was left in place, and the entry missing from every ranking until the knowledge file changed)."""
    write_lines(mem / store.ACTIVE, [make(i) for i in range(30)])
    index.load(str(mem))
    path = mem / index.INDEX[store.ACTIVE]
    best = expected(mem, "cache schema")[0][0]
    doc = [json.loads(line)["key"] for line in (mem / store.ACTIVE).read_text().splitlines()].index(best)
    opened = segfile.open_index(str(path), index.fingerprint())
    assert opened is not None
    at, _, code = opened.place(column)
    opened.close()
    data = bytearray(path.read_bytes())
    data[at + doc * segfile.ITEM_SIZE[code]] ^= 0x04  # one flipped bit: the same size, only a read can tell
    path.write_bytes(bytes(data))
    assert best not in [key for key, _ in ranked(mem, "cache schema")]  # this query: the entry is not readable
    assert ranked(mem, "cache schema") == expected(mem, "cache schema")  # the next one: rebuilt


@pytest.mark.parametrize("planted", ["knowledge.index", "knowledge.archive.index", "knowledge.archive.jsonl"])
def test_a_fifo_where_an_index_or_the_archive_belongs_never_holds_the_prompt_hook(tmp_path, planted):
    """The index reads opened their files blocking: a FIFO there (planted, or left by a tool) held every prompt
    until the runtime killed the hook. Now it is an unreadable file (fsio.open_regular): an index is rebuilt, an
    archive left out, and the prompt answered."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from helpers import fixture_payload, make_repo, run_hook

    repo = make_repo(tmp_path / "project")
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    store.append(str(mem), [make(i) for i in range(20)] + [
        make(99, "Database migrations must be reversible: every alembic upgrade needs a working downgrade.")])
    if planted == "knowledge.archive.index":
        write_lines(mem / store.ARCHIVE, [make(i, f"archived insight {i} about the release train") for i in range(3)])
    index.load(str(mem))
    (mem / planted).unlink(missing_ok=True)
    os.mkfifo(mem / planted)
    payload = fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json")
    payload.update(cwd=str(repo), prompt="add an alembic migration with a working downgrade", session_id="s-fifo")
    proc = run_hook("prompt_recall", payload, repo, timeout=20)  # was: TimeoutExpired, the hook waiting on the FIFO
    assert proc.returncode == 0
    assert "every alembic upgrade needs a working downgrade" in json.loads(proc.stdout)["hookSpecificOutput"][
        "additionalContext"]
