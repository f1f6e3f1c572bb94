"""Showing a plan (--dry-run's diff) and applying it: every change written, or none (the undo journal puts back
what a failed run already wrote), settings backups kept; around an uninstall, parked captures settled into
the knowledge first and the folders it emptied removed after."""
from __future__ import annotations

import difflib
import os
import shutil
import sys

from memory import TYPE_CHECKING
from memory.core import fsio
from memory.install.bundle import code_files
from memory.install.plan import BACKUP_SUFFIX, MEMORY_DIR, RECALL, data_files
from memory.runtimes.registration import INSTALL_DIR

if TYPE_CHECKING:
    from typing import TextIO

    from memory.install.change import Change


def _lines(data: bytes | None) -> list[str]:
    """The lines of a file as textblock splits them (at line feeds only, each with its ending: the last one has
    none when the file does not end in one), as text."""
    from memory.core import textblock

    return [line.decode("utf-8", "replace") for line in textblock.lines(data or b"")]


def show_diff(changes: list[Change], out: TextIO = sys.stdout) -> None:
    """The files that are the user's and the data files first, as unified diffs; then our code (the folder one
    line per verb, recall.sh one line): the settings diff a person asks a dry run for is not below a hundred
    lines of ours."""
    ours = [c for c in changes if c.changed and (c.rel.startswith(INSTALL_DIR + os.sep) or c.rel == RECALL)]
    theirs_first = sorted((c for c in changes if c.changed and c not in ours), key=lambda c: c.before is None)
    for c in theirs_first:  # the files that were there (the user's) first, then the ones an install creates
        verb = "create" if c.before is None else "delete" if c.after is None else "update"
        if c.before == c.after:
            out.write(f"chmod {c.mode:o} {c.label}\n")
            continue
        before, after = _lines(c.before), _lines(c.after)
        for line in difflib.unified_diff(before, after, f"a/{c.label}" if c.before is not None else "/dev/null",
                                         f"b/{c.label}" if c.after is not None else "/dev/null"):
            out.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")  # as git says it
        if not before and not after:
            out.write(f"{verb} {c.label} (empty)\n")
    by_verb: dict[str, int] = {}
    for c in ours:
        verb = "chmod" if c.before == c.after else "create" if c.before is None else \
            "delete" if c.after is None else "update"
        if c.rel == RECALL:
            out.write(f"{verb} {c.label}\n")
        else:
            by_verb[verb] = by_verb.get(verb, 0) + 1
    for verb, count in by_verb.items():
        out.write(f"{verb} {INSTALL_DIR}/ ({count} file{'s' if count > 1 else ''})\n")


def apply(target: str, changes: list[Change], backups: bool = True) -> None:
    """Write every change, or none: a failure halfway (a full disk, a file we may not replace) puts back
    every file this run already wrote or removed, then raises. With `backups`, a rewritten config file's
    previous content is kept as <file>.memory-hooks.bak; without (uninstall), backups of earlier installs
    are removed with the rest."""
    undo = _Undo()
    try:
        for c in changes:
            if not c.changed:
                continue
            full = os.path.realpath(os.path.join(c.root or target, c.rel))  # write through a symlinked dotfile
            # its backup beside the name the repository knows (ignored there, where the report says), not beside
            # the file a symlink points at: there it was another name, and `git add -A` committed it
            backup = os.path.join(c.root or target, c.rel) + BACKUP_SUFFIX
            if c.before != c.after:
                if c.config and backups and c.before is not None and c.after is not None and not c.keep_backup \
                        and c.backup:
                    undo.write(backup, c.before)
                elif c.config and not backups and os.path.lexists(backup) and not c.keep_backup:
                    undo.remove(backup)
                if c.after is None:
                    if os.path.lexists(full):
                        undo.remove(full)
                    continue
                undo.write(full, c.after)
            if c.mode is not None:
                undo.chmod(full, c.mode)
    except BaseException:
        undo.rollback()
        raise


class _Undo:
    """The files an apply changed, as they were, so that a failure can put them back (newest first)."""

    def __init__(self) -> None:
        self.saved: list[tuple[str, bytes | None, int | None]] = []  # (path, bytes or None: absent, mode)
        self.made: list[str] = []  # folders this apply created

    def _save(self, path: str) -> None:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            self.saved.append((path, None, None))
            return
        self.saved.append((path, fsio.read_regular(path, follow=True), mode & 0o7777))

    def write(self, path: str, data: bytes) -> None:
        self._save(path)
        folder, missing = os.path.dirname(path), []
        while folder and not os.path.isdir(folder):
            missing.append(folder)
            folder = os.path.dirname(folder)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.made += reversed(missing)
        fsio.atomic_write(path, data)

    def remove(self, path: str) -> None:
        self._save(path)
        os.unlink(path)

    def chmod(self, path: str, mode: int) -> None:
        self._save(path)
        os.chmod(path, mode)

    def rollback(self) -> None:
        """Best effort: every saved file back as it was, then the folders this apply made, if empty."""
        for path, data, mode in reversed(self.saved):
            try:
                if data is None:
                    if os.path.lexists(path):
                        os.unlink(path)
                    continue
                fsio.atomic_write(path, data)
                if mode is not None:
                    os.chmod(path, mode)
            except OSError:
                pass  # e.g. still no space: the error that stopped the install is the one reported
        for folder in reversed(self.made):
            try:
                os.rmdir(folder)
            except OSError:
                pass


def remove_empty_dirs(target: str) -> None:
    """After an uninstall: drop the folders we emptied (never one that still holds anything)."""
    folders = [os.path.join(MEMORY_DIR, n) for n in data_files() if n.endswith("/")]
    shipped = {os.path.dirname(rel) for rel in code_files()} | {"hooks", "memory", "bin"}
    code_dirs = [os.path.join(INSTALL_DIR, d) for d in sorted(shipped, key=lambda d: -d.count(os.sep)) if d]
    runtimes = (".claude/hooks", ".claude", ".cursor", ".gemini", ".codex")
    for rel in (*code_dirs, INSTALL_DIR, *runtimes, *folders, MEMORY_DIR, ".beads"):
        path = os.path.join(target, rel)
        if os.path.isdir(path) and not os.path.islink(path):
            leftovers = [n for n in os.listdir(path) if n != "__pycache__"]
            if not leftovers:
                shutil.rmtree(path, ignore_errors=True)


def remove_emptied_folders(target: str, changes: list[Change]) -> None:
    """After an install: the folder of a settings file it deleted (.codex/ of a `.codex/hooks.json` an earlier
    install created, taken out by --no-codex), when nothing is left in it."""
    for c in changes:
        if c.config and c.before is not None and c.after is None and c.root is None:
            folder = os.path.join(target, os.path.dirname(c.rel))
            if folder != target and os.path.isdir(folder) and not os.path.islink(folder) and not os.listdir(folder):
                os.rmdir(folder)


def settle_memory(memory_dir: str) -> str | None:
    """Before an uninstall that keeps the knowledge: captures parked while the lock was busy, an unfinished
    rotation, a torn last line are settled into the knowledge files now; no hook will do it later. A note
    when that could not be done (the parked files stay, ignored, in the memory folder)."""
    from memory.core import locking
    from memory.store import store

    if not os.path.isfile(store.path(memory_dir)) or os.path.islink(store.path(memory_dir)):
        return None
    try:
        with locking.exclusive(store.path(memory_dir, store.LOCK), timeout=5.0):
            store.recover(memory_dir)
    except (OSError, locking.LockTimeout) as exc:
        return f"install.sh: note: could not settle parked captures in {memory_dir} ({exc})"
    return None
