"""What an append finds already stored: the same text under another key or, young enough, under its own
(not written again), and the earlier content a key's new version replaces (reported, never silent).
Called by memory.store.store.append under the lock, on the active knowledge's bytes."""
from __future__ import annotations

from memory.core import jsonio
from memory.store import view
from memory.store.reading import read


def normalized(text: str) -> str:
    """Text as near-duplicates compare: case, whitespace and punctuation left out (memory.store.view.same_text,
    the one definition every read path uses too)."""
    return view.same_text(text).decode("utf-8", "surrogatepass")


REPEAT_AFTER = 30 * 86400  # the same text under its own key is written again only this long after: a re-confirmation


def same_words(a: str, b: str) -> bool:
    """The same text but for whitespace (what a re-capture with other line breaks or spacing gives)."""
    return a.split() == b.split()


def live_copies(existing: bytes, records: list[dict], repeat: bool = True) -> dict[str, str]:
    """{new key: live key} for records whose text a live entry already holds: another key's entry with the
    same normalized text (an insight written twice in other case or punctuation is not a second entry), or
    the key's own latest entry: with `repeat`, when the text is the same but for whitespace and that entry is
    younger than REPEAT_AFTER (older, writing it again re-confirms it, which memory.search.stale counts); without,
    with the same normalized text."""
    import re

    from memory.store import view

    wanted: dict[str, dict] = {}
    lowered = None
    for record in records:
        content = record.get("content")
        if not isinstance(content, str) or not normalized(content):
            continue
        words = sorted(re.findall(r"[a-z0-9]{4,}", content.lower()), key=len)[-2:]
        lowered = existing.lower() if lowered is None else lowered
        if all(word.encode() in lowered for word in words):  # a cheap pre-check before parsing every line
            wanted[normalized(content)] = record
    if not wanted:
        return {}
    lines = read("", existing).entries
    found = {}
    for entry in view.State(lines).current():  # a held copy is a copy too (and needs no screening here)
        same = wanted.get(normalized(entry["content"]))
        if same is None:
            continue
        key = same["key"]
        if key != entry["key"]:
            found[key] = entry["key"]
        elif not repeat or (same_words(same["content"], entry["content"]) and not _older(entry, same)):
            found[key] = key
    return found


def _older(entry: dict, record: dict) -> bool:
    """`entry` was written more than REPEAT_AFTER before `record`."""
    then, now = entry.get("ts"), record.get("ts")
    return isinstance(then, (int, float)) and isinstance(now, (int, float)) and now - then > REPEAT_AFTER


def superseded(existing: bytes, records: list[dict]) -> dict[str, str]:
    """Keys of `records` already present in `existing` with other content (latest wins, but not silently),
    with the content they replace."""
    replaced = {}
    for record in records:
        key = record.get("key")
        if not isinstance(key, str) or not isinstance(record.get("content"), str):
            continue  # a control line replaces nothing
        needle = b'"key":' + jsonio.dumps(key).encode("utf-8", "replace")
        at = existing.rfind(needle)
        if at < 0:
            continue
        line = existing[existing.rfind(b"\n", 0, at) + 1:].split(b"\n", 1)[0]
        try:
            previous = jsonio.loads(line)
        except ValueError:
            continue
        if isinstance(previous, dict) and isinstance(previous.get("content"), str) \
                and not same_words(previous["content"], record["content"]):
            replaced[key] = previous["content"]
    return replaced
