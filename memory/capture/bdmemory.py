"""bd's own memory commands (cmd/bd/memory.go) and our entries: `bd remember` is captured, `bd forget` forgets.

`bd remember "TEXT" [--key K]` stores TEXT in bd's database under K, else under bd's slug of TEXT (first 8
words, at most 60 characters; memory.capture.bdcli.slug); the same key replaces it. We capture it as one insight
(no marker needed; a leading `DECISION:`/`WARNING:`/`PATTERN:`/`LEARNED:` sets the type and is not part of the
text) under `<type>-<bd key>`, and keep bd's key as the entry's `bd_key`. A bd key outside our key grammar
(`[a-z0-9][a-z0-9-]{0,59}`) is slugged into it (`Auth_JWT` -> `auth-jwt`); one with nothing left (`日本`)
takes the automatic key. `bd forget K` appends a forget for the entry whose `bd_key` is K (a tombstone, as
`recall.sh --forget`): whatever the entry's key became, bd's key finds it.

bd's key without --key is made of the text's first words, lowercased: a token among them would sit in the key
in a shape the redactor no longer knows (`learned-push-with-ghp-r8s2…`). Such a key is kept as its digest
(`kept_key`), the entry takes the automatic key of its redacted text, and `bd forget` finds it by the digest.
"""
from __future__ import annotations

from memory import TYPE_CHECKING
from memory.store import entry

if TYPE_CHECKING:
    from collections.abc import Iterable

COMMANDS = ("remember", "forget")
FIELD = "bd_key"  # the entry field that keeps bd's memory key


DIGEST_PREFIX = "sha1-"


def digest(bd_key: str) -> str:
    import hashlib

    return DIGEST_PREFIX + hashlib.sha1(bd_key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def kept_key(bd_key: str, text: str) -> str:
    """bd's key as an entry keeps it: itself, or its digest when it holds a piece of a credential (a word of
    the key that is, or is part of, a word the redaction took out of the text; or a credential in the key
    itself). A key of other words (`--key deploy-notes`) stays, so remembering it again replaces the entry."""
    from memory.store import redact

    if redact.redact(bd_key)[1]:
        return digest(bd_key)
    cleaned, found = redact.redact(text)
    if not found:
        return bd_key
    kept = set(entry.slug(cleaned).split("-")) | set(entry.TYPES)  # a leading `LEARNED:` is in bd's slug
    removed = set(entry.slug(text).split("-")) - kept
    # bd cuts its key after some words: the last may be the start of the token's word
    leaks = any(word not in kept and any(word in gone for gone in removed) for word in entry.slug(bd_key).split("-"))
    return digest(bd_key) if leaks else bd_key


def our_key_name(bd_key: str, kind: str, text: str = "") -> str | None:
    """The key name (after `<type>-`) of an entry from bd's key: itself within our grammar, else its slug;
    a leading `<type>-` dropped (`learned-x` -> `x`, or the key would read `learned-learned-x`); None when
    nothing is left, or when the key holds a piece of a credential of `text` (kept_key)."""
    if kept_key(bd_key, text) != bd_key:
        return None
    name = bd_key if entry.valid_key_name(bd_key) else entry.slug(bd_key)[:entry.KEY_PREFIX_CHARS].strip("-")
    prefix = kind + "-"
    if name.startswith(prefix) and len(name) > len(prefix):
        name = name[len(prefix):]
    return name if name and entry.valid_key_name(name) else None


def key_note(bd_key: str, stored_key: str, kept: str | None = None) -> str | None:
    """What the agent should hear when bd's key did not become the key as it is (`kept`: kept_key's answer)."""
    if kept is not None and kept != bd_key:  # never repeated: it holds a piece of a credential
        return (f"memory-hooks: bd's key holds part of a credential: stored as `{stored_key}`; `bd forget` with "
                "bd's key still forgets it (bd itself keeps the text and the key as given).")
    if entry.valid_key_name(bd_key):
        return None
    return (f"memory-hooks: bd's key `{bd_key}` is outside memory-hooks' keys (lowercase letters, digits and "
            f"dashes, up to 60): stored as `{stored_key}`; `bd forget {bd_key}` still forgets it.")


def key_of(lines: Iterable[dict], bd_key: str) -> str | None:
    """Our key for bd's key: that of the latest entry captured from `bd remember` with it (None when none)."""
    from memory.store import view  # here: only a `bd forget` reads the entries

    kept = (bd_key, digest(bd_key))
    newest = view.latest([line for line in lines if "content" in line and line.get(FIELD) in kept])
    return newest[0]["key"] if newest else None


def kept_of(lines: Iterable[dict], bd_key: str) -> str:
    """bd's key as the entries captured with it keep it (for the forget line that `bd forget` appends)."""
    return bd_key if any(line.get(FIELD) == bd_key for line in lines) else digest(bd_key)
