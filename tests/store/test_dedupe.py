"""memory.store.dedupe, through store.append: what an append finds already stored."""
from helpers import memory_lines, numbered_insight
from memory.store import dedupe, store


def test_replacement_of_a_different_insight_is_reported(tmp_path):
    store.append(str(tmp_path), [numbered_insight(1, key="same")])
    result = store.append(str(tmp_path), [numbered_insight(2, key="same")])
    assert result.replaced == {"same": "insight number 1"}
    again = store.append(str(tmp_path), [numbered_insight(2, key="same")])
    assert again.replaced == {} and again.duplicates == {"same": "same"} and not again.written  # identical: no news
    assert len(memory_lines(tmp_path / store.ACTIVE)) == 2  # nothing deleted: the older line stays on disk


def test_the_same_text_under_its_key_is_written_once_until_it_is_old(tmp_path):
    """#21 item 14: the same insight twice (or with other whitespace) is one line; a month later, writing it
    again re-confirms it (memory.search.stale counts from the newer line)."""
    d = str(tmp_path)
    first = dict(numbered_insight(1, key="same"), content="use  pnpm\n for tests", ts=1000)
    assert store.append(d, [first]).written == 1
    spaced = dict(first, content="use pnpm for tests", ts=2000)
    result = store.append(d, [spaced])
    assert result.written == 0 and result.duplicates == {"same": "same"} and result.replaced == {}
    cased = dict(first, content="Use pnpm for tests", ts=3000)  # a correction, however small, is written
    assert store.append(d, [cased]).replaced == {"same": "use  pnpm\n for tests"}
    later = dict(cased, ts=3000 + dedupe.REPEAT_AFTER + 1)
    assert store.append(d, [later]).written == 1
    assert [e["ts"] for e in memory_lines(tmp_path / store.ACTIVE)] == [1000, 3000, 3000 + dedupe.REPEAT_AFTER + 1]
