"""install.sh: put memory-hooks into a repository, or take it out again, never clobbering anything.

Every change is planned first (so --dry-run can show it as a diff, and a file we must not touch stops the
run before anything is written), then applied file by file with temp file + fsync + os.replace; settings
files are merged, backed up, and validated before anything is written. Exit status: 0 done, 1 installed but
the self-check failed, 2 usage error or a file we must not touch (nothing written), 3 any other error.
"""
from __future__ import annotations

import difflib
import errno
import functools
import json
import os
import shutil
import sys

from memory import TYPE_CHECKING
from memory.core import fsio, jsonedit, layout, paths
from memory.runtimes import registration
from memory.runtimes.registration import (
    CLAUDE_SETTINGS,
    CODEX_HOOKS,
    CURSOR_HOOKS,
    GEMINI_SETTINGS,
    INSTALL_DIR,
    MANIFEST,
    SettingsError,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the clone (or site-packages)
DATA_PACKAGE = "memory_hooks"  # installed from a wheel: hooks/, bin/ and requirements*.txt are this package's data
MEMORY_DIR = layout.MEMORY_SUBDIR
RECALL = os.path.join(MEMORY_DIR, layout.RECALL_SCRIPT)
KNOWLEDGE = os.path.join(MEMORY_DIR, layout.KNOWLEDGE)
VENV = os.path.join(INSTALL_DIR, ".venv")
BACKUP_SUFFIX = ".memory-hooks.bak"
GITIGNORE_BEGIN = "# >>> memory-hooks: machine-local files (knowledge*.jsonl is meant to be committed)"
GITIGNORE_END = "# <<< memory-hooks"
# The memory folder's machine-local files are ignored by a .gitignore in that folder: it stays with the
# knowledge after an uninstall (and in every teammate's clone), so their state never becomes committable.
MEMORY_IGNORE = os.path.join(MEMORY_DIR, ".gitignore")
MEMORY_IGNORE_BEGIN = ("# >>> memory-hooks: this folder's machine-local files, never committed (knowledge*.jsonl "
                       "is); kept while the knowledge is")
TEMP_FILES = ".*" + layout.TEMP_SUFFIX  # fsio.atomic_write's temp files, left behind only by a crash
EXIT_OK, EXIT_SELF_CHECK, EXIT_USAGE, EXIT_ERROR = 0, 1, 2, 3


def data_files() -> list[str]:
    """What the hooks write into .beads/memory (folders end in "/"): memory.core.layout names every one."""
    return list(layout.DATA_FILES) + [name + "/" for name in layout.MACHINE_LOCAL_DIRS + layout.COMMITTED_DIRS]


def gitignore_lines() -> list[str]:
    """The repository's .gitignore block: the machine-local files of the code and of the settings backups
    (they go with an uninstall; the memory folder's own are in memory_ignore_lines)."""
    return ([f"/{INSTALL_DIR}/.venv/", f"/{INSTALL_DIR}/**/__pycache__/"]
            + [f"/{os.path.dirname(rel)}/*{BACKUP_SUFFIX}" for _, files, _, _ in registration.RUNTIMES
               for rel in files[:1]])


def memory_ignore_lines() -> list[str]:
    """The memory folder's .gitignore block: every file the hooks write there but the committed knowledge
    (memory.core.layout names each one), and the temp files of an atomic write."""
    shared = layout.COMMITTED + tuple(name + "/" for name in layout.COMMITTED_DIRS)  # the inbox is committed
    return [f"/{name}" for name in data_files() if name not in shared] + [f"/{TEMP_FILES}"]


class Change:
    """One planned file change: content before (None = absent) and after (None = delete), and the mode the
    file must end with (None = whatever it has). `root` is the tree `rel` is in (None = the target)."""

    def __init__(self, rel: str, before: bytes | None, after: bytes | None, config: bool = False,
                 mode: int | None = None, before_mode: int | None = None, root: str | None = None) -> None:
        self.rel, self.before, self.after, self.config = rel, before, after, config
        self.mode, self.before_mode, self.root = mode, before_mode, root

    @property
    def changed(self) -> bool:
        return self.before != self.after or (self.after is not None and self.mode not in (None, self.before_mode))

    @property
    def label(self) -> str:
        return self.rel if self.root is None else os.path.join(self.root, self.rel)


def data_root() -> str:
    """Where hooks/, bin/ and the requirements files are: the clone, or beside the installed `memory` package
    the DATA_PACKAGE folder that pyproject.toml ships them in (pip, pipx and uv install the wheel there)."""
    packaged = os.path.join(SOURCE, DATA_PACKAGE)
    if not os.path.isdir(os.path.join(SOURCE, "hooks")) and os.path.isdir(os.path.join(packaged, "hooks")):
        return packaged
    return SOURCE


def source_path(rel: str) -> str:
    """The file of ours a shipped path (relative to INSTALL_DIR, as code_files() names it) is copied from."""
    top = rel.split(os.sep, 1)[0]
    return os.path.join(SOURCE if top == "memory" else data_root(), rel)


@functools.lru_cache(maxsize=1)  # one walk of the bundle per run (a plan, the bytecode and the report ask)
def code_files() -> tuple[str, ...]:
    """The files of ours that go into the target's INSTALL_DIR (paths relative to it; source_path() finds each)."""
    files: list[str] = []
    for folder, suffixes in (("hooks", (".py",)), ("memory", (".py",)), ("bin", ("",))):
        root = SOURCE if folder == "memory" else data_root()
        for here, dirs, names in os.walk(os.path.join(root, folder)):
            rel = os.path.relpath(here, root)
            # the installer itself never ships: the target gets only what the hooks and commands run
            dirs[:] = sorted(d for d in dirs if os.path.join(rel, d) != os.path.join("memory", "install")
                             and not d.startswith((".", "__")))
            files += [os.path.join(rel, name) for name in sorted(names)
                      if name.endswith(suffixes) and not name.startswith(".")
                      and os.path.isfile(os.path.join(here, name))]
    return (*sorted(files), "requirements.txt")


def _mode_for(rel: str) -> int:
    """Only what is run by path is executable: recall.sh, hooks/*.py, bin/*; the library is 0644."""
    top = os.path.relpath(rel, INSTALL_DIR).split(os.sep)[0]
    runnable = rel == RECALL or (top == "hooks" and rel.endswith(".py")) or top == "bin"
    return 0o755 if runnable else 0o644


def _read(root: str, rel: str, strict: bool = True) -> bytes | None:
    """A file's bytes, following symlinks (users symlink their dotfiles), or None when it is absent.

    A path that cannot be a file we read and write (a folder, below a file, a dangling symlink, a symlink
    loop) is a SettingsError; with `strict=False` (uninstall) it counts as absent: nothing of ours is there.
    Other OSErrors (permissions, I/O) go to the caller.
    """
    try:
        with open(os.path.join(root, rel), "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        problem = _dangling_link(root, rel)
        if problem is None:
            return None
    except IsADirectoryError:
        problem = f"{rel} is a folder, not a file"
    except NotADirectoryError:
        problem = f"{_first_file(root, rel)} is a file, not a folder"
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        problem = f"{rel} is a symlink loop"
    if not strict:
        return None
    raise SettingsError(f"{os.path.join(root, problem)}; move it away, nothing was written")


def _dangling_link(root: str, rel: str) -> str | None:
    """`rel`, or the folder of it, that is a symlink to nothing: writing there would create its target."""
    part = ""
    for name in rel.split(os.sep):
        part = os.path.join(part, name)
        full = os.path.join(root, part)
        if os.path.islink(full) and not os.path.exists(full):
            return f"{part} is a symlink to {os.readlink(full)}, which does not exist"
        if not os.path.lexists(full):
            return None
    return None


def _first_file(root: str, rel: str) -> str:
    part = ""
    for name in rel.split(os.sep)[:-1]:
        part = os.path.join(part, name)
        if not os.path.isdir(os.path.join(root, part)):
            return part
    return rel


def _mode(root: str, rel: str) -> int | None:
    try:
        return os.stat(os.path.join(root, rel)).st_mode & 0o7777
    except OSError:
        return None


def _code_change(target: str, rel: str, after: bytes | None) -> Change:
    return Change(rel, _read(target, rel), after, mode=_mode_for(rel), before_mode=_mode(target, rel))


def _config_change(target: str, rel: str, transform: Callable[[dict], dict], cursor: bool = False,
                   strict: bool = True) -> Change:
    gemini = rel == GEMINI_SETTINGS
    before = _read(target, rel, strict)
    try:
        text = (before or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsError(f"{rel}: not UTF-8 text; fix or move it, nothing was written") from None
    current = registration.parse_json_file(rel, text)
    problems = registration.schema_problems(current, cursor=cursor, strict=False, gemini=gemini)
    if problems:
        raise SettingsError(f"{rel}: not of the documented hooks shape ({'; '.join(problems)}); "
                            "fix it first, nothing was written")
    merged = transform(current)
    problems = registration.schema_problems(merged, cursor=cursor, strict=False, gemini=gemini)
    if problems:  # pragma: no cover - our own entries are well-formed; a guard against a future mistake
        raise SettingsError(f"{rel}: merged result would not be valid ({'; '.join(problems)}); nothing was written")
    if merged in ({}, {"version": 1}) and before is None:
        after = None
    else:  # only the spans that change: the user's formatting stays, an uninstall gives back their bytes
        edited = jsonedit.edit(text, merged) if text.strip() else None
        after = (edited if edited is not None else registration.dump_json(merged, text)).encode()
    if before is not None and after is not None and json.loads(after) == json.loads(before or b"{}"):
        after = before  # same meaning: leave the user's formatting alone
    mode = _mode(target, rel)  # a rewrite keeps the user's mode (0600 stays 0600)
    return Change(rel, before, after, config=True, mode=mode, before_mode=mode)


def _gitignore_change(root: str, remove: bool, strict: bool = True, other_root: bool = False) -> Change:
    return _block_change(root, ".gitignore", GITIGNORE_BEGIN, GITIGNORE_END, gitignore_lines(), remove, strict,
                         other_root)


def _memory_ignore_change(root: str, remove: bool, strict: bool = True, other_root: bool = False) -> Change:
    return _block_change(root, MEMORY_IGNORE, MEMORY_IGNORE_BEGIN, GITIGNORE_END, memory_ignore_lines(), remove,
                         strict, other_root)


def _memory_ignore_on_uninstall(root: str, purge: bool, other_root: bool = False) -> Change:
    """The memory folder's .gitignore stays while the folder holds anything of the hooks (the knowledge,
    its machine-local files): taken out only when nothing is left to ignore (or with --purge, here)."""
    folder = os.path.join(root, MEMORY_DIR)
    names = os.listdir(folder) if os.path.isdir(folder) and not os.path.islink(folder) else []
    keep = bool([n for n in names if n not in (layout.RECALL_SCRIPT, ".gitignore")]) and not (purge and not other_root)
    change = _memory_ignore_change(root, remove=not keep, strict=False, other_root=other_root)
    if not keep and not (change.after or b"").strip():
        change.after = None
    return change


def _gitattributes_change(root: str, remove: bool, strict: bool = True) -> Change:
    from memory.store import gitmerge

    return _block_change(root, ".gitattributes", gitmerge.ATTRIBUTES_BEGIN, gitmerge.ATTRIBUTES_END,
                         gitmerge.attribute_lines(), remove, strict)


def _block_change(root: str, rel: str, begin: str, end_marker: str, block: list[str], remove: bool,
                  strict: bool = True, other_root: bool = False) -> Change:
    """`rel` with our marked block (re)written at its end, or taken out; the user's lines untouched."""
    before = _read(root, rel, strict)
    text = (before or b"").decode("utf-8", "replace")
    newline = "\r\n" if "\r\n" in text else "\n"  # keep the user's line endings
    lines = text.splitlines()
    if begin in lines and end_marker in lines[lines.index(begin):]:
        start = lines.index(begin)
        end = lines.index(end_marker, start)
        lines = lines[:start] + lines[end + 1:]
        while lines and not lines[-1].strip():
            lines.pop()
    if not remove:
        lines += ([""] if lines else []) + [begin] + block + [end_marker]
    after = (newline.join(lines) + newline).encode() if lines else (None if before is None else b"")
    mode = _mode(root, rel)
    return Change(rel, before, after, mode=mode, before_mode=mode, root=root if other_root else None)


def source_url() -> str | None:
    """Where this copy of memory-hooks came from (its clone's origin, credentials dropped), or None."""
    top = paths.git_lines(["rev-parse", "--show-toplevel"], SOURCE, 30.0)
    if not top or os.path.realpath(top[0]) != os.path.realpath(SOURCE):
        return None  # not a clone of its own (vendored into another repository), or no git: its origin is not ours
    url = "".join(paths.git_lines(["remote", "get-url", "origin"], SOURCE, 30.0)).strip()
    if "@" not in url:  # no credentials to drop (and no urllib.parse to import, ~2 ms)
        return url or None
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.scheme and "@" in parts.netloc:  # https://user:token@host/…: never into a tracked file
        url = urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return url or None


def plan_install(target: str, cursor: bool, claude: bool, main_checkout: str | None = None,
                 source: str | None = None, gemini: bool = True, codex: bool = True) -> list[Change]:
    """Every file change an install makes, in the order it is applied (code before registrations).

    From a linked worktree (`main_checkout` set) captures land in the main checkout: its .gitignore gets
    our block too, and the knowledge file is not created in the worktree.
    """
    shipped = {os.path.join(INSTALL_DIR, rel) for rel in code_files()}
    changes = [_code_change(target, os.path.join(INSTALL_DIR, rel), fsio.read_bytes(source_path(rel)))
               for rel in code_files()]
    previous = _manifest(target)
    for rel in sorted(set(previous.get("files", [])) - shipped):  # shipped before, not any more
        if _read(target, rel) is not None:
            changes.append(Change(rel, _read(target, rel), None))
    changes.append(_code_change(target, RECALL, fsio.read_bytes(source_path(os.path.join("bin", "recall.sh")))))
    if main_checkout is None and _read(target, KNOWLEDGE) is None:
        changes.append(Change(KNOWLEDGE, None, b""))
    changes.append(_gitignore_change(target, remove=False))
    if main_checkout is None:
        changes.append(_memory_ignore_change(target, remove=False))
    else:  # the captures' machine-local files are written in the main checkout's memory folder
        changes.append(_memory_ignore_change(main_checkout, remove=False, other_root=True))
    attributes = _gitattributes_change(target, remove=False)
    changes.append(attributes)
    hooks = [os.path.splitext(os.path.basename(f))[0] for f in code_files() if f.startswith("hooks" + os.sep)]
    claude_merge = (lambda c: registration.with_claude_hooks(c, hooks)) if claude else registration.without_ours
    changes.append(_config_change(target, CLAUDE_SETTINGS, claude_merge))
    others = ((cursor, CURSOR_HOOKS, registration.with_cursor_hooks, "--no-cursor"),
              (gemini, GEMINI_SETTINGS, registration.with_gemini_hooks, "--no-gemini"),
              (codex, CODEX_HOOKS, registration.with_codex_hooks, "--no-codex"))
    for wanted, rel, with_ours, opt_out in others:  # each runtime's file: ours merged in, or taken out
        if not (wanted or os.path.isfile(os.path.join(target, rel))):
            continue
        merge = (lambda c, add=with_ours: add(c, hooks)) if wanted else registration.without_ours
        try:
            changes.append(_config_change(target, rel, merge, cursor=rel == CURSOR_HOOKS))
        except SettingsError as exc:
            raise SettingsError(f"{exc} (or install with {opt_out})") from None
    created = sorted(c.rel for c in changes if c.root is None and c.before is None and c.after is not None
                     and (c.config or c.rel in (".gitignore", MEMORY_IGNORE)))
    manifest = {"version": 1, "created": sorted(set(previous.get("created", [])) | set(created)),
                "files": sorted(shipped)}
    # attributes a teammate committed before this install stay when this clone uninstalls
    kept = previous.get("attributes_kept", attributes.before is not None and not attributes.changed)
    manifest["attributes_kept"] = bool(kept)
    main_created = [c.rel for c in changes if c.root is not None and c.before is None and c.after is not None]
    main_created = sorted(set(previous.get("created_in_main_checkout", [])) | set(main_created))
    if main_created:
        manifest["created_in_main_checkout"] = main_created
    source = source or previous.get("source")
    if source:
        manifest["source"] = source  # names the install.sh a teammate needs (registration.reinstall_hint)
    changes.append(_code_change(target, MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode()))
    return changes


def _manifest(target: str) -> dict:
    return registration.read_config(os.path.join(target, MANIFEST))


def plan_uninstall(target: str, purge: bool, main_checkout: str | None = None) -> list[Change]:
    """Take out exactly what an install put in; knowledge stays unless `purge`."""
    manifest = _manifest(target)
    created = set(manifest.get("created", []))
    changes = []
    ours = set(manifest.get("files", [])) | {os.path.join(INSTALL_DIR, rel) for rel in code_files()} | {MANIFEST}
    for rel in sorted(ours) + [RECALL]:  # only what an install put there: a file the user added stays
        before = _read(target, rel, strict=False)
        if before is not None:
            changes.append(Change(rel, before, None))
    for rel, cursor in ((CLAUDE_SETTINGS, False), (CURSOR_HOOKS, True), (GEMINI_SETTINGS, False), (CODEX_HOOKS, False)):
        if _read(target, rel, strict=False) is not None:
            change = _config_change(target, rel, registration.without_ours, cursor=cursor)
            if rel in created and change.after is not None and json.loads(change.after) in ({}, {"version": 1}):
                change.after = None  # we created it and nothing else is in it
            backup = _read(target, rel + BACKUP_SUFFIX, strict=False)
            if change.after is not None and backup is not None and _same_json(backup, change.after):
                change.after = backup  # the user's own bytes, formatting included
            changes.append(change)
    if not manifest.get("attributes_kept"):
        attributes = _gitattributes_change(target, remove=True, strict=False)
        if not (attributes.after or b"").strip():
            attributes.after = None
        changes.append(attributes)
    ignore = _gitignore_change(target, remove=True, strict=False)
    if ".gitignore" in created and not (ignore.after or b"").strip():
        ignore.after = None
    changes.append(ignore)
    changes.append(_memory_ignore_on_uninstall(target, purge))
    if main_checkout is not None and not os.path.exists(os.path.join(main_checkout, MANIFEST)):
        # a block an older install.sh added for this worktree's captures; a main checkout with its own
        # install keeps it. The main checkout's memory folder keeps ignoring its machine-local files.
        main_ignore = _gitignore_change(main_checkout, remove=True, strict=False, other_root=True)
        if ".gitignore" in manifest.get("created_in_main_checkout", []) and not (main_ignore.after or b"").strip():
            main_ignore.after = None
        changes += [main_ignore, _memory_ignore_on_uninstall(main_checkout, purge, other_root=True)]
    if purge:
        changes += _purge_changes(target)
    return [c for c in changes if c.changed]


def _purge_changes(target: str) -> list[Change]:
    """Deletions of every data file of ours in the target's memory folder (see data_files)."""
    names = data_files()
    rels = [os.path.join(MEMORY_DIR, n) for n in names if not n.endswith("/")]
    for folder in (os.path.join(target, MEMORY_DIR, n) for n in names if n.endswith("/")):
        if os.path.isdir(folder) and not os.path.islink(folder):
            rels += [os.path.relpath(os.path.join(folder, f), target) for f in sorted(os.listdir(folder))
                     if os.path.isfile(os.path.join(folder, f))]
    memory = os.path.join(target, MEMORY_DIR)
    temp_of = {f".{n}." for n in names}  # fsio.atomic_write's `.<name>.<pid>.tmp`
    if os.path.isdir(memory):
        rels += [os.path.join(MEMORY_DIR, f) for f in sorted(os.listdir(memory))
                 if f.endswith(".tmp") and any(f.startswith(p) for p in temp_of)]
    changes = []
    for rel in rels:
        before = _read(target, rel, strict=False)
        if before is not None:
            changes.append(Change(rel, before, None))
    return changes


def _same_json(a: bytes, b: bytes) -> bool:
    try:
        return json.loads(a or b"{}") == json.loads(b or b"{}")
    except ValueError:
        return False


def show_diff(changes: list[Change], out: TextIO = sys.stdout) -> None:
    """Code files as one line each; configuration and data files as unified diffs."""
    for c in changes:
        if not c.changed:
            continue
        verb = "create" if c.before is None else "delete" if c.after is None else "update"
        if c.before == c.after:
            out.write(f"chmod {c.mode:o} {c.label}\n")
            continue
        if c.rel.startswith(INSTALL_DIR) and not c.rel.endswith(".json"):
            out.write(f"{verb} {c.label}\n")
            continue
        before = (c.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after = (c.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        out.writelines(difflib.unified_diff(before, after, f"a/{c.label}" if c.before is not None else "/dev/null",
                                            f"b/{c.label}" if c.after is not None else "/dev/null"))
        if not before and not after:
            out.write(f"{verb} {c.label} (empty)\n")


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
            if c.before != c.after:
                if c.config and backups and c.before is not None and c.after is not None:
                    undo.write(full + BACKUP_SUFFIX, c.before)
                elif c.config and not backups and os.path.lexists(full + BACKUP_SUFFIX):
                    undo.remove(full + BACKUP_SUFFIX)
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
        with open(path, "rb") as fh:
            self.saved.append((path, fh.read(), mode & 0o7777))

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
