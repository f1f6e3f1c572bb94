"""Our hook registrations: what they look like, and merging them into (or out of) other people's files.

Merging never replaces a file: every key, hook and permission that is not ours stays, in its order;
ours are recognised by the folder their command runs from, so a re-run replaces them in place of adding
copies and an uninstall removes exactly them.
"""
from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # typing costs ~3 ms to import; annotations are strings here
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Tuple

MARKER = "memory-hooks"  # every command we register runs a file under a folder of this name
INSTALL_DIR = ".claude/hooks/memory-hooks"
CLAUDE_SETTINGS = os.path.join(".claude", "settings.json")
CLAUDE_SETTINGS_FILES = (CLAUDE_SETTINGS, os.path.join(".claude", "settings.local.json"))
CURSOR_HOOKS = os.path.join(".cursor", "hooks.json")
PLUGIN_NAME = "memory-hooks"

# hook file -> (Claude event, matcher, extra handler fields); only files that exist are registered.
CLAUDE_HOOKS = [
    ("session_start", "SessionStart", "startup|resume|clear|compact", {"timeout": 10}),
    ("memory_capture", "PostToolUse", "Bash", {"timeout": 10}),
    # not "async": `claude -p` kills async hooks still running at its end; the hook detaches its own work
    ("log_dispatch_prompt", "PostToolUse", "Agent|Task", {"timeout": 10}),
    ("validate_completion", "SubagentStop", None, {"timeout": 30}),
]
CURSOR_EVENTS = [
    ("session_start", "sessionStart", None, {"timeout": 10}),
    ("memory_capture", "afterShellExecution", None, {"timeout": 10}),
    ("validate_completion", "subagentStop", None, {"timeout": 30}),
]
CLAUDE_EVENTS = {"SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
                 "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
                 "Notification", "MessageDisplay", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted",
                 "Stop", "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged",
                 "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact",
                 "Elicitation", "ElicitationResult", "SessionEnd", "PreModelSwitch", "PostModelSwitch"}


class SettingsError(Exception):
    """A settings file we must not touch: not valid JSON, or not of the documented shape."""


def claude_command(hook: str) -> str:
    """POSIX sh (no bash-isms), every path quoted: the project's virtualenv when present, else python3."""
    d = '"$CLAUDE_PROJECT_DIR"/' + INSTALL_DIR
    return (f'if [ -x {d}/.venv/bin/python ]; then exec {d}/.venv/bin/python {d}/hooks/{hook}.py; '
            f'else exec python3 {d}/hooks/{hook}.py --no-venv; fi')


def cursor_command(hook: str) -> str:
    """Cursor runs project hooks from the project root and always sets CURSOR_PROJECT_DIR."""
    d = '"${CURSOR_PROJECT_DIR:-.}"/' + INSTALL_DIR
    return (f'if [ -x {d}/.venv/bin/python ]; then exec {d}/.venv/bin/python {d}/hooks/{hook}.py --cursor; '
            f'else exec python3 {d}/hooks/{hook}.py --cursor --no-venv; fi')


def plugin_command(hook: str) -> str:
    """The plugin's copy runs from the plugin folder; `--plugin` lets it stay quiet beside an install."""
    return f'python3 "${{CLAUDE_PLUGIN_ROOT}}"/hooks/{hook}.py --plugin'


def plugin_hooks(available: List[str]) -> dict:
    """The plugin's hooks/hooks.json: the same events and matchers as a project install."""
    hooks: Dict[str, list] = {}
    for hook, event, matcher, extra in CLAUDE_HOOKS:
        if hook in available:
            group: dict = {"matcher": matcher} if matcher else {}
            group["hooks"] = [dict({"type": "command", "command": plugin_command(hook)}, **extra)]
            hooks.setdefault(event, []).append(group)
    return {"description": "memory-hooks: capture LEARNED insights, surface them at session start", "hooks": hooks}


def is_ours(handler: object) -> bool:
    """True for a hook handler whose command (or args) runs one of our installed files."""
    if not isinstance(handler, dict):
        return False
    parts = [handler.get("command")] + list(handler.get("args") or [])
    return any(isinstance(p, str) and MARKER in p for p in parts)


def parse_json_file(path: str, text: str) -> dict:
    """A settings object, or SettingsError naming the file, line and column."""
    if not text.strip():
        return {}
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
    indent = 2
    for line in like.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            indent = line[:len(line) - len(stripped)]
            indent = len(indent) if indent.strip(" ") == "" else indent
            break
    return json.dumps(value, indent=indent, ensure_ascii=False) + "\n"


def without_ours(config: dict) -> dict:
    """A copy of a settings/hooks.json object with our handlers (and groups left empty by that) removed."""
    hooks = config.get("hooks")
    if not isinstance(hooks, dict):
        return dict(config)
    kept_hooks: Dict[str, list] = {}
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


def with_claude_hooks(config: dict, available: List[str]) -> dict:
    """`config` with our Claude Code registrations (for the hook files in `available`) at the end."""
    result = without_ours(config)
    hooks = dict(result.get("hooks") or {})
    for hook, event, matcher, extra in CLAUDE_HOOKS:
        if hook not in available:
            continue
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [dict({"type": "command", "command": claude_command(hook)}, **extra)]
        hooks[event] = list(hooks.get(event) or []) + [group]
    result["hooks"] = hooks
    return result


def with_cursor_hooks(config: dict, available: List[str]) -> dict:
    """`config` (a .cursor/hooks.json object) with our Cursor registrations at the end."""
    result = without_ours(config)
    result.setdefault("version", 1)
    hooks = dict(result.get("hooks") or {})
    for hook, event, matcher, extra in CURSOR_EVENTS:
        if hook not in available:
            continue
        handler = dict({"command": cursor_command(hook)}, **extra)
        if matcher:
            handler["matcher"] = matcher
        hooks[event] = list(hooks.get(event) or []) + [handler]
    result["hooks"] = hooks
    return result


def registered_events(config: dict) -> List[Tuple[str, Optional[str]]]:
    """(event, matcher) of every handler of ours in a settings or hooks.json object."""
    found = []
    for event, groups in (config.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            if is_ours(group):
                found.append((event, group.get("matcher")))
            elif isinstance(group, dict):
                found += [(event, group.get("matcher")) for h in group.get("hooks") or [] if is_ours(h)]
    return found


def read_config(path: str) -> dict:
    """A JSON settings file's object ({} when missing or unreadable): for lookups, never for rewriting."""
    try:
        with open(path, "rb") as fh:
            value = json.loads(fh.read() or b"{}")
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def cursor_hooks_installed(root: str) -> bool:
    """True when the project's `.cursor/hooks.json` registers our hooks natively."""
    return bool(registered_events(read_config(os.path.join(root, CURSOR_HOOKS))))


def claude_hooks_installed(root: str) -> bool:
    """True when the project's Claude Code settings files register our hooks."""
    return any(registered_events(read_config(os.path.join(root, name))) for name in CLAUDE_SETTINGS_FILES)


def plugin_enabled(root: str, home: Optional[str] = None) -> bool:
    """True when the memory-hooks Claude Code plugin is enabled for this project (user or project settings)."""
    home = home if home is not None else os.path.expanduser("~")
    places = [os.path.join(home, ".claude", "settings.json")] + [os.path.join(root, n) for n in CLAUDE_SETTINGS_FILES]
    for place in places:
        enabled = read_config(place).get("enabledPlugins")
        if isinstance(enabled, dict) and any(k.split("@")[0] == PLUGIN_NAME and v for k, v in enabled.items()):
            return True
    return False


def schema_problems(config: dict, cursor: bool = False, known_events: bool = True) -> List[str]:
    """Problems against the documented settings schema (empty when valid). `known_events=False` accepts
    event names we do not know (a newer client's), checking only the structure."""
    problems = []
    hooks = config.get("hooks", {})
    if not isinstance(hooks, dict):
        return ["hooks is not an object"]
    if cursor and config.get("version", 1) != 1:
        problems.append("version is not 1")
    for event, groups in hooks.items():
        if known_events and not cursor and event not in CLAUDE_EVENTS:
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
            for h in handlers:
                if not isinstance(h, dict) or not isinstance(h.get("command"), str):
                    problems.append(f"{event}: handler without a command string")
                elif not cursor and h.get("type") != "command":
                    problems.append(f"{event}: handler type is not command")
    return problems
