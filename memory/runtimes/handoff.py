"""Handoffs: where a session stopped, taken from its transcript, so the next one starts there.

One line in `.beads/memory/handoffs.jsonl` (machine-local, gitignored, newest KEEP kept) per PreCompact,
SessionEnd and supervisor SubagentStop: the task (first and latest prompt), beads touched, files changed
(Edit/Write/MultiEdit inputs, then `git status`), the last failing command and its error, open todos, the
insights captured, the last assistant message, branch, commit, times. Redacted like every write. No model
call: the transcript (Claude Code's JSONL, an unstable format; Gemini's chat log and Codex's rollout log
through memory.runtimes.transcript_formats) is read tolerantly — unknown line types,
torn or non-UTF-8 lines are skipped; only lines that can matter are parsed (a 10 MB transcript costs its
user and assistant lines, not its tool outputs).
"""
from __future__ import annotations

import json
import os
import re
import time

from memory import TYPE_CHECKING
from memory.core import layout, markers
from memory.runtimes.payload import SHELL_TOOLS

if TYPE_CHECKING:
    from collections.abc import Iterable

KEEP = 200
PROMPT_CHARS = 300
ERROR_CHARS = 300
MESSAGE_CHARS = 600
REDACT_MARGIN = 4096  # past a cut, more than the longest text a redaction rule reads (memory.store.redact_commands)
MAX_FILES = 20
MAX_TODOS = 10
MAX_STATUS = 30
READ_LIMIT = 64 << 20  # a larger transcript is read from its first and last 8 MiB
EDGE = 8 << 20
ENDED_AFTER = 15 * 60  # a PreCompact handoff whose transcript has been still this long: that session ended
_EDIT_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
# compiled on first use (re's cache): session start imports this module to read handoffs, never a transcript
_BD = r"\bbd\s+(claim|update|close|comments?\s+add|comment|create|reopen)\s+([A-Za-z][\w.-]*-[\w.-]+)"


def _what_failed(error: str) -> str:
    """The lines of a failure's output that say what failed (shell_outcome.ERROR_WORDS), each once, in order;
    the output itself when none does. A long run's banner and progress would otherwise fill the excerpt."""
    from memory.runtimes.shell_outcome import ERROR_WORDS  # here: session start imports this module, never this

    said = [line.strip() for line in error.splitlines() if re.search(ERROR_WORDS, line)
            and sum(c in "=_-!*#~" for c in line) * 3 < len(line)]  # not a banner (`==== ERRORS ====`)
    return "\n".join(dict.fromkeys(said)) if said else error


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if flat == text and len(text) <= limit:
        return text  # whole, spaced as written: the store redacts it on write
    from memory.store import redact

    # redacted as written, then joined and cut: a line break (a YAML block value, a command continued over
    # lines) and a token across the cut are part of the shape that identifies a secret. Only the stretch the
    # cut keeps, and a margin longer than any secret's shape, is redacted (a prompt may be a pasted 1 MB log:
    # ~0.8 s); unless what it gives is too short to have held that margin past the cut
    window = text[:4 * limit + REDACT_MARGIN]
    flat = " ".join(redact.redact(window)[0].split())
    if len(window) < len(text) and len(flat) < limit + REDACT_MARGIN:
        flat = " ".join(redact.redact(text)[0].split())
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


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

            data = fsio.read_tail(path, tail_bytes)
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


def extract(path: str | None, captured: bool = False) -> dict:
    """The transcript's part of a handoff (see the module docstring); `captured`: the session captured insights,
    so the last message leaves out its marked lines (see _unsaid)."""
    r = read_transcript(path)
    files: list[str] = []
    beads: dict[str, list[str]] = {}
    failed = r.failed_commands()
    failure = {"command": _cut(failed[0][0], ERROR_CHARS), "error": _cut(_what_failed(failed[0][1]), ERROR_CHARS)} \
        if failed else None
    todos: list[dict] = []
    for tool_id in r.order:
        name, args = r.tools[tool_id]
        if name in _EDIT_TOOLS:
            target = args.get("file_path") or args.get("notebook_path")
            if isinstance(target, str):
                files = [f for f in files if f != target] + [target]
        elif name in SHELL_TOOLS and isinstance(args.get("command"), str):
            for verb, bead in re.findall(_BD, args["command"]):
                verbs = beads.setdefault(bead, [])
                verb = verb.split()[0].rstrip("s") if verb.startswith("comment") else verb
                if verb not in verbs:
                    verbs.append(verb)
        elif name == "TodoWrite" and isinstance(args.get("todos"), list):
            todos = [{"content": _cut(str(t.get("content", "")), 120), "status": str(t.get("status", ""))}
                     for t in args["todos"] if isinstance(t, dict) and t.get("status") != "completed"]
    prompts = [_cut(p, PROMPT_CHARS) for p in r.prompts if p.strip()]
    return {"task": {"first": prompts[0], "latest": prompts[-1]} if prompts else None,
            "beads": beads, "files": files[-MAX_FILES:], "failure": failure, "todos": todos[:MAX_TODOS],
            "last_message": _unsaid(r.last_text, captured) if r.last_text else None, "started": r.started}


def _unsaid(message: str, captured: bool) -> str | None:
    """The final message, cut, without its marked lines when the session captured insights: those are the
    entries the handoff lists, which the same session start gives in full (None when nothing else is left)."""
    if captured and any(m in message for m in markers.MARKERS):
        message = markers.marked_lines(message, marked=False).strip()
    return _cut(message, MESSAGE_CHARS) if message else None


def uncommitted(toplevel: str, memory_dir: str) -> list[str]:
    """`git status --porcelain` of the tree without the memory's own files (every capture is a new file in its
    inbox) and without memory-hooks' installed code (an upgrade changes dozens of modules): either would crowd
    the session's own work out of the MAX_STATUS lines kept."""
    from memory.core import paths
    from memory.runtimes.runtimes import INSTALL_DIR

    inside = os.path.relpath(os.path.realpath(memory_dir), os.path.realpath(toplevel)).replace(os.sep, "/")
    spec = ["--", ".", f":(exclude){INSTALL_DIR}"]
    if inside.split("/")[0] not in (".", ".."):
        spec.append(f":(exclude){inside}")
    return paths.git_lines(["status", "--porcelain"] + spec, toplevel, 1.0)[:MAX_STATUS]


def build(data: dict, memory_dir: str, event: str, bead: str | None = None) -> dict:
    """A whole handoff for the hook payload `data` (transcript, git state, the session's insights)."""
    import zlib

    from memory.core import paths
    from memory.runtimes import payload
    from memory.store import store

    cwd, project = payload.cwd(data), payload.project_dir(data)
    transcript = payload.text_field(data, "agent_transcript_path") if event == "SubagentStop" else None
    transcript = transcript or payload.text_field(data, "transcript_path")
    session = payload.session_id(data)
    insights = [e["key"] for e in store.load(memory_dir).entries
                if session and e.get("session_id") == session and "content" in e]
    record = extract(transcript, bool(insights))
    final = payload.text_field(data, "last_assistant_message")
    if final:
        record["last_message"] = _unsaid(final, bool(insights))
    git = paths.git_info(cwd or project or ".")
    status = uncommitted(git.toplevel, memory_dir) if git else []
    now = time.time()
    record.update({
        "id": f"{zlib.crc32(f'{session}/{event}/{now}'.encode()):08x}", "event": event, "session_id": session,
        "trigger": payload.text_field(data, "trigger") or payload.text_field(data, "reason"),
        "agent_type": payload.text_field(data, "agent_type"), "transcript_path": transcript,
        "tree": git.toplevel if git else (cwd or project), "branch": git.branch if git else None,
        "commit": git.head if git else None, "bead": bead, "git_status": status,
        "insights": list(dict.fromkeys(insights))[-MAX_FILES:], "ended": int(now),
    })
    return record


def save(memory_dir: str, record: dict) -> None:
    from memory.store import store

    store.append_log(memory_dir, layout.HANDOFFS, record, keep=KEEP)


def load(memory_dir: str) -> list[dict]:
    """Every readable handoff, oldest first."""
    from memory.core import fsio  # not memory.store.store: session start reads handoffs without the store's modules

    out = []
    data = fsio.read_file(os.path.join(memory_dir, layout.HANDOFFS)) if os.path.exists(
        os.path.join(memory_dir, layout.HANDOFFS)) else b""
    for raw in data.split(b"\n"):
        try:
            obj = json.loads(raw) if raw.strip() else None
        except ValueError:
            continue
        if isinstance(obj, dict) and well_formed(obj):
            out.append(obj)
    return out


_TEXTS = ("id", "event", "session_id", "trigger", "agent_type", "transcript_path", "tree", "branch", "commit", "bead",
          "last_message", "started")
_TEXT_LISTS = ("files", "git_status", "insights")
_TEXT_MAPS = ("task", "failure")


def well_formed(handoff: dict) -> bool:
    """Whether every field a reader uses has the type `build` gives it (a missing one is fine: older records):
    a line written by hand or by another version is skipped like a torn one, never fails a session start."""
    def texts(values: Iterable[object]) -> bool:
        return all(isinstance(v, str) for v in values)

    if not isinstance(handoff.get("id"), str) or not isinstance(handoff.get("ended", 0), (int, float)):
        return False
    for name in _TEXTS:
        if handoff.get(name) is not None and not isinstance(handoff[name], str):
            return False
    for name in _TEXT_LISTS:
        if handoff.get(name) is not None and not (isinstance(handoff[name], list) and texts(handoff[name])):
            return False
    for name in _TEXT_MAPS:
        if handoff.get(name) is not None and not (isinstance(handoff[name], dict) and texts(handoff[name].values())):
            return False
    todos, beads = handoff.get("todos"), handoff.get("beads")
    if todos is not None and not (isinstance(todos, list)
                                  and all(isinstance(t, dict) and texts(t.values()) for t in todos)):
        return False
    return beads is None or isinstance(beads, dict) and all(isinstance(v, list) and texts(v) for v in beads.values())


def ended(handoff: dict, now: float) -> bool:
    """Written when its session ended, or its session has been silent for ENDED_AFTER (a crashed terminal)."""
    if handoff.get("event") in ("SessionEnd", "SubagentStop"):
        return True
    path = handoff.get("transcript_path")
    try:
        return now - os.stat(path).st_mtime > ENDED_AFTER if isinstance(path, str) else True
    except OSError:
        return True


def choose(handoffs: list[dict], session: str | None, source: str | None, tree: str | None, branch: str | None,
           beads: set[str], now: float) -> dict | None:
    """The handoff session start shows: after `compact`, this session's PreCompact one; a supervisor on a
    bead, that bead's newest; else the newest of this tree and branch from a session that ended. None for a
    `fork`: it carries its parent's conversation on, which holds the parent's block (or, when the parent has
    ended, is the very session the newest handoff tells of)."""
    if source == "fork":
        return None
    newest_first = list(reversed(handoffs))
    if source == "compact":
        return next((h for h in newest_first if h.get("session_id") == session and h.get("event") == "PreCompact"),
                    None)
    if beads:
        found = next((h for h in newest_first if str(h.get("bead") or "").lower() in beads
                      or any(b.lower() in beads for b in h.get("beads") or {})), None)
        if found:
            return found
    return next((h for h in newest_first if h.get("tree") == tree and h.get("branch") == branch
                 and (h.get("session_id") != session or source == "resume") and ended(h, now)), None)
