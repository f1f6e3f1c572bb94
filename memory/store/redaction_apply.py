"""Applying the recorded redactions (memory.store.redactions) to this clone's knowledge files.

Under the store's lock (memory.store.store.apply_redactions; `--compact` and rotation call `apply_locked` inside
theirs): every line that matches a record and differs from it is replaced by the recorded line, each file
replaced whole (temp file + fsync + os.replace), and the derived files holding entries' text are deleted. A
line equal to a record is never rewritten, so applying twice changes no byte. Which record a line takes:
- of the records it matches, the ones no other matching record supersedes (a later `--redact` of the line
  matches the earlier record's line, not the reverse);
- then one record per old line: a line left with one record takes it (and no other line may); records that
  differ only in their keys (entries of one capture redacted whole) go to their lines in file order; a record
  two different old lines want, or a line left wanting two records that differ, is left alone (`ambiguous`:
  the doctor says so).
The machine-local marker (`redactions.applied`) holds the records' and each file's stats after a pass: the next
pass reads only the files changed since (a new capture's fragment, not the archive), and session start's check
(`unchecked`) is a stat when no clone ever redacted.
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.core import fsio, jsonio, layout
from memory.store import redactions
from memory.store.redactions import DERIVED, Matcher

if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet


class Applied:
    """What applying the records did (or, from `pending`, would do): lines per file, and records left alone."""

    def __init__(self) -> None:
        self.rewritten: dict[str, int] = {}
        self.ambiguous: list[str] = []  # the recorded keys of records this clone's lines do not tell apart
        self.records_healed = 0  # records naming a key another clone's redaction renamed (redactions.heal)

    @property
    def lines(self) -> int:
        return sum(self.rewritten.values())


def _names(memory_dir: str) -> list[str]:
    """The knowledge files, archive first (as --redact and rotation write them), then the inbox's fragments."""
    from memory.store import inbox

    return [layout.ARCHIVE, layout.KNOWLEDGE] + [os.path.join(layout.INBOX, n) for n in inbox.names(memory_dir)]


def _plan(memory_dir: str, records: list[dict],
          skip: AbstractSet[str] = frozenset()) -> tuple[dict[str, bytes], Applied]:
    """The files' new bytes (only those that change) and what that does, the files in `skip` not read (unchanged
    since the records were last applied to them); nothing written."""
    from memory.store.reading import parse_line

    done = Applied()
    if not records:
        return {}, done
    matchers = [Matcher(r) for r in records]
    by_stamp = redactions.by_stamp(matchers)
    times = {jsonio.dumps(m.line.get("ts")).encode() for m in matchers}
    files: dict[str, list[bytes]] = {}
    places: dict[str, list[tuple[str, int]]] = {}  # an old line's value -> where it is (copies in several files)
    wanted: dict[str, list[Matcher]] = {}  # an old line's value -> the records it may take
    for name in _names(memory_dir):
        if name in skip:
            continue
        lines = (fsio.read_bytes(os.path.join(memory_dir, name)) or b"").split(b"\n")
        files[name] = lines
        for at, raw in enumerate(lines):
            if times.isdisjoint(redactions.TS.findall(raw)):  # most lines: no record's time, never parsed
                continue
            parsed = parse_line(raw)
            if parsed is None:
                continue
            found = _distinct(_current([m for m in by_stamp.get(redactions.stamp(parsed), ()) if m.matches(parsed)]))
            if not found or any(m.applied(parsed) for m in found):
                continue
            value = jsonio.dumps(parsed)
            places.setdefault(value, []).append((name, at))
            wanted[value] = found
    for value, m in _assign(wanted, done).items():
        for name, at in places[value]:
            files[name][at] = jsonio.dumps_line(m.line).rstrip(b"\n")
            done.rewritten[name] = done.rewritten.get(name, 0) + 1
    _rekey_strays(memory_dir, matchers, files, done)
    return {name: b"\n".join(files[name]) for name in done.rewritten}, done


def _rekey_strays(memory_dir: str, matchers: list[Matcher], files: dict[str, list[bytes]], done: Applied) -> None:
    """A pin, forget or approval another clone wrote under an entry's key before pulling the `--redact` that
    renamed it keeps the old key, and with it the secret's slug. Such a line takes the record's new key when its
    key names no entry any more (the entry went under the new one) and fits the renamed-key pattern of exactly
    one record (a pattern with more than the type left: `learned-*` would fit any key)."""
    from memory.core.shape import CONTROL_TYPES
    from memory.store.reading import parse_line

    loose = [(m, [pieces for pieces in m.keys[:-1] if len(pieces) > 1
                  and len("".join(pieces)) > len(m.line["key"].split("-", 1)[0]) + 1]) for m in matchers]
    loose = [(m, patterns) for m, patterns in loose if patterns]
    if not loose:  # no record renamed a key: no control line can be a stray (most applies)
        return
    strays: list[tuple[str, int, dict, str]] = []
    for name, lines in files.items():
        for at, raw in enumerate(lines):
            if b'"content"' in raw or b'"key"' not in raw:
                continue
            line = parse_line(raw)
            key = line.get("key") if line is not None and line.get("type") in CONTROL_TYPES else None
            if line is None or not isinstance(key, str):
                continue
            new = {m.line["key"] for m, patterns in loose if key != m.line["key"] and key not in m.not_keys
                   and any(redactions.fits(pieces, key) for pieces in patterns)}
            if len(new) == 1:
                strays.append((name, at, line, new.pop()))
    if not strays:
        return
    named = _entry_keys(memory_dir, {line["key"] for _, _, line, _ in strays}, files)
    for name, at, line, new_key in strays:
        if line["key"] not in named:
            files[name][at] = jsonio.dumps_line(dict(line, key=new_key)).rstrip(b"\n")
            done.rewritten[name] = done.rewritten.get(name, 0) + 1


def _entry_keys(memory_dir: str, keys: set[str], files: dict[str, list[bytes]]) -> set[str]:
    """Which of `keys` an entry (a line with content) in any knowledge file holds: in `files` as this pass
    rewrites them, the others as they are."""
    from memory.store.reading import parse_line

    wanted = {key: jsonio.dumps(key).encode() for key in keys}
    found = set()
    for name in _names(memory_dir):
        lines = files.get(name)
        if lines is None:
            lines = (fsio.read_bytes(os.path.join(memory_dir, name)) or b"").split(b"\n")
        for raw in lines:
            if b'"content"' not in raw or not any(token in raw for token in wanted.values()):
                continue
            line = parse_line(raw)
            if line is not None and line.get("key") in wanted:
                found.add(line["key"])
    return found


def _current(found: list[Matcher]) -> list[Matcher]:
    """The records no other one of `found` supersedes (its line matches theirs, not the reverse)."""
    return [m for m in found if not any(o is not m and o.matches(m.line) and not m.matches(o.line) for o in found)]


def _distinct(found: list[Matcher]) -> list[Matcher]:
    """One of the records that rewrite into the same line (two clones' records of one line, healed into one:
    redactions.heal): one answer, not two records wanting one line."""
    lines: set[str] = set()
    out = []
    for m in found:
        line = jsonio.dumps(m.line)
        if line not in lines:
            lines.add(line)
            out.append(m)
    return out


def _assign(wanted: dict[str, list[Matcher]], done: Applied) -> dict[str, Matcher]:
    """One record per old line, as the module's docstring says; what is left undecided goes to `done.ambiguous`."""
    left = {value: list(found) for value, found in wanted.items()}
    chosen: dict[str, Matcher] = {}
    while True:
        claims: dict[int, list[str]] = {}
        for value, found in left.items():
            if len(found) == 1:
                claims.setdefault(id(found[0]), []).append(value)
        if not claims:
            break
        for values in claims.values():
            m = left[values[0]][0]
            if len(values) == 1 or _versions_of_one(values):
                chosen.update((value, m) for value in values)
            else:
                _ambiguous(done, [m])
            for value in values:
                del left[value]
            for value, found in left.items():
                left[value] = [o for o in found if o is not m]
        for value in [v for v, found in left.items() if not found]:  # what it could be went to other lines
            del left[value]
    groups: dict[tuple[int, ...], list[str]] = {}
    for value, found in left.items():
        groups.setdefault(tuple(sorted(id(m) for m in found)), []).append(value)
    for values in groups.values():
        found = left[values[0]]
        shapes = {jsonio.dumps({k: v for k, v in m.line.items() if k != "key" and k not in DERIVED}) for m in found}
        if len(shapes) == 1 and len(found) == len(values):  # interchangeable: in the order of the files
            chosen.update(zip(values, found))
        else:
            _ambiguous(done, found)
    return chosen


def _versions_of_one(values: list[str]) -> bool:
    """The old lines one record wants are versions of one entry that two clones redacted apart (their texts differ
    only where one of them hid something: memory.store.redaction_meet), not entries of one capture."""
    from memory.store.redaction_meet import meet_lines

    lines = [jsonio.loads(value) for value in values]
    return all(isinstance(line, dict) for line in lines) and all(
        meet_lines(a, b, DERIVED + ("key",)) is not None for i, a in enumerate(lines) for b in lines[i + 1:])


def _ambiguous(done: Applied, found: list[Matcher]) -> None:
    for m in found:
        if m.line["key"] not in done.ambiguous:
            done.ambiguous.append(m.line["key"])


def apply_locked(memory_dir: str) -> Applied:
    """Rewrite every line a record rewrites, drop the derived files when anything changed, and note in the
    marker what this clone's files are now. Under the lock."""
    before = _marker(memory_dir)
    now = _identity(memory_dir)
    same = {n for n, ident in now["files"].items() if before.get("files", {}).get(n) == ident} \
        if before.get("records") == now["records"] else set()
    records, healed = _healed(memory_dir)
    if healed:  # two clones' records merged: a key one names held the other's secret
        redactions.save(memory_dir, records)
        same = set()
    new, done = _plan(memory_dir, records, same)
    done.records_healed = healed
    for name, data in new.items():
        fsio.atomic_write(os.path.join(memory_dir, name), data)
    if new:
        drop_derived(memory_dir)
    try:
        fsio.atomic_write(os.path.join(memory_dir, redactions.APPLIED), jsonio.dumps_line(_identity(memory_dir)),
                          durable=False)
    except OSError:
        pass  # machine-local: the next check only looks again
    return done


def pending(memory_dir: str) -> Applied:
    """What applying would do here (nothing written): the doctor's check."""
    records, healed = _healed(memory_dir)
    done = _plan(memory_dir, records)[1]
    done.records_healed = healed
    return done


def _healed(memory_dir: str) -> tuple[list[dict], int]:
    """The records as redactions.heal leaves them, and how many it changed."""
    records = redactions.load(memory_dir)
    healed = redactions.heal(records)
    return healed, sum(a is not b for a, b in zip(records, healed))


def drop_derived(memory_dir: str) -> None:
    """The derived files that hold entries' text go before anyone can read the old text from them again."""
    for name in (layout.INDEX, layout.ARCHIVE_INDEX, layout.START_CACHE, layout.PATH_CUES):
        try:
            os.unlink(os.path.join(memory_dir, name))
        except FileNotFoundError:
            pass


def _identity(memory_dir: str) -> dict:
    """The records' and each knowledge file's stats (nothing read): what the marker holds after a pass."""
    files = {name: list(fsio.identity(os.path.join(memory_dir, name)) or ()) for name in _names(memory_dir)}
    return {"records": list(fsio.identity(os.path.join(memory_dir, redactions.RECORDS)) or ()), "files": files}


def _marker(memory_dir: str) -> dict:
    try:
        found = jsonio.loads(fsio.read_bytes(os.path.join(memory_dir, redactions.APPLIED)) or b"{}")
    except (OSError, ValueError, RecursionError):  # machine-local: unreadable means a full pass
        return {}
    return found if isinstance(found, dict) else {}


def unchecked(memory_dir: str) -> bool:
    """Session start's cheap test: there are records, and the files changed since they were last applied.
    One stat when no clone ever redacted."""
    if not os.path.exists(os.path.join(memory_dir, redactions.RECORDS)):
        return False
    return _marker(memory_dir) != _identity(memory_dir)
