"""A keyword search (`recall.sh KEYWORD --all`) through the derived index instead of a scan of the files.

The index holds every entry's folded search text (memory.textmatch.haystack) one after another, so a
keyword is one C-speed `find` over the index's search text per match, and only the matching entries' lines are
read and parsed (by offset, checked by CRC). Latest per key, forgets and pins come out exactly as
memory.view gives them: liveness is the index's, pins are applied from the control lines it records.
Whenever the index cannot answer cheaply and exactly (an archive to index from scratch, a file changed
under us), `find` returns None and the caller scans the files instead.
"""
from __future__ import annotations

import os
import stat
from bisect import bisect_right

from memory import TYPE_CHECKING, index

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def find(memory_dir: str, terms: Sequence[str]) -> tuple[list[dict], int] | None:
    """(The live entries of both files holding every term, newest first, pins applied; malformed lines
    in the files), or None when the index cannot tell."""
    from memory import view
    from memory.textmatch import matches

    if not all(_regular_or_absent(os.path.join(memory_dir, name)) for name in (index.ACTIVE, index.ARCHIVE)):
        return None  # the scan says which file is wrong and why
    archive, active, partial = index.segments(memory_dir, inline_limit=index.INLINE_BUILD_BYTES)
    if partial:
        index.build_in_background(memory_dir)
        return None
    archive_live = bytearray(archive.stats.live)
    for doc in active.dead:
        archive_live[doc] = 0
    reader = index._EntryReader(memory_dir, archive, active)
    needles = [term.encode("utf-8", "surrogatepass") for term in terms]
    lines: list[tuple[int, int, dict]] = []  # (file, offset, line): the files' order, which latest-wins needs
    keys: set[str] = set()
    for file_no, (seg, live, first) in enumerate(((archive, archive_live, 0), (active, active.stats.live,
                                                                              archive.stats.n))):
        try:
            holding = sorted(_holding_all(seg, needles))
        except ValueError:  # the index was cut short under us: scan instead
            return None
        for doc in holding:
            if not live[doc]:
                continue
            line = reader.entry(first + doc)
            if line is None:
                return None  # the file changed under the index: scan instead
            if not matches(line, terms):
                continue  # only a damaged index names such a line: its text is checked, as the scan checks it
            lines.append((file_no, seg.offsets[doc], line))
            keys.add(line["key"])
    for file_no, seg in enumerate((archive, active)):
        lines += [(file_no, offset, {"type": kind, "key": key, "ts": ts})
                  for kind, key, ts, offset in seg.controls if key in keys]
    lines.sort(key=lambda item: item[:2])
    return view.latest([line for _, _, line in lines]), archive.malformed + active.malformed


def _regular_or_absent(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _holding_all(seg: index.Segment, needles: list[bytes]) -> set[int]:
    text, starts = seg.search_text()
    found: set[int] | None = None
    for needle in needles:
        docs = _holding(text, starts, needle)
        found = docs if found is None else found & docs
        if not found:
            return set()
    if found and len(found) > 64:
        seg.load_line_columns()  # many lines to read: their offsets in one read rather than one read each
    return found or set()


def _holding(text: bytes, starts: Any, needle: bytes) -> set[int]:
    """The docs whose search text holds `needle` (text never spans two docs: each ends in a newline, which a
    term never holds)."""
    count = len(starts)
    docs = set()
    at = text.find(needle)
    while at >= 0:
        doc = bisect_right(starts, at) - 1
        following = starts[doc + 1] if doc + 1 < count else len(text)
        if doc < 0 or following <= at:
            raise ValueError("damaged search text index")  # never loop or name a doc that is not there
        docs.add(doc)
        at = text.find(needle, following)
    return docs
