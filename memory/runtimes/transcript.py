"""Reading a session's transcript, tolerating torn lines: a Claude Code transcript (JSONL, an unstable format)
from its end, Cursor's agent transcripts (`{"role": …, "message": {"content": […]}}` lines, undocumented) for the
last assistant text; and one pass over a transcript's user and assistant lines (Reader: prompts, tool calls,
failures; Gemini's chat log and Codex's rollout log through memory.runtimes.transcript_formats) for handoffs and
provenance. Unknown line types, torn or non-UTF-8 lines are skipped; only lines that can matter are parsed (a
10 MB transcript costs its user and assistant lines, not its tool outputs)."""
from __future__ import annotations

import json
import os
import re

from memory.runtimes.payload import SHELL_TOOLS

TAIL_BYTES = 512 * 1024
READ_LIMIT = 64 << 20  # a larger transcript is read from its first and last 8 MiB
EDGE = 8 << 20
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def claude_session_transcript(session_id: str | None, env: dict | None = None) -> str | None:
    """The transcript of a running Claude Code session by its id (CLAUDE_CODE_SESSION_ID, which Claude Code gives
    its Bash tool's commands): `<config>/projects/<project folder>/<id>.jsonl`; None when there is none."""
    if not session_id or not _SESSION_ID.fullmatch(session_id):
        return None
    from memory.runtimes import automemory

    projects = os.path.join(automemory.config_home(os.environ if env is None else env), "projects")
    try:
        folders = os.listdir(projects)
    except OSError:
        return None
    for folder in folders:  # the folder is named after where the session started: not known here
        path = os.path.join(projects, folder, session_id + ".jsonl")
        if os.path.isfile(path):
            return path
    return None


def last_assistant_text(path: str | None) -> str | None:
    """The text of the last assistant message in a transcript, or None."""
    from memory.core import fsio

    if not path:
        return None
    try:  # a FIFO or a device named as the transcript: unreadable, not a wait
        lines = fsio.read_tail(path, TAIL_BYTES, follow=True).split(b"\n")
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        # Claude Code names the role in the message, Cursor beside it ({"role": "assistant", "message": {…}})
        if not isinstance(message, dict) or (message.get("role") or record.get("role")) != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str) and content.strip():
            return content
        texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        if any(t.strip() for t in texts):
            return "\n".join(texts)
    return None


def _read(path: str) -> bytes:
    from memory.core import fsio

    # a FIFO or a device named as the transcript would block the open or never end the read
    with os.fdopen(fsio.open_regular(path, os.O_RDONLY, follow=True), "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= READ_LIMIT:
            return fh.read()
        head = fh.read(EDGE)
        fh.seek(size - EDGE)
        return head + b"\n" + fh.read()


class Reader:
    """What one pass over the transcript's user and assistant lines finds."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.started: str | None = None
        self.tools: dict[str, tuple[str, dict]] = {}  # tool_use id -> (name, input)
        self.order: list[str] = []
        self.errors: dict[str, str] = {}  # tool_use id -> error text
        self.last_text = ""

    def feed(self, record: dict) -> None:
        if self.started is None and isinstance(record.get("timestamp"), str):
            self.started = record["timestamp"]
        message = record.get("message")
        if not isinstance(message, dict) or record.get("isMeta") or record.get("type") not in ("user", "assistant"):
            return
        content = message.get("content")
        if record["type"] == "user":
            if isinstance(content, str) and content.strip() and not content.lstrip().startswith("<"):
                self.prompts.append(content)
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error"):
                    self.errors[str(block.get("tool_use_id"))] = _result_text(block.get("content"))
                elif isinstance(block, dict) and block.get("type") == "text" and not self.prompts_done(block):
                    self.prompts.append(str(block.get("text", "")))
            return
        texts = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                tool_id = str(block.get("id"))
                if tool_id not in self.tools:  # Gemini writes a turn again as its tool calls complete
                    self.order.append(tool_id)
                self.tools[tool_id] = (str(block.get("name")), block["input"])
            elif block.get("type") == "text" and str(block.get("text", "")).strip():
                texts.append(str(block["text"]))
        if texts:
            self.last_text = "\n".join(texts)

    def failed_commands(self, window: int | None = None) -> list[tuple[str, str]]:
        """(command, error) of the shell calls that failed, newest first; among the last `window` tool calls
        when given."""
        order = self.order if window is None else self.order[-window:]
        return [(args["command"], self.errors[tool_id]) for tool_id in reversed(order) if tool_id in self.errors
                for name, args in [self.tools[tool_id]] if name in SHELL_TOOLS and isinstance(args.get("command"), str)]

    @staticmethod
    def prompts_done(block: dict) -> bool:
        text = str(block.get("text", ""))
        return not text.strip() or text.lstrip().startswith("<")  # system reminders, command wrappers


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def read_transcript(path: str | None, tail_bytes: int | None = None) -> Reader:
    """The transcript's prompts, tool calls, failures and last text; an empty reader when unreadable.
    With `tail_bytes`, only the records in the file's last `tail_bytes` (the first, cut one skipped)."""
    reader = Reader()
    if not path:
        return reader
    try:
        if tail_bytes is None:
            data = _read(path)
        else:
            from memory.core import fsio

            data = fsio.read_tail(path, tail_bytes, follow=True)  # the runtime's path: a link is followed, as by _read
            if len(data) >= tail_bytes:
                data = data[data.find(b"\n") + 1:]
    except OSError:
        return reader
    from memory.runtimes.transcript_formats import claude_records

    for raw in data.split(b"\n"):
        if b'"user"' not in raw and b'"assistant"' not in raw and b'"gemini"' not in raw \
                and b'"response_item"' not in raw:
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if "message" in record:
            reader.feed(record)
        else:  # Gemini's chat log, Codex's rollout log
            for converted in claude_records(record):
                reader.feed(converted)
    return reader
