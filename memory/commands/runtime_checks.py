"""What a runtime's own settings say about running the hooks registered for it (memory-doctor).

Gemini CLI runs no hook when `hooksConfig.enabled` is false (the project's value over the user's), and skips
a hook whose name is in `hooksConfig.disabled` (the union over both files; `/hooks disable` writes it; a hook
without a `name`, such as ours, is named by its command). Both files are JSON with comments, as Gemini reads them.
Codex CLI runs no hook when its config.toml (`$CODEX_HOME`, else ~/.codex; or the project's .codex/) says
`[features] hooks = false` (`codex_hooks`: the older name).
"""
from __future__ import annotations

import os
import re

from memory.core import jsonio


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


def _settings(path: str) -> dict:
    """The settings object in `path` ({} when absent or unreadable: Gemini then has none from it either)."""
    try:
        with open(path, encoding="utf-8") as fh:
            value = jsonio.loads(jsonio.without_comments(fh.read()))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


_TABLE = re.compile(r"^\s*\[\s*([^\]]*?)\s*\]\s*(?:#.*)?$")
_SWITCH = re.compile(r"^\s*(features\s*\.\s*)?(hooks|codex_hooks)\s*=\s*false\s*(?:#.*)?$")


def codex_findings(tree: str) -> list[str]:
    """A warning when Codex CLI's config switches hooks off (the last file that says so: the project's)."""
    home = os.environ.get("CODEX_HOME") or os.path.expanduser(os.path.join("~", ".codex"))
    found = []
    for path in (os.path.join(home, "config.toml"), os.path.join(tree, ".codex", "config.toml")):
        name = _codex_switched_off(path)
        if name:
            found = [f"hooks are switched off ([features] {name} = false in {path}): Codex runs none of them"]
    return found


def _codex_switched_off(path: str) -> str | None:
    """`hooks` or `codex_hooks` when `path` sets that feature false (a line scan: Python 3.9 has no TOML reader)."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    table = ""
    for line in lines:
        header = _TABLE.match(line)
        if header:
            table = header.group(1).replace(" ", "")
            continue
        switch = _SWITCH.match(line)
        if switch and (table == "features" and not switch.group(1) or not table and switch.group(1)):
            return switch.group(2)
    return None
