"""Our hook registrations: what they look like, and merging them into (or out of) other people's files.

Merging never replaces a file: every key, hook and permission that is not ours stays, in its order;
ours are recognised exactly (a command we generate, or one that runs a file under INSTALL_DIR by path),
so a re-run replaces them in place of adding copies and an uninstall removes exactly them.

`python -m memory.runtimes.registration --plugin-json > hooks/hooks.json` regenerates the plugin's hooks file.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from memory.core import fsio, jsonio
from memory.core.fsio import MAX_SETTINGS_BYTES
from memory.runtimes.runtimes import (  # noqa: F401 - the tables and commands, where callers have always found them
    CLAUDE_HOOKS,
    CLAUDE_SETTINGS,
    CLAUDE_SETTINGS_FILES,
    CODEX_EVENTS,
    CODEX_HOOKS,
    CURSOR_EVENTS,
    CURSOR_HOOKS,
    GEMINI_EVENTS,
    GEMINI_SETTINGS,
    INSTALL_DIR,
    MANIFEST,
    PLUGIN_NAME,
    RUNTIMES,
    claude_command,
    codex_command,
    cursor_command,
    gemini_command,
    plugin_command,
    plugin_hooks,
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
_SHELL_WORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "exec", "env"}


class SettingsError(Exception):
    """A settings file we must not touch: not valid JSON, or not of the documented shape."""


def is_ours(handler: object) -> bool:
    """True for a command handler we registered: one of the commands we generate, or a command that runs a
    file under our INSTALL_DIR by path (an older version's command). Mentioning "memory-hooks" is not enough."""
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    args = handler.get("args")
    if isinstance(args, list):  # exec form: no shell, `command` is the program
        return _runs_our_file([command] + [a for a in args if isinstance(a, str)])
    if command in _generated_commands():
        return True
    return any(_runs_our_file(words) for words in _simple_commands(command))


_generated: list[str] = []


def _generated_commands() -> list[str]:
    if not _generated:
        names = {hook for hook, *_ in CLAUDE_HOOKS + CURSOR_EVENTS + GEMINI_EVENTS + CODEX_EVENTS}
        _generated.extend(make(hook) for hook in sorted(names)
                          for make in (claude_command, cursor_command, gemini_command, codex_command, plugin_command))
    return _generated


def _simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command in a shell string (None of it is run; [] when it does not parse)."""
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and all(c in lexer.punctuation_chars for c in token):
                commands.append([])  # ; && || | & ( ) separate commands
            else:
                commands[-1].append(token)
    except ValueError:  # unbalanced quotes: not a command we wrote
        return []
    return [words for words in commands if words]


def _runs_our_file(words: list[str]) -> bool:
    """True when the program, or the script an interpreter is given, is a file under INSTALL_DIR."""
    while words and (words[0] in _SHELL_WORDS or ("=" in words[0] and not words[0].startswith("="))):
        words = words[1:]  # `exec`, `env`, `if`, VAR=value: the program comes after them
    if not words:
        return False
    if _in_install_dir(words[0]):
        return True
    program = os.path.basename(words[0])
    if program.startswith("python") or program in ("sh", "bash", "dash", "zsh"):
        script = next((w for w in words[1:] if not w.startswith("-")), "")
        return _in_install_dir(script)
    return False


def _in_install_dir(word: str) -> bool:
    return ("/" + INSTALL_DIR + "/") in ("/" + word)


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
        return [g for g in groups if not _all_ours(g)], [g for g in groups if _all_ours(g)]

    kept = {}
    for event in [e for e in hooks if e in new] + [e for e in new if e not in hooks]:  # the file's event order
        groups, old = new[event], hooks.get(event)
        if isinstance(old, list) and isinstance(groups, list) and parts(old) == parts(groups):
            groups = old
        kept[event] = groups
    return dict(merged, hooks=kept)


def _all_ours(group: object) -> bool:
    """A group that holds our handlers only (Cursor's flat shape: the handler is the group)."""
    if is_ours(group):
        return True
    inner = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(inner, list) and bool(inner) and all(is_ours(h) for h in inner)


def with_claude_hooks(config: dict, available: list[str]) -> dict:
    """`config` with our Claude Code registrations (for the hook files in `available`) at the end."""
    return _with_grouped(config, available, CLAUDE_HOOKS, claude_command)


def with_gemini_hooks(config: dict, available: list[str]) -> dict:
    """`config` (a .gemini/settings.json object) with our Gemini CLI registrations at the end."""
    return _with_grouped(config, available, GEMINI_EVENTS, gemini_command)


def with_codex_hooks(config: dict, available: list[str]) -> dict:
    """`config` (a .codex/hooks.json object) with our Codex CLI registrations at the end."""
    return _with_grouped(config, available, CODEX_EVENTS, codex_command)


def _with_grouped(config: dict, available: list[str], table: list, command: Callable[[str], str]) -> dict:
    """Claude's shape (event -> [{matcher?, hooks: [handler]}]) with our entries of `table` at the end."""
    result = without_ours(config)
    hooks = dict(result.get("hooks") or {})
    for hook, event, matcher, extra in table:
        if hook not in available:
            continue
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [dict({"type": "command", "command": command(hook)}, **extra)]
        hooks[event] = list(hooks.get(event) or []) + [group]
    result["hooks"] = hooks
    return result


def with_cursor_hooks(config: dict, available: list[str]) -> dict:
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


def registered_events(config: dict) -> list[tuple[str, str | None]]:
    """(event, matcher) of every handler of ours in a settings or hooks.json object."""
    return [(event, matcher) for event, matcher, _ in our_handlers(config)]


def hook_of(handler: dict) -> str | None:
    """The hook file of ours a registered handler runs (`session_start` for …/hooks/session_start.py)."""
    import re

    ran = re.search(r"/hooks/(\w+)\.py", str(handler.get("command", "")) + " " + " ".join(
        a for a in handler.get("args") or [] if isinstance(a, str)))
    return ran.group(1) if ran else None


def describe(handlers: list[tuple[str, str | None, dict]]) -> str:
    """Our handlers as a person reads them: each event once, `Event[matcher]`, naming the hooks where one event
    runs several (`PostToolUseFailure[Bash] (memory_capture, action_context)`)."""
    by_event: dict[str, list[str]] = {}
    for event, matcher, handler in handlers:
        by_event.setdefault(f"{event}[{matcher}]" if matcher else event, []).append(hook_of(handler) or "?")
    return ", ".join(name if len(hooks) == 1 else f"{name} ({', '.join(hooks)})" for name, hooks in by_event.items())


def our_handlers(config: dict) -> list[tuple[str, str | None, dict]]:
    """(event, matcher, handler) of every handler of ours, in the file's order (Cursor's flat shape too)."""
    found = []
    hooks = config.get("hooks")
    for event, groups in (hooks if isinstance(hooks, dict) else {}).items():
        for group in groups if isinstance(groups, list) else []:
            if is_ours(group):
                found.append((event, group.get("matcher"), group))
            elif isinstance(group, dict) and isinstance(group.get("hooks"), list):
                found += [(event, group.get("matcher"), h) for h in group["hooks"] if is_ours(h)]
    return found


def read_config(path: str) -> dict:
    """A JSON settings file's object ({} when missing or unreadable): for lookups, never for rewriting."""
    try:
        # a FIFO or a device there is unreadable, not a wait (fsio.read_regular); a user's link is followed
        data = fsio.read_regular(path, MAX_SETTINGS_BYTES, follow=True) or b"{}"
        value = json.loads(jsonio.without_comments(data.decode("utf-8")) if path.endswith(GEMINI_SETTINGS) else data)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def cursor_hooks_installed(root: str) -> bool:
    """True when the project's `.cursor/hooks.json` registers our hooks natively."""
    return bool(registered_events(read_config(os.path.join(root, CURSOR_HOOKS))))


def claude_hooks_installed(root: str) -> bool:
    """True when the project's Claude Code settings files register our hooks."""
    return any(registered_events(read_config(os.path.join(root, name))) for name in CLAUDE_SETTINGS_FILES)


def another_copy_answers(data: dict, argv: list[str], root: str) -> bool:
    """Whether another registration of this hook handles the event, so this copy steps aside: Cursor runs
    .claude/settings.json hooks besides its own .cursor/hooks.json ones (its third-party import, on by default),
    and the Claude Code plugin may sit beside an install. One copy answers, decides or records, so the agent
    gets a block once and a subagent is held max_blocks times, not twice as often."""
    from memory.core import layout
    from memory.runtimes import payload

    if payload.runtime(data) == payload.CURSOR and layout.FLAG_CURSOR not in argv:
        return cursor_hooks_installed(root)
    if layout.FLAG_PLUGIN in argv:
        return claude_hooks_installed(root)
    return False


def plugin_enabled(root: str, home: str | None = None) -> bool:
    """True when the memory-hooks Claude Code plugin is enabled for this project (user or project settings)."""
    home = home if home is not None else os.path.expanduser("~")
    places = [os.path.join(home, ".claude", "settings.json")] + [os.path.join(root, n) for n in CLAUDE_SETTINGS_FILES]
    for place in places:
        enabled = read_config(place).get("enabledPlugins")
        if isinstance(enabled, dict) and any(k.split("@")[0] == PLUGIN_NAME and v for k, v in enabled.items()):
            return True
    return False


def schema_problems(config: dict, cursor: bool = False, strict: bool = True, gemini: bool = False) -> list[str]:
    """Problems against the documented settings schema (empty when valid). `strict=False` accepts event
    names and handler types we do not know (a newer client's), checking only the structure."""
    problems = []
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


def reinstall_hint() -> str:
    """The install.sh a teammate needs, named by where this installed copy came from (its install.json)."""
    code_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # INSTALL_DIR in an install
    source = read_config(os.path.join(code_dir, os.path.basename(MANIFEST))).get("source")
    if isinstance(source, str) and source:
        return f"memory-hooks' install.sh (from {source})"
    return ("memory-hooks' install.sh (from the memory-hooks repository your team installed from; "
            f"see {MANIFEST})")


def _main(argv: list[str]) -> int:
    if argv != ["--plugin-json"]:
        print("usage: python -m memory.runtimes.registration --plugin-json > hooks/hooks.json", file=sys.stderr)
        return 2
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "hooks")
    available = [name[:-3] for name in sorted(os.listdir(folder)) if name.endswith(".py")]
    sys.stdout.write(dump_json(plugin_hooks(available)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
