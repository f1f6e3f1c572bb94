"""Held entries: text the screen flags (memory.store.screen) is kept, but no hook injects it until a person approves it.

An entry is held when its latest text has screening reasons and no `approve` line names that text (by `sha`,
a digest of the content): an approval covers the text it saw, so a later, changed version is screened again.
The rule is applied where entries are read (memory.store.view for the files, memory.search.index for the ranking
index), not where they are written, so lines no hook saw (a merge, a hand edit) are held the same way.
`recall.sh --held` lists them with why; `recall.sh --approve KEY` appends the approve line (who, when),
which merges through git like a pin or a forget (memory.commands.review).
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection


def text_sha(content: str) -> str:
    """The digest an approval records: the first 16 hex digits of the content's SHA-256."""
    import hashlib  # here: the capture hook's fast path reaches this module only for a held entry

    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def reasons(entry: dict, approved: Collection[str | None] = ()) -> list[str]:
    """Why `entry` is held ([] when its text is clean or approved as it stands)."""
    from memory.store import screen

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
    """Hand memory.store.screen its verdicts on `texts` from the machine-local cache (knowledge.screen), screening
    and recording only the texts it has not seen: a session start over 1,000 entries screens the new ones.
    Keyed by a 128-bit digest of the text and the screen's version; any trouble with the file means screening."""
    import marshal

    from memory.core import fsio, layout
    from memory.store import screen

    path = os.path.join(memory_dir, layout.SCREEN_CACHE)
    try:
        cached = marshal.loads(fsio.unseal(fsio.read_bytes(path) or b""))
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
        fsio.atomic_write(path, fsio.seal(marshal.dumps({"version": screen.VERSION, "verdicts": verdicts})))
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
