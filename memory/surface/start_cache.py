"""What session start derives from the knowledge, kept machine-locally until the knowledge changes.

Session start shows what the project knows: the live entries of the active knowledge and of the archive
(memory.store.archived). It parses every active line, puts the archive's deciding lines before them, applies
latest-wins and the screen (memory.store.view, memory.store.hold) and groups the live entries into the map's
topics (memory.surface.knowledge_map.topics): ~15 ms at 1,000 entries, the same answer every time the files
are the same. So the answer is kept in `knowledge.start` (machine-local, derived: deleting it costs one
recomputation) under the exact identity of what it was derived from: device, inode, size, mtime and ctime of
knowledge.jsonl, of every inbox fragment (by name) and of the archive, and of the source files whose rules
shape it. Any write to any of them (a capture adds a fragment, a fold or a checkout replaces knowledge.jsonl,
a hand edit changes its size or times, an upgrade changes the rules) changes the identity, and the cache is
not used. The archive's deciding lines are kept beside it under the archive's own identity: a capture costs
the active file's lines, never the archive's. An archive past archived.INLINE_BYTES without them is read by
a detached process: meanwhile its part from before stands in (none on a fresh clone). The cache is
written only when the identity was the same before and after the read (a capture landing meanwhile leaves no
cache behind) and no file was changed in the last RACY_NS (a second write within the same timestamp tick could
keep size and times: git's "racily clean" problem), as a temp file renamed into place (memory.core.fsio), so
concurrent session starts never see a torn one. Anything wrong with the file means computing afresh.
"""
from __future__ import annotations

import os

from memory.core import layout
from memory.store import archived

FORMAT = 4
RACY_NS = 100_000_000  # files changed this recently are not cached: more than a timestamp tick (Linux: 1-10 ms)
# The modules whose rules decide what is cached (parsing, latest-wins, the screen and holds, topics), relative
# to the memory package: a change to any of them changes the identity.
_RULES = ("core/jsonio.py", "core/jsonline.py", "core/shape.py", "store/entry.py", "store/reading.py",
          "store/inbox.py", "store/view.py", "store/archived.py", "store/hold.py", "store/screen.py",
          "store/screen_patterns.py", "search/tokenize.py", "search/stemming.py", "surface/knowledge_map.py",
          "surface/start_cache.py")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class LiveView:
    """The live entries of both files (newest first, held ones left out), the malformed lines of the active
    knowledge skipped on the way, {key: topic} of the map over all live entries, and how many older live
    entries of the archive were past archived.ARCHIVE_LIVE (not read)."""

    def __init__(self, latest: list[dict], malformed: int, topics: dict[str, str], older: int = 0) -> None:
        self.latest, self.malformed, self.topics, self.older = latest, malformed, topics, older


def identity(memory_dir: str) -> tuple:
    """The exact identity of the knowledge files and of the rules (stats only: nothing is read)."""
    from memory.core import fsio
    from memory.store import inbox

    fragments = inbox.folder(memory_dir)
    files = ((layout.KNOWLEDGE, fsio.stamp(os.path.join(memory_dir, layout.KNOWLEDGE))),) + tuple(
        (name, fsio.stamp(os.path.join(fragments, name))) for name in inbox.names(memory_dir)) + (
        (layout.ARCHIVE, archived.source(memory_dir)),)
    return FORMAT, fsio.stamps(_PACKAGE, _RULES), files


def _view(data: bytes | None, key: tuple) -> LiveView | None:
    """The cached view when it was derived from exactly `key` (only its own section is parsed)."""
    import marshal

    from memory.core import fsio

    if not data:
        return None
    try:
        cached = marshal.loads(fsio.unseal(fsio.section(data, 0)))
    except Exception:  # noqa: BLE001 - a cache that can't be read is recomputed
        return None
    if not isinstance(cached, dict) or cached.get("key") != key:
        return None
    latest, malformed, topics, older = (cached.get(name) for name in ("latest", "malformed", "topics", "older"))
    if isinstance(latest, list) and isinstance(malformed, int) and isinstance(topics, dict) and isinstance(older, int):
        return LiveView(latest, malformed, topics, older)
    return None


def live_view(memory_dir: str, read_large: bool = False) -> LiveView:
    """The knowledge as session start uses it: from the cache when the files and rules are exactly those it
    was derived from, else computed (and cached when nothing changed during the read). An archive larger than
    archived.INLINE_BYTES whose part is not cached is not read (unless `read_large`): the part of the archive
    before it stands in, and a detached process reads it."""
    key = identity(memory_dir)
    data = archived.read_cache(memory_dir)
    found = _view(data, key)
    if found is not None:
        return found
    from memory.store import store
    from memory.surface import knowledge_map

    snapshot = store.load(memory_dir)  # never rotated here: that would change committed files (memory.store.inbox)
    src = archived.source(memory_dir)  # after the active read (memory.store.archived.part)
    part, exact = archived.part(memory_dir, src, data, read_large)
    if not exact:
        from memory.search import index

        if index.in_background(memory_dir, lambda: live_view(memory_dir, read_large=True)):
            part, exact = archived.part(memory_dir, src, archived.read_cache(memory_dir))  # it ran here
    lines, older = archived.before(memory_dir, part, snapshot.entries) if part is not None else ([], 0)
    latest = store.latest(lines + snapshot.entries, cache_dir=memory_dir)
    placed = knowledge_map.topics(latest, knowledge_map.project_name(memory_dir)) if latest else {}
    view = LiveView(latest, snapshot.malformed, placed, older)
    if exact and part is not None and os.path.isdir(memory_dir) and identity(memory_dir) == key and _settled(key):
        _write(os.path.join(memory_dir, layout.START_CACHE),
               {"key": key, "latest": latest, "malformed": snapshot.malformed, "topics": placed, "older": older},
               archived.record(src, part))
    return view


def _settled(key: tuple) -> bool:
    """No knowledge file was changed within RACY_NS of now (by its ctime, which every write and every time
    setting moves to the present): any later change gets other times."""
    import time

    changed = [st[4] for _, st in key[2] if st is not None]
    return not changed or max(changed) < time.time_ns() - RACY_NS


def _write(path: str, view: dict, part: dict) -> None:
    import marshal

    from memory.core import fsio

    try:
        data = fsio.sections(fsio.seal(marshal.dumps(view)), fsio.seal(marshal.dumps(part)))
        fsio.atomic_write(path, data, durable=False)  # derived: a crash loses it, never tears it
    except (OSError, ValueError):
        pass  # a read-only checkout, or a value marshal can't hold: computed again next time
