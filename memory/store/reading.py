"""The knowledge files' read side: tolerant reads (a torn or foreign line is counted, never fatal),
keyword prefiltering on raw bytes, and latest-wins through memory.store.view. Writes: memory.store.store.

The active knowledge is knowledge.jsonl followed by the inbox's fragments (memory.store.inbox), in that order,
so later lines are newer; the archive comes before both.
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.core import jsonio, jsonline, layout
from memory.core.fsio import read_file  # noqa: F401 - the store's callers read knowledge files through here
from memory.core.shape import is_line

if TYPE_CHECKING:
    from typing import Callable


class Snapshot:
    """Entries read from one or more files, in file order, and how many lines could not be used."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.malformed = 0
        self.lines = 0
        self.unterminated = 0


def read(file_path: str, data: bytes | None = None) -> Snapshot:
    """Every usable entry of one JSONL file; foreign or broken lines are counted, never fatal.

    A last line without its newline is a write in progress (or a crash the next write repairs): skipped,
    and counted in `unterminated`, not in `malformed`.
    """
    data = read_file(file_path) if data is None else data
    snap = Snapshot()
    if not data:
        return snap
    complete, _, tail = data.rpartition(b"\n")
    snap.unterminated = int(bool(tail.strip()))
    loads = jsonio.bulk_loads() if len(data) >= jsonio.BULK_BYTES else jsonline.loads
    for line in complete.split(b"\n"):
        if not line.strip():
            continue
        snap.lines += 1
        try:
            obj = loads(line)
        except (ValueError, RecursionError):
            obj = _tolerant(line)
            if obj is None:
                snap.malformed += 1
                continue
        if is_line(obj):
            snap.entries.append(obj)
        else:
            snap.malformed += 1
    return snap


def load_matching(memory_dir: str, needle: bytes | tuple[bytes, ...], include_archive: bool = False,
                  unsure: str = "") -> Snapshot:
    """Every version of every key that has a line containing `needle` (lowercase ASCII bytes; or any one of
    several), or a line
    bytes alone cannot judge: one holding a character of `unsure` (e.g. ß, which a case-insensitive
    search reads as "ss") or a JSON escape that may hide a character (\\uXXXX, \\/). The caller decides
    which of these entries really match.

    Enough for a keyword search with latest-wins, without parsing every line: the lines holding the
    needle are found in the lowercased bytes, then every line naming one of their keys by one scan.
    """
    # only complete lines: an unterminated last line is a write in progress
    data = b"".join(part[:part.rfind(b"\n") + 1] for part in _read_consistently(memory_dir, include_archive))
    return matching(data, needle, unsure)


def matching(data: bytes, needle: bytes | tuple[bytes, ...], unsure: str = "") -> Snapshot:
    """`load_matching` over knowledge bytes already read (whole lines), for a caller that read them for
    something else too."""
    import re

    lowered = data.lower()
    loads = jsonio.bulk_loads() if len(data) >= jsonio.BULK_BYTES else jsonline.loads  # as `read` does
    snap = Snapshot()  # `lines` stays 0: counting them would cost a pass over the bytes nobody reads
    found: dict[int, dict | None] = {}  # line start -> entry (None: malformed)

    def take(at: int) -> int:
        start, end = _line_bounds(data, at)
        if start not in found:
            found[start] = parse_line(data[start:end], loads)
            snap.malformed += found[start] is None
        return end

    for one in (needle,) if isinstance(needle, bytes) else needle:
        at = lowered.find(one)
        while at >= 0:
            at = lowered.find(one, take(at))
    for seq in _unsure_sequences(data, unsure):
        at = data.find(seq)
        while at >= 0:
            at = data.find(seq, take(at))
    snap.malformed = _malformed(data, found, loads)
    entries = {start: e for start, e in found.items() if e is not None}
    wanted = {e["key"] for e in entries.values()}
    wanted_bytes = {key.encode("utf-8", "surrogatepass") for key in wanted}
    # A key spelled with escapes (hand-written lines, keys holding quotes) ends its raw match at a backslash:
    # that line is parsed. Without any backslash in the files the simpler pattern is ~30% faster.
    escapes = b"\\" in data
    pattern = rb'"key"\s*:\s*"([^"\\\n]*)(["\\])' if escapes else rb'"key"\s*:\s*"([^"\\\n]*)"'
    for match in re.finditer(pattern, data):
        if match.group(1) not in wanted_bytes and not (escapes and match.group(2) == b"\\"):
            continue
        start, end = _line_bounds(data, match.start())
        if start not in found:
            entry = found[start] = parse_line(data[start:end], loads)
            if entry is not None and entry["key"] in wanted:
                entries[start] = entry
    snap.entries = [entries[start] for start in sorted(entries)]
    return snap


def _malformed(data: bytes, parsed: dict[int, dict | None], loads: Callable[[bytes], object]) -> int:
    """The malformed lines of `data` (complete lines), so every recall command reports them (`read` counts
    them in a parse of every line): the lines parsed already, and every other line not shaped as the lines
    memory-hooks writes (`{"key":…}`), parsed now. A torn line, a conflict marker, foreign JSON are all
    counted; a line of our shape is trusted unparsed."""
    count = sum(entry is None for entry in parsed.values())
    lines = data.count(b"\n")
    if data.count(b"}\n") == lines and data.count(b'\n{"key":') + data.startswith(b'{"key":') == lines:
        return count  # every line starts `{"key":` and ends `}` (counted at C speed): nothing odd to parse
    start = 0
    for line in data.split(b"\n")[:-1]:  # `data` ends with a newline: the last piece is empty
        if not (line[:7] == b'{"key":' and line[-1:] == b"}") and start not in parsed and line.strip():
            count += parse_line(line.strip(), loads) is None
        start += len(line) + 1
    return count


def _line_bounds(data: bytes, at: int) -> tuple[int, int]:
    end = data.find(b"\n", at)
    return data.rfind(b"\n", 0, at) + 1, (len(data) if end < 0 else end)


def parse_line(line: bytes, loads: Callable[[bytes], object] | None = None) -> dict | None:
    """A line's entry or control line, or None for anything else."""
    try:
        obj = (loads or jsonline.loads)(line)
    except (ValueError, RecursionError):
        obj = _tolerant(line)
    return obj if isinstance(obj, dict) and is_line(obj) else None


def _tolerant(line: bytes) -> object:
    """A line the parser refused, read again taking a byte that is not UTF-8 (a teammate's cp1252 editor) as
    U+FFFD instead of hiding the whole entry (jsonline.loads_lenient); None when that fails too."""
    try:
        return jsonline.loads_lenient(line)
    except (ValueError, RecursionError):
        return None


def _read_consistently(memory_dir: str, include_archive: bool) -> list[bytes]:
    """The files' bytes, archive first. The active knowledge is read before the archive: rotation appends
    to the archive before it replaces the active file, so no line can slip between the two reads."""
    active = active_chunks(memory_dir)
    archive = read_file(os.path.join(memory_dir, layout.ARCHIVE)) if include_archive else b""
    return [archive] + active


def active_chunks(memory_dir: str) -> list[bytes]:
    """knowledge.jsonl's bytes, then each inbox fragment's (memory.store.inbox.read_parts: consistent against a
    concurrent fold). A fragment is published whole, so one missing its last newline (made by hand) gets
    it: its last line is not a write in progress, and must not run into the next fragment's first."""
    from memory.store import inbox

    parts = inbox.read_parts(memory_dir)
    chunks = [data for _, data, _ in parts]
    has_knowledge = bool(parts) and os.path.basename(parts[0][0]) == layout.KNOWLEDGE
    if not has_knowledge:
        chunks.insert(0, b"")
    return chunks[:1] + [c if not c or c.endswith(b"\n") else c + b"\n" for c in chunks[1:]]


_ASCII = bytes(range(128))


def _unsure_sequences(data: bytes, chars: str) -> list[bytes]:
    """The byte sequences to look for: JSON escapes that may hide a character, and those of `chars` that
    occur in `data` at all (told by the few non-ASCII bytes, so an ASCII file costs one quick check)."""
    seqs = [b"\\u", b"\\/"] if b"\\" in data else []
    if chars and not data.isascii():
        non_ascii = data.translate(None, _ASCII)  # whole UTF-8 sequences: ASCII bytes never occur inside one
        seqs += [seq for seq in (c.encode("utf-8") for c in chars) if seq in non_ascii]
    return seqs


def load(memory_dir: str, include_archive: bool = False) -> Snapshot:
    """The active file (after the archive when asked): oldest first, so later lines are newer."""
    total = Snapshot()
    for data in _read_consistently(memory_dir, include_archive):
        snap = read("", data)
        total.entries.extend(snap.entries)
        total.malformed += snap.malformed
        total.lines += snap.lines
        total.unterminated += snap.unterminated
    return total


def latest(entries: list[dict], include_held: bool = False, cache_dir: str | None = None,
           every_copy: bool = False) -> list[dict]:
    """One entry per key, the latest (highest ts, then later line) winning; newest first; forgotten keys
    and held ones left out, pinned entries marked, one text once unless `every_copy` (memory.store.view owns
    the rules)."""
    from memory.store import view

    return view.latest(entries, include_held, cache_dir, every_copy)
