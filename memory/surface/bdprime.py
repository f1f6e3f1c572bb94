"""memory-hooks beside `bd prime`: what session start leaves to bd so that no memory is injected twice.

bd's own SessionStart hook (`bd setup claude|gemini|codex`, or the beads Claude Code plugin) runs `bd prime`,
which prints every memory of `bd remember` (cmd/bd/prime.go, "## Persistent Memories"). We capture the same
memories (memory.capture.bdmemory: entries with a `bd_key`). When this runtime's settings run `bd prime` at session
start, no PRIME.md replaces its output, and bd itself says it holds the memory (`bd memories --json`, the same
text), session start leaves that entry out of its digest and counts it as given to the session, so prompt-time
recall does not repeat it either. An entry bd does not hold (a teammate's, merged through git) or any entry
when bd does not answer is shown as usual: a repeat costs less than a memory lost.
"""
from __future__ import annotations

import json
import os

from memory.capture import bdmemory
from memory.core import layout, shell
from memory.runtimes import registration

TIMEOUT = 3.0
_PRIME_OVERRIDES = (os.path.join(".beads", "PRIME.md"),)  # prime.go prints a PRIME.md in place of its own output


def left_to_bd_prime(latest: list[dict], root: str, argv: list[str], home: str | None = None) -> list[dict]:
    """The entries of `latest` that bd prime prints in this session (see the module's doc); [] otherwise."""
    mine = [e for e in latest if isinstance(e.get(bdmemory.FIELD), str)]
    if not mine or not prime_runs_at_session_start(root, argv, home):
        return []
    held = bd_memories(root)
    if held is None:
        return []
    return [e for e in mine if isinstance(held.get(e[bdmemory.FIELD]), str)
            and e["content"] in held[e[bdmemory.FIELD]]]


def prime_runs_at_session_start(root: str, argv: list[str], home: str | None = None) -> bool:
    """True when the settings of the runtime running this hook (`--gemini`, `--codex`, `--cursor` in argv;
    else Claude Code) register bd's session-start hook, and no PRIME.md replaces what it prints."""
    home = home if home is not None else os.path.expanduser("~")
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    overrides = [os.path.join(root, p) for p in _PRIME_OVERRIDES] + [os.path.join(config_home, "beads", "PRIME.md")]
    if any(os.path.isfile(p) for p in overrides) or "--cursor" in argv:
        return False  # Cursor: `bd setup cursor` writes rules, no hook
    if "--gemini" in argv:
        places = [os.path.join(d, ".gemini", "settings.json") for d in (root, home)]
    elif layout.FLAG_CODEX in argv:
        places = [os.path.join(d, ".codex", "hooks.json") for d in (root, home)]
    else:
        places = [os.path.join(root, ".claude", n) for n in ("settings.json", "settings.local.json")]
        places.append(os.path.join(home, ".claude", "settings.json"))
    configs = [registration.read_config(p) for p in places]
    if layout.FLAG_CODEX not in argv and "--gemini" not in argv and any(_beads_plugin(c) for c in configs):
        return True
    return any(_runs_prime(command) for c in configs for command in _session_start_commands(c))


def bd_memories(root: str) -> dict | None:
    """bd's memories ({key: text}, `bd memories --json`), None when bd can't be asked."""
    import subprocess  # only where bd's hook is registered and bd memories were captured

    try:
        proc = subprocess.run(["bd", "memories", "--json"], cwd=root, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=TIMEOUT)
        value = json.loads(proc.stdout) if proc.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _beads_plugin(config: dict) -> bool:
    enabled = config.get("enabledPlugins")
    return isinstance(enabled, dict) and any(k.split("@")[0] == "beads" and v is True for k, v in enabled.items())


def _session_start_commands(config: dict) -> list[str]:
    hooks = config.get("hooks")
    groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    found = []
    for group in groups if isinstance(groups, list) else []:
        handlers = group.get("hooks") if isinstance(group, dict) and "hooks" in group else [group]
        for handler in handlers if isinstance(handlers, list) else []:
            if isinstance(handler, dict) and isinstance(handler.get("command"), str):
                found.append(handler["command"])
    return found


def _runs_prime(command: str) -> bool:
    """`bd prime …` (not `--export`, which prints the template) or `bd codex-hook SessionStart`."""
    for cmd in shell.parse(command):
        words = cmd.words
        if not words or os.path.basename(words[0]) != "bd":
            continue
        names = [w for w in words[1:] if not w.startswith("-")]
        if names[:1] == ["prime"] and "--export" not in words or names[:2] == ["codex-hook", "SessionStart"]:
            return True
    return False
