"""How a shell tool call ended, as each runtime reports it: whether it succeeded, what it printed, how it
failed (Claude's PostToolUseFailure, Gemini's shell report, Codex's bare output, Cursor's exitCode).

The payload's fields themselves are read by memory.runtimes.payload.
"""
from __future__ import annotations

from memory import TYPE_CHECKING
from memory.core import jsonio
from memory.runtimes.payload import event_name, shell_command

if TYPE_CHECKING:
    from typing import Any


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
    elif isinstance(response, str):  # Codex CLI: the output alone; its exit status stands in its rollout log
        output = response
        if looks_failed(output) or codex_exit_code(payload) not in (None, 0):
            return f"{command}\n{output}"
    for marker in _SHELL_FAILED:
        if _exit_after(output, marker) not in (None, 0):
            return f"{command}\n{output}"
    return None


ROLLOUT_TAIL = 256 * 1024  # bytes of Codex's rollout log read back for one call's end


def codex_exit_code(payload: dict[str, Any]) -> int | None:
    """The exit code Codex's rollout log (`transcript_path`) records for this call (`tool_use_id` is its
    call id: an item_completed CommandExecution's `exit_code`); None when the log does not say (yet)."""
    call, path = payload.get("tool_use_id"), payload.get("transcript_path")
    if not (isinstance(call, str) and call and isinstance(path, str) and path):
        return None
    import os

    from memory.core import fsio

    try:
        fd = fsio.open_regular(path, os.O_RDONLY, follow=True)
        try:
            size = os.fstat(fd).st_size
            data = os.pread(fd, ROLLOUT_TAIL, max(0, size - ROLLOUT_TAIL))
        finally:
            os.close(fd)
    except OSError:
        return None
    needle = jsonio.dumps(call).encode()
    for line in reversed(data.split(b"\n")):
        if needle not in line or b'"exit_code"' not in line:
            continue
        try:
            record = jsonio.loads(line)
        except (ValueError, RecursionError):
            continue
        item = record.get("payload", {}).get("item") if isinstance(record, dict) and isinstance(
            record.get("payload"), dict) else None
        if isinstance(item, dict) and item.get("id") == call and isinstance(item.get("exit_code"), int):
            return int(item["exit_code"])
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


OUR_COMMANDS = frozenset(("recall.sh", "memory-doctor", "memory-merge", "memory-hooks"))


def runs_our_command(command: str | None) -> bool:
    """Whether a failed shell command ran one of our own commands: its message is about the memory and says
    what to do (`recall.sh --pin KEY`: "did you mean …"); its words naming an entry are no error to explain."""
    if not command or not any(name in command for name in OUR_COMMANDS):
        return False
    from memory.core import shell

    try:
        commands = shell.parse(command)
    except (ValueError, RecursionError):
        return False
    return any(cmd.words and cmd.words[0].rsplit("/", 1)[-1] in OUR_COMMANDS for cmd in commands)
