"""Changes to the committed knowledge files a person asks for (memory-doctor --compact): folding the inbox
into knowledge.jsonl, and rotation, journaled so that a crash at any instant loses nothing (the steps and their
recovery: memory.store.store)."""
from __future__ import annotations

import os

from memory.core import fsio, jsonio, locking
from memory.store import inbox, store
from memory.store.reading import parse_line

ROTATE_ABOVE = 1000
ROTATE_CHUNK = 500


class Compacted:
    """What `compact` did: fragments folded, lines they added to the active file, whether it rotated."""

    def __init__(self, fragments: int = 0, lines: int = 0, rotated: bool = False) -> None:
        self.fragments, self.lines, self.rotated = fragments, lines, rotated


def compact(memory_dir: str) -> Compacted:
    """Fold the inbox into knowledge.jsonl (oldest fragment first; a line already there is not added twice),
    delete the folded fragments, then rotate: under the lock. This changes committed files, so it runs only
    when a person asks (memory-doctor --compact) and then commits. A crash before the fragments are deleted
    leaves their lines in both places (a reader sees the same line twice, which latest-wins reads as one);
    running it again finishes. A busy lock raises locking.LockTimeout."""
    from memory.store import redaction_apply

    with locking.exclusive(store.path(memory_dir, store.LOCK)):
        store.recover(memory_dir)
        redaction_apply.apply_locked(memory_dir)  # another clone's --redact first: the fold never writes an old line
        names = inbox.names(memory_dir)
        done = Compacted(len(names))
        if names:
            active = store.path(memory_dir)
            current = fsio.read_bytes(active) or b""
            if current and not current.endswith(b"\n"):
                current += b"\n"
            present = set(current.split(b"\n"))
            added = []
            for name in names:
                for line in (fsio.read_bytes(os.path.join(inbox.folder(memory_dir), name)) or b"").split(b"\n"):
                    if line.strip() and line not in present:
                        present.add(line)
                        added.append(line + b"\n")
            if added:
                fsio.atomic_write(active, current + b"".join(added))
            for name in names:
                os.unlink(os.path.join(inbox.folder(memory_dir), name))
            fsio.fsync_dir(inbox.folder(memory_dir))
            done.lines = len(added)
        done.rotated = rotate_if_needed(memory_dir)
    return done


def rotate_if_needed(memory_dir: str) -> bool:
    """Move the oldest lines to the archive once the active file passes the limit. Call under the lock."""
    active, archive = store.path(memory_dir), store.path(memory_dir, store.ARCHIVE)
    data = fsio.read_bytes(active) or b""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) <= ROTATE_ABOVE:
        return False
    if os.path.islink(archive) or os.path.lexists(archive) and not os.path.isfile(archive):
        import errno

        # refused before the journal: a journal left behind by a failed append made every later capture's
        # recovery retry it, and fail
        raise OSError(errno.ELOOP, "not a regular file (a symlink?): no rotation writes through it", archive)
    chunks = -(-(len(lines) - ROTATE_ABOVE) // ROTATE_CHUNK)
    moved, kept = _carry_forward(lines[:chunks * ROTATE_CHUNK], lines[chunks * ROTATE_CHUNK:])
    stat = os.stat(active)
    journal = {"archive_size": store.file_size(archive), "active_ino": stat.st_ino, "active_dev": stat.st_dev}
    fsio.atomic_write(store.path(memory_dir, store.JOURNAL), jsonio.dumps_line(journal))
    fsio.append(archive, b"\n".join(moved) + b"\n", fsync=True)
    fsio.atomic_write(active, b"\n".join(kept) + b"\n" if kept else b"")
    os.unlink(store.path(memory_dir, store.JOURNAL))
    fsio.fsync_dir(memory_dir)
    return True


CARRY_LIMIT = ROTATE_CHUNK // 2  # lines a rotation may keep active for pins and forgets


def _carry_forward(moved: list[bytes], kept: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    """The rotation's split, with the lines that must stay active moved back to the front of `kept`: the
    control lines of keys that keep an entry in the active file (`recall.sh KEYWORD` reads only that file, so a
    pin or forget archived away from its entry would be lost there), and the latest entry and control lines
    of every pinned key (pinned means always surfaced, and session start reads only the archive's newest live
    entries: memory.surface.start_cache). At most CARRY_LIMIT lines; the rest is archived."""
    from memory.store import view

    # the usual case: no control line leaves, and no pin stays behind (its entry may be among those leaving)
    if not any(b'"content"' not in line for line in moved) \
            and not any(b'"content"' not in line and b'"pin"' in line for line in kept):
        return moved, kept
    parsed = [parse_line(line) for line in moved + kept]
    lines = [p for p in parsed if p is not None]
    state = view.State(lines)
    active_keys = {p["key"] for p in parsed[len(moved):] if p is not None and not view.is_control(p)}
    pinned = {key for key in state.pins if state.pinned(key) and not state.forgotten(key)}
    latest_lines = {id(state.entries[key][1]) for key in pinned if key in state.entries}
    carry: list[int] = []
    for at, line in enumerate(parsed[:len(moved)]):
        if line is None or len(carry) >= CARRY_LIMIT:
            continue
        key = line["key"]
        if (view.is_control(line) and (key in active_keys or key in pinned)) or id(line) in latest_lines:
            carry.append(at)
    if not carry:
        return moved, kept
    chosen = set(carry)
    return [line for at, line in enumerate(moved) if at not in chosen], [moved[at] for at in carry] + kept


def rotate(memory_dir: str) -> bool:
    """Rotate now if the active file is past the limit (a merge can leave it so: memory/store/merge.py), under the
    lock; False when there was nothing to do. It changes committed files: only where a person asked (see
    `compact`). A busy lock raises locking.LockTimeout."""
    from memory.store import redaction_apply

    with locking.exclusive(store.path(memory_dir, store.LOCK)):
        store.recover(memory_dir)
        redaction_apply.apply_locked(memory_dir)
        return rotate_if_needed(memory_dir)
