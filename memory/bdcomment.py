"""`bd comment` invocations in a shell command line, and the insights they record.

Only the comment argument of a real `bd comment ID …` / `bd comments add ID …` invocation counts:
a `LEARNED:` in a shell comment, in an `echo`, or in another command's argument is not a capture.
"""
from __future__ import annotations

import json
import os
import re

from memory import shell

MARKER = "LEARNED:"
MAX_FILE_BYTES = 1 << 20
_DECORATION = r"(?:\*\*|__|\*|_|`)?"
_BRACKET = r"(?:\[[^\]\n]{0,80}\])"  # `LEARNED[pnpm-tests]:` names the key
# Where an insight starts: `LEARNED:` / `DECISION:` / `WARNING:` / `PATTERN:` anywhere (also `LEARNED :`,
# markdown-decorated `**LEARNED:**`, and with a key `LEARNED[key]:`); `FORGET: KEY` or `FORGET[KEY]`; the
# lowercase `Learned:` only where a marker stands, at the start of the body or of a line (in prose
# mid-sentence, "what we learned: …" is not a marker).
_INSIGHT_START = re.compile(
    r"(?<![A-Za-z0-9_])" + _DECORATION + r"(?:(?:LEARNED|DECISION|WARNING|PATTERN)" + _BRACKET + r"?" + _DECORATION
    + r"[ \t]*:|FORGET(?:" + _BRACKET + _DECORATION + r"(?:[ \t]*:)?|" + _DECORATION + r"[ \t]*:))" + _DECORATION
    + r"|^[ \t]*(?:[-*+>][ \t]+)?" + _DECORATION + r"(?i:learned)" + _BRACKET + r"?" + _DECORATION + r"[ \t]*:"
    + _DECORATION, re.M)
_KIND_WORD = re.compile(r"(?i)learned|decision|warning|pattern|forget")
# Lines of what the hooks themselves inject (session start's and prompt time's blocks: headings, entry
# lines `  [LEARN] …` / `  [DECIDE, 3 days ago] …`, the Search/Record hints). An agent echoing a block into a
# comment must not feed it back as new entries (the Record hint even shows the markers).
_INJECTED_LINE = re.compile(r"^[ \t]*(?:##[ \t]+(?:Recent|Relevant)[ \t]+Knowledge\b|\[(?:LEARN|DECIDE|WARN|PATTERN)"
                            r"[],]|(?:Search|Record):[ \t])[^\n]*\n?", re.M)
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# bd flags that take a value, so that the value is not mistaken for a positional argument.
_VALUE_FLAGS = {"-f", "--file", "-a", "--author", "--actor", "--db", "--dir", "--directory"}
_STDIN_FILES = {"-", "/dev/stdin"}
# Reserved words and wrappers that can stand before a command without changing what it runs.
_PREFIX_WORDS = {"{", "!", "if", "then", "else", "elif", "do", "while", "until", "time", "command", "exec", "env",
                 "nohup", "builtin"}


class Marked:
    """One marked piece of a text: its kind (`learned`, `decision`, `warning`, `pattern`, `forget`), the key
    named in brackets (or, for forget, after the colon), and its text."""

    __slots__ = ("kind", "key", "content")

    def __init__(self, kind: str, key: str | None, content: str) -> None:
        self.kind, self.key, self.content = kind, key, content

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Marked) and (self.kind, self.key, self.content) == (other.kind, other.key,
                                                                                     other.content)

    def __repr__(self) -> str:
        return f"Marked({self.kind!r}, {self.key!r}, {self.content!r})"


class Insight(Marked):
    """One marked piece found in a bd comment: the bead it was written on, its kind, key and text."""

    __slots__ = ("bead",)

    def __init__(self, bead: str, content: str, kind: str = "learned", key: str | None = None) -> None:
        super().__init__(kind, key, content)
        self.bead = bead

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Insight) and self.bead == other.bead and super().__eq__(other)

    def __repr__(self) -> str:
        return f"Insight({self.bead!r}, {self.content!r}, {self.kind!r}, {self.key!r})"


def insights_in_command(command: str, cwd: str | None = None) -> list[Insight]:
    """Every insight recorded by the `bd comment` invocations of `command`, in order."""
    found: list[Insight] = []
    for cmd in shell.parse(command):
        parsed = _bd_comment(cmd.words)
        if parsed is None:
            continue
        bead, text, file_arg = parsed
        if file_arg is not None:
            text = _read_comment_file(file_arg, cmd, cwd)
        elif text is None and "--stdin" in cmd.words:
            text = _stdin_of(cmd, cwd)
        if text:
            found.extend(Insight(bead, m.content, m.kind, m.key) for m in split_marked(text))
    return found


def split_marked(text: str) -> list[Marked]:
    """The marked pieces of a text, in order: each marker (see _INSIGHT_START) runs to the next one or to the
    end. A forget's key is its bracket or the first word after its colon; a forget without a key is dropped.
    Lines the hooks injected (_INJECTED_LINE) are not part of any piece."""
    text = _INJECTED_LINE.sub("", text)
    marks = list(_INSIGHT_START.finditer(text))
    ends = [m.start() for m in marks][1:] + [len(text)]
    found = []
    for mark, end in zip(marks, ends):
        body = text[mark.end():end].strip()
        kind_word = _KIND_WORD.search(mark.group())
        kind = kind_word.group().lower() if kind_word else "learned"
        bracket = re.search(r"\[([^\]\n]*)\]", mark.group())
        key = bracket.group(1).strip() if bracket else None
        if kind == "forget":
            key = key or (body.split()[0].strip("`'\".,;") if body.split() else None)
            if key:
                found.append(Marked(kind, key, ""))
        elif body:
            found.append(Marked(kind, key, body))
    return found


def split_insights(text: str) -> list[str]:
    """The insights' texts in a comment body (forgets left out)."""
    return [m.content for m in split_marked(text) if m.kind != "forget"]


def _bd_comment(words: list[str]) -> tuple[str, str | None, str | None] | None:
    """(bead, text or None, file argument or None) when `words` is a bd comment, else None."""
    i = 0
    while i < len(words) and (_ENV_ASSIGNMENT.match(words[i]) or words[i] in _PREFIX_WORDS):
        i += 1  # VAR=value, `{`, `if`, `!`, `time`, `command`, `env` … before the command itself
    if i >= len(words) or os.path.basename(words[i]) != "bd":
        return None
    positional: list[str] = []
    file_arg: str | None = None
    rest = words[i + 1:]
    j = 0
    while j < len(rest):
        word = rest[j]
        if word == "--":
            positional.extend(rest[j + 1:])
            break
        if word.startswith("-") and word != "-" and len(word) > 1:
            name, has_value, value = word.partition("=")
            if name in ("-f", "--file"):
                if has_value:
                    file_arg = value
                elif j + 1 < len(rest):
                    file_arg = rest[j + 1]
                    j += 1
            elif word.startswith("-f") and not word.startswith("--") and len(word) > 2:
                file_arg = word[2:]  # -fnotes.txt
            elif name in _VALUE_FLAGS and not has_value:
                j += 1
            j += 1
            continue
        positional.append(word)
        j += 1
    if positional[:1] == ["comment"]:
        args = positional[1:]
    elif positional[:2] == ["comments", "add"]:
        args = positional[2:]
    else:
        return None
    if not args:
        return None
    text = " ".join(args[1:]) if len(args) > 1 else None
    return args[0], text, file_arg


def _stdin_of(cmd: shell.Command, cwd: str | None) -> str | None:
    """What the command read on stdin: a here-document, `< file`, or what `echo`/`cat [file]` piped in."""
    if cmd.stdin_text is not None:
        return cmd.stdin_text
    if cmd.stdin_file is not None:
        return _read_file(cmd.stdin_file, cwd)
    source = cmd.pipe_from
    if source is None:
        return None
    if source.words[:1] == ["cat"] and len(source.words) == 2 and source.words[1] != "-":
        return _read_file(source.words[1], cwd)
    return shell.command_output(source)


def _read_comment_file(path: str, cmd: shell.Command, cwd: str | None) -> str | None:
    if path in _STDIN_FILES:
        return _stdin_of(cmd, cwd)
    return _read_file(path, cwd)


def _read_file(path: str, cwd: str | None) -> str | None:
    full = os.path.join(cwd or os.getcwd(), os.path.expanduser(path))
    try:
        with open(full, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES)
    except OSError:
        return None  # bd itself would have failed on this file
    return data.decode("utf-8", "replace")


def marker_hint(command: str) -> str | None:
    """A hint when a bd comment talks about something learned without a marker we capture."""
    if "earned" not in command.lower():
        return None
    for cmd in shell.parse(command):
        parsed = _bd_comment(cmd.words)
        if parsed and parsed[1] and re.search(r"(?i)learned|decision|warning|pattern", parsed[1]):
            return ("memory-hooks: nothing was captured from this bd comment. An insight is captured when a line "
                    "of the comment starts with `LEARNED:` (e.g. bd comment ID \"LEARNED: <what is true>\").")
    return None


def recorded_by_bd(insight: Insight, cwd: str | None, timeout: float = 3.0) -> bool:
    """Whether bd holds a comment with this insight on its bead (asked when the tool call failed as a
    whole: only bd knows whether its part ran). False when bd can't be asked."""
    import subprocess  # only on this rare path (a failed tool call): ~7 ms per hook start otherwise

    try:
        proc = subprocess.run(["bd", "comments", insight.bead, "--json"], cwd=cwd or None, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return False
    if proc.returncode != 0:
        return False
    return insight.content in _strings(proc.stdout.decode("utf-8", "replace"))


def _strings(output: str) -> str:
    """Every string of a JSON document joined by newlines (the text itself when it is not JSON)."""
    try:
        value = json.loads(output)
    except ValueError:
        return output
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return "\n".join(found)
