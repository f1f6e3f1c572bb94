"""From a shell command line to the `LEARNED:` insights it records through `bd comment`, and the hook.

Only the comment argument of a real `bd comment ID …` / `bd comments add ID …` invocation counts:
a `LEARNED:` in a shell comment, in an `echo`, or in another command's argument is not a capture.
"""
import os

from memory import hookrun

TYPE_CHECKING = False  # typing (~3 ms) and __future__ are not imported on the hot path: annotations are quoted
if TYPE_CHECKING:
    from typing import List, Optional

MARKER = "LEARNED:"
# Raw stdin bytes that can lead to a capture: the marker in any case (`EARNED`/`earned`), or a comment
# body read from elsewhere: `-f`/`--file` (also attached, `-fnotes.md`), `--stdin` (a pipe or `< file`).
_FAST_MARKERS = (b"EARNED", b"earned", b"-f", b"--stdin")
MAX_FILE_BYTES = 1 << 20
_DECORATION = r"(?:\*\*|__|\*|_|`)?"
# Where an insight starts: `LEARNED:` anywhere (also `LEARNED :` and markdown-decorated `**LEARNED:**`);
# `Learned:` / `learned:` only where a marker stands, at the start of the body or of a line (in prose
# mid-sentence, "what we learned: …" is not a marker).
_INSIGHT_START = (r"(?<![A-Za-z0-9_])" + _DECORATION + r"LEARNED" + _DECORATION + r"[ \t]*:" + _DECORATION
                  + r"|^[ \t]*(?:[-*+>][ \t]+)?" + _DECORATION + r"(?i:learned)" + _DECORATION + r"[ \t]*:"
                  + _DECORATION)
_ENV_ASSIGNMENT = r"^[A-Za-z_][A-Za-z0-9_]*="
# bd flags that take a value, so that the value is not mistaken for a positional argument.
_VALUE_FLAGS = {"-f", "--file", "-a", "--author", "--actor", "--db", "--dir", "--directory"}
_STDIN_FILES = {"-", "/dev/stdin"}
# Reserved words and wrappers that can stand before a command without changing what it runs.
_PREFIX_WORDS = {"{", "!", "if", "then", "else", "elif", "do", "while", "until", "time", "command", "exec", "env",
                 "nohup", "builtin"}


class Insight:
    """One insight found in a command: the bead it was written on and its text."""

    __slots__ = ("bead", "content")

    def __init__(self, bead: str, content: str) -> None:
        self.bead, self.content = bead, content

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Insight) and (self.bead, self.content) == (other.bead, other.content)

    def __repr__(self) -> str:
        return f"Insight({self.bead!r}, {self.content!r})"


def might_capture(raw: bytes) -> bool:
    """Cheap test on the raw hook stdin: False means there is certainly nothing to capture."""
    return b"comment" in raw and any(marker in raw for marker in _FAST_MARKERS)


def insights_in_command(command: str, cwd: "Optional[str]" = None) -> "List[Insight]":
    """Every insight recorded by the `bd comment` invocations of `command`, in order."""
    from memory import shell

    found = []  # type: List[Insight]
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
            found.extend(Insight(bead, content) for content in split_insights(text))
    return found


def split_insights(text: str) -> "List[str]":
    """The insights in a comment body: each `LEARNED:` (see _INSIGHT_START) runs to the next one or to the end."""
    import re

    marks = list(re.finditer(_INSIGHT_START, text, re.M))
    starts = [m.end() for m in marks]
    ends = [m.start() for m in marks][1:] + [len(text)]
    return [text[s:e].strip() for s, e in zip(starts, ends) if text[s:e].strip()]


def _bd_comment(words: "List[str]"):
    """(bead, text or None, file argument or None) when `words` is a bd comment, else None."""
    import re

    i = 0
    while i < len(words) and (re.match(_ENV_ASSIGNMENT, words[i]) or words[i] in _PREFIX_WORDS):
        i += 1  # VAR=value, `{`, `if`, `!`, `time`, `command`, `env` … before the command itself
    if i >= len(words) or os.path.basename(words[i]) != "bd":
        return None
    positional = []  # type: List[str]
    file_arg = None  # type: Optional[str]
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


def _stdin_of(cmd, cwd: "Optional[str]") -> "Optional[str]":
    """What the command read on stdin: a here-document, `< file`, or what `echo`/`cat [file]` piped in."""
    from memory.shell import command_output

    if cmd.stdin_text is not None:
        return cmd.stdin_text
    if cmd.stdin_file is not None:
        return _read_file(cmd.stdin_file, cwd)
    source = cmd.pipe_from
    if source is None:
        return None
    if source.words[:1] == ["cat"] and len(source.words) == 2 and source.words[1] != "-":
        return _read_file(source.words[1], cwd)
    return command_output(source)


def _read_comment_file(path: str, cmd, cwd: "Optional[str]") -> "Optional[str]":
    if path in _STDIN_FILES:
        return _stdin_of(cmd, cwd)
    return _read_file(path, cwd)


def _read_file(path: str, cwd: "Optional[str]") -> "Optional[str]":
    full = os.path.join(cwd or os.getcwd(), os.path.expanduser(path))
    try:
        with open(full, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES)
    except OSError:
        return None  # bd itself would have failed on this file
    return data.decode("utf-8", "replace")


# -- the PostToolUse(Bash) / afterShellExecution hook ------------------------------------------------
# It lives here, not in hooks/memory_capture.py: a script is compiled from source on every run (~1 ms),
# a module comes byte-compiled, and this hook runs on every shell command.

HOOK = "memory_capture"


def handle(ctx: "hookrun.Context"):
    """Capture every insight of the command and tell the agent what was stored (or why nothing was)."""
    from memory import entry, paths, payload, store  # only now: the fast path imports none of them

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    command = payload.shell_command(data)
    if command is None:
        if data.get("tool_name") in payload.SHELL_TOOLS and not isinstance(payload.tool_input(data).get("command"), str):
            ctx.problems.append("shell tool call without a tool_input.command string")
        return None
    cwd = payload.cwd(data)
    found = insights_in_command(command, cwd)
    if found and not payload.succeeded(data):
        # `bd comment … "LEARNED: x" && git push` with a failing push: bd did record x. Keep what bd holds.
        found = [f for f in found if recorded_by_bd(f, cwd)]
    if not found:
        hint = _marker_hint(command, cwd)
        return payload.context_answer(data, hint, event=payload.event_name(data)) \
            if hint and payload.answers_context(data) else None
    project = payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    git = paths.work_tree_git(cwd, paths.project_root(cwd, project))
    agent_type = payload.text_field(data, "agent_type")
    call = payload.capture_id(data, command)
    entries = [
        entry.build(insight.content, insight.bead, entry.detect_source(cwd, agent_type),
                    session_id=payload.session_id(data), agent_type=agent_type,
                    agent_id=payload.text_field(data, "agent_id"),
                    branch=git.branch if git else None, commit=git.head if git else None, capture_id=call)
        for insight in found
    ]
    result = store.append(ctx.memory_dir, entries, capture_id=call)
    if result.spooled:
        ctx.problems.append(f"{store.LOCK} stayed busy: {result.spooled} insight(s) parked in {store.SPOOL}/, "
                            "merged by the next write")
    if not (result.written or result.spooled) or not payload.answers_context(data):
        return None  # already stored by another copy of this hook: that copy answered
    return payload.context_answer(data, capture_note(entries, result), event=payload.event_name(data))


def capture_note(entries: list, result) -> str:
    """One short line for the agent: what was stored under which key, and anything it should know."""
    keys = ", ".join(f"`{e['key']}`" for e in entries)
    notes = [f"memory-hooks: captured {len(entries)} insight{'s' if len(entries) > 1 else ''} "
             f"({keys}) into .beads/memory/knowledge.jsonl."]
    redacted = sorted({kind for e in entries for kind in e.get("redacted", ())})
    if redacted:
        notes.append(f"It contained credentials ({', '.join(redacted)}): stored as <redacted:TYPE>, never verbatim.")
    for key in result.replaced:
        notes.append(f"`{key}` replaced an earlier, different insight with the same first 60 characters "
                     "(same key: the latest wins). If both are worth keeping, reword the start of the new one.")
    return " ".join(notes)


def _marker_hint(command: str, cwd: "Optional[str]") -> "Optional[str]":
    """A hint when a bd comment talks about something learned without a marker we capture."""
    import re

    if "earned" not in command.lower():
        return None
    from memory import shell

    for cmd in shell.parse(command):
        parsed = _bd_comment(cmd.words)
        if parsed and parsed[1] and re.search(r"(?i)learned", parsed[1]):
            return ("memory-hooks: nothing was captured from this bd comment. An insight is captured when a line "
                    "of the comment starts with `LEARNED:` (e.g. bd comment ID \"LEARNED: <what is true>\").")
    return None


def recorded_by_bd(insight: Insight, cwd: "Optional[str]", timeout: float = 3.0) -> bool:
    """Whether bd holds a comment with this insight on its bead (asked when the tool call failed as a
    whole: only bd knows whether its part ran). False when bd can't be asked."""
    import subprocess

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
    import json

    try:
        value = json.loads(output)
    except ValueError:
        return output
    found = []  # type: List[str]
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


def main(argv: "Optional[List[str]]" = None) -> int:
    """The hook: decide from the raw bytes, then capture; always exit 0."""
    return hookrun.run(HOOK, handle, argv, prefilter=might_capture)
