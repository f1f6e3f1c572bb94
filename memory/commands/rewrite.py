"""`recall.sh --redact KEY [TEXT]`: the one command that rewrites knowledge lines, for a leaked secret.

Appending a forget would leave the secret in the committed file, so the lines of KEY are rewritten in place in
both files (archive, then active), under the store's lock, each file replaced whole (temp + fsync + os.replace):
TEXT, where given, is replaced in every string of those lines (and in torn lines holding it), else the whole
content is. An automatic key is a slug of the content's start, so it is renamed too when it holds the secret.
The derived index (memory.search.index: its search text holds every entry's text) is deleted and rebuilt from the
rewritten files. Each rewritten line is also recorded (memory.store.redactions: the line as now stored, never the
old text) so that every clone rewrites its copies, even one that folded the line away from the inbox file
rewritten here. Git history still has the secret: the message says so and what to do.
"""
from __future__ import annotations

import hashlib
import os
import sys

from memory import TYPE_CHECKING
from memory.core import cli, fsio, jsonio, layout, locking
from memory.store import entry, inbox, redaction_apply, redactions, store

if TYPE_CHECKING:
    from typing import Any

MARKER = redactions.MARKER
DONE, NOTHING, REFUSED, NOT_WRITTEN = 0, 1, 2, 3
HISTORY_ADVICE = (
    "Git history still holds the old text wherever it was committed (and every clone, fork and CI cache that "
    "fetched it). If it is a credential: 1) rotate it now (revoke and reissue; a removed secret is still a "
    "leaked one); 2) commit this change; 3) to purge history: `git filter-repo --replace-text FILE` (or BFG "
    "`--replace-text`), then force-push and have everyone re-clone.")


class Outcome:
    """What a redaction did: lines rewritten per file, the key's new name, and other lines still holding TEXT."""

    def __init__(self) -> None:
        self.rewritten: dict[str, int] = {}
        self.new_key: str | None = None
        self.elsewhere: set[str] = set()  # other keys whose lines hold TEXT too
        self.lines: list[dict] = []  # the rewritten lines, as now stored (what memory.store.redactions records)


def main(memory_dir: str, name: str, text: str | None) -> int:
    """--redact: resolve KEY (suggesting near keys), rewrite its lines, say what was done and what is left."""
    from memory.capture import edit

    try:
        lines = store.load(memory_dir, include_archive=True).entries
    except OSError as exc:
        return cli.cannot_read(exc, memory_dir)
    key = edit.resolve_or_suggest(lines, name, "--redact", every_version=True)
    if key is None:
        return REFUSED
    try:
        outcome = redact_key(memory_dir, key, text)
    except locking.LockTimeout:
        return edit.not_written("recall.sh: NOT redacted: the knowledge lock stayed busy; run it again")
    except OSError as exc:
        return edit.not_written(f"recall.sh: NOT redacted: {exc.filename or store.ACTIVE} could not be rewritten "
                                f"({exc.strerror or exc})")
    if not outcome.rewritten:
        print(f"recall.sh: nothing redacted: no line of `{key}` holds that text", file=sys.stderr)
        return NOTHING
    files = ", ".join(f"{n} line{'' if n == 1 else 's'} in {f}" for f, n in outcome.rewritten.items())
    what = "that text" if text is not None else "its text"
    renamed = f"; the key, which held it too, is now `{outcome.new_key}`" if outcome.new_key else ""
    print(f"redacted `{key}`: {what} replaced by {MARKER} ({files}){renamed}.")
    if outcome.elsewhere:
        print("recall.sh: the text also occurs in lines of " + ", ".join(f"`{k}`" for k in sorted(outcome.elsewhere))
              + ": redact those too (recall.sh --redact KEY TEXT)", file=sys.stderr)
    print(HISTORY_ADVICE)
    return DONE


def redact_key(memory_dir: str, key: str, text: str | None) -> Outcome:
    """Rewrite every line of `key` in both files under the lock (see the module's docstring)."""
    outcome = Outcome()
    with locking.exclusive(store.path(memory_dir, store.LOCK)):
        store.recover(memory_dir)  # no half-done rotation or parked capture left behind the rewrite
        names = [store.ARCHIVE, store.ACTIVE]  # and every capture not yet folded in (memory.store.inbox)
        names += [os.path.join(layout.INBOX, name) for name in inbox.names(memory_dir)]
        files = {name: store.read_file(store.path(memory_dir, name)) for name in names}
        lines = [e for name in files for e in store.read("", files[name]).entries]
        outcome.new_key = _new_key(lines, key, text)
        rewritten = {}
        for name, data in files.items():
            new_data, count = _rewrite(data, key, text, outcome)
            if count:
                rewritten[name] = new_data
                outcome.rewritten[name] = count
        if outcome.lines:  # recorded first: a kill before the files are replaced leaves them to the next apply
            pattern = redactions.key_pattern(key, outcome.new_key is not None, text)
            redactions.add(memory_dir, [redactions.record(line, [pattern], lines, key) for line in outcome.lines],
                           text, (key, outcome.new_key) if outcome.new_key else None)
        for name, new_data in rewritten.items():  # the archive first, as a rotation writes
            fsio.atomic_write(store.path(memory_dir, name), new_data)
        if outcome.rewritten:
            redaction_apply.drop_derived(memory_dir)
    if outcome.rewritten:
        _rebuild_index(memory_dir)
    return outcome


def _rewrite(data: bytes, key: str, text: str | None, outcome: Outcome) -> tuple[bytes, int]:
    """The file's bytes with the lines of `key` redacted (others byte for byte), and how many changed."""
    raw_text = text.encode("utf-8", "surrogatepass") if text else None
    lines = data.split(b"\n")
    count = 0
    for at, line in enumerate(lines):
        parsed = store.parse_line(line) if line.strip() else None
        if parsed is None:
            if raw_text and raw_text in line:  # a torn copy of the line: its bytes, where they hold the text
                lines[at] = line.replace(raw_text, MARKER.encode())
                count += 1
            continue
        if parsed.get("key") != key:
            if text and _holds(parsed, text):
                outcome.elsewhere.add(str(parsed.get("key")))
            continue
        changed = _redacted(parsed, text, outcome.new_key)
        if changed is not None:
            lines[at] = jsonio.dumps_line(changed).rstrip(b"\n")
            outcome.lines.append(changed)
            count += 1
    return b"\n".join(lines), count


def _redacted(line: dict, text: str | None, new_key: str | None) -> dict | None:
    """The line with the secret gone (None when it does not hold it)."""
    new = redactions.replace_all(line, text) if text else dict(line)
    if text is None and "content" in line:
        new["content"] = MARKER
    if "content" in new and new["content"] != line.get("content"):
        new["tags"] = entry.detect_tags(str(line.get("type")), str(new["content"]))
        new["redacted"] = sorted(set(line.get("redacted") or []) | {"manual"})
    if new_key is not None:
        new["key"] = new_key
    return None if new == line else new


def _new_key(lines: list[dict], key: str, text: str | None) -> str | None:
    """The key's new name when it may hold the secret, else None. An automatic key (the slug of the content's
    start, possibly cut inside the secret) is made again from the redacted latest content, with a hash of the
    lines' capture ids and times where that name is taken (or, with the whole text redacted, always: never a hash
    of the old key, which holds the secret); an explicit key loses TEXT's slug."""
    mine = [e for e in lines if e.get("key") == key and "content" in e]
    kind = key.split("-", 1)[0]
    automatic = any(key == entry.make_key(str(e.get("type")), str(e["content"])) for e in mine)
    if not automatic:
        part = entry.slug(text or "")
        return key.replace(part, "redacted") if text is not None and len(part) >= 3 and part in key else None
    latest = max(enumerate(mine), key=lambda item: (item[1].get("ts", 0), item[0]))[1]
    new = entry.make_key(kind, redactions.replace_all(latest["content"], text) if text else MARKER)
    taken = {e.get("key") for e in lines} - {key}
    if text is None or new in taken:
        stamps = sorted((str(e.get("capture_id")), str(e.get("ts"))) for e in mine)  # the same in every clone
        new = f"{new}-{hashlib.sha1(repr(stamps).encode()).hexdigest()[:10]}"
        base, n = new, 2
        while new in taken:  # another entry of the same capture, redacted whole before: its own key
            new, n = f"{base}-{n}", n + 1
    return None if new == key else new


def _holds(value: Any, text: str) -> bool:
    if isinstance(value, str):
        return text in value
    if isinstance(value, list):
        return any(_holds(v, text) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, text) for v in value.values())
    return False


def _rebuild_index(memory_dir: str) -> None:
    from memory.search import index

    try:
        index.load(memory_dir)
    except Exception:  # noqa: BLE001, S110 - derived data: the next search rebuilds it
        pass
