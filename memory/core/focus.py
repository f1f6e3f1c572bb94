"""What a session is working on: the bead in progress (from its branch or worktree folder) and whether an
entry names one of the files this branch changed. Session start, the map, `--add` and a supervisor's
subagent start all ask the same questions.
"""
from __future__ import annotations

import os
import re

_BEAD_FOLDER = re.compile(r"(?:^|/)\.worktrees/(bd-[^/]+)")


def bead_candidates(branch: str | None, cwd: str | None) -> set[str]:
    """Lowercased bead ids a `bd-<ID>` branch or `.worktrees/bd-<ID>` folder may stand for
    (`bd-BD-12` -> {bd-12, bd-bd-12}; beads' own ids look like `bd-a3f8`, so both forms count)."""
    names = [branch or ""]
    match = _BEAD_FOLDER.search((cwd or "").replace(os.sep, "/"))
    if match:
        names.append(match.group(1))
    found = set()
    for name in names:
        if name.lower().startswith("bd-") and len(name) > 3:
            found.update({name.lower(), name[3:].lower()})
    return found


def bead_id(branch: str | None, cwd: str | None) -> str:
    """The bead a `bd-<ID>` branch (else `.worktrees/bd-<ID>` folder) works on, or "": the
    name without its `bd-` when what is left is an id with its own prefix (`bd-BD-12` -> BD-12, `bd-bd-a3f8` ->
    bd-a3f8), else the whole name (`bd-a3f8`, `bd-12`: beads' own ids). The longest candidate gave BD-BD-12."""
    match = _BEAD_FOLDER.search((cwd or "").replace(os.sep, "/"))
    for name in (branch or "", match.group(1) if match else ""):
        if name.lower().startswith("bd-") and len(name) > 3:
            rest = name[3:]
            return rest if "-" in rest.strip("-") else name
    return ""


def names_a_file(entry: dict, files: list[str]) -> bool:
    """True when the entry's text names one of `files` by path or by a distinctive file name."""
    text = entry.get("content") or ""
    for path in files:
        name = os.path.basename(path)
        if path in text or ("." in name and len(name) >= 6 and name in text):
            return True
    return False
