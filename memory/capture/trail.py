"""A session's trail for runtimes whose transcript we do not read (Cursor): the files its tool calls read or wrote
and the error lines of its failed shell calls, as the action hook saw them, so a capture records them as provenance
(memory.capture.provenance) as it does from a Claude Code, Gemini or Codex transcript.

One small JSONL file per session beside the action hook's cache (layout.ACTION_CACHE: machine-local, git-ignored,
files idle for a day pruned with it). A line is appended whole in one write (no lock: lines are far below what an
O_APPEND write keeps together); only error lines already cleaned and redacted (memory.search.recurrence.signature)
are written, never a command's output.
"""
from __future__ import annotations

import os

from memory.core import fsio, jsonio, layout

TAIL_BYTES = 64 * 1024
SUFFIX = ".trail.jsonl"


def _path(memory_dir: str, session: str) -> str:
    import zlib

    seed = session.encode("utf-8", "replace")
    return os.path.join(memory_dir, layout.ACTION_CACHE, f"{zlib.crc32(seed):08x}{zlib.adler32(seed):08x}{SUFFIX}")


def note(memory_dir: str, session: str | None, files: list[str] | None = None, errors: list[str] | None = None,
         edited: bool = False) -> None:
    """Append one tool call to the session's trail: the project-relative `files` it read or wrote (`edited`: it
    changed them), or the cleaned `errors` of a failed shell call ([] for a failure naming nothing, which hides
    no earlier one)."""
    if not session or (not files and errors is None):
        return
    record: dict = ({"files": files, "edited": True} if edited else {"files": files}) if files else {"errors": errors}
    try:
        os.makedirs(os.path.join(memory_dir, layout.ACTION_CACHE), exist_ok=True)
        # never through a planted symlink, and a FIFO is an OSError, not an open waiting for a reader
        fd = fsio.open_regular(_path(memory_dir, session), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, (jsonio.dumps(record) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass  # a trail is a nicety: a read-only folder loses it, never the hook


def provenance(memory_dir: str | None, session: str | None, max_files: int, window: int) -> dict | None:
    """{"files": newest first, distinct, at most `max_files`; "edited": those of them a call changed; "errors": those
    of the last failure naming something among the last `window` calls} from the session's trail; None when it
    has none."""
    if not memory_dir or not session:
        return None
    try:
        data = fsio.read_tail(_path(memory_dir, session), TAIL_BYTES)  # a FIFO or a symlink: OSError
    except OSError:
        return None
    if not data:
        return None
    records = []
    for raw in data.split(b"\n"):
        try:
            record = jsonio.loads(raw.decode("utf-8", "replace")) if raw.strip() else None
        except (ValueError, RecursionError):
            continue  # the first line of a tail, or a torn one
        if isinstance(record, dict):
            records.append(record)
    from memory.store.entry import committable_path

    files: list[str] = []
    changed: set[str] = set()
    for record in reversed(records):
        for name in record.get("files") or []:
            if isinstance(name, str) and name not in files and len(files) < max_files and committable_path(name):
                files.append(name)
            if isinstance(name, str) and record.get("edited") is True:
                changed.add(name)
    errors = next((r["errors"] for r in reversed(records[-window:])
                   if isinstance(r.get("errors"), list) and r["errors"]), None)
    edited = [name for name in files if name in changed]
    return {"files": files or None, "edited": edited or None, "errors": [str(e) for e in errors] if errors else None}
