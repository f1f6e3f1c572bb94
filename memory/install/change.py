"""One planned file change, and reading a target's file for it safely: a settings file merged with our
hooks, or a file with our marked block; the user's bytes and mode kept wherever ours do not change."""
from __future__ import annotations

import errno
import os

from memory import TYPE_CHECKING
from memory.core import fsio, jsonedit, textblock
from memory.runtimes import settings_merge
from memory.runtimes.runtimes import GEMINI_SETTINGS
from memory.runtimes.settings_merge import SettingsError

if TYPE_CHECKING:
    from collections.abc import Callable


class Change:
    """One planned file change: content before (None = absent) and after (None = delete), and the mode the
    file must end with (None = whatever it has). `root` is the tree `rel` is in (None = the target).
    `keep_backup`: a settings file whose earlier backup already holds the user's own bytes (an upgrade).
    `backup`: False for a settings file that holds nothing of the user's (one an install made): no backup."""

    def __init__(self, rel: str, before: bytes | None, after: bytes | None, config: bool = False,
                 mode: int | None = None, before_mode: int | None = None, root: str | None = None) -> None:
        self.rel, self.before, self.after, self.config = rel, before, after, config
        self.mode, self.before_mode, self.root = mode, before_mode, root
        self.keep_backup = False
        self.backup = True

    @property
    def changed(self) -> bool:
        return self.before != self.after or (self.after is not None and self.mode not in (None, self.before_mode))

    @property
    def label(self) -> str:
        return self.rel if self.root is None else os.path.join(self.root, self.rel)


def read(root: str, rel: str, strict: bool = True) -> bytes | None:
    """A file's bytes, following symlinks (users symlink their dotfiles), or None when it is absent.

    A path that cannot be a file we read and write (a folder, below a file, a dangling symlink, a symlink
    loop, a FIFO or a device) is a SettingsError; with `strict=False` (uninstall) it counts as absent: nothing
    of ours is there.
    Other OSErrors (permissions, I/O) go to the caller.
    """
    try:  # whole (it is rewritten whole); a FIFO or a device is refused at once, not waited on
        return fsio.read_regular(os.path.join(root, rel), follow=True)
    except FileNotFoundError:
        problem = _dangling_link(root, rel)
        if problem is None:
            return None
    except IsADirectoryError:
        problem = f"{rel} is a folder, not a file"
    except NotADirectoryError:
        problem = f"{_first_file(root, rel)} is a file, not a folder"
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENXIO):  # fsio.open_regular's answer for a FIFO, a device, a socket
            problem = f"{rel} is not a regular file"
        elif exc.errno != errno.ELOOP:
            raise
        else:
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


def mode_of(root: str, rel: str) -> int | None:
    """A file's permission bits (None when it is absent)."""
    try:
        return os.stat(os.path.join(root, rel)).st_mode & 0o7777
    except OSError:
        return None


def config_change(target: str, rel: str, transform: Callable[[dict], dict], cursor: bool = False,
                  strict: bool = True, codex: bool = False) -> Change:
    """A runtime's settings file with `transform` applied (our hooks merged in or taken out): refused when
    it is not of the documented hooks shape (with `codex`, Codex's own: no other field beside `hooks`); only the
    spans that change are rewritten."""
    gemini = rel == GEMINI_SETTINGS
    before = read(target, rel, strict)
    try:
        text = (before or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsError(f"{rel}: not UTF-8 text; fix or move it, nothing was written") from None
    current = settings_merge.parse_json_file(rel, text)
    problems = settings_merge.schema_problems(current, cursor=cursor, strict=False, gemini=gemini, codex=codex)
    if problems:
        raise SettingsError(f"{rel}: not of the documented hooks shape ({'; '.join(problems)}); "
                            "fix it first, nothing was written")
    # where ours are current, only not last, the user's hooks below ours stay where (and as) they put them
    merged = settings_merge.ours_kept_in_place(current, transform(current))
    problems = settings_merge.schema_problems(merged, cursor=cursor, strict=False, gemini=gemini)
    if problems:  # pragma: no cover - our own entries are well-formed; a guard against a future mistake
        raise SettingsError(f"{rel}: merged result would not be valid ({'; '.join(problems)}); nothing was written")
    if merged in ({}, {"version": 1}) and before is None:
        after = None
    else:  # only the spans that change: the user's formatting stays, an uninstall gives back their bytes
        edited = jsonedit.edit(text, merged) if text.strip() else None
        after = (edited if edited is not None else settings_merge.dump_json(merged, text)).encode()
    if before is not None and after is not None and \
            settings_merge.parse_json_file(rel, after.decode()) == settings_merge.parse_json_file(rel, text):
        after = before  # same meaning: leave the user's formatting alone
    mode = mode_of(target, rel)  # a rewrite keeps the user's mode (0600 stays 0600)
    return Change(rel, before, after, config=True, mode=mode, before_mode=mode)


def block_change(root: str, rel: str, begin: str, end_marker: str, block: list[str], remove: bool,
                 strict: bool = True, other_root: bool = False) -> Change:
    """`rel` with our marked block written (in place, else at its end) or taken out: every byte of the user's
    around it kept, the block in the file's line ending (memory.core.textblock)."""
    before = read(root, rel, strict)
    if remove:
        after = None if before is None else textblock.take_out(before, begin, end_marker)
    else:
        after = textblock.put(before, begin, end_marker, block)
    mode = mode_of(root, rel)
    return Change(rel, before, after, mode=mode, before_mode=mode, root=root if other_root else None)
