"""A keyword search (`recall.sh KEYWORD --all`) through the derived index instead of a scan of the files.

Each index segment lists every word of its documents' folded search text (memory.core.textmatch.words) with
the documents holding it, so a keyword made of word characters is one C-speed `find` over the sorted
words, a few small reads of postings, and then only the matching entries' lines are read and parsed (by
offset, checked by CRC). A keyword with other characters goes by its longest word-character run; one with
none, or inside more than MANY_WORDS words, is looked for in the index's search text instead. Every line
read is checked against the terms, so the index only ever narrows what is read. Latest per key, forgets
and pins come out exactly as memory.store.view gives them: liveness is the index's, pins are applied from the
control lines it records. Whenever the index cannot answer cheaply and exactly (an archive to index from
scratch, a file changed under us, damage), `find` returns None and the caller scans the files instead.

The segment files are read through memory.search.segfile (marshal) and each line through memory.core.jsonline
(CPython's JSON scanner): this path imports no `json` and no `re`, which would cost `recall.sh KEYWORD --all`
~7 ms of the ~20 ms `grep | jq` takes (docs/performance.md).
"""
from __future__ import annotations

import math
import os
import stat
import zlib

from memory import TYPE_CHECKING
from memory.core import fsio, jsonline, layout, shape, textmatch
from memory.search import segfile
from memory.store import inbox

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

ACTIVE, ARCHIVE = layout.KNOWLEDGE, layout.ARCHIVE
INDEX = {ACTIVE: layout.INDEX, ARCHIVE: layout.ARCHIVE_INDEX}
MANY_WORDS = 512  # a term inside more words than this ("e") is looked for in the search text instead
READ_COLUMNS = 64  # more lines to read than this: their offsets, lengths and CRCs in one read each


def find(memory_dir: str, terms: Sequence[str], refresh: bool = True,
         include_archive: bool = True) -> tuple[list[dict], int] | None:
    """(The live entries of both files (without `include_archive`: of the active knowledge) holding every
    term, newest first, pins applied; malformed lines in those files), or None when the index cannot tell.
    With `refresh`, an index that is not current is brought up to date first (memory.search.index); without,
    such an index is a None."""
    if not all(_regular_or_absent(os.path.join(memory_dir, name)) for name in (ACTIVE, ARCHIVE)):
        return None  # the scan says which file is wrong and why
    pair = current(memory_dir)
    if pair is None and refresh:
        from memory.search import index

        partial = index.segments(memory_dir, inline_limit=index.INLINE_BUILD_BYTES)[2]
        if partial:
            index.build_in_background(memory_dir)
            return None
        pair = current(memory_dir)  # None when it could not be written (read-only) or changed again
    if pair is None:
        return None
    try:
        return _search(memory_dir, pair[0], pair[1], terms, include_archive)
    except OSError:  # a knowledge file that cannot be read: the scan says which and why
        return None
    except Exception:  # damage seen only now (a column cut short or out of bounds): the scan answers, and
        for seg in pair:  # the damaged file goes, so the next search rebuilds it
            if seg is not None:
                seg.discard()
        return None


def current(memory_dir: str) -> tuple[segfile.IndexFile | None, segfile.IndexFile] | None:
    """(archive segment or None when there is no archive, active segment), opened, when both are those
    of the files as they are now and of each other (memory.search.index.segments' test); else None."""
    src = {ACTIVE: inbox.identity(memory_dir), ARCHIVE: fsio.identity(os.path.join(memory_dir, ARCHIVE))}
    active = segfile.open_index(os.path.join(memory_dir, INDEX[ACTIVE]), segfile.FINGERPRINT)
    if active is None or _src(active) != src[ACTIVE]:
        return None
    archive, against = None, [None, 0]  # type: tuple[segfile.IndexFile | None, list]
    if src[ARCHIVE] is not None:
        archive = segfile.open_index(os.path.join(memory_dir, INDEX[ARCHIVE]), segfile.FINGERPRINT)
        if archive is None or _src(archive) != src[ARCHIVE]:
            return None
        against = [src[ARCHIVE], archive.meta["n"]]
    recorded = active.meta.get("against")
    if not isinstance(recorded, list) or len(recorded) != 2 or \
            [tuple(recorded[0]) if recorded[0] else None, recorded[1]] != against:
        return None
    return archive, active


def _search(memory_dir: str, archive: segfile.IndexFile | None, active: segfile.IndexFile,
            terms: Sequence[str], include_archive: bool = True) -> tuple[list[dict], int] | None:
    if not include_archive:
        if archive is not None and not _active_alone(archive, active):
            return None  # an archived line outranks an active one: the scan of the active knowledge answers
        archive = None
    parts: list[tuple[int, str, segfile.IndexFile, Sequence[int]]] = []
    if archive is not None:
        archive_live = bytearray(archive.raw("live"))
        for doc in active.meta["dead"]:
            archive_live[doc] = 0
        parts.append((0, ARCHIVE, archive, archive_live))
    parts.append((1, ACTIVE, active, active.raw("live")))
    lines: list[tuple[int, int, dict]] = []  # (file, offset, line): the files' order, which latest-wins needs
    keys: set[str] = set()
    for file_no, name, seg, live in parts:
        docs: set[int] | None = None
        for term in terms:
            held = _holding_term(seg, term)
            docs = held if docs is None else docs & held
            if not docs:
                break
        chosen = sorted(doc for doc in docs or () if live[doc])
        if not chosen:
            continue
        reader = _Reader(memory_dir, name)
        try:
            verdicts = _held_by_key(seg)
            for offset, line in _lines(reader.pread, seg, chosen):
                if line is None:  # the line is not what the index says: damage (or a file replaced under us,
                    seg.discard()  # which leaves the index stale anyway): the scan answers, the next search rebuilds
                    return None
                if textmatch.matches(line, terms):  # a damaged index may name others: the text decides
                    lines.append((file_no, offset, line))
                    keys.add(line["key"])
                    _tell_screen(line, verdicts)
        finally:
            reader.close()
    for file_no, _, seg, _ in parts:
        lines += [(file_no, offset, {"type": kind, "key": key, "ts": ts})
                  for kind, key, ts, offset in seg.meta["controls"] if key in keys and kind != shape.APPROVE]
        lines += [(file_no, offset, {"type": shape.APPROVE, "key": key, "ts": 0, "sha": sha})
                  for key, sha, offset in seg.meta["approvals"] if key in keys]
    lines.sort(key=lambda item: item[:2])
    from memory.store import view

    malformed = sum(seg.meta["malformed"] for seg in (archive, active) if seg is not None)
    return view.latest([line for _, _, line in lines], include_held=True), malformed  # a person reads: held marked


def _active_alone(archive: segfile.IndexFile, active: segfile.IndexFile) -> bool:
    """Whether the index's liveness of the active entries holds without the archive: no archived entry or
    control line is newer than an active entry (memory.search.segment_update.link supersedes an active entry only by a
    newer archived version or forget of its key). A NaN anywhere: no (a sum shows it; max and min skip it)."""
    archived, active_ts = archive.column("ts"), active.column("ts")
    controls = [ts for _, _, ts, _ in archive.meta["controls"]]
    total = sum(archived) + sum(controls) + sum(active_ts)
    if total != total:
        return False
    newest = max(max(archived, default=-math.inf), max(controls, default=-math.inf))
    return newest <= min(active_ts, default=math.inf)


def _held_by_key(seg: segfile.IndexFile) -> dict[str, dict[str, list[str]]]:
    """The index's screening verdicts: key -> {text sha: reasons} of its held lines."""
    held: dict[str, dict[str, list[str]]] = {}
    for _, key, sha, why in seg.meta["held"]:
        held.setdefault(key, {})[sha] = why
    return held


def _tell_screen(line: dict, held: dict[str, dict[str, list[str]]]) -> None:
    """Hand memory.store.screen the index's verdict on this line, so marking held entries costs no screening."""
    from memory.store import screen

    versions = held.get(line["key"])
    if versions is None:
        screen.remember(line["content"], [])
        return
    from memory.store import hold

    screen.remember(line["content"], versions.get(hold.text_sha(line["content"]), []))


class _Reader:
    """Reads by offset: the archive file, or the active knowledge's files (memory.store.inbox.ActiveFile)."""

    def __init__(self, memory_dir: str, name: str) -> None:
        self.active = inbox.ActiveFile(memory_dir) if name == ACTIVE else None
        self.fd = fsio.open_regular(os.path.join(memory_dir, name), os.O_RDONLY) if name != ACTIVE else -1

    def pread(self, length: int, offset: int) -> bytes:
        return self.active.pread(length, offset) if self.active is not None else os.pread(self.fd, length, offset)

    def close(self) -> None:
        if self.active is not None:
            self.active.close()
        else:
            os.close(self.fd)


def _lines(pread: Callable[[int, int], bytes], seg: segfile.IndexFile,
           docs: list[int]) -> Iterator[tuple[int, dict | None]]:
    """(offset, entry) of each doc's line, the entry None when the line no longer is what was indexed."""
    if len(docs) > READ_COLUMNS:
        offsets, lengths, crcs = seg.column("off"), seg.column("len"), seg.column("lcrc")
    for doc in docs:
        if len(docs) > READ_COLUMNS:
            offset, length, crc = offsets[doc], lengths[doc], crcs[doc]
        else:
            offset, length, crc = seg.items("off", doc, doc + 1)[0], seg.items("len", doc, doc + 1)[0], \
                seg.items("lcrc", doc, doc + 1)[0]
        data = pread(length, offset)
        if zlib.crc32(data) != crc:
            yield offset, None
            return
        try:
            line = jsonline.loads_lenient(data)
        except (ValueError, RecursionError):
            line = None
        yield offset, (line if shape.is_valid(line) else None)


def _holding_term(seg: segfile.IndexFile, term: str) -> set[int]:
    """The docs of the segment whose search text may hold `term` (all that do, perhaps a few more)."""
    part = textmatch.word_part(term)
    if part:
        docs = _word_docs(seg, part.encode("utf-8", "surrogatepass"))
        if docs is not None:
            return docs
    return _holding(seg.raw("text"), seg.column("tat"), term.encode("utf-8", "surrogatepass"))


def _word_docs(seg: segfile.IndexFile, needle: bytes) -> set[int] | None:
    """The docs holding a word that holds `needle` (word characters only, so never across two words);
    None when more than MANY_WORDS words do."""
    text = seg.raw("wtext")
    places: list[int] = []
    at = text.find(needle)
    while at >= 0:
        places.append(at)
        if len(places) > MANY_WORDS:
            return None
        at = text.find(needle, text.find(b"\n", at) + 1)  # the next word (a word ends in a newline)
    if not places:
        return set()
    starts = seg.column("wat") if len(places) > 8 else _Items(seg, "wat")  # a few words: a few small reads
    count = len(starts) - 1
    docs: set[int] = set()
    for at in places:
        word = _bisect(starts, at)
        if not (0 <= word < count and starts[word] <= at < starts[word + 1]):
            raise ValueError("damaged word index")  # never name a word that is not there
        first, stop = seg.items("wfirst", word, word + 2)
        docs.update(seg.items("wdocs", first, stop))
    return docs


class _Items:
    """A column's items read one at a time (a binary search touches ~17 of 100,000)."""

    def __init__(self, seg: segfile.IndexFile, name: str) -> None:
        self.seg, self.name, self.count = seg, name, seg.place(name)[1]

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> int:
        return self.seg.items(self.name, i, i + 1)[0]


def _bisect(starts: Sequence[int] | _Items, at: int) -> int:
    """The last i with starts[i] <= at (-1 when none): bisect_right - 1, for a column on disk too."""
    low, high = 0, len(starts)
    while low < high:
        middle = (low + high) // 2
        if at < starts[middle]:
            high = middle
        else:
            low = middle + 1
    return low - 1


def _holding(text: bytes, starts: Sequence[int], needle: bytes) -> set[int]:
    """The docs whose search text holds `needle` (text never spans two docs: each ends in a newline, which a
    term never holds)."""
    from bisect import bisect_right  # C speed: a short term may be in every document

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


def _src(seg: segfile.IndexFile) -> tuple | None:
    src = seg.meta.get("src")
    return tuple(src) if src else None


def _regular_or_absent(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False
