"""Which session a Claude Code fork was forked from: its SessionStart payload (`source: "fork"`) names none.

What the real CLI (2.1.330) shows a fork's SessionStart hook, recorded in tests/fixtures/claude-code/2.1.330/fork/:
- `/branch`: the fork's transcript is written before the hook runs; its copied lines carry
  `"forkedFrom": {"sessionId": <parent>, "messageUuid": ...}`, the first line included.
- `/fork` (the conversation copied into a background session): no transcript yet; the session's job folder
  (`CLAUDE_JOB_DIR`) holds state.json with `forkParentSessionId`.
- `claude --resume <parent> --fork-session` (with or without -p): no transcript until after the first prompt's
  hooks (then only `requestSessionId` on copied assistant lines names the parent); Claude Code's own command
  line (`CLAUDE_PID`) names it. `claude --continue --fork-session` forks the session whose transcript in the
  project's transcript folder was written last (seen: the newest by mtime).
Each source is read in bounded bytes and fails open: None when none names a parent.
"""
from __future__ import annotations

import json
import os
import re

HEAD_BYTES = 64 * 1024  # of the fork's transcript: `forkedFrom` is on its first line
STATE_BYTES = 64 * 1024  # of the job's state.json (recorded: under 1 KiB)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_RESUME = ("--resume", "-r")


def parent_session(transcript_path: str | None, env: dict) -> str | None:
    """The id of the session this fork was forked from, or None when nothing says."""
    return (_from_transcript(transcript_path) or _from_job_state(env.get("CLAUDE_JOB_DIR"))
            or _from_command_line(env.get("CLAUDE_PID"), transcript_path))


def _session_id(value: object) -> str | None:
    """`value` when it is shaped like a Claude Code session id (a UUID)."""
    return value if isinstance(value, str) and _UUID.fullmatch(value) else None


def _head(path: str | None, limit: int) -> bytes:
    """The first `limit` bytes of a regular file (b"" when missing or unreadable); every path here is the runtime's
    (its transcript, its job state, its process), so a symlink is followed."""
    from memory.core import fsio

    try:
        return fsio.read_head(path, limit, follow=True) if path else b""
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return b""


def _from_transcript(path: str | None) -> str | None:
    """`forkedFrom.sessionId` of the first whole line in the transcript's head that has one."""
    for line in _head(path, HEAD_BYTES).split(b"\n")[:-1]:  # the last piece may be cut short
        if b"forkedFrom" not in line:
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # an over-nested line: no parent named
            continue
        origin = record.get("forkedFrom") if isinstance(record, dict) else None
        found = _session_id(origin.get("sessionId")) if isinstance(origin, dict) else None
        if found:
            return found
    return None


def _from_job_state(job_dir: str | None) -> str | None:
    """`forkParentSessionId` in a background session's state.json."""
    if not job_dir:
        return None
    try:
        state = json.loads(_head(os.path.join(job_dir, "state.json"), STATE_BYTES) or b"null")
    except (ValueError, RecursionError):
        return None
    return _session_id(state.get("forkParentSessionId")) if isinstance(state, dict) else None


def _from_command_line(pid: str | None, transcript_path: str | None) -> str | None:
    """The `--resume <id>` of a Claude Code process started with `--fork-session`; with `--continue`, the
    session whose transcript beside the fork's changed last (the one `--continue` takes)."""
    if not pid or not pid.isdigit():
        return None
    argv = command_line(pid)
    found = resumed_by(argv)
    if found or "--fork-session" not in argv or any(a in _RESUME or a.startswith("--resume=") for a in argv):
        return found  # a `--resume` without an id is the picker: any session may have been picked
    return newest_beside(transcript_path) if "--continue" in argv or "-c" in argv else None


def newest_beside(transcript_path: str | None) -> str | None:
    """The id of the session whose transcript, in the fork's own transcript folder, was written last."""
    if not transcript_path:
        return None
    folder, own = os.path.split(transcript_path)
    newest: tuple[float, str] | None = None
    try:
        with os.scandir(folder or ".") as entries:
            for item in entries:
                stem = item.name[:-6] if item.name.endswith(".jsonl") else ""
                if item.name == own or not _session_id(stem) or not item.is_file(follow_symlinks=False):
                    continue
                when = item.stat(follow_symlinks=False).st_mtime
                if newest is None or when > newest[0]:
                    newest = (when, stem)
    except OSError:
        return None
    return newest[1] if newest else None


def command_line(pid: str) -> list[str]:
    """A process's arguments: /proc where there is one (exact), else `ps` (arguments joined by spaces, split
    again here: good enough for the id after --resume, which holds no space; memory.runtimes.fork.resumed_by)."""
    raw = _head(f"/proc/{pid}/cmdline", HEAD_BYTES)
    if raw:
        return raw.decode("utf-8", "replace").split("\0")
    if os.path.isdir("/proc/self"):
        return []  # Linux: the process is gone
    import subprocess

    try:
        done = subprocess.run(["ps", "-ww", "-o", "args=", "-p", pid], capture_output=True, timeout=2)
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.decode("utf-8", "replace").split() if done.returncode == 0 else []


def resumed_by(argv: list[str]) -> str | None:
    """The session `claude ... --resume <id> --fork-session` (or `-r <id>`, `--resume=<id>`) forks: the first
    id-shaped value after one of them (a Claude Code session id is a UUID; `--resume` also takes a title to
    search for, and `ps` may split a prompt that holds the word)."""
    if "--fork-session" not in argv:
        return None
    for i, arg in enumerate(argv):
        value = argv[i + 1] if arg in _RESUME and i + 1 < len(argv) else \
            arg.split("=", 1)[1] if arg.startswith("--resume=") else None
        if _session_id(value):
            return value
    return None
