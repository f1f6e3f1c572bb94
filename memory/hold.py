"""Held entries: text the screen flags (memory.screen) is kept, but no hook injects it until a person approves it.

An entry is held when its latest text has screening reasons and no `approve` line names that text (by `sha`,
a digest of the content): an approval covers the text it saw, so a later, changed version is screened again.
The rule is applied where entries are read (memory.view for the files, memory.index for the ranking
index), not where they are written, so lines no hook saw (a merge, a hand edit) are held the same way.
`recall.sh --held` lists them with why; `recall.sh --approve KEY` appends the approve line (who, when),
which merges through git like a pin or a forget.
"""
from __future__ import annotations

import os
import sys

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection

DONE, NOTHING, REFUSED = 0, 1, 2


def text_sha(content: str) -> str:
    """The digest an approval records: the first 16 hex digits of the content's SHA-256."""
    import hashlib  # here: the capture hook's fast path reaches this module only for a held entry

    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def reasons(entry: dict, approved: Collection[str | None] = ()) -> list[str]:
    """Why `entry` is held ([] when its text is clean or approved as it stands)."""
    from memory import screen

    content = entry.get("content")
    found = screen.reasons(content) if isinstance(content, str) else []
    if found and approved and text_sha(content) in approved:  # type: ignore[arg-type]
        return []
    return found


CACHE_LIMIT = 20_000  # verdicts kept in the cache file; past this it keeps only the texts of the last read


def _digest(text: str) -> bytes:
    from _blake2 import blake2b  # hashlib's OpenSSL import costs a hook ~3 ms; blake2 alone ~0.2 ms

    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def warm(memory_dir: str, texts: list[str]) -> None:
    """Hand memory.screen its verdicts on `texts` from the machine-local cache (knowledge.screen), screening
    and recording only the texts it has not seen: a session start over 1,000 entries screens the new ones.
    Keyed by a 128-bit digest of the text and the screen's version; any trouble with the file means screening."""
    import marshal

    from memory import fsio, layout, screen

    path = os.path.join(memory_dir, layout.SCREEN_CACHE)
    try:
        cached = marshal.loads(fsio.read_bytes(path) or b"")
        if not isinstance(cached, dict) or cached.get("version") != screen.VERSION:
            raise ValueError("another version")
        verdicts: dict = cached["verdicts"]
    except Exception:
        verdicts = {}
    digests = [_digest(text) for text in texts]
    new = 0
    for text, digest in zip(texts, digests):
        known = verdicts.get(digest)
        if known is None:
            verdicts[digest] = tuple(screen.reasons(text))
            new += 1
        else:
            screen.remember(text, list(known))
    if not new or not os.path.isdir(memory_dir):
        return
    if len(verdicts) > CACHE_LIMIT:
        verdicts = {d: verdicts[d] for d in digests}
    try:
        fsio.atomic_write(path, marshal.dumps({"version": screen.VERSION, "verdicts": verdicts}))
    except OSError:
        pass  # a read-only checkout: the next reader screens again


def note(entries: list[dict]) -> str:
    """One line for the agent that recorded `entries`: which are held for review and why ('' when none)."""
    held = [(e["key"], reasons(e)) for e in entries if "content" in e]
    held = [(key, why) for key, why in held if why]
    if not held:
        return ""
    listed = "; ".join(f"`{key}` ({', '.join(why)})" for key, why in held)
    return (f"memory-hooks: held for review, not shown to agents until a person runs "
            f"`.beads/memory/recall.sh --approve KEY`: {listed}.")


def who(cwd: str) -> str:
    """Who approves: git's user.name <user.email> where set, else $USER."""
    import subprocess

    found = []
    for field in ("user.name", "user.email"):
        try:
            value = subprocess.run(["git", "config", field], cwd=cwd, capture_output=True, text=True,
                                   timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            value = ""
        found.append(value)
    name, email = found
    if name or email:
        return f"{name} <{email}>".strip() if email else name
    return os.environ.get("USER") or os.environ.get("USERNAME") or "unknown"


def held_entries(memory_dir: str) -> list[dict]:
    """Every held entry of both files, newest first, each with `"held": [reasons]`."""
    from memory import store, view

    lines = store.load(memory_dir, include_archive=True).entries
    return [e for e in view.latest(lines, include_held=True, cache_dir=memory_dir) if e.get("held")]


def list_held(memory_dir: str, as_json: bool = False) -> int:
    """recall.sh --held: the held entries with why; exit 0 when there are some, 1 when none."""
    from memory import jsonio, render

    found = held_entries(memory_dir)
    if as_json:
        sys.stdout.write("".join(render.escape_control(jsonio.dumps(e)) + "\n" for e in found))
    elif found:
        sys.stdout.write("\n\n".join(render.format_entry(e) for e in found))
        sys.stdout.write(f"\n\n{len(found)} held entr{'y' if len(found) == 1 else 'ies'}: read each, then "
                         "`recall.sh --approve KEY` to release it, or `recall.sh --forget KEY`\n")
    else:
        print("recall.sh: no entry is held for review", file=sys.stderr)
    return DONE if found else NOTHING


def approve(memory_dir: str, name: str, cwd: str) -> int:
    """recall.sh --approve KEY: release the held entry `name` stands for, its current text only."""
    from memory import edit, entry, store, view

    lines = store.load(memory_dir, include_archive=True).entries
    keys = view.resolve(lines, name)
    if len(keys) != 1:
        print(f"recall.sh: no entry has the key `{name}`" if not keys
              else f"recall.sh: `{name}` may mean {', '.join(keys)}: give the whole key", file=sys.stderr)
        return REFUSED
    key = keys[0]
    state = view.State(lines)
    if key not in state.entries or state.forgotten(key):
        print(f"recall.sh: `{key}` has no live entry to approve", file=sys.stderr)
        return REFUSED
    if not state.held(key):
        print(f"recall.sh: `{key}` is not held", file=sys.stderr)
        return NOTHING
    content = state.entries[key][1]["content"]
    provenance = dict(edit.provenance(cwd), by=who(cwd), sha=text_sha(content))
    store.append(memory_dir, [entry.build_control(entry.APPROVE, key, edit.bead_in_progress(cwd), **provenance)])
    print(f"approved `{key}` (this text only; a changed version is screened again)")
    return DONE
