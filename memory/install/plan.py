"""What an install or an uninstall changes in a target, planned before anything is written: our code and
recall.sh, the knowledge file, the .gitignore and .gitattributes blocks, each runtime's settings merged with our
hooks (or taken out), the manifest; an uninstall takes out exactly what an install put in (and the data, with
--purge). A file we must not touch stops the plan, so nothing is written (apply.py writes a plan).
"""
from __future__ import annotations

import json
import os

from memory import TYPE_CHECKING
from memory.core import fsio, layout
from memory.install import backups
from memory.install.backups import BACKUP_SUFFIX
from memory.install.bundle import code_files, source_path
from memory.install.change import Change, block_change, config_change, mode_of, read
from memory.runtimes import registration, settings_merge
from memory.runtimes.registration import (
    CLAUDE_SETTINGS,
    CODEX_HOOKS,
    CURSOR_HOOKS,
    GEMINI_SETTINGS,
    INSTALL_DIR,
    MANIFEST,
    NO_VENV_CHOSEN,
)
from memory.runtimes.settings_merge import SettingsError

if TYPE_CHECKING:
    from collections.abc import Sequence

MEMORY_DIR = layout.MEMORY_SUBDIR
RECALL = os.path.join(MEMORY_DIR, layout.RECALL_SCRIPT)
KNOWLEDGE = os.path.join(MEMORY_DIR, layout.KNOWLEDGE)
GITIGNORE_BEGIN = "# >>> memory-hooks: machine-local files (knowledge*.jsonl is meant to be committed)"
GITIGNORE_END = "# <<< memory-hooks"
# The memory folder's machine-local files are ignored by a .gitignore in that folder: it stays with the
# knowledge after an uninstall (and in every teammate's clone), so their state never becomes committable.
MEMORY_IGNORE = os.path.join(MEMORY_DIR, layout.MEMORY_IGNORE)
MEMORY_IGNORE_BEGIN = layout.MEMORY_IGNORE_BEGIN
# the files the manifest's `created` may name: an uninstall deletes them when nothing but ours is left in them
CREATED_TRACKED = frozenset([".gitignore"] + [files[0] for _, files, _, _ in registration.RUNTIMES])


def data_files() -> list[str]:
    """What the hooks write into .beads/memory (folders end in "/"): memory.core.layout names every one."""
    return list(layout.DATA_FILES) + [name + "/" for name in layout.MACHINE_LOCAL_DIRS + layout.COMMITTED_DIRS]


def gitignore_lines() -> list[str]:
    """The repository's .gitignore block: the machine-local files of the code and of the settings backups
    (they go with an uninstall; the memory folder's own are in memory_ignore_lines)."""
    return ([f"/{INSTALL_DIR}/.venv/", f"/{NO_VENV_CHOSEN}", f"/{INSTALL_DIR}/**/__pycache__/"]
            + [f"/{os.path.dirname(rel)}/*{BACKUP_SUFFIX}" for _, files, _, _ in registration.RUNTIMES
               for rel in files[:1]])


def memory_ignore_lines() -> list[str]:
    """The memory folder's .gitignore block: every file the hooks write there but the committed knowledge
    (memory.core.layout names each one), and the temp files of an atomic write."""
    return layout.memory_ignore_lines()


def _mode_for(rel: str) -> int:
    """Only what is run by path is executable: recall.sh, hooks/*.py, bin/*; the library is 0644."""
    top = os.path.relpath(rel, INSTALL_DIR).split(os.sep)[0]
    runnable = rel == RECALL or (top == "hooks" and rel.endswith(".py")) or top == "bin"
    return 0o755 if runnable else 0o644


def _code_change(target: str, rel: str, after: bytes | None) -> Change:
    return Change(rel, read(target, rel), after, mode=_mode_for(rel), before_mode=mode_of(target, rel))


def _gitignore_change(root: str, remove: bool, strict: bool = True, other_root: bool = False) -> Change:
    return block_change(root, ".gitignore", GITIGNORE_BEGIN, GITIGNORE_END, gitignore_lines(), remove, strict,
                        other_root)


def _memory_ignore_change(root: str, remove: bool, strict: bool = True, other_root: bool = False) -> Change:
    return block_change(root, MEMORY_IGNORE, MEMORY_IGNORE_BEGIN, GITIGNORE_END, memory_ignore_lines(), remove,
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

    return block_change(root, ".gitattributes", gitmerge.ATTRIBUTES_BEGIN, gitmerge.ATTRIBUTES_END,
                        gitattributes_lines(), remove, strict)


def gitattributes_lines() -> list[str]:
    """install.sh's .gitattributes block: the knowledge files merged by the driver, and the shell scripts kept as
    committed (LF) whatever core.autocrlf a clone has (Git for Windows sets it): a CRLF checkout of recall.sh or
    bin/memory-merge is "required file not found", and a merge of the knowledge then conflicts."""
    from memory.store import gitmerge

    return gitmerge.attribute_lines() + [f"/{RECALL.replace(os.sep, '/')} -text", f"/{INSTALL_DIR}/** -text"]


def plan_install(target: str, cursor: bool, claude: bool, main_checkout: str | None = None,
                 source: str | None = None, gemini: bool = True, codex: bool = True,
                 left_out: Sequence[str] = ()) -> list[Change]:
    """Every file change an install makes, in the order it is applied (code before registrations).

    From a linked worktree (`main_checkout` set) captures land in the main checkout: its .gitignore gets
    our block too, and the knowledge file is not created in the worktree. `claude` off takes ours out of
    .claude/settings.json (the plugin registers them, or --no-claude). `left_out`: the runtimes a --no-* flag
    left out, recorded in the manifest. A runtime's file we created that holds nothing but ours is deleted
    when ours are taken out, as an uninstall does: no `{}` left behind.
    """
    shipped = {os.path.join(INSTALL_DIR, rel) for rel in code_files()}
    changes = [_code_change(target, os.path.join(INSTALL_DIR, rel), fsio.read_bytes(source_path(rel)))
               for rel in code_files()]
    previous = _manifest(target)
    previously_created = set(previous.get("created", []))
    for rel in sorted(set(previous.get("files", [])) - shipped):  # shipped before, not any more
        if read(target, rel) is not None:
            changes.append(Change(rel, read(target, rel), None))
    changes.append(_code_change(target, RECALL, fsio.read_bytes(source_path(os.path.join("bin", "recall.sh")))))
    if main_checkout is None and read(target, KNOWLEDGE) is None:
        changes.append(Change(KNOWLEDGE, None, b""))
    changes.append(_gitignore_change(target, remove=False))
    if main_checkout is None:
        changes.append(_memory_ignore_change(target, remove=False))
    else:  # the captures' machine-local files are written in the main checkout's memory folder
        changes.append(_memory_ignore_change(main_checkout, remove=False, other_root=True))
    attributes = _gitattributes_change(target, remove=False)
    changes.append(attributes)
    hooks = [os.path.splitext(os.path.basename(f))[0] for f in code_files() if f.startswith("hooks" + os.sep)]
    claude_merge = (lambda c: settings_merge.with_claude_hooks(c, hooks)) if claude else settings_merge.without_ours
    changes.append(_unless_emptied(config_change(target, CLAUDE_SETTINGS, claude_merge), previously_created))
    others = ((cursor, CURSOR_HOOKS, settings_merge.with_cursor_hooks, "--no-cursor"),
              (gemini, GEMINI_SETTINGS, settings_merge.with_gemini_hooks, "--no-gemini"),
              (codex, CODEX_HOOKS, settings_merge.with_codex_hooks, "--no-codex"))
    for wanted, rel, with_ours, opt_out in others:  # each runtime's file: ours merged in, or taken out
        if not (wanted or os.path.isfile(os.path.join(target, rel))):
            continue
        merge = (lambda c, add=with_ours: add(c, hooks)) if wanted else settings_merge.without_ours
        try:
            changes.append(_unless_emptied(config_change(target, rel, merge, cursor=rel == CURSOR_HOOKS,
                                                         codex=wanted and rel == CODEX_HOOKS), previously_created))
        except SettingsError as exc:
            raise SettingsError(f"{exc} (or install with {opt_out})") from None
    for change in changes:  # an upgrade: the first install's backup (the user's own file) stays
        change.keep_backup = change.config and backups.earlier_install_backed_up(target, change)
        change.backup = not (change.config and backups.nothing_of_the_users(change.before))
    # `created`: the files an uninstall deletes once nothing but ours is left in them (the settings files and
    # .gitignore). Not the memory folder's .gitignore: it stays with the knowledge after an uninstall, so a
    # later install found it there, and listing it made install.json differ after an uninstall + install.
    created = {c.rel for c in changes if c.root is None and c.before is None and c.after is not None}
    created = (created | previously_created) & CREATED_TRACKED
    manifest = {"version": 1, "created": sorted(created), "files": sorted(shipped)}
    # attributes a teammate committed before this install stay when this clone uninstalls
    kept = previous.get("attributes_kept", attributes.before is not None and not attributes.changed)
    manifest["attributes_kept"] = bool(kept)
    main_created = [c.rel for c in changes if c.root is not None and c.before is None and c.after is not None]
    main_created = sorted((set(previous.get("created_in_main_checkout", [])) | set(main_created)) & {".gitignore"})
    if main_created:
        manifest["created_in_main_checkout"] = main_created
    if left_out:  # --no-claude: the doctor does not ask for a Claude Code registration
        manifest["left_out"] = sorted(left_out)
    # a URL teammates can clone names where the installer comes from (registration.reinstall_hint); a local
    # path (an older install recorded one) names a folder on one machine: never into the committed manifest
    source = registration.shareable_source(source) or registration.shareable_source(previous.get("source"))
    if source:
        manifest["source"] = source
    changes.append(_code_change(target, MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode()))
    return changes


def _unless_emptied(change: Change, created: set[str]) -> Change:
    """A settings file an install created, ours taken out and nothing else left in it: deleted, not `{}`."""
    if change.rel in created and change.before is not None and change.after is not None:
        try:
            if backups.load(change.after) in ({}, {"version": 1}):
                change.after = None
        except ValueError:
            pass
    return change


def _manifest(target: str) -> dict:
    return registration.read_config(os.path.join(target, MANIFEST))


def plan_uninstall(target: str, purge: bool, main_checkout: str | None = None) -> list[Change]:
    """Take out exactly what an install put in; knowledge stays unless `purge`."""
    manifest = _manifest(target)
    created = set(manifest.get("created", []))
    changes = []
    ours = set(manifest.get("files", [])) | {os.path.join(INSTALL_DIR, rel) for rel in code_files()} | {MANIFEST}
    for rel in sorted(ours) + [RECALL]:  # only what an install put there: a file the user added stays
        before = read(target, rel, strict=False)
        if before is not None:
            changes.append(Change(rel, before, None))
    for rel, cursor in ((CLAUDE_SETTINGS, False), (CURSOR_HOOKS, True), (GEMINI_SETTINGS, False), (CODEX_HOOKS, False)):
        if read(target, rel, strict=False) is not None:
            change = _unless_emptied(config_change(target, rel, settings_merge.without_ours, cursor=cursor), created)
            backup = read(target, rel + BACKUP_SUFFIX, strict=False)
            if change.after is not None and backup is not None and backups.same_json(backup, change.after):
                change.after = backup  # the user's own bytes, formatting included
            # a backup that says more than the file we leave (a hook an older install.sh dropped, settings the
            # user changed since) is theirs to compare: kept, and the report says so
            change.keep_backup = backup is not None and rel not in created and backups.says_more(backup, change.after)
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
        before = read(target, rel, strict=False)
        if before is not None:
            changes.append(Change(rel, before, None))
    return changes
