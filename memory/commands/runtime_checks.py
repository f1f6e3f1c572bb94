"""What a runtime's own settings say about running the hooks registered for it (memory-doctor).

Claude Code runs no hook when `disableAllHooks` is true in the settings that win: managed over the project's
.claude/settings.local.json over its .claude/settings.json over the user's ~/.claude/settings.json.
Gemini CLI runs no hook when `hooksConfig.enabled` is false (the project's value over the user's), and skips
a hook whose name is in `hooksConfig.disabled` (the union over both files; `/hooks disable` writes it; a hook
without a `name` is named by its command). Both files are JSON with comments, as Gemini reads them.
Codex CLI (0.169, checked against the real CLI) runs no hook when its config.toml (`$CODEX_HOME`, else ~/.codex;
or the project's .codex/) says `[features] hooks = false` (`codex_hooks`: the older name), no project hook while
the project is not trusted, and no project hook nobody reviewed in its /hooks (`codex exec` skips them silently).
"""
from __future__ import annotations

import os

from memory.core import fsio, jsonio
from memory.core.fsio import MAX_SETTINGS_BYTES

# Claude Code's settings files, lowest precedence first (managed settings on Linux last: they win)
_CLAUDE_SETTINGS = (("~", ".claude", "settings.json"), (".claude", "settings.json"), (".claude", "settings.local.json"))
_CLAUDE_MANAGED = os.path.join(os.sep, "etc", "claude-code", "managed-settings.json")


def claude_findings(tree: str) -> list[str]:
    """Why Claude Code will not run hooks of ours that `.claude/settings.json` registers: `disableAllHooks`."""
    paths = [os.path.expanduser(os.path.join(*parts)) if parts[0] == "~" else os.path.join(tree, *parts)
             for parts in _CLAUDE_SETTINGS] + [_CLAUDE_MANAGED]
    said = [(path, s["disableAllHooks"]) for path, s in ((p, _settings(p, comments=False)) for p in paths)
            if isinstance(s.get("disableAllHooks"), bool)]
    if said and said[-1][1]:
        return [f"hooks are switched off (disableAllHooks is true in {said[-1][0]}): Claude Code runs none of them"]
    return []


def gemini_findings(tree: str, handlers: list[tuple[str, str | None, dict]]) -> list[str]:
    """One warning per reason Gemini CLI will not run hooks of ours that `.gemini/settings.json` registers."""
    settings = [(path, _settings(path)) for path in (os.path.expanduser(os.path.join("~", ".gemini", "settings.json")),
                                                      os.path.join(tree, ".gemini", "settings.json"))]
    found = []
    enabled = [(path, s["hooksConfig"]["enabled"]) for path, s in settings
               if isinstance(s.get("hooksConfig"), dict) and "enabled" in s["hooksConfig"]]
    if enabled and enabled[-1][1] is False:
        found.append(f"hooks are switched off (hooksConfig.enabled is false in {enabled[-1][0]}): Gemini runs none "
                     "of them")
    for path, s in settings:
        disabled = s.get("hooksConfig", {}).get("disabled") if isinstance(s.get("hooksConfig"), dict) else None
        names = set(disabled) if isinstance(disabled, list) and all(isinstance(n, str) for n in disabled) else set()
        events = [e for e, _, h in handlers if (h.get("name") or h.get("command")) in names]
        if events:
            found.append(f"{', '.join(dict.fromkeys(events))} is disabled (hooksConfig.disabled in {path}): Gemini "
                         "skips it (/hooks enable in Gemini)")
    return found


def _settings(path: str, comments: bool = True) -> dict:
    """The settings object in `path` ({} when absent or unreadable: the runtime then has none from it either);
    `comments`: the file may hold them (Gemini's)."""
    try:  # a FIFO or a device is unreadable, not a wait
        text = fsio.read_regular(path, MAX_SETTINGS_BYTES, follow=True).decode("utf-8")
        value = jsonio.loads(jsonio.without_comments(text) if comments else text)
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def codex_findings(tree: str, config: dict) -> list[str]:
    """Why Codex CLI will not run hooks of ours that `.codex/hooks.json` (`config`) registers: hooks switched
    off ([features], user or project config.toml); the project not trusted (Codex then loads no project file);
    a hook never reviewed, or disabled, in Codex's /hooks (`[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`
    `trusted_hash`, `enabled`). Trust and review are checked once Codex has a config.toml on this machine."""
    user_path = _codex_config()
    user, project = _toml(user_path), _toml(os.path.join(tree, ".codex", "config.toml"))
    for path, found in ((os.path.join(tree, ".codex", "config.toml"), project), (user_path, user)):
        for name in ("hooks", "codex_hooks"):
            if (found or {}).get(("features",), {}).get(name) == "false":
                return [f"hooks are switched off ([features] {name} = false in {path}): Codex runs none of them"]
    if user is None:
        return []  # Codex has not run on this machine: nothing to warn about yet (codex_first_run_note)
    roots = {tree, os.path.realpath(tree)}
    trust = [values.get("trust_level") for table, values in user.items() if len(table) == 2 and table[0] ==
             "projects" and any(root == table[1] or root.startswith(table[1].rstrip("/") + "/") for root in roots)]
    if "trusted" not in trust:
        return [f"this project is not trusted in Codex ({user_path} has no [projects.\"{tree}\"] trust_level = "
                "\"trusted\"): Codex loads none of its hooks (trust it when Codex asks, or `codex exec --trust`)"]
    unreviewed, disabled = [], []
    for event, key_tail in _our_keys(config):
        states = [user.get(("hooks", "state", f"{root}/.codex/hooks.json:{key_tail}")) for root in roots]
        state = next((s for s in states if s is not None), {})
        if not state.get("trusted_hash"):
            unreviewed.append(event)
        elif state.get("enabled") == "false":
            disabled.append(event)
    found_lines = []
    if unreviewed:
        found_lines.append(f"{', '.join(dict.fromkeys(unreviewed))} not reviewed in Codex: skipped until approved "
                           "in its /hooks")
    if disabled:
        found_lines.append(f"{', '.join(dict.fromkeys(disabled))} disabled in Codex's /hooks: skipped")
    return found_lines


def _codex_config() -> str:
    """Codex's user config.toml on this machine (`$CODEX_HOME`, else ~/.codex)."""
    return os.path.join(os.environ.get("CODEX_HOME") or os.path.expanduser(os.path.join("~", ".codex")),
                        "config.toml")


def codex_first_run_note(tree: str) -> str | None:
    """What a first-time Codex user must do, said while Codex has no config.toml on this machine (not a warning:
    install.sh registers every runtime, and most teammates may never run Codex here)."""
    if os.path.exists(_codex_config()):
        return None
    return ("Codex has not run on this machine yet: at its first run here, trust this folder and approve the "
            "hooks in its /hooks, or it skips them without a word")


def _our_keys(config: dict) -> list[tuple[str, str]]:
    """(event, "<event_in_snake_case>:<group>:<handler>") of each of our handlers: Codex's key for it."""
    import re

    from memory.runtimes import ours

    keys = []
    hooks = config.get("hooks")
    hooks = hooks if isinstance(hooks, dict) else {}
    for event, groups in hooks.items():
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", str(event)).lower()
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if ours.is_ours(handler):
                    keys.append((str(event), f"{snake}:{g}:{h}"))
    return keys


def _toml(path: str) -> dict[tuple[str, ...], dict[str, str]] | None:
    """The tables of a TOML file (memory.core.tomlscan); None when there is no such file."""
    from memory.core import tomlscan

    try:  # a FIFO or a device is unreadable, not a wait
        return tomlscan.tables(fsio.read_regular(path, MAX_SETTINGS_BYTES, follow=True).decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return {}
