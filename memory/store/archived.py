"""The archive's part of the live knowledge, for the views that read only the active file for speed (session start,
memory.surface.start_cache; the file cues of action time, memory.search.path_cues).

Rotation moves lines by age, not by use: a month-old store held 341 of its 716 live entries in the archive. The
archive's deciding lines (memory.store.view.deciding: per key the latest entry of its ARCHIVE_LIVE newest live
keys and of its pinned ones, and every forget, pin and approval a later line may need), put before the active
file's lines, give those views the live entries of both files. The live keys past ARCHIVE_LIVE are kept as a
checksum of the key: when a line of the active file touches one (a pin given later, a
forget, a correction, an older copy merged from another clone), that key's lines are read from the archive, so
the answer is the one both files read whole give; the others are counted ("older"). All of it changes only when
the archive does (a rotation, a redaction, a merge), so session start keeps it in its cache (layout.START_CACHE,
after the view: parsed only when the view is recomputed) under the archive's identity and the rules that shape
it: a capture costs the active file's lines, never the archive's. An archive larger than INLINE_BYTES whose part
is not cached is not read by a hook: the part of the archive before it stands in (stale, not kept), and the
caller reads it in the background (memory.surface.start_cache).
"""
from __future__ import annotations

import os

from memory.core import layout

ARCHIVE_LIVE = 1000  # the archive's newest live entries read (a session-start map titles a few hundred)
INLINE_BYTES = 2 << 20  # a larger archive whose part is not cached is not read by a hook
# the modules that decide which lines are kept (parsing, latest-wins), relative to the memory package
RULES = ("core/jsonio.py", "core/jsonline.py", "core/shape.py", "store/reading.py", "store/view.py",
         "store/archived.py")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Part:
    """The archive's deciding lines, with each one's line number in the archive (`at`: latest-wins breaks a tie of
    `ts` by the later line, across keys too); the checksums of its live keys past ARCHIVE_LIVE; the lines of such
    keys read so far because an active line touched them (key -> [line number, line])."""

    def __init__(self, lines: list[dict], at: list[int], past: set[int],
                 fetched: dict[str, list[list]] | None = None) -> None:
        self.lines, self.at, self.past = lines, at, past
        self.fetched = fetched if fetched is not None else {}


def source(memory_dir: str) -> tuple | None:
    """The archive's identity (None when there is none)."""
    from memory.core import fsio

    return fsio.stamp(os.path.join(memory_dir, layout.ARCHIVE))


def rules() -> tuple:
    """The identity of the modules in RULES."""
    from memory.core import fsio

    return fsio.stamps(_PACKAGE, RULES)


def _checksum(key: str) -> int:
    import zlib

    return zlib.crc32(key.encode("utf-8", "surrogatepass"))


def part(memory_dir: str, src: tuple | None, cached: bytes | None,
         read_large: bool = False) -> tuple[Part | None, bool]:
    """(the part of the archive `src`, whether it is that archive's): from the start cache's bytes `cached` when
    they were taken from `src` under these rules, else read now (not a file larger than INLINE_BYTES unless
    `read_large`); failing that, the cached part of the archive as it was before (False), or None. `src`: taken
    after the active file was read (rotation appends to the archive before it replaces the active file, so that
    archive holds every line the active read missed)."""
    if src is None:
        return Part([], [], set()), True
    record = cached_record(cached)
    if record is not None and record["src"] == src:
        return record["part"], True
    if src[2] <= INLINE_BYTES or read_large:
        found = _read(memory_dir)
        if found is not None:
            return found, True
    return (record["part"], False) if record is not None else (None, False)


def _read(memory_dir: str) -> Part | None:
    """The archive's part, read now; None when the archive can't be read (a folder or a link in its place, no
    permission: the active knowledge alone)."""
    from memory.core import fsio
    from memory.store import view

    try:
        data = fsio.read_bytes(os.path.join(memory_dir, layout.ARCHIVE)) or b""
    except OSError:
        return None
    numbered = _numbered(data, range(data.count(b"\n")))
    lines = [line for _, line in numbered]
    kept, past = view.deciding(lines, ARCHIVE_LIVE)
    number = {id(line): n for n, line in numbered}
    return Part(kept, [number[id(line)] for line in kept], {_checksum(key) for key in past})


def _numbered(data: bytes, wanted: range | list[int]) -> list[tuple[int, dict]]:
    """(line number, line) of the usable lines among the `wanted` line numbers of `data`, in order; a last line
    without its newline is a write in progress (memory.store.reading)."""
    from memory.store import reading

    complete = data.rpartition(b"\n")[0].split(b"\n") if b"\n" in data else []
    out = []
    for n in wanted:
        if n < len(complete) and complete[n].strip():
            line = reading.parse_line(complete[n])
            if line is not None:
                out.append((n, line))
    return out


def before(memory_dir: str, found: Part, active: list[dict]) -> tuple[list[dict], int]:
    """The archive's lines to put before the active file's lines `active`, in the archive's order, and how many
    live entries of the archive stay out: the deciding lines, and every line of a key past ARCHIVE_LIVE that a
    line of `active` touches (read from the archive the first time, then kept in `found.fetched`)."""
    touched = {key for key in {line.get("key") for line in active} if isinstance(key, str)
               and _checksum(key) in found.past}
    missing = [key for key in touched if key not in found.fetched]
    if missing:
        found.fetched.update(_lines_of(memory_dir, missing))
    if not touched:
        return found.lines, len(found.past)
    merged = dict(zip(found.at, found.lines))
    merged.update((n, line) for key in touched for n, line in found.fetched.get(key, ()))
    return [merged[n] for n in sorted(merged)], len(found.past) - len({_checksum(key) for key in touched})


def _lines_of(memory_dir: str, keys: list[str]) -> dict[str, list[list]]:
    """Every line of `keys` in the archive, with its line number, in order ({} when it can't be read: tried
    again next time). Found by their JSON-quoted keys in the bytes, then parsed."""
    import json

    from memory.core import fsio

    try:
        data = fsio.read_bytes(os.path.join(memory_dir, layout.ARCHIVE)) or b""
    except OSError:
        return {}
    lowered = data.lower()  # as a line may spell its key with escapes or not
    starts: set[int] = set()
    for needle in {form.encode("utf-8", "surrogatepass").lower() for key in keys
                   for form in (json.dumps(key), json.dumps(key, ensure_ascii=False))}:
        at = lowered.find(needle)
        while at >= 0:
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = lowered.find(needle, at + len(needle))
    numbers, counted, previous = [], 0, 0
    for start in sorted(starts):
        counted += data.count(b"\n", previous, start)
        numbers.append(counted)
        previous = start
    wanted = set(keys)
    found: dict[str, list[list]] = {key: [] for key in keys}
    for n, line in _numbered(data, numbers):
        if line.get("key") in wanted:
            found[line["key"]].append([n, line])
    return found


def record(src: tuple | None, found: Part) -> dict:
    """What the start cache keeps of the part `found` of the archive `src`."""
    return {"src": src, "rules": rules(), "lines": found.lines, "at": found.at, "past": found.past,
            "fetched": found.fetched}


def refresh(memory_dir: str) -> None:
    """Read the archive and keep its part in the start cache, for a hook that found none for the archive as it
    is (action time's file cues: memory.search.path_cues). The view beside it is left empty: session start
    computes it again, as it would anyway for an archive that changed. Kept only when the archive did not
    change during the read."""
    import marshal

    from memory.core import fsio

    src = source(memory_dir)
    found = _read(memory_dir) if src is not None else None
    if found is None or source(memory_dir) != src:
        return
    data = fsio.sections(fsio.seal(marshal.dumps({})), fsio.seal(marshal.dumps(record(src, found))))
    try:
        fsio.atomic_write(os.path.join(memory_dir, layout.START_CACHE), data, durable=False)
    except (OSError, ValueError):
        pass  # a read-only checkout: the cue map goes without the archive


def cached_record(data: bytes | None) -> dict | None:
    """The archive's part in the start cache's bytes `data`, when it was made under these rules and has the
    shape it should: {"src": …, "part": Part}; None otherwise."""
    import marshal

    from memory.core import fsio

    if not data:
        return None
    try:
        found = marshal.loads(fsio.unseal(fsio.section(data, 1)))
    except Exception:  # noqa: BLE001 - a cache that can't be read is computed again
        return None
    if not isinstance(found, dict) or found.get("rules") != rules():
        return None
    lines, at, past, fetched = (found.get(name) for name in ("lines", "at", "past", "fetched"))
    from memory.core.shape import is_line

    if not (isinstance(lines, list) and all(isinstance(line, dict) and is_line(line) for line in lines)
            and isinstance(at, list) and len(at) == len(lines) and all(isinstance(n, int) for n in at)
            and isinstance(past, set) and isinstance(fetched, dict)
            and all(isinstance(v, list) and all(isinstance(x, list) and len(x) == 2 and isinstance(x[0], int)
                                                and isinstance(x[1], dict) and is_line(x[1]) for x in v)
                    for v in fetched.values())):
        return None
    return {"src": found.get("src"), "part": Part(lines, at, past, fetched)}


def read_cache(memory_dir: str) -> bytes | None:
    """The start cache's bytes (None when there are none)."""
    from memory.core import fsio

    try:
        return fsio.read_bytes(os.path.join(memory_dir, layout.START_CACHE))
    except OSError:
        return None
