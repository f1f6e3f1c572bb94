"""Recorded redactions: what `recall.sh --redact` rewrote, so that every clone rewrites the same lines.

A clone that folded an inbox fragment into its knowledge.jsonl (`memory-doctor --compact`) before pulling
another clone's `--redact` of that fragment gets a modify/delete conflict from git, and however it is resolved
its knowledge.jsonl keeps the old line, live under the old key. So `--redact` also writes to `redactions.jsonl`
(committed, merged by the memory-hooks driver: install.sh's attributes, and .beads/memory/.gitattributes for
older installs), per line it rewrote, that line as it is now stored and the old key as a pattern: the old key
where it held no secret, else with the secret's slug cut out (`*`), and then the other entries of its capture
as not it. Never the old text, nor a hash of it (a short password's hash is brute-forced in seconds).

A line matches a record (`Matcher`) when it could have been rewritten into the recorded line: every field
equal except where the recorded text says `<redacted:manual>` (any text there), the derived `tags` and
`redacted` aside, its key the recorded key or one its patterns match and not one it names as not it. A line
written later under the same key (`LEARNED[key]:` again) has another ts and capture_id: no match. Applying the
records to a clone's files: memory.store.redaction_apply.
"""
from __future__ import annotations

import os
import re

from memory import TYPE_CHECKING
from memory.core import fsio, jsonio, layout
from memory.store.redaction_meet import MARKER, meet_lines

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

RECORDS = layout.REDACTIONS
APPLIED = layout.REDACTIONS_APPLIED
ATTRIBUTES_LINE = f"/{RECORDS} merge=memory-hooks"  # the union driver (memory.store.merge), in the memory folder
DERIVED = ("tags", "redacted")  # recomputed by a redaction: never compared
WILD = "*"  # in a key pattern: what the secret's slug was


# --- what --redact records ---------------------------------------------------------------------------------

def key_pattern(old_key: str, renamed: bool, text: str | None) -> str:
    """The old key as a record may hold it: whole when the redaction kept it (it held no secret); else with
    TEXT's slug cut out (also where the 60-character key ends inside it); with the whole text redacted, only
    the type (an automatic key is all text)."""
    if not renamed:
        return old_key
    kind = old_key.split("-", 1)[0]
    from memory.store.entry import slug

    part = slug(text or "")
    if text is None or not part:
        return f"{kind}-{WILD}"
    if part in old_key:
        return old_key.replace(part, WILD)
    for cut in range(len(part) - 1, 0, -1):  # the key's end is the start of the slug
        if old_key.endswith(part[:cut]):
            return old_key[:-cut] + WILD
    return f"{kind}-{WILD}"


def record(line: dict, from_keys: list[str], every_line: Sequence[dict] = (), old_key: str = "") -> dict:
    """A record of `line` (as now stored). Where a key pattern is loose (`*`), the keys of the other entries of
    its capture (same type, ts and capture_id, in `every_line`) are named as not it: the text of the whole
    entry redacted, nothing else tells them apart."""
    rec: dict = {"line": line, "from_keys": sorted(set(from_keys))}
    if any(WILD in p for p in from_keys):
        mine, keys = stamp(line), {line.get("key"), old_key}
        others = {e["key"] for e in every_line if stamp(e) == mine and e.get("capture_id") == line.get("capture_id")
                  and isinstance(e.get("key"), str) and e["key"] not in keys}
        if others:
            rec["not_keys"] = sorted(others)
    return rec


def add(memory_dir: str, new: list[dict], text: str | None, renamed: tuple[str, str] | None = None) -> None:
    """Append `new` records (under the store's lock, as --redact holds it): an earlier record of a line a new
    one rewrote again is replaced by it (its key patterns kept, with TEXT's slug cut out); TEXT anywhere in an
    earlier record is replaced by the marker, and the key this redaction renamed (`renamed`: old, new), where
    an earlier record names it as not its own, by the new one (the old held the secret). The file is rewritten
    whole (temp + fsync + os.replace)."""
    unique: dict[str, dict] = {}
    for n in new:  # one line redacted in two files (an inbox fragment and its fold) is one record
        same = unique.setdefault(jsonio.dumps(n["line"]), n)
        same["from_keys"] = sorted(set(same["from_keys"]) | set(n["from_keys"]))
    new = list(unique.values())
    kept: list[dict] = []
    for old in load(memory_dir):
        later = [n for n in new if Matcher(n).matches(old["line"])]
        for n in later:
            n["from_keys"] = sorted(set(n["from_keys"]) | {key_pattern(p, True, text) if text else p
                                                           for p in old["from_keys"]})
        if not later:
            kept.append(_renamed(_scrubbed(old, text) if text else old, renamed))
    save(memory_dir, heal(kept + new))
    _attribute(memory_dir)


def heal(records: list[dict]) -> list[dict]:
    """Records merged from two clones that redacted two entries of one capture at once: each names the other's
    old key as not its own (`not_keys`), and that key held the other clone's secret. Such a key, fitting the
    pattern of a record of the same capture, takes that record's new key, as `--redact` renames the keys of
    the records it finds (`_renamed`); records that need nothing come back as they are."""
    loose = [(rec, [p.split(WILD) for p in rec["from_keys"] if isinstance(p, str) and WILD in p]) for rec in records]
    out = []
    for rec in records:
        names = rec.get("not_keys")
        if not isinstance(names, list) or not names:
            out.append(rec)
            continue
        mine = (stamp(rec["line"]), rec["line"].get("capture_id"))
        renamed = []
        for key in names:
            new = next((o["line"]["key"] for o, patterns in loose if o is not rec and isinstance(key, str)
                        and (stamp(o["line"]), o["line"].get("capture_id")) == mine
                        and any(fits(pieces, key) for pieces in patterns)), key)
            renamed.append(new)
        out.append(rec if renamed == names else dict(rec, not_keys=sorted(set(renamed))))
    return meet_records(out)


def meet_records(records: list[dict]) -> list[dict]:
    """Records (memory.store.redactions) of one entry from two clones that each redacted another part of it, each
    holding in the clear what the other hid: both take the line with every part hidden, under the key one of
    them renamed it to, and keep every key the entry had as a pattern that holds no secret. Others as they are."""
    groups: dict[tuple[str, str], list[int]] = {}
    for at, rec in enumerate(records):
        line = rec["line"]
        groups.setdefault((stamp(line), repr(line.get("capture_id"))), []).append(at)
    out = list(records)
    for members in groups.values():
        clusters: list[tuple[dict, list[int]]] = []
        for at in members:
            for c, (merged, ats) in enumerate(clusters):
                met = meet_lines(merged, records[at]["line"], DERIVED + ("key",))
                if met is not None and not any(_apart(records[at], records[o]) for o in ats):
                    clusters[c] = (met, ats + [at])
                    break
            else:
                clusters.append((records[at]["line"], [at]))
        for merged, ats in clusters:
            mine = [records[at] for at in ats]
            keys = {rec["line"]["key"] for rec in mine}
            renamed = sorted(rec["line"]["key"] for rec in mine if any(WILD in p for p in _patterns(rec)))
            if len(ats) < 2 or (len(keys) > 1 and not renamed):
                continue  # one record; or keys that differ and no redaction renamed one: which is it?
            # what one of them hid: in no key the records keep (an automatic key holds the text's first words)
            hidden = _hidden([str(rec["line"].get("content", "")) for rec in mine], str(merged.get("content", "")))
            # of the keys a redaction gave it, the one holding least of what the other clone hid ("decision-redacted-
            # manual" over one cut word by word)
            key = min(renamed or [mine[0]["line"]["key"]], key=lambda k: (sum(part in k for part in hidden), k))
            merged = dict(merged, key=_cut(key, hidden, "redacted"))
            for at, rec in zip(ats, mine):
                named = {_cut(k, hidden, WILD) for k in _patterns(rec) + [rec["line"]["key"]]} - {merged["key"]}
                new = dict(rec, line=merged, from_keys=sorted(named))
                if new != rec:
                    out[at] = new
    return out


def _hidden(texts: list[str], merged: str) -> list[str]:
    """The slugs of what some of `texts` hold in the clear and `merged` hides, longest first: each hidden part
    whole (`a1-b2-c3-d4`, whose words are too short to tell) and its words of three characters or more, as an
    ASCII key and as a key in any script holds them (memory.store.entry.make_key)."""
    from memory.store.entry import slug, unicode_slug
    from memory.store.redaction_meet import hidden_parts

    found: set[str] = set()
    for part in {part for text in texts for part in hidden_parts(text, merged)}:
        for make in (slug, unicode_slug):
            found.add(make(part))
            found.update(w for w in (make(word) for word in re.findall(r"[^\W_]+", part)) if len(w) >= 3)
    return sorted(found - {""}, key=lambda s: (-len(s), s))


def _cut(key: str, hidden: list[str], into: str) -> str:
    """`key` with each hidden slug replaced by `into`, and one a key cut at 60 characters ends inside."""
    for part in hidden:
        key = key.replace(part, into)
    for part in hidden:
        tail = next((n for n in range(len(part) - 1, 1, -1) if key.endswith("-" + part[:n])), 0)
        if tail:
            return key[:-tail] + into
    return key


def _patterns(rec: dict) -> list[str]:
    return [p for p in rec.get("from_keys") or () if isinstance(p, str)]


def _fits(pattern: str, key: str) -> bool:
    return fits(pattern.split(WILD), key)


def _apart(a: dict, b: dict) -> bool:
    """One names the other's key (or a key it had) as not its own: two entries of one capture."""
    for one, other in ((a, b), (b, a)):
        theirs = [other["line"]["key"]] + _patterns(other)
        for name in one.get("not_keys") or ():
            if isinstance(name, str) and any(name == k or _fits(k, name) for k in theirs):
                return True
    return False


def heal_bytes(data: bytes) -> bytes:
    """`heal` on a records file's bytes (the merge driver's result): each record that changes is written anew,
    every other line kept as it was."""
    lines = data.split(b"\n")
    parsed: list[tuple[int, dict]] = []
    for at, raw in enumerate(lines):
        try:
            obj = jsonio.loads(raw) if raw.strip() else None
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and isinstance(obj.get("line"), dict) and isinstance(obj.get("from_keys"), list) \
                and isinstance(obj["line"].get("key"), str):
            parsed.append((at, obj))
    for (at, before), after in zip(parsed, heal([obj for _, obj in parsed])):
        if after is not before:
            lines[at] = jsonio.dumps_line(after).rstrip(b"\n")
    return b"\n".join(lines)


def save(memory_dir: str, records: list[dict]) -> None:
    """The records file rewritten whole (temp + fsync + os.replace)."""
    fsio.atomic_write(os.path.join(memory_dir, RECORDS), b"".join(jsonio.dumps_line(r) for r in records))


def _scrubbed(old: dict, text: str) -> dict:
    from memory.store.entry import slug

    line = replace_all(old["line"], text)
    part = slug(text)
    scrubbed = dict(old, line=line)
    for field in ("from_keys", "not_keys"):
        if isinstance(old.get(field), list):
            scrubbed[field] = [p.replace(part, WILD) if part and isinstance(p, str) else p for p in old[field]]
    return scrubbed


def _renamed(old: dict, renamed: tuple[str, str] | None) -> dict:
    if renamed is None or renamed[0] not in (old.get("not_keys") or ()):
        return old
    return dict(old, not_keys=sorted({renamed[1] if k == renamed[0] else k for k in old["not_keys"]}))


def replace_all(value: Any, text: str) -> Any:
    """`value` with `text` replaced by the marker in every string, keys (`key` fields) aside."""
    if isinstance(value, str):
        return value.replace(text, MARKER)
    if isinstance(value, list):
        return [replace_all(v, text) for v in value]
    if isinstance(value, dict):
        return {k: (v if k == "key" else replace_all(v, text)) for k, v in value.items()}
    return value


def _attribute(memory_dir: str) -> None:
    """The memory folder's .gitattributes names the driver for the records, unless git already merges them with
    it: install.sh's block in the repository's .gitattributes names redactions.jsonl; an older install's block,
    a plugin install, or a folder outside git does not, and there the file is written (a second, untracked
    file beside the root's line was noise in `git status`)."""
    path = os.path.join(memory_dir, layout.MEMORY_ATTRIBUTES)
    current = (fsio.read_bytes(path) or b"").decode("utf-8", "replace")
    if ATTRIBUTES_LINE in current.splitlines() or _driver_named_elsewhere(memory_dir):
        return
    lead = current if not current or current.endswith("\n") else current + "\n"
    fsio.atomic_write(path, (lead + ATTRIBUTES_LINE + "\n").encode())


def _driver_named_elsewhere(memory_dir: str) -> bool:
    """git resolves `merge=memory-hooks` for the records from the work tree's attributes files, as its merge will.
    No git, no repository: False."""
    from memory.core import paths
    from memory.store.gitmerge import DRIVER

    return paths.git_lines(["check-attr", "merge", "--", RECORDS], memory_dir, 5.0) == [f"{RECORDS}: merge: {DRIVER}"]


def load(memory_dir: str) -> list[dict]:
    """The records (malformed lines and conflict markers skipped)."""
    found = []
    for raw in (fsio.read_bytes(os.path.join(memory_dir, RECORDS)) or b"").split(b"\n"):
        try:
            obj = jsonio.loads(raw) if raw.strip() else None
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            continue
        if isinstance(obj, dict) and isinstance(obj.get("line"), dict) and isinstance(obj.get("from_keys"), list) \
                and isinstance(obj["line"].get("key"), str):
            found.append(obj)
    return found


# --- matching ----------------------------------------------------------------------------------------------

class Matcher:
    """Which lines a record rewrites (see the module's docstring)."""

    def __init__(self, rec: dict) -> None:
        self.line: dict = rec["line"]
        self.fields = set(self.line) - set(DERIVED)
        keys = [p for p in rec["from_keys"] if isinstance(p, str)] + [self.line["key"]]
        self.keys = [p.split(WILD) for p in keys]  # literal pieces, a wildcard between each two
        self.not_keys = set(rec.get("not_keys") or ())

    def matches(self, line: dict) -> bool:
        """`line` could have been rewritten into the recorded line (or is it)."""
        if set(line) - set(DERIVED) != self.fields or not isinstance(line.get("key"), str):
            return False
        if line["key"] in self.not_keys or not any(fits(pieces, line["key"]) for pieces in self.keys):
            return False
        return all(_wild(self.line[f], line[f]) for f in self.fields if f != "key")

    def applied(self, line: dict) -> bool:
        return line == self.line


def _wild(recorded: Any, value: Any) -> bool:
    if recorded == value:
        return True
    if isinstance(recorded, str) and isinstance(value, str) and MARKER in recorded:
        return fits(recorded.split(MARKER), value)
    if isinstance(recorded, list) and isinstance(value, list) and len(recorded) == len(value):
        return all(_wild(r, v) for r, v in zip(recorded, value))
    if isinstance(recorded, dict) and isinstance(value, dict) and set(recorded) == set(value):
        return all(_wild(recorded[k], value[k]) for k in recorded)
    return False


def fits(pieces: list[str], value: str) -> bool:
    """Whether `value` is the literal `pieces` in order with at least one character where each marker stood. The
    leftmost place of each piece is as good as any (linear; a regex of `.+?` between them backtracks
    polynomially on a line a bad merge or a hand edit shaped so)."""
    if len(pieces) == 1:
        return value == pieces[0]
    first, *middle, last = pieces
    if not value.startswith(first):
        return False
    at = len(first)
    for piece in middle:
        found = value.find(piece, at + 1)
        if found < 0:
            return False
        at = found + len(piece)
    return len(value) - len(last) >= at + 1 and value.endswith(last)


def by_stamp(matchers: list[Matcher]) -> dict[str, list[Matcher]]:
    """Matchers by (type, ts): a cheap first test (a rewrite never changes either)."""
    found: dict[str, list[Matcher]] = {}
    for m in matchers:
        found.setdefault(stamp(m.line), []).append(m)
    return found


TS = re.compile(rb'"ts"\s*:\s*(-?[0-9][0-9.eE+-]*)')


def stamp(line: dict) -> str:
    return jsonio.dumps([line.get("type"), line.get("ts")])
