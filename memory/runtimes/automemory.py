"""Claude Code's auto memory, read only: where its folder is for a project, and the typed notes in it.

Claude Code (on by default since 2.1.59) keeps notes in `<config>/projects/<sanitized project>/memory/`: a
MEMORY.md index plus one topic file per note, each with `name` / `description` / `type` frontmatter (`user`,
`feedback`, `project`, `reference`). The folder is found the way Claude Code finds it:
  1. CLAUDE_COWORK_MEMORY_PATH_OVERRIDE;
  2. `autoMemoryDirectory` in the managed (policy), local (.claude/settings.local.json) or user settings (never
     the committed project settings: a repository must not point your notes elsewhere);
  3. `<CLAUDE_CODE_REMOTE_MEMORY_DIR or CLAUDE_CONFIG_DIR or ~/.claude>/projects/<name>/memory`, where <name>
     is the canonical git root (the main checkout: worktrees share one folder) with every character that is
     not an ASCII letter or digit turned into `-`; a name over 200 characters is cut there and followed by
     a hash, which we match by its prefix.
Nothing here writes, moves or edits anything: those notes are Claude's and the user's.
"""
from __future__ import annotations

import json
import os
import re

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

INDEX = "MEMORY.md"
SHARED_TYPES = ("project", "reference")  # user and feedback notes are personal: never imported
MAX_NAME = 200
MANAGED_SETTINGS = ("/etc/claude-code/managed-settings.json",
                    "/Library/Application Support/ClaudeCode/managed-settings.json")
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$")


def sanitize(path: str) -> str:
    """The folder name Claude Code gives a project path: every non-alphanumeric character becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def config_home(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(_home(env), ".claude")


def _setting(path: str, env: Mapping[str, str]) -> str | None:
    from memory.core import fsio

    try:  # a FIFO or a device there is unreadable, not a wait
        value = json.loads(fsio.read_regular(path, fsio.MAX_SETTINGS_BYTES, follow=True)).get("autoMemoryDirectory")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    if value == "~" or value.startswith("~/"):
        value = _home(env) + value[1:]
    return value if os.path.isabs(value) else None  # Claude Code takes absolute paths (or ~/…) only


def configured_folder(project_root: str, env: Mapping[str, str]) -> str | None:
    """`autoMemoryDirectory` from the settings Claude Code trusts for it, highest precedence first."""
    for path in (*MANAGED_SETTINGS, os.path.join(project_root, ".claude", "settings.local.json"),
                 os.path.join(config_home(env), "settings.json")):
        value = _setting(path, env)
        if value:
            return value
    return None


def _canonical_root(project_root: str) -> str:
    from memory.core import paths

    info = paths.git_info(project_root)
    if info is None:
        return project_root
    return info.main_checkout if info.is_linked_worktree else info.toplevel


def folder(project_root: str, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(the auto memory folder of the project, how it was found). The folder may not exist."""
    env = os.environ if env is None else env
    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        return override, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
    configured = configured_folder(project_root, env)
    if configured:
        return configured, "autoMemoryDirectory"
    projects = os.path.join(env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR") or config_home(env), "projects")
    root = _canonical_root(project_root)
    candidates = []
    for path in (root, os.path.realpath(root)):
        name = sanitize(path)
        if len(name) > MAX_NAME:  # cut and hashed by Claude Code: the one folder with that prefix
            try:
                name = next(n for n in sorted(os.listdir(projects)) if n.startswith(name[:MAX_NAME] + "-"))
            except (OSError, StopIteration):
                name = name[:MAX_NAME]
        candidates.append(os.path.join(projects, name, "memory"))
    found = next((c for c in candidates if os.path.isdir(c)), candidates[0])
    return found, "default location"


class Note:
    """One topic file: its frontmatter and body."""

    def __init__(self, file: str, meta: dict[str, str], body: str) -> None:
        self.file, self.meta, self.body = file, meta, body

    @property
    def type(self) -> str:
        return self.meta.get("type", "").strip().lower()

    @property
    def stem(self) -> str:
        return os.path.splitext(os.path.basename(self.file))[0]


def parse(text: str, file: str) -> Note:
    """A note's `---` frontmatter (flat `key: value` lines) and its body; no frontmatter: no type."""
    meta: dict[str, str] = {}
    body = text
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            for line in lines[1:end]:
                key, sep, value = line.partition(":")
                if sep and key.strip() and not key.startswith((" ", "\t")):
                    meta[key.strip().lower()] = value.strip().strip("\"'")
            body = "\n".join(lines[end + 1:])
    return Note(file, meta, body.strip())


def read_note(path: str) -> Note:
    """One topic file (the first MiB), parsed; OSError when it cannot be read."""
    from memory.core import fsio

    text = fsio.read_regular(path, 1 << 20, follow=True).decode("utf-8", "replace")  # a FIFO: OSError, no wait
    return parse(text.replace("\r\n", "\n"), os.path.basename(path))


def read_notes(memory_folder: str) -> tuple[list[Note], int]:
    """The topic files (not the MEMORY.md index), by name; and how many could not be read."""
    notes, unreadable = [], 0
    try:
        names = sorted(os.listdir(memory_folder))
    except OSError:
        return [], 0
    for name in names:
        path = os.path.join(memory_folder, name)
        if not name.endswith(".md") or name == INDEX or name.startswith(".") or not os.path.isfile(path):
            continue
        try:
            notes.append(read_note(path))
        except OSError:
            unreadable += 1
    return notes, unreadable


def facts(note: Note) -> list[str]:
    """The facts of a note. Claude writes one memory per file (a fact, then **Why:** / **How to apply:**
    lines): that is one fact, whole. A body that is only a bullet list holds one fact per bullet."""
    lines = [line for line in note.body.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    bullets: list[str] = []
    for line in lines:
        match = _BULLET.match(line)
        if match:
            bullets.append(match.group(1).strip())
        elif bullets and line.startswith((" ", "\t")):
            bullets[-1] += " " + line.strip()  # a bullet's continuation line
        else:
            bullets = []
            break
    if len(bullets) > 1:
        return [b for b in bullets if b]
    text = " ".join(" ".join(line.split()) for line in lines)  # headings dropped, whitespace collapsed
    if not text and note.meta.get("description"):
        text = note.meta["description"]
    return [text] if text else []
