"""The knowledge files' git merge driver: attributes, the driver's git config, and whether a clone has it.

`.gitattributes` (committed, written by install.sh) names the driver for the knowledge files; the driver's
command lives in the repository's git config (`merge.memory-hooks.driver`), which git never clones. A
teammate who only cloned has the attributes but not the config: git then falls back to its built-in text
merge for those files (conflicts on the last lines, as without the attribute), so session start tells them
the one command that sets it (`recall.sh --setup-git`). A merge or rebase that already stopped on a text
conflict in those files is merged again with the driver by the same command (`remerge`), as git would have
merged it with the driver set. The driver itself: memory/store/merge.py.
"""
from __future__ import annotations

import os

from memory.core import fsio, layout, paths

DRIVER = "memory-hooks"
ATTRIBUTES_BEGIN = "# >>> memory-hooks: merge the knowledge files as data (bin/memory-merge)"
ATTRIBUTES_END = "# <<< memory-hooks"
LAUNCHER = ".claude/hooks/memory-hooks/bin/memory-merge"  # relative: git runs drivers at the work tree's top
SETUP_HINT = ("memory-hooks: this clone merges .beads/memory/knowledge*.jsonl as text (conflicts likely); "
              "run `.beads/memory/recall.sh --setup-git` once to use the memory-hooks merge driver.")


def attribute_lines() -> list[str]:
    """The .gitattributes lines for the committed knowledge files."""
    return [f"/.beads/memory/{name} merge={DRIVER}" for name in layout.COMMITTED]


def driver_command(launcher: str = LAUNCHER) -> str:
    return f"{launcher} %O %A %B %P"


def has_attributes(root: str) -> bool:
    """The repository's .gitattributes names our driver."""
    try:  # a FIFO or a device there is unreadable, not a wait; a giant file is read only so far
        data = fsio.read_regular(os.path.join(root, ".gitattributes"), fsio.MAX_SETTINGS_BYTES, follow=True)
    except (OSError, ValueError):
        return False
    return f"merge={DRIVER}".encode() in data


def overridden(root: str) -> list[tuple[str, str]]:
    """(knowledge file, the merge attribute git gives it) where that is not our driver: a later line of
    .gitattributes (`*.jsonl merge=union`) wins over ours, whatever the file says of us."""
    lines = paths.git_lines(["check-attr", "merge", "--", *knowledge_paths()], root, 5.0)
    found = [line.rsplit(": merge: ", 1) for line in lines if ": merge: " in line]
    return [(rel, value) for rel, value in found if value != DRIVER]


def configured(root: str) -> bool:
    """git config has a driver command for `merge=memory-hooks` (one bounded git call)."""
    return bool(paths.git_lines(["config", "--get", f"merge.{DRIVER}.driver"], root, 2.0))


def configure(root: str, launcher: str = LAUNCHER) -> bool:
    """Set the driver in the repository's git config (shared by its worktrees); True when git accepted it."""
    name = paths.git_lines(["config", f"merge.{DRIVER}.name", "memory-hooks: union of JSONL knowledge lines"],
                           root, 5.0)
    paths.git_lines(["config", f"merge.{DRIVER}.driver", driver_command(launcher)], root, 5.0)
    return name == [] and configured(root)


def unconfigure(root: str) -> None:
    paths.git_lines(["config", "--remove-section", f"merge.{DRIVER}"], root, 5.0)


def other_users(root: str) -> list[str]:
    """The repository's other work trees whose .gitattributes names the driver: git config is shared by every
    worktree, so an uninstall in one must leave the driver to them."""
    here = os.path.realpath(root)
    trees = [line[len("worktree "):] for line in paths.git_lines(["worktree", "list", "--porcelain"], root, 5.0)
             if line.startswith("worktree ")]
    return [tree for tree in trees if os.path.realpath(tree) != here and has_attributes(tree)]


def knowledge_paths() -> list[str]:
    """The committed knowledge files, relative to a work tree's top (as .gitattributes names them)."""
    return [f"{layout.MEMORY_SUBDIR}/{name}".replace(os.sep, "/") for name in layout.COMMITTED]


def unresolved(root: str) -> list[str]:
    """The knowledge files a merge or rebase left conflicted and nobody resolved yet: unmerged in the index,
    and the work tree's copy still holds git's conflict markers, or is our side as it was (a merge driver that
    failed leaves it so, without markers: committed as it is, the other side's entries are gone)."""
    listed = paths.git_lines(["ls-files", "-u", "--", *knowledge_paths()], root, 5.0)
    ours: dict[str, str] = {}
    for line in listed:
        info, tab, rel = line.partition("\t")
        fields = info.split()
        if tab and len(fields) == 3:
            ours.setdefault(rel, "")
            if fields[2] == "2":
                ours[rel] = fields[1]
    return [rel for rel in sorted(ours) if _has_markers(os.path.join(root, rel))
            or (ours[rel] and paths.git_lines(["hash-object", "--", rel], root, 5.0)[:1] == [ours[rel]])]


def _has_markers(path: str) -> bool:
    try:
        with os.fdopen(fsio.open_regular(path, os.O_RDONLY), "rb") as fh:  # line by line: a file of any size
            return any(line.startswith((b"<<<<<<< ", b">>>>>>> ")) for line in fh)
    except OSError:
        return False


def remerge(root: str) -> list[str]:
    """Merge the unresolved knowledge files again with the driver (`git checkout -m`, which uses the configured
    driver) and stage the result; the files that came out without conflict markers."""
    done = []
    for rel in unresolved(root):
        paths.git_lines(["checkout", "-m", "--", rel], root, 30.0)
        if not _has_markers(os.path.join(root, rel)):
            paths.git_lines(["add", "--", rel], root, 30.0)
            done.append(rel)
    return done


def setup_hint(root: str) -> str | None:
    """Session start's one line for a clone with the attributes but no driver config, else None."""
    return SETUP_HINT if has_attributes(root) and not configured(root) else None
