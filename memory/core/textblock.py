"""Our marked block in a user's text file (.gitignore, .gitattributes): put in, brought up to date or taken out
with every byte outside it kept as it was: the file's line endings (CRLF, LF or both), a byte order mark, bytes
that are not UTF-8, a form feed, the user's lines after the block. The block takes the file's line ending.

Worked on bytes split at "\\n" only: str.splitlines() also splits at form feeds and other separators, and a
decode with errors="replace" turns a byte that is not UTF-8 into U+FFFD for good.
"""
from __future__ import annotations

BOM = b"\xef\xbb\xbf"


def line_ending(data: bytes) -> bytes:
    """The file's line ending: CRLF where most lines end so, else LF (also for a file of one line)."""
    crlf = data.count(b"\r\n")
    return b"\r\n" if crlf > data.count(b"\n") - crlf else b"\n"


def lines(data: bytes) -> list[bytes]:
    """The lines of `data`, each with its own ending (the last one may have none); joined, they are `data`."""
    parts = data.split(b"\n")
    return [part + b"\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def content(line: bytes, first: bool = False) -> bytes:
    """A line without its ending (and, on the first line, without a byte order mark)."""
    if line.endswith(b"\n"):
        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
    return line[len(BOM):] if first and line.startswith(BOM) else line


def find(split: list[bytes], begin: str, end: str) -> tuple[int, int] | None:
    """(index of the begin marker, index of the end marker after it) of the first block, or None. The begin
    marker is the last one before that end: a stray one above it (its end line deleted) starts no block, so the
    user's lines after it are never taken for ours."""
    begin_b, end_b = begin.encode(), end.encode()
    start = None
    for i, line in enumerate(split):
        text = content(line, i == 0)
        if text == begin_b:
            start = i
        elif text == end_b and start is not None:
            return start, i
    return None


def count(data: bytes, marker: str) -> int:
    """How many lines of `data` are `marker`."""
    return sum(content(line, i == 0) == marker.encode() for i, line in enumerate(lines(data)))


def put(data: bytes | None, begin: str, end: str, block: list[str]) -> bytes:
    """`data` with our block: written over the one it holds (in place), else added at the end after a blank
    line (a last line without a line break gets one: the block starts on a line of its own)."""
    data = data or b""
    newline = line_ending(data)
    ours = [text.encode("utf-8") + newline for text in (begin, *block, end)]
    split = lines(data)
    found = find(split, begin, end)
    if found is not None:
        start, stop = found
        if not split[stop].endswith(b"\n"):
            ours[-1] = ours[-1][:-len(newline)]  # the file ended at our end marker: it still does
        if start == 0 and split[0].startswith(BOM):
            ours[0] = BOM + ours[0]
        return b"".join(split[:start] + ours + split[stop + 1:])
    if not data:
        return b"".join(ours)
    return data + (b"" if data.endswith(b"\n") else newline) + newline + b"".join(ours)


def take_out(data: bytes, begin: str, end: str) -> bytes:
    """`data` without our block (as it was, when it holds none); at the end of the file, the blank line `put`
    wrote before the block goes with it."""
    split = lines(data)
    found = find(split, begin, end)
    if found is None:
        return data
    start, stop = found
    before, after = split[:start], split[stop + 1:]
    if start == 0 and split[0].startswith(BOM):
        before = [BOM] if after else []
    if not after and before and content(before[-1]) == b"":
        before = before[:-1]
    return b"".join(before + after)
