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
# Raw stdin bytes that can lead to a capture: the marker itself, or a comment read from a file.
_FAST_MARKERS = (b"LEARNED", b"--file", b"-f ")
MAX_FILE_BYTES = 1 << 20
_INSIGHT_START = r"(?<![A-Za-z0-9_])LEARNED:"
_ENV_ASSIGNMENT = r"^[A-Za-z_][A-Za-z0-9_]*="
# bd flags that take a value, so that the value is not mistaken for a positional argument.
_VALUE_FLAGS = {"-f", "--file", "-a", "--author", "--actor", "--db", "--dir", "--directory"}
_STDIN_FILES = {"-", "/dev/stdin"}


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
            text = _stdin_of(cmd)
        if text:
            found.extend(Insight(bead, content) for content in split_insights(text))
    return found


def split_insights(text: str) -> "List[str]":
    """The insights in a comment body: each `LEARNED:` runs to the next one or to the end."""
    import re

    marks = list(re.finditer(_INSIGHT_START, text))
    starts = [m.end() for m in marks]
    ends = [m.start() for m in marks][1:] + [len(text)]
    return [text[s:e].strip() for s, e in zip(starts, ends) if text[s:e].strip()]


def _bd_comment(words: "List[str]"):
    """(bead, text or None, file argument or None) when `words` is a bd comment, else None."""
    import re

    i = 0
    while i < len(words) and re.match(_ENV_ASSIGNMENT, words[i]):
        i += 1  # VAR=value prefixes
    if i < len(words) and words[i] in ("command", "exec", "env"):
        i += 1
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


def _stdin_of(cmd) -> "Optional[str]":
    from memory.shell import command_output

    if cmd.stdin_text is not None:
        return cmd.stdin_text
    if cmd.pipe_from is not None:
        return command_output(cmd.pipe_from)
    return None


def _read_comment_file(path: str, cmd, cwd: "Optional[str]") -> "Optional[str]":
    if path in _STDIN_FILES:
        return _stdin_of(cmd)
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
    """Capture every insight of the command; answer only when credentials had to be redacted."""
    from memory import entry, paths, payload, store  # only now: the fast path imports none of them

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    command = payload.shell_command(data)
    if command is None:
        if data.get("tool_name") in payload.SHELL_TOOLS and not isinstance(payload.tool_input(data).get("command"), str):
            ctx.problems.append("shell tool call without a tool_input.command string")
        return None
    cwd = payload.cwd(data)
    insights = insights_in_command(command, cwd)
    if not insights:
        return None
    ctx.memory_dir = paths.memory_dir(cwd)
    git = paths.git_info(cwd) if cwd else None
    agent_type = payload.text_field(data, "agent_type")
    call = payload.capture_id(data, command)
    entries = [
        entry.build(found.content, found.bead, entry.detect_source(cwd, agent_type),
                    session_id=payload.session_id(data), agent_type=agent_type,
                    agent_id=payload.text_field(data, "agent_id"),
                    branch=git.branch if git else None, commit=git.head if git else None, capture_id=call)
        for found in insights
    ]
    result = store.append(ctx.memory_dir, entries, capture_id=call)
    if result.spooled:
        ctx.problems.append(f"{store.LOCK} stayed busy: {result.spooled} insight(s) parked in {store.SPOOL}/, "
                            "merged by the next write")
    notes = []
    redacted = sorted({kind for e in entries for kind in e.get("redacted", ())})
    if result.written and redacted:
        notes.append(f"the LEARNED insight contained credentials ({', '.join(redacted)}); they were stored as "
                     "<redacted:TYPE> in .beads/memory/knowledge.jsonl, never verbatim.")
    for key in result.replaced:
        notes.append(f"`{key}` replaced an earlier, different insight with the same first 60 characters "
                     "(same key: the latest wins). If both are worth keeping, reword the start of the new one.")
    if notes:
        return payload.context_answer(data, "memory-hooks: " + " ".join(notes), event="PostToolUse")
    return None


def main(argv: "Optional[List[str]]" = None) -> int:
    """The hook: decide from the raw bytes, then capture; always exit 0."""
    return hookrun.run(HOOK, handle, argv, prefilter=might_capture)
