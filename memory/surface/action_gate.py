"""The action hook's gate on the raw stdin bytes: whether an event can be ours at all, and "nothing to add" for a
file no entry is about, decided without json, re, git or the ledger (most file reads end here).
"""
from __future__ import annotations

import os

from memory.core import layout

# raw stdin bytes without which an event can't be ours: a file tool's path, a patch, a failed call
_MIGHT = (b'"file_path"', b'"absolute_path"', b'"notebook_path"', b"apply_patch", b"PostToolUseFailure",
          b"Exit Code", b"Exit code", b"exited with code", b'"error"', b'"exit_code"')


_CURSOR_FILE = (b'"file_path"', b'"target_file"', b'"path"')  # the names tool_files.tool_files reads
_RESPONSE = b'"tool_response":'
_SHELL_READS = (b"cat ", b"sed ", b"head ", b"tail ", b"nl ", b"less ", b"more ", b"bat ", b"wc ", b"perl ",
                b"apply_patch")


def might_act(raw: bytes) -> bool:
    """Cheap test on the raw stdin: False means this event certainly gets nothing."""
    if b'"PreToolUse"' in raw and b'"Bash"' in raw:  # Codex, before every shell command: a read or a patch?
        return any(marker in raw for marker in _SHELL_READS)
    if b'"PostToolUse"' in raw and b'"Bash"' in raw:
        at = raw.find(_RESPONSE)
        if at >= 0 and raw[at + len(_RESPONSE):at + len(_RESPONSE) + 16].lstrip().startswith(b"{"):
            # Claude Code, after every shell command that succeeded (its output an object; Codex's is a string):
            # only a read or an edit is ours, named in the command, which comes before the output
            return any(marker in raw[:at] for marker in _SHELL_READS)
    if b'"preToolUse"' in raw:  # Cursor running our Claude hooks: its preToolUse carries no context
        return False
    if b'"postToolUse"' in raw:  # Cursor, after every shell command (did it fail?) and file read or write
        if b'"Shell"' in raw:
            return _cursor_exit(raw) != b"0"
        return any(marker in raw for marker in _CURSOR_FILE)
    return any(marker in raw for marker in _MIGHT) or b'"tool_response"' in raw  # Codex: output, no status


def _cursor_exit(raw: bytes) -> bytes | None:
    """The exit code in Cursor's `tool_output` as bytes (b"1"); None without one. `tool_output` is documented
    as a JSON string (`"{\\"exitCode\\":1,…}"`) and may come as an object (`{"exitCode":1,…}`); the code as a
    number or a numeric string ("1"): shell_outcome._cursor_output reads the same. Looked for from `tool_output` on,
    under that form's own quoting: a command or an output that prints `{"exitCode":0}` names it escaped once
    more, which does not match."""
    at = raw.find(b'"tool_output":')
    if at < 0:
        return None
    at += len(b'"tool_output":')
    while raw[at:at + 1] == b" ":
        at += 1
    quote = b'\\"' if raw[at:at + 1] == b'"' else b'"'  # in a JSON string its quotes are escaped
    key = quote + b"exitCode" + quote + b":"
    at = raw.find(key, at)
    if at < 0:
        return None
    rest = raw[at + len(key):at + len(key) + 40].lstrip()
    if rest.startswith(quote):  # a numeric string
        rest = rest[len(quote):]
    end = next((i for i, c in enumerate(rest) if not (48 <= c <= 57 or (i == 0 and c == 45))), len(rest))
    return rest[:end] or None


# compact JSON, as the runtimes send it (`"key":"value"`), or with a space after the colon
_FILE_EVENTS = tuple(b'"hook_event_name":' + space + b'"' + name + b'"'
                     for name in (b"PreToolUse", b"AfterTool", b"postToolUse") for space in (b"", b" "))
_FILE_TOOLS = tuple(b'"tool_name":' + space + b'"' + name + b'"' for name in
                    (b"Read", b"Edit", b"Write", b"MultiEdit", b"read_file", b"write_file", b"replace")
                    for space in (b"", b" "))


_WRITES = (b'"new_string"', b'"content"', b'"edits"')


def _raw_string(raw: bytes, key: bytes) -> str | None:
    """The value of `"key":"…"` when the payload has it once and without escapes (else None: parse it
    properly). A key inside a string value can't match: its quotes would be escaped."""
    for space in (b"", b" "):
        pattern = b'"' + key + b'":' + space + b'"'
        at = raw.find(pattern)
        if at < 0:
            continue
        if raw.find(pattern, at + 1) >= 0:
            return None
        start = at + len(pattern)
        end = raw.find(b'"', start)
        value = raw[start:end] if end > 0 else b"\\"
        return None if b"\\" in value else value.decode("utf-8", "replace")
    return None


def nothing_to_add(raw: bytes) -> bool:
    """True when a file event certainly gets nothing, decided without json, re, git or the ledger: the saved
    cue map has no entry about the file. False means "look closer" (the full handler decides)."""
    if not any(tool in raw for tool in _FILE_TOOLS) or not any(event in raw for event in _FILE_EVENTS):
        return False
    if any(field in raw for field in _WRITES):
        return False  # an edit: what it writes is ranked too (edit_entries)
    from memory.core import paths
    from memory.search import action_paths

    file_path = _raw_string(raw, b"file_path")
    project = paths.project_dir_from_env() or _raw_string(raw, b"cwd")
    if not file_path or not project or not os.path.isabs(file_path) or os.environ.get(paths.OVERRIDE_ENV) \
            or not os.path.isdir(os.path.join(project, ".git")):
        return False
    memory_dir = os.path.join(project, layout.MEMORY_SUBDIR)
    fp = action_paths.fingerprint(memory_dir)
    if fp is None:
        return True  # no knowledge here
    from memory.core import fsio

    try:  # a FIFO there is an OSError, not an open waiting for a writer
        config_fd = fsio.open_regular(os.path.join(memory_dir, layout.CONFIG), os.O_RDONLY, follow=True)
        with os.fdopen(config_fd, "rb") as fh:
            if b"action_file_min_score" in fh.read():
                return False  # a bar of the project's own: config.load reads it
    except OSError:
        pass
    from memory.core.config import DEFAULTS

    cues = action_paths.load_saved(memory_dir, fp, with_entries=False)
    if cues is None:
        return False
    bar = float(DEFAULTS["action_file_min_score"])
    found = action_paths.scores(cues, action_paths.relative(file_path, project))
    return all(score < bar for score in found.values())


def prefilter(raw: bytes) -> bool:
    """Whether the handler must look at the event (hookrun's prefilter)."""
    if not might_act(raw):
        return False
    try:
        return not nothing_to_add(raw)
    except Exception:  # noqa: BLE001 - a fast path in doubt hands over to the handler
        return True
