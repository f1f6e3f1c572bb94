"""Which hook registrations are ours, wherever they live (settings files, Cursor hooks.json, plugin)."""
from __future__ import annotations

import json
import os

MARKER = "memory-hooks"  # every command we register runs a file under a folder of this name
CURSOR_HOOKS = os.path.join(".cursor", "hooks.json")


def is_ours(handler: object) -> bool:
    """True for a hook handler object whose command (or args) runs one of our files."""
    if not isinstance(handler, dict):
        return False
    parts = [handler.get("command")] + list(handler.get("args") or [])
    return any(isinstance(p, str) and MARKER in p for p in parts)


def cursor_hooks_installed(root: str) -> bool:
    """True when the project's `.cursor/hooks.json` registers our hooks natively."""
    try:
        with open(os.path.join(root, CURSOR_HOOKS), "rb") as fh:
            config = json.loads(fh.read())
    except (OSError, ValueError):
        return False
    hooks = config.get("hooks") if isinstance(config, dict) else None
    if not isinstance(hooks, dict):
        return False
    return any(is_ours(h) for group in hooks.values() if isinstance(group, list) for h in group)
