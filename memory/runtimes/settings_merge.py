"""Our registrations merged into (or out of) other people's settings files, and those files checked against the
documented schema. Merging never replaces a file: every key, hook and permission that is not ours stays, in its
order; ours (memory.runtimes.ours) are replaced in place or removed."""
from __future__ import annotations

import json
from collections.abc import Callable

from memory.core import jsonio
from memory.runtimes.ours import all_ours, is_ours, our_handlers
from memory.runtimes.runtimes import (
    CLAUDE_HOOKS,
    CODEX_EVENTS,
    CURSOR_EVENTS,
    GEMINI_EVENTS,
    GEMINI_SETTINGS,
    claude_command,
    codex_command,
    cursor_command,
    gemini_command,
)

GEMINI_CONFIG_KEYS = {"enabled", "disabled", "notifications"}  # settings under `hooks` that are not events
CLAUDE_EVENTS = {"SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
                 "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
                 "Notification", "MessageDisplay", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted",
                 "Stop", "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged",
                 "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact",
                 "Elicitation", "ElicitationResult", "SessionEnd", "PreModelSwitch", "PostModelSwitch"}

# handler type -> the string fields it must have (the documented settings formats of Claude Code and Cursor);
# a handler of any type but "command" never runs a file of ours, and merging keeps it as it is.
CLAUDE_HANDLER_FIELDS = {"command": ("command",), "http": ("url",), "mcp_tool": ("server", "tool"),
                         "prompt": ("prompt",), "agent": ("prompt",)}
CURSOR_HANDLER_FIELDS = {"command": ("command",), "prompt": ("prompt",)}  # Cursor: "type" defaults to command


class SettingsError(Exception):
    """A settings file we must not touch: not valid JSON, or not of the documented shape."""


def parse_json_file(path: str, text: str) -> dict:
    """A settings object, or SettingsError naming the file, line and column."""
    if not text.strip():
        return {}
    if path.endswith(GEMINI_SETTINGS):  # Gemini reads its settings as JSON with comments; positions stay
        text = jsonio.without_comments(text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); "
                            "fix or move it, nothing was written") from None
    if not isinstance(value, dict):
        raise SettingsError(f"{path}: expected a JSON object, found {type(value).__name__}; nothing was written")
    hooks = value.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(f"{path}: \"hooks\" is not an object; nothing was written")
    return value


def dump_json(value: dict, like: str = "") -> str:
    """JSON text in the indentation the file already used (2 spaces for a new file)."""
    from memory.core.jsonedit import indent_unit

    return json.dumps(value, indent=indent_unit(like), ensure_ascii=False) + "\n"


def without_ours(config: dict) -> dict:
    """A copy of a settings/hooks.json object with our handlers (and groups left empty by that) removed."""
    hooks = config.get("hooks")
    if not isinstance(hooks, dict):
        return dict(config)
    kept_hooks: dict[str, list] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept_hooks[event] = groups
            continue
        kept_groups = []
        for group in groups:
            if is_ours(group):  # Cursor's flat shape: the handler is the group
                continue
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not is_ours(h)]
                if not inner and group["hooks"]:
                    continue
                group = dict(group, hooks=inner)
            kept_groups.append(group)
        if kept_groups or not groups:
            kept_hooks[event] = kept_groups
    result = dict(config)
    result["hooks"] = kept_hooks
    if hooks and not kept_hooks:
        del result["hooks"]  # it held only ours
    return result


def ours_kept_in_place(current: dict, merged: dict) -> dict:
    """`merged` with each event's list as `current` has it where the two differ only in where our groups sit (the
    merge puts ours at the end): the user's entries and ours the same, each in the same order. A hook the user
    added below ours is no reason to move it, nor to write it again in our style (an upgrade changing ours
    in one event leaves the others as they were). The events keep the file's order too: an event whose list
    held only ours is taken out and added again by the merge, which moved it after the user's, and a changed
    member order makes the whole `hooks` object written again."""
    hooks, new = current.get("hooks"), merged.get("hooks")
    if not isinstance(hooks, dict) or not isinstance(new, dict):
        return merged
    def parts(groups: list) -> tuple[list, list]:
        return [g for g in groups if not all_ours(g)], [g for g in groups if all_ours(g)]

    kept = {}
    for event in [e for e in hooks if e in new] + [e for e in new if e not in hooks]:  # the file's event order
        groups, old = new[event], hooks.get(event)
        if isinstance(old, list) and isinstance(groups, list) and parts(old) == parts(groups):
            groups = old
        kept[event] = groups
    return dict(merged, hooks=kept)


def with_claude_hooks(config: dict, available: list[str]) -> dict:
    """`config` with our Claude Code registrations (for the hook files in `available`) at the end."""
    return _with_grouped(config, available, CLAUDE_HOOKS, claude_command)


def with_gemini_hooks(config: dict, available: list[str]) -> dict:
    """`config` (a .gemini/settings.json object) with our Gemini CLI registrations at the end."""
    return _with_grouped(config, available, GEMINI_EVENTS, gemini_command)


def with_codex_hooks(config: dict, available: list[str]) -> dict:
    """`config` (a .codex/hooks.json object) with our Codex CLI registrations at the end."""
    return _with_grouped(config, available, CODEX_EVENTS, codex_command)


def _tuned_timeouts(config: dict) -> dict[tuple[str, str], float]:
    """(event, hook file) -> the `timeout` an existing handler of ours holds: a user may have raised it."""
    found = {}
    for event, _, handler in our_handlers(config):
        command, timeout = handler.get("command"), handler.get("timeout")
        if isinstance(command, str) and "/hooks/" in command and isinstance(timeout, (int, float)) \
                and not isinstance(timeout, bool) and timeout > 0:
            found[(event, command.rsplit("/hooks/", 1)[1].split(".py", 1)[0])] = timeout
    return found


def _keep_raised_timeout(handler: dict, tuned: dict[tuple[str, str], float], event: str, hook: str) -> dict:
    """A re-install keeps a timeout raised past ours (a slow machine's 20 for our 10); ours where it was lower
    (an older version's default, or one a person lowered: the hooks' own budgets assume ours)."""
    before = tuned.get((event, hook))
    if before is not None and isinstance(handler.get("timeout"), (int, float)) and before > handler["timeout"]:
        return dict(handler, timeout=before)
    return handler


def _with_grouped(config: dict, available: list[str], table: list, command: Callable[[str], str]) -> dict:
    """Claude's shape (event -> [{matcher?, hooks: [handler]}]) with our entries of `table` at the end."""
    tuned = _tuned_timeouts(config)
    result = without_ours(config)
    hooks = dict(result.get("hooks") or {})
    for hook, event, matcher, extra in table:
        if hook not in available:
            continue
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [_keep_raised_timeout(dict({"type": "command", "command": command(hook)}, **extra), tuned,
                                               event, hook)]
        hooks[event] = list(hooks.get(event) or []) + [group]
    result["hooks"] = hooks
    return result


def with_cursor_hooks(config: dict, available: list[str]) -> dict:
    """`config` (a .cursor/hooks.json object) with our Cursor registrations at the end."""
    tuned = _tuned_timeouts(config)
    result = without_ours(config)
    result.setdefault("version", 1)
    hooks = dict(result.get("hooks") or {})
    for hook, event, matcher, extra in CURSOR_EVENTS:
        if hook not in available:
            continue
        handler = _keep_raised_timeout(dict({"command": cursor_command(hook)}, **extra), tuned, event, hook)
        if matcher:
            handler["matcher"] = matcher
        hooks[event] = list(hooks.get(event) or []) + [handler]
    result["hooks"] = hooks
    return result


CODEX_ROOT_FIELDS = ("description", "hooks")  # Codex refuses a hooks.json with any other, and runs none of it


def schema_problems(config: dict, cursor: bool = False, strict: bool = True, gemini: bool = False,
                    codex: bool = False) -> list[str]:
    """Problems against the documented settings schema (empty when valid). `strict=False` accepts event
    names and handler types we do not know (a newer client's), checking only the structure."""
    problems = [f"unknown field {name!r}: Codex reads only {' and '.join(CODEX_ROOT_FIELDS)}, and refuses the whole "
                "file (its hooks and ours) otherwise" for name in config if codex and name not in CODEX_ROOT_FIELDS]
    hooks = config.get("hooks", {})
    if not isinstance(hooks, dict):
        return ["hooks is not an object"]
    if cursor and config.get("version", 1) != 1:
        problems.append("version is not 1")
    for event, groups in hooks.items():
        if gemini and event in GEMINI_CONFIG_KEYS:
            continue
        if strict and not cursor and not gemini and event not in CLAUDE_EVENTS:
            problems.append(f"unknown event {event}")
        if not isinstance(groups, list):
            problems.append(f"{event}: not a list")
            continue
        for group in groups:
            handlers = [group] if cursor else (group.get("hooks") if isinstance(group, dict) else None)
            if not isinstance(handlers, list):
                problems.append(f"{event}: group without a hooks list")
                continue
            if not cursor and "matcher" in group and not isinstance(group["matcher"], str):
                problems.append(f"{event}: matcher is not a string")
            for handler in handlers:
                problem = _handler_problem(handler, cursor, strict)
                if problem:
                    problems.append(f"{event}: {problem}")
    return problems


def _handler_problem(handler: object, cursor: bool, strict: bool) -> str | None:
    if not isinstance(handler, dict):
        return "handler is not an object"
    kind = handler.get("type", "command" if cursor else None)
    if not isinstance(kind, str):
        return "handler without a type"
    fields = (CURSOR_HANDLER_FIELDS if cursor else CLAUDE_HANDLER_FIELDS).get(kind)
    if fields is None:
        return f"unknown handler type {kind}" if strict else None
    missing = [f for f in fields if not isinstance(handler.get(f), str)]
    if missing:
        return f"{kind} handler without a {' / '.join(missing)} string"
    args = handler.get("args", [])
    if kind == "command" and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        return "args is not a list of strings"
    return None
