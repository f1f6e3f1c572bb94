"""Hook stdin -> payload fields, and the answer each runtime understands.

Claude Code, Cursor (native or running `.claude/settings.json` hooks) and Gemini CLI send different
shapes; this module knows them, with two neighbours for what a tool call did: memory.runtimes.tool_files (the
files it reads or changes) and memory.runtimes.shell_outcome (how a shell call ended).
"""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.core import jsonio, paths

if TYPE_CHECKING:
    from typing import Any

CLAUDE = "claude"
CURSOR = "cursor"
GEMINI = "gemini"
SHELL_TOOLS = {"Bash", "Shell", "run_shell_command"}
# Tool calls that name the file they read or change: Claude Code (and Cursor), Gemini CLI
FILE_TOOLS = {"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "read_file", "write_file", "replace"}
PATCH_TOOLS = {"apply_patch"}  # Codex CLI: the files are named inside the patch


class PayloadError(ValueError):
    """Stdin that is not a hook payload (not JSON, or not a JSON object)."""


def parse(raw: bytes) -> dict[str, Any]:
    """The payload object; raises PayloadError for anything else."""
    if not raw.strip():
        raise PayloadError("empty stdin")
    try:
        payload = jsonio.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        raise PayloadError(f"stdin is not JSON ({type(exc).__name__})") from None
    if not isinstance(payload, dict):
        raise PayloadError(f"stdin is JSON {type(payload).__name__}, not an object")
    return payload


_NONE = type(None)
FIELD_TYPES = {
    "hook_event_name": (str,), "session_id": (str,), "conversation_id": (str,), "cwd": (str,),
    "transcript_path": (str, _NONE), "source": (str,), "tool_name": (str,), "tool_input": (dict, str),
    "tool_use_id": (str,), "agent_id": (str,), "agent_type": (str,), "subagent_type": (str,),
    "last_assistant_message": (str, _NONE), "agent_transcript_path": (str, _NONE), "stop_hook_active": (bool,),
    "workspace_roots": (list,), "command": (str,), "generation_id": (str,), "prompt": (str,),
}


def field_problems(payload: dict[str, Any], required: tuple = ()) -> list[str]:
    """Known fields of the wrong type, and `required` fields that are missing (for the error log)."""
    found = [f"{name} missing" for name in required if name not in payload]
    for name, types in FIELD_TYPES.items():
        if name in payload and not isinstance(payload[name], types):
            found.append(f"{name} is {type(payload[name]).__name__}")
    return found


def runtime(payload: dict[str, Any]) -> str:
    """Which client sent the payload."""
    if "cursor_version" in payload or "conversation_id" in payload:
        return CURSOR
    if "timestamp" in payload and str(payload.get("tool_name", "")).islower() and "_" in str(payload.get("tool_name")):
        return GEMINI
    return CLAUDE


def text_field(payload: dict[str, Any], name: str) -> str | None:
    """A string field, or None when missing or of another type."""
    value = payload.get(name)
    return value if isinstance(value, str) else None


def user_prompt(payload: dict[str, Any]) -> str | None:
    """What the user typed: `prompt`, without the context blocks Gemini CLI prepends to it
    (`<hook_context>…</hook_context>`: what the SessionStart hooks answered)."""
    prompt = text_field(payload, "prompt")
    return without_hook_context(prompt) if prompt else prompt


def without_hook_context(text: str) -> str:
    """`text` without the `<hook_context>…</hook_context>` blocks Gemini CLI puts before a prompt (in the
    BeforeAgent payload and in its chat log alike)."""
    if "<hook_context>" not in text:
        return text
    import re

    return re.sub(r"<hook_context>.*?</hook_context>\s*", "", text, flags=re.S)


def event_name(payload: dict[str, Any]) -> str:
    return text_field(payload, "hook_event_name") or ""


def tool_name(payload: dict[str, Any]) -> str:
    """The tool a call used; "" when missing or not a string (a list would not even be looked up in a set)."""
    return text_field(payload, "tool_name") or ""


def session_id(payload: dict[str, Any]) -> str | None:
    return text_field(payload, "session_id") or text_field(payload, "conversation_id")


def cwd(payload: dict[str, Any]) -> str | None:
    """Where the agent is: the payload's cwd, else Cursor's first workspace root, else the project env."""
    value = text_field(payload, "cwd")
    if value and os.path.isabs(value):
        return value
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and os.path.isabs(roots[0]):
        return roots[0]
    return os.environ.get("CLAUDE_PROJECT_DIR") or os.environ.get("CURSOR_PROJECT_DIR") or None


def project_dir(payload: dict[str, Any]) -> str | None:
    """The project the runtime works on: its announced project folder, else Cursor's first workspace root.

    None when the runtime announced none; the memory then follows the command's cwd.
    """
    announced = paths.project_dir_from_env()
    if announced:
        return announced
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and os.path.isabs(roots[0]):
        return roots[0]
    return None


def tool_input(payload: dict[str, Any]) -> dict[str, Any]:
    """`tool_input` as an object (Cursor sometimes sends it as a JSON string)."""
    value = payload.get("tool_input")
    if isinstance(value, str):
        try:
            value = jsonio.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def shell_command(payload: dict[str, Any]) -> str | None:
    """The shell command of a shell tool call (succeeded or not: see shell_outcome.succeeded), or None for
    anything else."""
    if event_name(payload) == "afterShellExecution":
        return text_field(payload, "command")
    if tool_name(payload) not in SHELL_TOOLS:
        return None
    command = tool_input(payload).get("command")
    return command if isinstance(command, str) else None


def capture_id(payload: dict[str, Any], command: str) -> str:
    """Identity of one tool call, equal for every copy of the hook the runtime fires for it.

    Two 32-bit checksums (zlib: hashlib costs the capture hook ~4 ms to import); collisions only matter
    between captures of one session, checked against the last 256 KiB of the file.
    """
    import zlib

    # Gemini CLI names no tool call: its timestamp tells two runs of the same command apart
    call = (text_field(payload, "generation_id") or text_field(payload, "tool_use_id")
            or text_field(payload, "timestamp") or "")
    seed = "\0".join((session_id(payload) or "", call, command)).encode("utf-8", "replace")
    return f"{zlib.crc32(seed):08x}{zlib.adler32(seed):08x}"


def answers_context(payload: dict[str, Any]) -> bool:
    """Whether the event can carry model-visible context at all (Cursor's afterShellExecution cannot)."""
    return event_name(payload) != "afterShellExecution"


def context_answer(payload: dict[str, Any], text: str, event: str | None = None, user_note: str = "") -> str:
    """Model-visible context: Claude's hookSpecificOutput envelope, or Cursor's flat field; `user_note`
    (maintenance hints meant for the person, never the model) as systemMessage where the runtime shows one."""
    if runtime(payload) == CURSOR:
        return jsonio.dumps({"additional_context": text})
    name = event or event_name(payload) or "SessionStart"
    answer: dict[str, Any] = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    if user_note:
        answer["systemMessage"] = user_note
    return jsonio.dumps(answer)


def block_answer(payload: dict[str, Any], reason: str) -> str:
    """Keep a stopping (sub)agent working: Claude's decision/reason, Cursor's followup_message."""
    if runtime(payload) == CURSOR:
        return jsonio.dumps({"followup_message": reason})
    return jsonio.dumps({"decision": "block", "reason": reason})


def warning_answer(payload: dict[str, Any], text: str) -> str | None:
    """A message for the user only (Claude's systemMessage); Cursor has no such field."""
    if runtime(payload) == CURSOR:
        return None
    return jsonio.dumps({"systemMessage": text})
