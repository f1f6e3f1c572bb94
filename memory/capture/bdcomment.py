"""The insights a shell command line records through bd, and the markers that start an insight.

Only what bd itself stores counts (memory.capture.bdcli reads bd's command line as bd does): the comment text of
`bd comment ID …` / `bd comments add ID …` (its marked pieces), and a `bd remember` / `bd forget`
(memory.capture.bdmemory). A `LEARNED:` in a shell comment, in an `echo`, in another command's argument or in an
argument bd drops is not a capture.
"""
from __future__ import annotations

import os
import re

from memory.capture import bdcli
from memory.core import fsio, shell

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
# The next list item's bullet or number, left at a piece's end ("- LEARNED: a\n- LEARNED: b": "a\n- ")
_NEXT_ITEM = re.compile(r"\n[ \t]*(?:[-*+>]|\d{1,3}[.)])[ \t]*$")
# Lines of what the hooks themselves inject (session start's and prompt time's blocks: headings, entry
# lines `  [LEARN] …` / `  [DECIDE, 3 days ago] …`, the Search/Record hints). An agent echoing a block into a
# comment must not feed it back as new entries (the Record hint even shows the markers).
# Compiled on first need (_without_injected): a text holding none of _INJECTED_WORDS has no such line.
_INJECTED_LINE = (r"(?m)^[ \t]*(?:##[ \t]+(?:Recent|Relevant)[ \t]+Knowledge\b|\[(?:LEARN|DECIDE|WARN|PATTERN)"
                  r"[],]|(?:Search|Record):[ \t])[^\n]*\n?")
_INJECTED_WORDS = ("Knowledge", "[", "Search:", "Record:")  # one of them is in every line _INJECTED_LINE takes
# The shell saying bd is not installed (bash, dash, zsh): Codex reports no exit status, only this output.
# Compiled on first need (shell_missed_bd): only an output that says "not found" needs it.
_BD_NOT_FOUND = (r"(?m)^\S*(?:sh|bash)\b[^\n]*: bd: (?:command )?not found[ \t]*$"
                 r"|^\S*zsh\b[^\n]*: command not found: bd[ \t]*$")
_STDIN_FILES = {"-", "/dev/stdin"}  # what `bd comment --file` reads as stdin (`bd comments add -f`: /dev/stdin)

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
    """One insight bd recorded: the bead it was written on ('' for `bd remember`), its kind, key and text;
    `bd_key` is bd's memory key for a `bd remember` / `bd forget` (memory.capture.bdmemory)."""

    __slots__ = ("bead", "bd_key")

    def __init__(self, bead: str, content: str, kind: str = "learned", key: str | None = None,
                 bd_key: str | None = None) -> None:
        super().__init__(kind, key, content)
        self.bead, self.bd_key = bead, bd_key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Insight) and (self.bead, self.bd_key) == (other.bead, other.bd_key) \
            and super().__eq__(other)

    def __repr__(self) -> str:
        tail = f", bd_key={self.bd_key!r}" if self.bd_key is not None else ""
        return f"Insight({self.bead!r}, {self.content!r}, {self.kind!r}, {self.key!r}{tail})"

    def invocation(self) -> str:
        """The bd command that recorded it, for messages: `bd comment BD-1`, `bd remember`, `bd forget KEY`."""
        if self.bd_key is None:
            return f"bd comment {self.bead}"
        return f"bd forget {self.bd_key}" if self.kind == "forget" else "bd remember"


def remembered(call: bdcli.BdCall) -> list[Insight]:
    """What a (not refused) `bd remember` / `bd forget` call records: one piece, or none where bd stores
    nothing (empty text, no key); memory.capture.bdmemory says what becomes of them."""
    from memory.capture import bdmemory
    from memory.store import entry

    if call.command == "forget":
        return [Insight("", "", entry.FORGET, None, bd_key=call.args[0])]
    text = call.args[0]
    bd_key = call.flags.get("--key") or bdcli.slug(text)
    if not text.strip() or not bd_key:
        return []  # bd: "memory content cannot be empty" / "could not generate key from content"
    marked = leading_marker(text)
    kind, content = marked if marked and marked[1] else ("learned", text.strip())
    return [Insight("", content, kind, bdmemory.our_key_name(bd_key, kind, text), bd_key=bd_key)]


def insights_in_command(command: str, cwd: str | None = None) -> list[Insight]:
    """Every insight the bd invocations of `command` record, in order: the marked pieces of each comment
    text as bd stores it, and each `bd remember` / `bd forget`. Calls bd refuses record nothing."""
    from memory.capture import bdmemory

    found: list[Insight] = []
    for cmd in shell.parse(command):
        call = bdcli.parse(cmd.words)
        if call is None or call.refused:
            continue
        if call.command in bdmemory.COMMANDS:
            found.extend(remembered(call))
            continue
        text = comment_text(call, cmd, cwd)
        if text:
            found.extend(Insight(call.args[0], m.content, m.kind, m.key) for m in split_marked(text))
    return found


def comment_text(call: bdcli.BdCall, cmd: shell.Command, cwd: str | None) -> str | None:
    """The text bd stores for a `bd comment` / `bd comments add` call (None when it can't be known)."""
    path = call.flags.get("--file")
    if call.command == "comment":  # comment.go: --stdin, else --file (`-` is stdin), else every word joined
        if call.switch("--stdin"):
            text = _stdin_of(cmd, cwd)
            return text.rstrip("\n") if text is not None else None
        if path:
            return _stdin_of(cmd, cwd) if path in _STDIN_FILES else _read_file(path, cwd)
        return " ".join(call.args[1:]) or None
    if path:  # comments.go: -f, read as a plain file (`-` is a file of that name), else the first text only
        return _stdin_of(cmd, cwd) if path == "/dev/stdin" else _read_file(path, cwd)
    return call.args[1] if len(call.args) > 1 else None


def leading_marker(text: str) -> tuple[str, str] | None:
    """(kind, the rest) when `text` starts with an insight marker (LEARNED:, DECISION: …; not FORGET)."""
    stripped = text.lstrip()
    mark = _INSIGHT_START.match(stripped)
    if mark is None or not mark.group().strip():
        return None
    word = _KIND_WORD.search(mark.group())
    kind = word.group().lower() if word else "learned"
    return None if kind == "forget" else (kind, stripped[mark.end():].strip())


def split_marked(text: str, tail: str = "") -> list[Marked]:
    """The marked pieces of a text, in order: each marker (see _INSIGHT_START) runs to the next one or to the
    end. A forget's key is its bracket or the first word after its colon; a forget without a key is dropped.
    Lines the hooks injected (_INJECTED_LINE) are not part of any piece. `tail`: lines that go on with the last
    piece (a reply's marked line's sub-items: a marker in them is mid-sentence and starts nothing)."""
    text = _without_injected(text)
    tail = _without_injected(tail).strip("\n") if tail.strip() else ""
    marks = list(_INSIGHT_START.finditer(text))
    ends = [m.start() for m in marks][1:] + [len(text)]
    found = []
    for mark, end in zip(marks, ends):
        body = _NEXT_ITEM.sub("", text[mark.end():end].rstrip()).strip()
        if tail and end == len(text):
            body = f"{body}\n{tail}".strip()
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


def _without_injected(text: str) -> str:
    """`text` without the lines the hooks injected (_INJECTED_LINE)."""
    if not any(word in text for word in _INJECTED_WORDS):
        return text
    return re.sub(_INJECTED_LINE, "", text)


def split_insights(text: str) -> list[str]:
    """The insights' texts in a comment body (forgets left out)."""
    return [m.content for m in split_marked(text) if m.kind != "forget"]


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


def _read_file(path: str, cwd: str | None) -> str | None:
    full = os.path.join(cwd or os.getcwd(), os.path.expanduser(path))
    try:
        data = fsio.read_regular(full, MAX_FILE_BYTES, follow=True)  # a FIFO (`<(cmd)`): unreadable, not a wait
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None  # bd itself would have failed on this file
    return data.decode("utf-8", "replace")


def marker_hint(command: str, cwd: str | None = None) -> str | None:
    """What to tell the agent when `command` records nothing through bd although it looks meant to: bd
    refuses the call, the marker sits in an argument bd drops, or the comment has no marker we capture.
    Each is said only where it was found to be so."""
    for cmd in shell.parse(command):
        call = bdcli.parse(cmd.words)
        if call is None:
            continue
        if call.refused:
            if not call.refused.startswith("--help"):
                return _refusal_hint(call)
            continue
        if call.command not in ("comment", "comments add"):
            continue
        if call.command == "comments add" and not call.flags.get("--file") and len(call.args) > 2 \
                and not split_marked(call.args[1]) and split_marked(" ".join(call.args[2:])):
            return ("memory-hooks: nothing captured: `bd comments add` stores only its first text argument, and "
                    "the marker was in a later one, which bd dropped. Quote the whole comment as one argument: "
                    "bd comments add ID \"LEARNED: <what is true>\".")
        text = comment_text(call, cmd, cwd)
        if text and not split_marked(text) and re.search(r"(?i)learned|decision|warning|pattern",
                                                         _without_injected(text)):
            return ("memory-hooks: nothing was captured from this bd comment: no line of it starts with a marker. "
                    "An insight is captured when a line of the comment starts with `LEARNED:` (e.g. bd comment "
                    "ID \"LEARNED: <what is true>\").")
    return None


def _refusal_hint(call: bdcli.BdCall) -> str:
    name = "bd " + call.command
    advice = ""
    if call.command == "comment" and "'-f" in (call.refused or ""):
        advice = " `bd comment` reads a file with --file (only `bd comments add` has -f)."
    elif call.command == "comments add" and "--stdin" in (call.refused or ""):
        advice = " Only `bd comment` has --stdin (`bd comments add` reads a file with -f)."
    elif call.command in ("remember", "forget") and "arg(s)" in (call.refused or ""):
        advice = f" Quote it as one argument: {name} \"…\"."
    return (f"memory-hooks: bd refuses this `{name}` ({call.refused}): bd stored nothing, so nothing was "
            f"captured.{advice}")


def shell_missed_bd(output: str) -> bool:
    """True when a shell call's output says bd is not installed: whatever the runtime reports, bd did not run."""
    return "not found" in output and re.search(_BD_NOT_FOUND, output) is not None


def bd_error(output: str) -> str | None:
    """The first `Error: …` line a shell call printed (bd's CLI form: `Error: issue BD-99 not found`), else None:
    whatever the runtime reports (`… || true` exits 0), bd may not have recorded it."""
    if "Error: " not in output:
        return None
    return next((line for line in output.splitlines() if line.startswith("Error: ")), None)


def bd_holds(insight: Insight, cwd: str | None, timeout: float = 3.0) -> tuple[bool, str]:
    """Whether bd holds what `insight` recorded (asked when the tool call failed as a whole: only bd knows
    whether its part ran): a comment with its text on its bead, its memory, or for a forget no memory of
    that key. (held, '') once bd answered; (False, why) when bd could not be asked."""
    import json  # only on this rare path (a failed tool call), like subprocess: ~7 ms per hook start otherwise
    import subprocess

    argv = ["bd", "comments", insight.bead, "--json"] if insight.bd_key is None else ["bd", "memories", "--json"]
    try:
        proc = subprocess.run(argv, cwd=cwd or None, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except FileNotFoundError:
        return False, "bd is not on PATH"
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"`{' '.join(argv)}` did not answer ({type(exc).__name__})"
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {proc.returncode}"]
        return False, f"`{' '.join(argv)}` failed: {said[0][:160]}"
    output = proc.stdout.decode("utf-8", "replace")
    if insight.bd_key is None:
        return insight.content in _strings(output), ""
    try:
        memories = json.loads(output)
    except ValueError:
        return False, f"`{' '.join(argv)}` printed no JSON"
    held = memories.get(insight.bd_key) if isinstance(memories, dict) else None
    if insight.kind == "forget":
        return held is None, ""
    return isinstance(held, str) and insight.content in held, ""


def _strings(output: str) -> str:
    """Every string of a JSON document joined by newlines (the text itself when it is not JSON)."""
    import json

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
