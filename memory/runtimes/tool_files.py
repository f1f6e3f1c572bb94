"""The files a tool call reads or changes, and what an edit adds: Claude Code's and Cursor's file tools,
Gemini CLI's, Codex CLI's apply_patch and the files its shell commands print (action time's file cues).
"""
from __future__ import annotations

from memory import TYPE_CHECKING
from memory.runtimes.payload import FILE_TOOLS, PATCH_TOOLS, SHELL_TOOLS, tool_input, tool_name

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

_PATCH_FILE = "*** "  # `*** Update File: path`, `*** Add File: path`, `*** Delete File: path`


def tool_files(payload: dict[str, Any], shell_reads: bool = False) -> list[str]:
    """The files a file tool call reads or changes (absolute as the runtime sent them), [] for other calls.
    With `shell_reads`, also the files a shell command prints or patches (Codex CLI reads and edits files
    through its shell tool: `sed -n 1,80p src/db.py`, `cat a.py`, `apply_patch <<EOF`)."""
    name = tool_name(payload)
    args = tool_input(payload)
    if name in FILE_TOOLS:
        target = args.get("file_path") or args.get("notebook_path") or args.get("absolute_path") \
            or args.get("target_file") or args.get("path")  # Cursor's tools name it otherwise
        return [target] if isinstance(target, str) and target.strip() else []
    if name in SHELL_TOOLS and shell_reads:
        command = args.get("command")
        return shell_read_files(command) if isinstance(command, str) else []
    if name in PATCH_TOOLS:
        patch = args.get("patch") or args.get("input") or args.get("command")
        if isinstance(patch, list):
            patch = "\n".join(str(p) for p in patch)
        if not isinstance(patch, str):
            return []
        return list(_patch_targets(patch))
    return []


ADDED_CHARS = 4000  # what an edit adds, as far as action time reads it
_READ_TOOLS = {"Read", "read_file"}


def changes_files(payload: dict[str, Any]) -> bool:
    """Whether the call changes the files it names (an edit, a write, a patch), whatever it adds: an edit
    that only deletes lines too."""
    name = tool_name(payload)
    if name in PATCH_TOOLS or (name in FILE_TOOLS and name not in _READ_TOOLS):
        return True
    command = tool_input(payload).get("command")
    return name in SHELL_TOOLS and isinstance(command, str) and bool(shell_changed_files(command))


def added_text(payload: dict[str, Any]) -> str:
    """What a file tool call writes that was not there: an Edit's / replace's new lines (those not in its old
    string), each MultiEdit edit's, a Write's content, a patch's `+` lines; "" for reads and anything else."""
    name = tool_name(payload)
    args = tool_input(payload)
    parts: list[str] = []
    if name in PATCH_TOOLS or name in SHELL_TOOLS and "apply_patch" in str(args.get("command")):
        patch = args.get("patch") or args.get("input") or args.get("command")
        if isinstance(patch, str):
            parts = [line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")]
    elif name in FILE_TOOLS:
        edits = args.get("edits")
        for edit in edits if isinstance(edits, list) else [args]:
            if not isinstance(edit, dict):
                continue
            new = edit.get("new_string") if isinstance(edit.get("new_string"), str) else edit.get("content")
            if not isinstance(new, str):
                continue
            old = edit.get("old_string")
            before = set(old.splitlines()) if isinstance(old, str) else set()
            parts.extend(line for line in new.splitlines() if line not in before)
    return "\n".join(parts)[:ADDED_CHARS]


SHELL_READERS = {"cat", "sed", "head", "tail", "nl", "less", "more", "bat", "wc"}
# with -i (`sed -i`, `sed -Ei`, `perl -pi -e`, `perl -i.bak`), or sed's --in-place: the switches that may come
# before the i in one cluster, and those whose argument is the script, not a file
IN_PLACE_EDITORS = {"sed": ("nErsuz", ("-e", "-f", "--expression", "--file")),
                    "perl": ("pnlaw0123456789", ("-e", "-E"))}
PATCHERS = {"apply_patch", "applypatch"}


def shell_read_files(command: str) -> list[str]:
    """The files named by the reading commands of a shell command line and by the edits it makes."""
    read, changed = _shell_files(command)
    return list({**read, **changed})


def shell_changed_files(command: str) -> list[str]:
    """The files a shell command line changes: what its patches add, update or delete, and the files of an
    in-place sed or perl. A quick look first: most commands name neither."""
    if "patch" not in command and "--in-place" not in command \
            and not (("sed" in command or "perl" in command) and "i" in command):
        return []
    return list(_shell_files(command)[1])


def _shell_files(command: str) -> tuple[dict[str, None], dict[str, None]]:
    """(files read, files changed) of a shell command line, each in order."""
    import posixpath

    from memory.core import shell

    read: dict[str, None] = {}  # ordered, and a lookup stays O(1) on a `cat` of many files
    changed: dict[str, None] = {}
    try:
        commands = shell.parse(command)
    except (ValueError, RecursionError):
        return read, changed
    # where an earlier `cd` of the line went (`cd src && cat api/routes.py` reads src/api/routes.py), by depth: a
    # cd in a subshell, a group or a substitution ends with it; one that is a pipeline's stage, or is followed
    # by `||`, never holds; one to where the line does not say (`cd -`, `$HOME`, `~`) leaves names as written
    heres: dict[int, str | None] = {0: ""}  # None: somewhere the line does not say
    last_cd: tuple[int, str | None] | None = None  # (depth, where before it) of the command just before
    for cmd in commands:
        for deeper in [d for d in heres if d > cmd.depth]:
            del heres[deeper]
        if last_cd is not None and cmd.after in ("|", "|&", "||") and last_cd[0] == cmd.depth:
            heres[cmd.depth] = last_cd[1]
        here = heres[max(d for d in heres if d <= cmd.depth)]  # its own level's, else the nearest outer one's
        last_cd = None
        words = cmd.words
        if not words:
            continue
        verb = words[0].rsplit("/", 1)[-1]
        if verb in ("cd", "pushd"):
            targets = [word for word in words[1:] if word == "-" or not word.startswith("-")]  # not -P, --
            known = len(targets) == 1 and not targets[0].startswith(("-", "~", "$")) and here is not None
            went = posixpath.normpath(posixpath.join(here or "", targets[0])) if known else None
            last_cd, heres[cmd.depth] = (cmd.depth, here), "" if went == "." else went
        elif verb in PATCHERS:
            changed.update(_seen_from(here, _patch_targets(cmd.stdin_text or "")))
        elif verb in IN_PLACE_EDITORS:
            files, in_place = _edited_in_place(verb, words[1:])
            (changed if in_place else read if verb in SHELL_READERS else {}).update(_seen_from(here, files))
        elif verb in SHELL_READERS:
            read.update(_seen_from(here, [word for word in words[1:] if _file_word(word)]))
    return read, changed


def _seen_from(here: str | None, names: Iterable[str]) -> dict[str, None]:
    """The names as a shell in `here` reads them (None: a folder the line does not say, where a relative name is
    no file of the project's)."""
    import posixpath

    return {name if not here or posixpath.isabs(name) else posixpath.normpath(posixpath.join(here, name)): None
            for name in names if here is not None or posixpath.isabs(name)}


def _edited_in_place(verb: str, args: list[str]) -> tuple[list[str], bool]:
    """The files a sed or perl command line names (not its script: the first word that is no switch, unless
    -e/-f gave it), and whether it edits them in place (-i in a switch cluster before the script)."""
    before_i, takes_script = IN_PLACE_EDITORS[verb]
    in_place, scripted, skip, files, script_seen = False, False, False, [], False
    for word in args:
        if skip:
            skip = False
            continue
        if word == "--in-place" or word.startswith("--in-place="):
            in_place = True
        elif word in takes_script:
            scripted = skip = True
        elif word.startswith("-") and len(word) > 1 and not word.startswith("--"):
            flags = word[1:]
            at = flags.find("i")
            in_place = in_place or (at >= 0 and all(c in before_i for c in flags[:at]))
        elif not scripted and not script_seen:
            script_seen = True  # the script (sed) or the program (perl): no file the line edits
        elif _file_word(word):
            files.append(word)
    return files, in_place


def _file_word(word: str) -> bool:
    """A command's word that names one file: not an option, a number, an expression or a glob."""
    return not word.startswith("-") and "." in word.rsplit("/", 1)[-1] and not word[:1].isdigit() \
        and not any(c in word for c in "' *?[")


def _patch_targets(patch: str) -> dict[str, None]:
    """The files an apply_patch text adds, updates or deletes (`*** Update File: PATH`), in order."""
    found: dict[str, None] = {}
    for line in patch.splitlines():
        if line.startswith(_PATCH_FILE) and " File: " in line:
            target = line.split(" File: ", 1)[1].strip()
            if target:
                found[target] = None
    return found
