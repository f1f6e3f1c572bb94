"""bin/memory-merge: a git merge driver for the append-only knowledge files (`merge=memory-hooks`).

git runs it as `memory-merge %O %A %B %P` (base, ours, theirs, path) and takes %A as the result. The result
is the union of both sides' lines, each line once, minus the lines one side removed since the base (only
rotation removes lines from the active file, and it moved them to the archive, whose own merge keeps them:
so an entry ends up in exactly one of the two files). A line one side rewrote in place since the base
(`recall.sh --redact`: same identity, another value) is taken as rewritten when the other side still has the
base's. Identity of a line: (`capture_id`, `key`, `type`)
when it has a capture_id, else its canonical JSON (sorted keys), else its bytes (a malformed line is kept,
never dropped; memory-doctor flags it).

Order: the two sides are merged like sorted runs: each side keeps its own order, and of the two next lines
the one with the lower `ts` comes first (equal `ts`: the lower identity). That choice looks only at the two
lines, never at which side is "ours", so merging either way gives the same file and latest-wins reads give
the same answer. Always exits 0 for any pair of files it can read (2 when it can't: git then reports a
conflict and leaves the file as it was).

The active file may pass 1,000 lines after a merge: the next fold (`memory-doctor --compact`) rotates it, under
the store's lock (session start never does: docs/branches.md). Rotating here would write the archive while git
may still be merging it.
"""
from __future__ import annotations

import json
import os
import sys

from memory import TYPE_CHECKING
from memory.core import fsio, layout

if TYPE_CHECKING:
    from collections.abc import Iterator

Line = tuple[float, bytes, bytes]  # (ts, identity, the line's bytes without its newline)


def identity(obj: object, raw: bytes) -> bytes:
    """What makes two lines the same line."""
    if isinstance(obj, dict):
        if isinstance(obj.get("capture_id"), str):
            return json.dumps(["cid", obj["capture_id"], obj.get("key"), obj.get("type")]).encode()
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8",
                                                                                              "surrogatepass")
    return b"raw:" + raw.strip()


def parse(data: bytes) -> list[Line]:
    """The lines of a file with their ts (a line without one takes the ts of the line before it)."""
    lines = []
    ts = 0.0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            obj = None
        value = obj.get("ts") if isinstance(obj, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            ts = float(value)
        lines.append((ts, identity(obj, raw), raw))
    return lines


def merge_lines(base: list[Line], ours: list[Line], theirs: list[Line]) -> list[bytes]:
    """The merged lines (see the module docstring)."""
    in_base = {line[1] for line in base}
    in_ours = {line[1] for line in ours}
    in_theirs = {line[1] for line in theirs}
    removed = {i for i in in_base if i not in in_ours or i not in in_theirs}
    left = [line for line in ours if line[1] not in removed]
    right = [line for line in theirs if line[1] not in removed]
    rewritten = _rewritten(base, left, right)
    out: list[bytes] = []
    seen: set[bytes] = set()
    for line in _interleave(left, right):
        if line[1] not in seen:
            seen.add(line[1])
            out.append(rewritten.get(line[1], line[2]))
    return out


def _rewritten(base: list[Line], ours: list[Line], theirs: list[Line]) -> dict[bytes, bytes]:
    """Identity -> bytes, for the lines one side rewrote since the base and the other left as they were
    (`recall.sh --redact` keeps a line's identity): the rewrite wins, whichever side merges, or a merge would
    bring a redacted secret back. The same object written with other spacing is no rewrite."""
    before = {line[1]: line[2] for line in base}
    mine = {line[1]: line[2] for line in ours}
    found: dict[bytes, bytes] = {}
    for _, identity, raw in theirs:
        old, kept = before.get(identity), mine.get(identity)
        if old is None or kept is None or kept == raw or _same(kept, raw):
            continue
        if _same(kept, old):
            found[identity] = raw
        elif _same(raw, old):
            found[identity] = kept
    return found


def _same(a: bytes, b: bytes) -> bool:
    """Two lines holding the same JSON value (or the same bytes)."""
    if a == b:
        return True
    try:
        return bool(json.loads(a) == json.loads(b))
    except (ValueError, RecursionError):
        return False


def _interleave(left: list[Line], right: list[Line]) -> Iterator[Line]:
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i][1] == right[j][1] or left[i][:2] <= right[j][:2]:
            yield left[i]
            i += 1
        else:
            yield right[j]
            j += 1
    yield from left[i:]
    yield from right[j:]


def collisions(base: list[Line], ours: list[Line], theirs: list[Line]) -> list[str]:
    """Keys under which both sides wrote an entry since the base, with different texts: the newer one wins every
    read (latest per key), so the other insight is out of view, though kept (`recall.sh KEY --history`). Two
    teammates' insights opening with the same 60 characters share an automatic key this way."""
    def texts(side: list[Line]) -> dict[str, set[str]]:
        old = {line[1] for line in base}
        found: dict[str, set[str]] = {}
        for _, ident, raw in side:
            if ident in old:
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict) and isinstance(obj.get("key"), str) and isinstance(obj.get("content"), str):
                found.setdefault(obj["key"], set()).add(" ".join(obj["content"].split()))
        return found

    mine, other = texts(ours), texts(theirs)
    return sorted(key for key in mine.keys() & other.keys() if mine[key] != other[key])


def merge_files(base_path: str, ours_path: str, theirs_path: str) -> bytes:
    """The merged bytes of three files (a missing base is an empty one: both sides added the file); on stderr,
    a line per key both sides wrote a different text under (`collisions`: git shows it to the person merging)."""
    def read(path: str) -> bytes:
        try:  # whole (a merge keeps every line); a FIFO is an OSError, not a wait
            return fsio.read_regular(path, follow=True)
        except FileNotFoundError:
            return b""

    base, ours, theirs = parse(read(base_path)), parse(read(ours_path)), parse(read(theirs_path))
    for key in collisions(base, ours, theirs)[:10]:
        print(f"memory-merge: both sides wrote a different insight under `{key}`: the newer is shown, the other is "
              f"kept out of view (recall.sh {key} --history); to keep both, add one again with other opening "
              "words", file=sys.stderr)
    return b"".join(line + b"\n" for line in merge_lines(base, ours, theirs))


def main(argv: list[str] | None = None) -> int:
    """git's merge driver entry: memory-merge BASE OURS THEIRS [PATH]; the result replaces OURS."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3:
        print("usage: memory-merge BASE OURS THEIRS [PATH]  (git: driver = memory-merge %O %A %B %P)",
              file=sys.stderr)
        return 2
    try:
        result = merge_files(args[0], args[1], args[2])
        if len(args) > 3 and os.path.basename(args[3]) == layout.REDACTIONS:
            from memory.store import redactions  # two clones' records of one capture: see redactions.heal

            result = redactions.heal_bytes(result)
        fsio.atomic_write(os.path.abspath(args[1]), result)
    except OSError as exc:
        print(f"memory-merge: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
