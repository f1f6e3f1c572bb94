"""A segment brought up to date with its source's bytes (memory.search.index decides when): extended when the
source only grew, so only the new lines are tokenized and screened (memory.store.hold), else built anew; a
forget within one file, and latest per key across the archive and the active file (`link`)."""
from __future__ import annotations

import zlib
from array import array

from memory import TYPE_CHECKING
from memory.core import jsonline
from memory.search import corpus as corpus_mod
from memory.search.segment import Segment, array_of

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

CRC_WINDOW = 4096


def _tail_crc(data: bytes, end: int) -> int:
    return zlib.crc32(data[max(0, end - CRC_WINDOW):end])


def update(old: Segment | None, data: bytes, src: tuple[int, int, int, int] | None,
           cache_dir: str | None = None) -> Segment:
    """`old` brought up to date with the source bytes `data`: extended when the source only grew, else new.
    The new lines are screened (memory.store.hold), with the verdict cache of `cache_dir` when given."""
    from memory.core.textmatch import haystack, words
    from memory.store import hold
    from memory.store.entry import APPROVE, FORGET, is_control, is_valid

    grown = (old is not None and old.src is not None and src is not None and old.src[:2] == src[:2]
             and len(data) >= old.end and _tail_crc(data, old.end) == old.crc and len(old.stats.keys) == old.stats.n)
    seg = old if grown and old is not None else Segment()
    loads = _loads(len(data) - seg.end)
    postings = seg.postings
    for key, value in list(postings.items()):
        if not isinstance(value, array):
            postings[key] = array_of("I", value)
    pos, end = seg.end, data.rfind(b"\n") + 1  # an unterminated last line is a write in progress
    added: list[tuple[int, dict]] = []
    while pos < end:
        nl = data.index(b"\n", pos)
        line = data[pos:nl]
        try:
            entry = loads(line) if line.strip() else None
        except (ValueError, RecursionError):
            try:  # valid JSON but not UTF-8 (a cp1252 editor's byte): read as the store's readers read it
                entry = jsonline.loads_lenient(line)
            except (ValueError, RecursionError):
                entry = None
        if entry is not None and is_valid(entry):
            added.append((seg.stats.n, entry))
            seg.stats.add(entry, postings)  # type: ignore[arg-type]
            seg.offsets.append(pos)
            seg.lengths.append(len(line))
            seg.line_crcs.append(zlib.crc32(line))
            text = haystack(entry)
            seg.text_at.append(len(seg.text))
            seg.text.frombytes(text.encode("utf-8", "surrogatepass") + b"\n")
            seg.add_words(seg.stats.n - 1, words(text))
        elif is_control(entry):
            ts = corpus_mod.entry_ts(entry)  # type: ignore[arg-type]
            seg.controls.append((entry["type"], entry["key"], ts, pos))  # type: ignore[index]
            if entry["type"] == FORGET:  # type: ignore[index]
                seg.forgets.append((entry["key"], ts, seg.stats.n))  # type: ignore[index]
            elif entry["type"] == APPROVE:  # type: ignore[index]
                seg.approvals.append((entry["key"], str(entry.get("sha")), pos))  # type: ignore[union-attr,index]
        elif line.strip():
            seg.malformed += 1
        pos = nl + 1
    if cache_dir is not None and added:
        hold.warm(cache_dir, [entry["content"] for _, entry in added])
    for doc, entry in added:
        why = hold.reasons(entry)
        if why:
            seg.held.append((doc, entry["key"], hold.text_sha(entry["content"]), why))
    seg.src, seg.end, seg.crc = src, max(seg.end, end), _tail_crc(data, max(seg.end, end))
    seg.stats.live = corpus_mod.latest_flags(seg.stats.keys, seg.stats.ts)
    _apply_forgets(seg)
    return seg


def _latest_forgets(seg: Segment) -> dict[str, tuple[float, int]]:
    """Per key, the latest forget of the segment: (ts, number of docs before it)."""
    found: dict[str, tuple[float, int]] = {}
    for key, ts, before in seg.forgets:
        if key not in found or (ts, before) >= found[key]:
            found[key] = (ts, before)
    return found


def _apply_forgets(seg: Segment) -> None:
    """A live doc older than its key's latest forget in the same file is not live (memory.store.view's order:
    the higher ts, then the later line)."""
    forgets = _latest_forgets(seg)
    if not forgets:
        return
    s = seg.stats
    for doc in range(s.n):
        forget = forgets.get(s.keys[doc]) if s.live[doc] else None
        if forget is not None and (forget[0], forget[1] - 0.5) > (s.ts[doc], doc):
            s.live[doc] = 0


def _loads(size: int) -> Callable[[Any], Any]:
    from memory.core import jsonio

    return jsonio.bulk_loads() if size >= jsonio.BULK_BYTES else jsonline.loads


def link(archive: Segment, active: Segment) -> None:
    """Latest per key across both files: which archive docs the active ones supersede, and the reverse."""
    arc_keys, arc_ts, arc_live = archive.stats.keys, archive.stats.ts, archive.stats.live
    best = {arc_keys[d]: d for d in range(archive.stats.n) if arc_live[d]}
    dead = []
    act = active.stats
    for doc in range(act.n):
        other = best.get(act.keys[doc]) if act.live[doc] else None
        if other is not None:
            if act.ts[doc] >= arc_ts[other]:  # the later line wins a tie, as in memory.store.store.latest
                dead.append(other)
            else:
                act.live[doc] = 0
    # forgets across the two files: an active forget is a later line than every archived one
    killed = set(dead)
    for key, (ts, _) in _latest_forgets(active).items():
        other = best.get(key)
        if other is not None and ts >= arc_ts[other] and other not in killed:
            dead.append(other)
    archived_forgets = _latest_forgets(archive)
    for doc in range(act.n):
        forget = archived_forgets.get(act.keys[doc]) if act.live[doc] else None
        if forget is not None and forget[0] > act.ts[doc]:
            act.live[doc] = 0
    active.dead = dead
    active.against = [archive.src, archive.stats.n]
