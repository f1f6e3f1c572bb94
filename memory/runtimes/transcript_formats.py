"""Gemini CLI's chat log and Codex CLI's rollout log, read as the Claude Code transcript records
memory.runtimes.transcript understands. Shapes as recorded from the real CLIs
(tests/fixtures/gemini/0.61.0/chat-1.jsonl, tests/fixtures/codex/0.169.0/rollout-1.jsonl);
anything else yields nothing, never an error.

Gemini 0.61 (`~/.gemini/tmp/<project>/chats/session-*.jsonl`): {"type": "user", "content": [{"text"}]}
prompts, and {"type": "gemini", "content": text, "toolCalls": [{id, name, args, result, status}]} turns
(the same id written again as its tool calls complete). A shell failure is status "success" with an
"Exit Code: N" line in its output.
Codex 0.169 (`$CODEX_HOME/sessions/…/rollout-*.jsonl`): {"type": "response_item", "payload": {...}} with
payload types message (role user / assistant / developer), function_call (exec_command {"cmd"}, or shell
{"command": [argv]}) and function_call_output ("Process exited with code N"); an edit is apply_patch, a
custom_tool_call {"name", "input": the patch} (or a function_call whose arguments hold {"input"}), as Codex's
protocol writes its ResponseItem (not in the recorded session: its model edited nothing).
"""
from __future__ import annotations

import json
import re

from memory.runtimes.payload import without_hook_context
from memory.runtimes.shell_outcome import gemini_shell_text

_GEMINI_EDITS = {"write_file": "Write", "replace": "Edit", "edit": "Edit"}
_EXIT = re.compile(r"(?:Exit Code|Process exited with code):? (-?\d+)")


def claude_records(record: dict) -> list[dict]:
    """`record` of another runtime's log as Claude Code transcript records (none when it is not one)."""
    if record.get("type") == "response_item" and isinstance(record.get("payload"), dict):
        return _codex(record["payload"], record.get("timestamp"))
    if record.get("type") in ("user", "gemini") and "message" not in record:
        return _gemini(record)
    return []


def _record(kind: str, content: list, timestamp: object) -> dict:
    out = {"type": kind, "message": {"content": content}}
    if isinstance(timestamp, str):
        out["timestamp"] = timestamp
    return out


def _failed(output: str) -> bool:
    found = _EXIT.search(output)
    return found is not None and found.group(1) != "0"


def _gemini(record: dict) -> list[dict]:
    timestamp, content = record.get("timestamp"), record.get("content")
    if record["type"] == "user":
        texts = [{"type": "text", "text": without_hook_context(part["text"])} for part in content
                 if isinstance(part, dict) and isinstance(part.get("text"), str)] if isinstance(content, list) else []
        return [_record("user", texts, timestamp)] if texts else []
    blocks: list[dict] = [{"type": "text", "text": content}] if isinstance(content, str) and content.strip() else []
    results = []
    for call in record.get("toolCalls") or []:
        if not isinstance(call, dict) or not isinstance(call.get("args"), dict):
            continue
        name, args = str(call.get("name")), call["args"]
        if name in _GEMINI_EDITS:
            name, args = _GEMINI_EDITS[name], {"file_path": args.get("file_path")}
        blocks.append({"type": "tool_use", "id": str(call.get("id")), "name": name, "input": args})
        output = _gemini_output(call.get("result"))
        if call.get("status") == "error" or _failed(output):
            results.append({"type": "tool_result", "tool_use_id": str(call.get("id")), "is_error": True,
                            "content": gemini_shell_text(output)})
    out = [_record("assistant", blocks, timestamp)] if blocks else []
    return out + ([_record("user", results, timestamp)] if results else [])


def _gemini_output(result: object) -> str:
    texts = []
    for part in result if isinstance(result, list) else []:
        response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
        if isinstance(response, dict):
            texts += [str(v) for k, v in response.items() if k in ("output", "error")]
    return "\n".join(texts)


def _codex(item: dict, timestamp: object) -> list[dict]:
    kind = item.get("type")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        texts = [{"type": "text", "text": part["text"]} for part in item.get("content") or []
                 if isinstance(part, dict) and isinstance(part.get("text"), str)]
        return [_record(str(item["role"]), texts, timestamp)] if texts else []
    if kind == "function_call" and item.get("name") in ("exec_command", "shell"):
        try:
            args = json.loads(item.get("arguments") or "{}")
        except (ValueError, TypeError, RecursionError):
            return []
        command = args.get("cmd", args.get("command")) if isinstance(args, dict) else None
        if isinstance(command, list) and len(command) == 2 and command[0] in ("apply_patch", "applypatch") \
                and isinstance(command[1], str):  # shell: a patch as an argv, which Codex applies itself
            return [_record("assistant", [{"type": "tool_use", "id": str(item.get("call_id")), "name": "apply_patch",
                                           "input": {"input": command[1]}}], timestamp)]
        if isinstance(command, list):  # shell: an argv, usually ["bash", "-lc", "the command"]
            command = command[-1] if command and all(isinstance(a, str) for a in command) else None
        if not isinstance(command, str):
            return []
        return [_record("assistant", [{"type": "tool_use", "id": str(item.get("call_id")), "name": "Bash",
                                       "input": {"command": command}}], timestamp)]
    if kind in ("custom_tool_call", "function_call") and item.get("name") == "apply_patch":
        patch = item.get("input")  # the freeform tool's patch text; the function tool's is in its arguments
        if kind == "function_call":
            try:
                args = json.loads(item.get("arguments") or "{}")
            except (ValueError, TypeError, RecursionError):
                return []
            patch = args.get("input") if isinstance(args, dict) else None
        if not isinstance(patch, str):
            return []
        return [_record("assistant", [{"type": "tool_use", "id": str(item.get("call_id")), "name": "apply_patch",
                                       "input": {"input": patch}}], timestamp)]
    if kind == "custom_tool_call_output" and isinstance(item.get("output"), str) \
            and "failed" in item["output"].split("\n", 1)[0].lower():  # "apply_patch verification failed: …"
        return [_record("user", [{"type": "tool_result", "tool_use_id": str(item.get("call_id")), "is_error": True,
                                  "content": item["output"]}], timestamp)]
    if kind == "function_call_output" and isinstance(item.get("output"), str) and _failed(item["output"]):
        output = item["output"]
        output = output.split("\nOutput:", 1)[-1].strip() if "\nOutput:" in output else output
        return [_record("user", [{"type": "tool_result", "tool_use_id": str(item.get("call_id")), "is_error": True,
                                  "content": output}], timestamp)]
    return []
