"""Handoffs: where a session stopped, taken from its transcript, so the next one starts there (read back by
memory.runtimes.handoff_read).

One line in `.beads/memory/handoffs.jsonl` (machine-local, gitignored, newest KEEP kept) per PreCompact,
SessionEnd and supervisor SubagentStop the completion gate lets finish, when it tells something: the task
(first and latest prompt), beads touched, files changed (Edit/Write/MultiEdit inputs, then `git status`), the
last failing command and its error, open todos, the insights captured, the last assistant message (its lines
kept, code blocks left out), branch, commit, times. Redacted like every write. No model call: the transcript is
read tolerantly by memory.runtimes.transcript.
"""
from __future__ import annotations

import os
import re
import time

from memory.core import layout, markers
from memory.runtimes.payload import SHELL_TOOLS
from memory.runtimes.transcript import read_transcript

KEEP = 200
PROMPT_CHARS = 300
ERROR_CHARS = 300
MESSAGE_CHARS = 600
REDACT_MARGIN = 4096  # past a cut, more than the longest text a redaction rule reads (memory.store.redact_commands)
MAX_FILES = 20
MAX_TODOS = 10
MAX_STATUS = 30
_EDIT_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
# compiled on first use (re's cache)
_BD = r"\bbd\s+(claim|update|close|comments?\s+add|comment|create|reopen)\s+([A-Za-z][\w.-]*-[\w.-]+)"


def _what_failed(error: str) -> str:
    """The lines of a failure's output that say what failed (shell_outcome.ERROR_WORDS), each once, in order;
    the output itself when none does. A long run's banner and progress would otherwise fill the excerpt."""
    from memory.runtimes.shell_outcome import ERROR_WORDS  # here: only a failure needs it

    said = [line.strip() for line in error.splitlines() if re.search(ERROR_WORDS, line)
            and sum(c in "=_-!*#~" for c in line) * 3 < len(line)]  # not a banner (`==== ERRORS ====`)
    return "\n".join(dict.fromkeys(said)) if said else error


def _squeeze(text: str, lines: bool) -> str:
    """Runs of white space as one space; `lines`: each line so, blank lines dropped (else all on one line)."""
    if not lines:
        return " ".join(text.split())
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _cut(text: str, limit: int, lines: bool = False) -> str:
    """`text` redacted and cut to `limit`, on one line (`lines`: keeping its lines, see _squeeze)."""
    flat = _squeeze(text, lines)
    if flat == text and len(text) <= limit:
        return text  # whole, spaced as written: the store redacts it on write
    from memory.store import redact

    # redacted as written, then joined and cut: a line break (a YAML block value, a command continued over
    # lines) and a token across the cut are part of the shape that identifies a secret. Only the stretch the
    # cut keeps, and a margin longer than any secret's shape, is redacted (a prompt may be a pasted 1 MB log:
    # ~0.8 s); unless what it gives is too short to have held that margin past the cut
    window = text[:4 * limit + REDACT_MARGIN]
    flat = _squeeze(redact.redact(window)[0], lines)
    if len(window) < len(text) and len(flat) < limit + REDACT_MARGIN:
        flat = _squeeze(redact.redact(text)[0], lines)
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


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
    """The final message, cut, its lines kept and its code blocks left out (flattened, a reply's quotes and code
    ran into its prose); without its marked lines when the session captured insights: those are the entries the
    handoff lists, which the same session start gives in full (None when nothing else is left)."""
    if captured and any(m in message for m in markers.MARKERS):
        message = markers.marked_lines(message, marked=False)
    elif any(m in message for m in markers.MARKERS):  # nothing new stored (a repeat): a held line must not show
        from memory.store import screen

        held = {line for line in markers.marked_lines(message).splitlines() if screen.reasons(line)}
        message = "\n".join(line for line in message.splitlines() if line not in held)
    message = markers.without_code(message).strip()
    return _cut(message, MESSAGE_CHARS, lines=True) if message else None


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
    from memory.store import view

    lines = store.load(memory_dir).entries
    mine = list(dict.fromkeys(e["key"] for e in lines if session and e.get("session_id") == session and "content" in e))
    # a held entry's key is a slug of its first words: it is no more listed than its text is shown (only this
    # session's keys screened: every entry's took 54 ms at 1,000)
    state = view.State(lines) if mine else None
    insights = [k for k in mine if state is None or k not in state.entries or not state.held(k)]
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
        "insights": insights[-MAX_FILES:], "ended": int(now),
    })
    return record


def save(memory_dir: str, record: dict) -> None:
    """Append the handoff, unless it tells nothing of its session (handoff_read.tells_something): it would only
    displace the useful one before it."""
    from memory.runtimes import handoff_read
    from memory.store import store

    if not handoff_read.tells_something(record):
        return
    store.append_log(memory_dir, layout.HANDOFFS, record, keep=KEEP)
