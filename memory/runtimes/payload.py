"""Hook stdin -> payload fields, and the answer each runtime understands.

Claude Code, Cursor (native or running `.claude/settings.json` hooks) and Gemini CLI send different
shapes; this is the only module that knows them.
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
    """The shell command of a shell tool call (succeeded or not: see `succeeded`), or None for anything else."""
    if event_name(payload) == "afterShellExecution":
        return text_field(payload, "command")
    if tool_name(payload) not in SHELL_TOOLS:
        return None
    command = tool_input(payload).get("command")
    return command if isinstance(command, str) else None


def succeeded(payload: dict[str, Any]) -> bool:
    """False for a tool call the runtime reports as failed or interrupted (Claude's PostToolUseFailure,
    an interrupted Bash call, Cursor's non-zero exitCode). Cursor's afterShellExecution carries no status."""
    if event_name(payload) == "PostToolUseFailure":
        return False
    response = payload.get("tool_response")
    if isinstance(response, dict) and (response.get("interrupted") is True or response.get("error")):
        return False  # Claude's interrupted call; Gemini's AfterTool with an error
    output = _cursor_output(payload)  # Cursor postToolUse: its exitCode
    return output is None or output["exit_code"] in (0, None)


def shell_output(payload: dict[str, Any]) -> str:
    """What a shell call printed, as far as the payload carries it: Claude's stdout + stderr, Codex's string
    tool_response, Gemini's llmContent, Cursor's output ('' when none)."""
    response = payload.get("tool_response")
    if isinstance(response, str):
        return response
    parts = [response.get(k) for k in ("stdout", "stderr", "llmContent")] if isinstance(response, dict) else []
    parts.append(payload.get("output"))
    return "\n".join(p for p in parts if isinstance(p, str))


def failure(payload: dict[str, Any]) -> str:
    """How the runtime says a shell call failed, as it says it (`Exit code 127`, Gemini's error, Cursor's
    exit code); '' when it says nothing. One line, short: for a message to the agent."""
    response = payload.get("tool_response")
    said = payload.get("error") or (response.get("error") if isinstance(response, dict) else None)
    if isinstance(said, dict):
        said = said.get("message")
    output = None if said else _cursor_output(payload)
    if output is not None and output["exit_code"] is not None:
        said = f"exit code {output['exit_code']}"
    lines = said.strip().splitlines() if isinstance(said, str) else []
    return lines[0][:120] if lines else ""


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


# Tool calls that name the file they read or change: Claude Code (and Cursor), Gemini CLI
FILE_TOOLS = {"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "read_file", "write_file", "replace"}
PATCH_TOOLS = {"apply_patch"}  # Codex CLI: the files are named inside the patch
_PATCH_FILE = "*** "  # `*** Update File: path`, `*** Add File: path`, `*** Delete File: path`


def tool_files(payload: dict[str, Any], shell_reads: bool = False) -> list[str]:
    """The files a file tool call reads or changes (absolute as the runtime sent them), [] for other calls.
    With `shell_reads`, also the files a shell command prints or patches (Codex CLI reads and edits files
    through its shell tool: `sed -n 1,80p src/db.py`, `cat a.py`, `apply_patch <<EOF`)."""
    name = tool_name(payload)
    args = tool_input(payload)
    if name in FILE_TOOLS:
        target = args.get("file_path") or args.get("notebook_path") or args.get("absolute_path") \
            or args.get("target_file") or args.get("path")  # Cursor's tools name it otherwise
        return [target] if isinstance(target, str) and target.strip() else []
    if name in SHELL_TOOLS and shell_reads:
        command = args.get("command")
        return shell_read_files(command) if isinstance(command, str) else []
    if name in PATCH_TOOLS:
        patch = args.get("patch") or args.get("input") or args.get("command")
        if isinstance(patch, list):
            patch = "\n".join(str(p) for p in patch)
        if not isinstance(patch, str):
            return []
        return list(_patch_targets(patch))
    return []


ADDED_CHARS = 4000  # what an edit adds, as far as action time reads it
_READ_TOOLS = {"Read", "read_file"}


def changes_files(payload: dict[str, Any]) -> bool:
    """Whether the call changes the files it names (an edit, a write, a patch), whatever it adds: an edit
    that only deletes lines too."""
    name = tool_name(payload)
    if name in PATCH_TOOLS or (name in FILE_TOOLS and name not in _READ_TOOLS):
        return True
    return name in SHELL_TOOLS and "apply_patch" in str(tool_input(payload).get("command"))


def added_text(payload: dict[str, Any]) -> str:
    """What a file tool call writes that was not there: an Edit's / replace's new lines (those not in its old
    string), each MultiEdit edit's, a Write's content, a patch's `+` lines; "" for reads and anything else."""
    name = tool_name(payload)
    args = tool_input(payload)
    parts: list[str] = []
    if name in PATCH_TOOLS or name in SHELL_TOOLS and "apply_patch" in str(args.get("command")):
        patch = args.get("patch") or args.get("input") or args.get("command")
        if isinstance(patch, str):
            parts = [line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")]
    elif name in FILE_TOOLS:
        edits = args.get("edits")
        for edit in edits if isinstance(edits, list) else [args]:
            if not isinstance(edit, dict):
                continue
            new = edit.get("new_string") if isinstance(edit.get("new_string"), str) else edit.get("content")
            if not isinstance(new, str):
                continue
            old = edit.get("old_string")
            before = set(old.splitlines()) if isinstance(old, str) else set()
            parts.extend(line for line in new.splitlines() if line not in before)
    return "\n".join(parts)[:ADDED_CHARS]


_SHELL_FAILED = ("Exit Code: ", "Process exited with code ", "Exit code ")
# the lines Gemini's run_shell_command adds after the output ("Error: …" stays: it says what failed)
_GEMINI_TRAILER = ("Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: ")


def gemini_shell_text(report: str) -> str:
    """What a command printed, from Gemini's shell report ("<untrusted_context>\nOutput: …\nExit Code: 2\n
    Process Group PGID: …\n</untrusted_context>"): without the envelope, the "Output: " label and the lines that
    only say how it exited; any other text unchanged."""
    text = report.strip()
    if text.startswith("<untrusted_context>") and text.endswith("</untrusted_context>"):
        text = text[len("<untrusted_context>"):-len("</untrusted_context>")].strip("\n")
    if not text.startswith("Output: "):
        return report
    lines = text[len("Output: "):].split("\n")
    while len(lines) > 1 and lines[-1].startswith(_GEMINI_TRAILER):  # the first line is the output's own
        lines.pop()
    return "" if lines == ["(empty)"] else "\n".join(lines)  # Gemini's word for no output

ERROR_TAIL = 4000
# what a failed command's output ends with, when the runtime does not say how it exited (Codex)
# make's `make: *** … Stop.` / `*** [all] Error 2`, npm's `npm ERR!`, go test's `FAIL`, Go's `exit status 1`, dash's
# `sh: 1: x: not found`: what those tools print last when they fail
ERROR_WORDS = (r"\b(?:[A-Z]\w*(?:Error|Exception)|error(?:\[\w+\])?:|ERROR|FAILED|Traceback|fatal:|panic:|"
               r"command not found|No such file or directory|Permission denied)"
               r"|\*\*\* .*(?:Stop\.|Error \d+)|\bnpm ERR!|^(?:--- )?FAIL\b|\bexit status [1-9]|: not found$")


def looks_failed(output: str) -> bool:
    """Whether a command's output (its end) reads like a failure: an error name, `error:`, FAILED…"""
    import re  # only here: most hooks never need it

    return re.search(ERROR_WORDS, output[-ERROR_TAIL:], re.MULTILINE) is not None


def failure_text(payload: dict[str, Any]) -> str | None:
    """The failing command and what it printed, when the payload reports a failed shell call: Claude's
    PostToolUseFailure (`error`), Gemini's AfterTool (an `error`, or a non-zero `Exit Code:` in its
    output), Codex's PostToolUse (a non-zero exit in its output), Cursor's postToolUse (a non-zero `exitCode`
    in its `tool_output`). None for anything else."""
    command = shell_command(payload)
    if command is None:
        return None
    if event_name(payload) == "PostToolUseFailure":
        error = payload.get("error")
        return f"{command}\n{error if isinstance(error, str) else ''}"
    response = payload.get("tool_response") or _cursor_output(payload)
    output = ""
    if isinstance(response, dict):
        error = response.get("error")
        report = response.get("llmContent")
        report = report if isinstance(report, str) else ""
        printed = gemini_shell_text(report)
        if isinstance(error, str) and error or isinstance(error, dict):
            message = error.get("message") if isinstance(error, dict) else error
            return f"{command}\n{message}\n{printed}"
        if printed != report and _exit_after(report, "Exit Code: ") not in (None, 0):  # Gemini's shell report
            return f"{command}\n{printed}"
        for name in ("llmContent", "stdout", "output"):
            if isinstance(response.get(name), str):
                output += response[name] + "\n"
        if isinstance(response.get("stderr"), str):
            output += response["stderr"]
        if isinstance(response.get("exit_code"), int) and response["exit_code"] != 0:
            return f"{command}\n{output}"
    elif isinstance(response, str):  # Codex CLI: the output alone, its exit status not given
        output = response
        if looks_failed(output):
            return f"{command}\n{output}"
    for marker in _SHELL_FAILED:
        if _exit_after(output, marker) not in (None, 0):
            return f"{command}\n{output}"
    return None


def _exit_after(output: str, marker: str) -> int | None:
    """The number after the last `marker` in `output` (None when there is none)."""
    at = output.rfind(marker)
    said = output[at + len(marker):].split(None, 1) if at >= 0 else []
    return _exit_code(said[0].strip(".:,")) if said else None


def _cursor_output(payload: dict[str, Any]) -> dict[str, Any] | None:
    """Cursor's postToolUse `tool_output`, documented as a JSON string (`{"exitCode":1,"stdout":"…"}`) and taken
    as an object too, in the shape the rest of failure_text reads (`exit_code` a number, from a numeric string
    too: `"1"`); None for anything else. memory.surface.action_gate reads the same shapes from the raw bytes."""
    output = payload.get("tool_output")
    if isinstance(output, str):
        if not output.lstrip().startswith("{"):
            return None
        try:
            output = jsonio.loads(output)
        except ValueError:
            return None
    if not isinstance(output, dict):
        return None
    return {"stdout": output.get("stdout") if isinstance(output.get("stdout"), str) else output.get("output"),
            "stderr": output.get("stderr"), "exit_code": _exit_code(output.get("exitCode", output.get("exit_code")))}


def _exit_code(value: object) -> int | None:
    """An exit code given as a number or as a numeric string ("1"); None for anything else (true is no code)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        try:
            return int(value.strip())
        except ValueError:  # "--1", "²": digits to isdigit, not to int
            return None
    return None


SHELL_READERS = {"cat", "sed", "head", "tail", "nl", "less", "more", "bat", "wc"}


def shell_read_files(command: str) -> list[str]:
    """The files named by the reading commands of a shell command line and by the patches it applies."""
    from memory.core import shell

    found: dict[str, None] = {}  # ordered, and a lookup stays O(1) on a `cat` of many files
    try:
        commands = shell.parse(command)
    except (ValueError, RecursionError):
        return []
    for cmd in commands:
        words = cmd.words
        if not words:
            continue
        verb = words[0].rsplit("/", 1)[-1]
        if verb in SHELL_READERS:
            found.update((word, None) for word in words[1:]
                         if not word.startswith("-") and "." in word.rsplit("/", 1)[-1] and not word[:1].isdigit()
                         and "'" not in word and " " not in word)
        if verb == "apply_patch":
            found.update(_patch_targets(cmd.stdin_text or ""))
    return list(found)


def _patch_targets(patch: str) -> dict[str, None]:
    """The files an apply_patch text adds, updates or deletes (`*** Update File: PATH`), in order."""
    found: dict[str, None] = {}
    for line in patch.splitlines():
        if line.startswith(_PATCH_FILE) and " File: " in line:
            target = line.split(" File: ", 1)[1].strip()
            if target:
                found[target] = None
    return found
