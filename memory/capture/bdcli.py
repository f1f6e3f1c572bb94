"""bd's command line as bd itself reads it (cobra/pflag), for the commands that record something we capture.

Modelled on steveyegge/beads cmd/bd/comment.go, comments.go, memory.go and main.go (root flags):
  bd comment ID [TEXT...] [--stdin | --file F]   text: stdin, else the file (`-` = stdin), else all TEXT joined
  bd comments add ID [TEXT] [-f F] [-a A]         text: the file, else the first TEXT only (bd drops the rest)
  bd remember TEXT [--key K]                      exactly one argument; key: K, else bd's slug of TEXT
  bd forget KEY                                   exactly one argument
Flags may stand anywhere among the arguments; `--` ends them. A flag the command does not have, a wrong
number of arguments, `--readonly` or `--help` make bd refuse (or not run) the command: nothing is stored, so
nothing is captured, and `refused` says why.
"""
from __future__ import annotations

import os
import re

# Root (persistent) flags every command inherits: value flags, then switches.
_GLOBAL_VALUES = {"--directory", "--db", "--actor", "--format", "--dolt-auto-commit"}
_GLOBAL_SWITCHES = {"--json", "--sandbox", "--readonly", "--global", "--profile", "--verbose", "--quiet",
                    "--ignore-schema-skew", "--help", "--version"}
_SHORT = {"C": "--directory", "v": "--verbose", "q": "--quiet", "h": "--help"}
# Each command's own flags: (value flags, switches, its shorthands).
_COMMANDS: dict[str, tuple[set[str], set[str], dict[str, str]]] = {
    "comment": ({"--file"}, {"--stdin"}, {}),
    "comments add": ({"--file", "--author"}, set(), {"f": "--file", "a": "--author"}),
    "remember": ({"--key"}, set(), {}),
    "forget": (set(), set(), {}),
}
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Reserved words and wrappers that can stand before a command without changing what it runs.
_PREFIX_WORDS = {"{", "!", "if", "then", "else", "elif", "do", "while", "until", "time", "command", "exec", "env",
                 "nohup", "builtin"}
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_FALSE = {"false", "0", "f", "False", "FALSE", "F"}


class BdCall:
    """One bd invocation of a command in _COMMANDS: its positional arguments (after the command's name),
    its flags (long name -> value; a switch's value is "true"/"false") and, when bd would not run it, why."""

    __slots__ = ("command", "args", "flags", "refused")

    def __init__(self, command: str, args: list[str], flags: dict[str, str], refused: str | None) -> None:
        self.command, self.args, self.flags, self.refused = command, args, flags, refused

    def switch(self, name: str) -> bool:
        return self.flags.get(name, "false") not in _FALSE

    def __repr__(self) -> str:
        return f"BdCall({self.command!r}, {self.args!r}, {self.flags!r}, refused={self.refused!r})"


def parse(words: list[str]) -> BdCall | None:
    """The bd call `words` (one simple command's words) makes, when it is one of _COMMANDS; else None."""
    i = 0
    while i < len(words) and (_ENV_ASSIGNMENT.match(words[i]) or words[i] in _PREFIX_WORDS):
        i += 1  # VAR=value, `{`, `if`, `!`, `time`, `command`, `env` … before the command itself
    if i >= len(words) or os.path.basename(words[i]) != "bd":
        return None
    rest = words[i + 1:]
    command = _command_of(rest)
    if command is None:
        return None
    return _parse_flags(command, rest)


def _command_of(rest: list[str]) -> str | None:
    """Which command the words name. Like cobra's Find: the words before it that are not flags name it; a
    flag without `=` that is not a known switch is taken to have its value in the next word; `--` stops."""
    switches = _GLOBAL_SWITCHES | {"--local-time"}
    short_switches = {letter for letter, name in _SHORT.items() if name in switches}
    names: list[str] = []
    j = 0
    while j < len(rest) and len(names) < 2:
        word = rest[j]
        j += 1
        if word == "--":
            break
        if word.startswith("--") and "=" not in word:
            j += 0 if word in switches else 1
        elif word.startswith("-") and "=" not in word and len(word) == 2:
            j += 0 if word[1] in short_switches else 1
        elif not word.startswith("-"):
            names.append(word)
    if names[:1] in (["comment"], ["remember"], ["forget"]):
        return names[0]
    if names[:2] == ["comments", "add"]:
        return "comments add"
    return None


def _parse_flags(command: str, rest: list[str]) -> BdCall:
    values, switches, shorts = _COMMANDS[command]
    values, switches, shorts = values | _GLOBAL_VALUES, switches | _GLOBAL_SWITCHES, {**_SHORT, **shorts}
    positional: list[str] = []
    flags: dict[str, str] = {}
    refused: str | None = None
    j = 0
    while j < len(rest):
        word = rest[j]
        j += 1
        if word == "--":
            positional.extend(rest[j:])
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
        elif word.startswith("--"):
            name, has_value, value = word.partition("=")
            if name in values:
                if not has_value and j >= len(rest):
                    refused = refused or f"flag needs an argument: {name}"
                elif not has_value:
                    value, j = rest[j], j + 1
                flags[name] = value
            elif name in switches:
                flags[name] = value if has_value else "true"
            else:
                refused = refused or f"unknown flag: {name}"
        else:
            j = _short_flags(word, rest, j, values, shorts, flags)
            if j < 0:
                refused, j = refused or f"unknown shorthand flag: {word!r}", -j
    names = command.split()
    args = positional[len(names):]  # the command's own name(s) are the first positional words
    return BdCall(command, args, flags, refused or _refusal(command, args, flags))


def _short_flags(word: str, rest: list[str], j: int, values: set[str], shorts: dict[str, str],
                 flags: dict[str, str]) -> int:
    """Read `-vq`, `-f x`, `-fx`, `-f=x` into `flags`; the index after it (negated for an unknown letter)."""
    letters = word[1:]
    for at, letter in enumerate(letters):
        name = shorts.get(letter)
        if name is None:
            return -j
        if name not in values:
            flags[name] = "true"
            continue
        attached = letters[at + 1:]
        if attached:
            flags[name] = attached[1:] if attached.startswith("=") else attached
        elif j < len(rest):
            flags[name], j = rest[j], j + 1
        else:
            return -j
        return j
    return j


def _refusal(command: str, args: list[str], flags: dict[str, str]) -> str | None:
    """Why bd would not store anything for a call whose flags it accepted (its argument checks)."""
    call = BdCall(command, args, flags, None)
    if call.switch("--help") or call.switch("--version"):
        return "--help only prints help"
    if call.switch("--readonly"):
        return "--readonly blocks writes"
    if command in ("remember", "forget") and len(args) != 1:
        return f"accepts 1 arg(s), received {len(args)}"
    if not args:
        return "requires at least 1 arg(s), only received 0"
    if command == "comment" and call.switch("--stdin") and flags.get("--file"):
        return "--stdin and --file can't be used together"
    return None


def slug(text: str) -> str:
    """bd's key for a memory without --key (memory.go slugify): lowercase, runs of other characters than
    a-z 0-9 -> '-', the first 8 of those words, at most 60 characters, no dash at either end."""
    words = _NON_ALNUM.sub("-", text.lower()).strip("-").split("-", 9)
    key = "-".join(words[:8])
    return key[:60].rstrip("-") if len(key) > 60 else key
