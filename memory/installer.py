"""install.sh: put memory-hooks into a repository, or take it out again, never clobbering anything.

Every change is planned first (so --dry-run can show it as a diff), then applied file by file with
temp file + fsync + os.replace; settings files are merged, backed up, and validated before anything is
written. Exit status: 0 done, 1 installed but the self-check failed, 2 usage error or a settings file we
must not touch (nothing written), 3 any other error.
"""
from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
from typing import List, Optional

from memory import fsio, registration
from memory.registration import CLAUDE_SETTINGS, CURSOR_HOOKS, INSTALL_DIR, SettingsError

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMORY_DIR = os.path.join(".beads", "memory")
RECALL = os.path.join(MEMORY_DIR, "recall.sh")
KNOWLEDGE = os.path.join(MEMORY_DIR, "knowledge.jsonl")
MANIFEST = os.path.join(INSTALL_DIR, "install.json")
VENV = os.path.join(INSTALL_DIR, ".venv")
BACKUP_SUFFIX = ".memory-hooks.bak"
GITIGNORE_BEGIN = "# >>> memory-hooks: machine-local files (knowledge*.jsonl is meant to be committed)"
GITIGNORE_END = "# <<< memory-hooks"
GITIGNORE_LINES = [
    f"/{INSTALL_DIR}/.venv/", f"/{INSTALL_DIR}/**/__pycache__/", "/.beads/memory/knowledge.lock",
    "/.beads/memory/knowledge.rotate.json", "/.beads/memory/knowledge.corrupt.jsonl",
    "/.beads/memory/knowledge.pending/", "/.beads/memory/.*.tmp",
    "/.beads/memory/errors.log*", "/.beads/memory/dispatch.jsonl", "/.beads/memory/completion-state.json",
    f"/.claude/*{BACKUP_SUFFIX}", f"/.cursor/*{BACKUP_SUFFIX}",
]
PURGED_DATA = ["knowledge.jsonl", "knowledge.archive.jsonl", "knowledge.corrupt.jsonl", "knowledge.lock",
               "knowledge.rotate.json", "errors.log", "errors.log.1", "dispatch.jsonl", "completion-state.json"]
EXIT_OK, EXIT_SELF_CHECK, EXIT_USAGE, EXIT_ERROR = 0, 1, 2, 3


class Change:
    """One planned file change: content before (None = absent) and after (None = delete)."""

    def __init__(self, rel: str, before: Optional[bytes], after: Optional[bytes], config: bool = False) -> None:
        self.rel, self.before, self.after, self.config = rel, before, after, config

    @property
    def changed(self) -> bool:
        return self.before != self.after


def code_files() -> List[str]:
    """The files of ours that go into the target's INSTALL_DIR (paths relative to SOURCE)."""
    files = []
    for folder, suffixes in (("hooks", (".py",)), ("memory", (".py",)), ("bin", ("",))):
        for name in sorted(os.listdir(os.path.join(SOURCE, folder))):
            full = os.path.join(SOURCE, folder, name)
            if os.path.isfile(full) and name.endswith(suffixes) and not name.startswith("."):
                files.append(os.path.join(folder, name))
    return files + ["requirements.txt"]


def _read(target: str, rel: str) -> Optional[bytes]:
    """A target file's bytes, following symlinks (users symlink their dotfiles), or None."""
    try:
        with open(os.path.join(target, rel), "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _config_change(target: str, rel: str, transform, cursor: bool = False) -> Change:
    before = _read(target, rel)
    text = (before or b"").decode("utf-8", "replace")
    current = registration.parse_json_file(rel, text)
    problems = registration.schema_problems(current, cursor=cursor, known_events=False)
    if problems:
        raise SettingsError(f"{rel}: not of the documented hooks shape ({'; '.join(problems)}); "
                            "fix it first, nothing was written")
    merged = transform(current)
    problems = registration.schema_problems(merged, cursor=cursor, known_events=False)
    if problems:  # pragma: no cover - our own entries are well-formed; a guard against a future mistake
        raise SettingsError(f"{rel}: merged result would not be valid ({'; '.join(problems)}); nothing was written")
    after = None if merged in ({}, {"version": 1}) and before is None else registration.dump_json(merged, text).encode()
    if before is not None and after is not None and json.loads(after) == json.loads(before or b"{}"):
        after = before  # same meaning: leave the user's formatting alone
    return Change(rel, before, after, config=True)


def _gitignore_change(target: str, remove: bool) -> Change:
    before = _read(target, ".gitignore")
    text = (before or b"").decode("utf-8", "replace")
    newline = "\r\n" if "\r\n" in text else "\n"  # keep the user's line endings
    lines = text.splitlines()
    if GITIGNORE_BEGIN in lines and GITIGNORE_END in lines[lines.index(GITIGNORE_BEGIN):]:
        start = lines.index(GITIGNORE_BEGIN)
        end = lines.index(GITIGNORE_END, start)
        lines = lines[:start] + lines[end + 1:]
        while lines and not lines[-1].strip():
            lines.pop()
    if not remove:
        lines += ([""] if lines else []) + [GITIGNORE_BEGIN] + GITIGNORE_LINES + [GITIGNORE_END]
    after = (newline.join(lines) + newline).encode() if lines else (None if before is None else b"")
    return Change(".gitignore", before, after)


def plan_install(target: str, cursor: bool, claude: bool) -> List[Change]:
    """Every file change an install makes, in the order it is applied (code before registrations)."""
    changes = []
    for rel in code_files():
        changes.append(Change(os.path.join(INSTALL_DIR, rel), _read(target, os.path.join(INSTALL_DIR, rel)),
                              fsio.read_bytes(os.path.join(SOURCE, rel))))
    shipped = {os.path.join(INSTALL_DIR, rel) for rel in code_files()}
    for rel in sorted(set(_manifest(target).get("files", [])) - shipped):  # shipped before, not any more
        if _read(target, rel) is not None:
            changes.append(Change(rel, _read(target, rel), None))
    changes.append(Change(RECALL, _read(target, RECALL), fsio.read_bytes(os.path.join(SOURCE, "bin", "recall.sh"))))
    if _read(target, KNOWLEDGE) is None:
        changes.append(Change(KNOWLEDGE, None, b""))
    changes.append(_gitignore_change(target, remove=False))
    hooks = [os.path.splitext(os.path.basename(f))[0] for f in code_files() if f.startswith("hooks" + os.sep)]
    claude_merge = (lambda c: registration.with_claude_hooks(c, hooks)) if claude else registration.without_ours
    changes.append(_config_change(target, CLAUDE_SETTINGS, claude_merge))
    cursor_merge = (lambda c: registration.with_cursor_hooks(c, hooks)) if cursor else registration.without_ours
    if cursor or _read(target, CURSOR_HOOKS) is not None:
        changes.append(_config_change(target, CURSOR_HOOKS, cursor_merge, cursor=True))
    created = sorted(c.rel for c in changes
                     if c.before is None and c.after is not None and (c.config or c.rel == ".gitignore"))
    previous = _manifest(target)
    manifest = {"version": 1, "created": sorted(set(previous.get("created", [])) | set(created)),
                "files": sorted(shipped)}
    changes.append(Change(MANIFEST, _read(target, MANIFEST), (json.dumps(manifest, indent=2) + "\n").encode()))
    return changes


def _manifest(target: str) -> dict:
    return registration.read_config(os.path.join(target, MANIFEST))


def plan_uninstall(target: str, purge: bool) -> List[Change]:
    """Take out exactly what an install put in; knowledge stays unless `purge`."""
    manifest = _manifest(target)
    created = set(manifest.get("created", []))
    changes = []
    ours = set(manifest.get("files", [])) | {os.path.join(INSTALL_DIR, rel) for rel in code_files()} | {MANIFEST}
    for rel in sorted(ours):  # only what an install put there: a file the user added stays
        if _read(target, rel) is not None:
            changes.append(Change(rel, _read(target, rel), None))
    changes.append(Change(RECALL, _read(target, RECALL), None))
    for rel, cursor in ((CLAUDE_SETTINGS, False), (CURSOR_HOOKS, True)):
        if _read(target, rel) is not None:
            change = _config_change(target, rel, registration.without_ours, cursor=cursor)
            if rel in created and change.after is not None and json.loads(change.after) in ({}, {"version": 1}):
                change.after = None  # we created it and nothing else is in it
            backup = _read(target, rel + BACKUP_SUFFIX)
            if change.after is not None and backup is not None and _same_json(backup, change.after):
                change.after = backup  # the user's own bytes, formatting included
            changes.append(change)
    ignore = _gitignore_change(target, remove=True)
    if ".gitignore" in created and not (ignore.after or b"").strip():
        ignore.after = None
    changes.append(ignore)
    if purge:
        for name in PURGED_DATA:
            rel = os.path.join(MEMORY_DIR, name)
            if _read(target, rel) is not None:
                changes.append(Change(rel, _read(target, rel), None))
    return [c for c in changes if c.changed]


def _same_json(a: bytes, b: bytes) -> bool:
    try:
        return json.loads(a or b"{}") == json.loads(b or b"{}")
    except ValueError:
        return False


def show_diff(changes: List[Change], out=sys.stdout) -> None:
    """Code files as one line each; configuration and data files as unified diffs."""
    for c in changes:
        if not c.changed:
            continue
        verb = "create" if c.before is None else "delete" if c.after is None else "update"
        if c.rel.startswith(INSTALL_DIR) and not c.rel.endswith(".json"):
            out.write(f"{verb} {c.rel}\n")
            continue
        before = (c.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = (c.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        out.writelines(difflib.unified_diff(before, after, f"a/{c.rel}" if c.before is not None else "/dev/null",
                                            f"b/{c.rel}" if c.after is not None else "/dev/null"))
        if not before and not after:
            out.write(f"{verb} {c.rel} (empty)\n")


def apply(target: str, changes: List[Change], backups: bool = True) -> None:
    """Write every change. With `backups`, a rewritten config file's previous content is kept as
    <file>.memory-hooks.bak; without (uninstall), backups of earlier installs are removed with the rest."""
    for c in changes:
        if not c.changed:
            continue
        full = os.path.realpath(os.path.join(target, c.rel))  # write through a symlinked dotfile, not over it
        if c.config and backups and c.before is not None and c.after is not None:
            fsio.atomic_write(full + BACKUP_SUFFIX, c.before)
        elif c.config and not backups and os.path.lexists(full + BACKUP_SUFFIX):
            os.unlink(full + BACKUP_SUFFIX)
        if c.after is None:
            if os.path.lexists(full):
                os.unlink(full)
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        fsio.atomic_write(full, c.after)
        if c.rel.endswith((".sh", ".py")) and (c.rel == RECALL or "/hooks/" in c.rel or "/bin/" in c.rel) \
                or "/bin/" in c.rel:
            os.chmod(full, 0o755)


def remove_empty_dirs(target: str) -> None:
    """After an uninstall: drop the folders we emptied (never one that still holds anything)."""
    for rel in (os.path.join(INSTALL_DIR, "hooks"), os.path.join(INSTALL_DIR, "memory"), os.path.join(INSTALL_DIR, "bin"),
                INSTALL_DIR, ".claude/hooks", ".claude", ".cursor", MEMORY_DIR, ".beads"):
        path = os.path.join(target, rel)
        if os.path.isdir(path):
            leftovers = [n for n in os.listdir(path) if n != "__pycache__"]
            if not leftovers:
                shutil.rmtree(path, ignore_errors=True)
