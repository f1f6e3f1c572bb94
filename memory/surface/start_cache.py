"""What session start derives from the active knowledge, kept machine-locally until the knowledge changes.

Session start parses every active line, applies latest-wins and the screen (memory.store.view, memory.store.hold)
and groups the live entries into the map's topics (memory.surface.knowledge_map.topics): ~15 ms at 1,000
entries, the same answer every time the files are the same. So the answer is kept in `knowledge.start`
(machine-local, derived: deleting it costs one recomputation) under the exact identity of what it was derived
from: device, inode, size, mtime and ctime of knowledge.jsonl and of every inbox fragment (by name), and of the
source files whose rules shape it. Any write to any of them (a capture adds a fragment, a fold or a checkout
replaces knowledge.jsonl, a hand edit changes its size or times, an upgrade changes the rules) changes the
identity, and the cache is not used. It is written only when the identity was the same before and after the
read (a capture landing meanwhile leaves no cache behind) and no file was changed in the last RACY_NS (a
second write within the same timestamp tick could keep size and times: git's "racily clean" problem), as a
temp file renamed into place (memory.core.fsio), so concurrent session starts never see a torn one. Anything
wrong with the file means computing afresh.
"""
from __future__ import annotations

import os

from memory.core import layout

FORMAT = 1
RACY_NS = 100_000_000  # files changed this recently are not cached: more than a timestamp tick (Linux: 1-10 ms)
# The modules whose rules decide what is cached (parsing, latest-wins, the screen and holds, topics), relative
# to the memory package: a change to any of them changes the identity.
_RULES = ("core/jsonio.py", "core/jsonline.py", "core/shape.py", "store/entry.py", "store/reading.py",
          "store/inbox.py", "store/view.py", "store/hold.py", "store/screen.py", "store/screen_patterns.py",
          "search/tokenize.py", "search/stemming.py", "surface/knowledge_map.py", "surface/start_cache.py")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ActiveView:
    """The live entries (newest first, held ones left out), the malformed lines skipped on the way, and
    {key: topic} of the map over all live entries."""

    def __init__(self, latest: list[dict], malformed: int, topics: dict[str, str]) -> None:
        self.latest, self.malformed, self.topics = latest, malformed, topics


def _stat(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def identity(memory_dir: str) -> tuple:
    """The exact identity of the active knowledge files and of the rules (stats only: nothing is read)."""
    from memory.store import inbox

    fragments = inbox.folder(memory_dir)
    files = ((layout.KNOWLEDGE, _stat(os.path.join(memory_dir, layout.KNOWLEDGE))),) + tuple(
        (name, _stat(os.path.join(fragments, name))) for name in inbox.names(memory_dir))
    rules = tuple(_stat(os.path.join(_PACKAGE, rel)) for rel in _RULES)
    return FORMAT, rules, files


def _cached(path: str, key: tuple) -> ActiveView | None:
    import marshal

    from memory.core import fsio

    try:
        cached = marshal.loads(fsio.unseal(fsio.read_bytes(path) or b""))
        if isinstance(cached, dict) and cached.get("key") == key:
            latest, malformed, topics = cached["latest"], cached["malformed"], cached["topics"]
            if isinstance(latest, list) and isinstance(malformed, int) and isinstance(topics, dict):
                return ActiveView(latest, malformed, topics)
    except Exception:  # noqa: BLE001 - a cache that can't be read is recomputed
        pass
    return None


def active_view(memory_dir: str) -> ActiveView:
    """The active knowledge as session start uses it: from the cache when the files and rules are exactly
    those it was derived from, else computed (and cached when nothing changed during the read)."""
    path = os.path.join(memory_dir, layout.START_CACHE)
    key = identity(memory_dir)
    found = _cached(path, key)
    if found is not None:
        return found
    from memory.store import store
    from memory.surface import knowledge_map

    snapshot = store.load(memory_dir)  # never rotated here: that would change committed files (memory.store.inbox)
    latest = store.latest(snapshot.entries, cache_dir=memory_dir)
    placed = knowledge_map.topics(latest, knowledge_map.project_name(memory_dir)) if latest else {}
    view = ActiveView(latest, snapshot.malformed, placed)
    if os.path.isdir(memory_dir) and identity(memory_dir) == key and _settled(key):
        _write(path, key, view)
    return view


def _settled(key: tuple) -> bool:
    """No knowledge file was changed within RACY_NS of now (by its ctime, which every write and every time
    setting moves to the present): any later change gets other times."""
    import time

    changed = [st[4] for _, st in key[2] if st is not None]
    return not changed or max(changed) < time.time_ns() - RACY_NS


def _write(path: str, key: tuple, view: ActiveView) -> None:
    import marshal

    from memory.core import fsio

    try:
        data = fsio.seal(marshal.dumps({"key": key, "latest": view.latest, "malformed": view.malformed,
                                        "topics": view.topics}))
        fsio.atomic_write(path, data, durable=False)  # derived: a crash loses it, never tears it
    except (OSError, ValueError):
        pass  # a read-only checkout, or a value marshal can't hold: computed again next time
