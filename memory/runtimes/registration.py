"""Our hook registrations as the hooks and the doctor read them: which settings file registers ours (so one copy
answers), whether the plugin is enabled, where this copy came from. Which handlers are ours is
memory.runtimes.ours; merging ours into a settings file and its schema, memory.runtimes.settings_merge (loaded
only by who merges: the installer, the doctor, never a hook).

`python -m memory.runtimes.registration --plugin-json > hooks/hooks.json` regenerates the plugin's hooks file.
"""
from __future__ import annotations

import json
import os
import sys

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
    NO_VENV_CHOSEN,
    PLUGIN_NAME,
    RUNTIMES,
    claude_command,
    codex_command,
    cursor_command,
    gemini_command,
    plugin_command,
    plugin_hooks,
)


def read_config(path: str) -> dict:
    """A JSON settings file's object ({} when missing or unreadable): for lookups, never for rewriting."""
    try:
        # a FIFO or a device there is unreadable, not a wait (fsio.read_regular); a user's link is followed
        data = fsio.read_regular(path, MAX_SETTINGS_BYTES, follow=True) or b"{}"
        value = json.loads(jsonio.without_comments(data.decode("utf-8")) if path.endswith(GEMINI_SETTINGS) else data)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def another_copy_answers(data: dict, argv: list[str], root: str, hook: str) -> bool:
    """Whether another registration of this hook handles the event, so this copy steps aside: Cursor runs
    .claude/settings.json hooks besides its own .cursor/hooks.json ones (its third-party import, on by default),
    and the Claude Code plugin may sit beside an install. One copy answers, decides or records, so the agent
    gets a block once and a subagent is held max_blocks times, not twice as often. The other copy must run
    `hook` on this event for its tool: an install from before a hook was registered there has other hooks of
    ours, and stepping aside for it left the event with no answer at all."""
    from memory.core import layout
    from memory.runtimes import payload

    if payload.runtime(data) == payload.CURSOR and layout.FLAG_CURSOR not in argv:
        return _runs(read_config(os.path.join(root, CURSOR_HOOKS)), data, hook)
    if layout.FLAG_PLUGIN in argv:
        return any(_runs(read_config(os.path.join(root, name)), data, hook) for name in CLAUDE_SETTINGS_FILES)
    return False


def _runs(config: dict, data: dict, hook: str) -> bool:
    """Whether `config` registers `hook` of ours for the payload's event, with a matcher its tool (or source,
    trigger, reason) matches."""
    import re

    from memory.runtimes import ours, payload

    event = payload.event_name(data)
    # what the event's matcher is matched against: the tool, or SessionStart's source, PreCompact's trigger,
    # SessionEnd's reason (an install from before `fork` was registered does not run on a fork)
    subject = payload.tool_name(data) or next((data[name] for name in ("source", "trigger", "reason")
                                              if isinstance(data.get(name), str) and data[name]), "")
    for registered, matcher, handler in ours.our_handlers(config):
        if registered != event or ours.hook_of(handler) != hook:
            continue
        try:
            if matcher and subject and not re.fullmatch(matcher, subject):
                continue
        except re.error:
            pass  # a matcher we cannot read: it may match
        return True
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


def _code_dir() -> str:
    """The folder this copy runs from: INSTALL_DIR in an install."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def venv_declined(main_checkout: str | None = None) -> bool:
    """Whether install.sh ran with --no-venv on this machine (its machine-local marker beside this copy, or in
    the main checkout's install when this is a linked worktree): the hooks run with python3 by choice. One stat."""
    places = [os.path.join(_code_dir(), os.path.basename(NO_VENV_CHOSEN))]
    if main_checkout:
        places.append(os.path.join(main_checkout, NO_VENV_CHOSEN))
    return any(os.path.exists(place) for place in places)


def shareable_source(url: object) -> str | None:
    """`url` when a teammate can clone it too (https://, ssh://, git@host:path), else None: a local path or
    file:// URL names one machine's folder and is never written into the committed install.json."""
    if not isinstance(url, str) or not url.strip():
        return None
    url = url.strip()
    scheme, sep, _ = url.partition("://")
    if sep:
        return url if scheme.lower() not in ("file", "") else None
    host, colon, _ = url.partition(":")  # scp-like user@host:path; a drive letter (C:) or a path is not
    return url if colon and len(host) > 1 and "/" not in host and "\\" not in host else None


def reinstall_hint(on: str) -> str:
    """How to give the hooks their virtualenv on `on` (a repo): memory-hooks' installer, named by where the
    team's copy came from when install.json records a URL anyone can clone (never a path on one machine)."""
    source = shareable_source(read_config(os.path.join(_code_dir(), os.path.basename(MANIFEST))).get("source"))
    checkout = f"a clone of {source}" if source else "a memory-hooks checkout"
    return (f"run install.sh from {checkout} on {on} (or `memory-hooks install` where it is installed with pipx "
            "or uv)")


def _main(argv: list[str]) -> int:
    if argv != ["--plugin-json"]:
        print("usage: python -m memory.runtimes.registration --plugin-json > hooks/hooks.json", file=sys.stderr)
        return 2
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "hooks")
    available = [name[:-3] for name in sorted(os.listdir(folder)) if name.endswith(".py")]
    from memory.runtimes.settings_merge import dump_json

    sys.stdout.write(dump_json(plugin_hooks(available)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
