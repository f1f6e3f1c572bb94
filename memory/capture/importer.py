"""recall.sh --import SOURCE / memory-hooks import SOURCE: bring memory a team member already has into the
shared knowledge, once.

  claude   Claude Code's auto memory for this project (memory.runtimes.automemory finds it): its `project` and
           `reference` notes, one entry per fact; `user` and `feedback` notes are personal and stay out.
  bd       `bd memories --json` ({key: text}), each under its bd key.

Every entry goes the normal way (entry.build redacts, store.append writes under the lock), carries where it came
from (`via`: import:claude / import:bd, and `origin`: the note file or bd key), and is added once: text the
knowledge already holds under any key, or a key forgotten here, is skipped, so a second import adds nothing.
--dry-run prints what would be added and writes nothing. Claude's folder is only read.
Exit status: 0 added (or would add), 1 nothing new, 2 usage error or the source could not be read.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from memory.capture import bdmemory
from memory.core import paths, render
from memory.core.cli import FOUND, NOTHING, USAGE
from memory.runtimes import automemory
from memory.store import dedupe, entry, store, view

SOURCES = ("claude", "bd")
BD_TIMEOUT_S = 30


class SourceError(Exception):
    """The source could not be read (no bd, bd failed, output not a {key: text} map)."""


def claude_records(project_root: str, folder: str | None, source: str) -> tuple[list[dict], list[str]]:
    """Entries for the project's shareable Claude notes, and lines describing what was found and left alone."""
    how = "--from"
    if folder is None:
        folder, how = automemory.folder(project_root)
    if not os.path.isdir(folder):
        return [], [f"no Claude Code auto memory folder for this project: {folder} ({how})"]
    notes, unreadable = automemory.read_notes(folder)
    shared = [n for n in notes if n.type in automemory.SHARED_TYPES]
    personal = [n for n in notes if n.type not in automemory.SHARED_TYPES]
    records = [r for note in shared for r in note_records(folder, note, source, "import:claude")]
    notes_found = [f"Claude Code auto memory: {folder} ({how}): {len(notes)} note(s), {len(shared)} project/"
                   f"reference taken, {len(personal)} user/feedback/untyped left alone"]
    if unreadable:
        notes_found.append(f"{unreadable} note(s) could not be read")
    return records, notes_found


def note_records(folder: str, note: automemory.Note, source: str, via: str) -> list[dict]:
    """The entries of one shareable note (none for a user or feedback note)."""
    if note.type not in automemory.SHARED_TYPES:
        return []
    found = automemory.facts(note)
    records = []
    for fact in found:
        # one fact per note: the note's own key, so an edited note replaces its entry on the next import;
        # a list of facts: each its content's key (a bullet inserted above would shift numbered keys)
        name = entry.slug("claude-" + note.stem)[:60].strip("-") if len(found) == 1 else None
        records.append(entry.build(fact, "", source, ts=_mtime(os.path.join(folder, note.file)), key_name=name,
                                   via=via, origin=note.file, claude_type=note.type))
    return records


def _mtime(path: str) -> int | None:
    try:
        return int(os.stat(path).st_mtime)
    except OSError:
        return None


def bd_records(project_root: str, source: str) -> tuple[list[dict], list[str]]:
    """Entries for `bd memories --json`, each keyed by its bd key."""
    try:
        proc = subprocess.run(["bd", "memories", "--json"], cwd=project_root, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=BD_TIMEOUT_S)
    except FileNotFoundError:
        raise SourceError("bd is not installed (https://github.com/steveyegge/beads)") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise SourceError(f"bd memories --json did not run: {exc}") from None
    if proc.returncode != 0:
        raise SourceError(f"bd memories --json failed (exit {proc.returncode}): "
                          + render.one_line(proc.stderr.strip() or proc.stdout.strip(), 200))
    try:
        found = json.loads(proc.stdout or "{}")
    except ValueError:
        raise SourceError("bd memories --json did not print JSON") from None
    if not isinstance(found, dict):
        raise SourceError("bd memories --json did not print a {key: text} map")
    from memory.capture.bdcomment import leading_marker

    records = []
    for key, text in sorted(found.items()):
        if not isinstance(key, str) or not isinstance(text, str) or not text.strip():
            continue
        # as a `bd remember` of it is captured (memory.capture.bdcomment.remembered): its marker sets the type,
        # and bd's key stays on the entry, so `bd forget` finds it and bd prime's own copy is not shown twice
        marked = leading_marker(text)
        kind, content = marked if marked and marked[1] else ("learned", text.strip())
        kept = bdmemory.kept_key(key, content)  # bd's key may hold a piece of a credential in the text
        records.append(entry.build(content, "", source, kind, key_name=bdmemory.our_key_name(key, kind, text),
                                   bd_key=kept, via="import:bd", origin=f"bd:{kept}"))
    return records, [f"bd memories: {len(found)} memor{'y' if len(found) == 1 else 'ies'}"]


def fresh(memory_dir: str, records: list[dict]) -> tuple[list[dict], int, int]:
    """The records the knowledge does not hold yet: (new, already here, forgotten here). Text held under any
    key, in either file, counts as here, and so does an entry an earlier import brought from the same place
    (`origin`: an import of bd's `DECISION: …` kept its marker in the text before); a key forgotten here stays
    forgotten."""
    lines = store.load(memory_dir, include_archive=True).entries
    state = view.State(lines)
    held = {dedupe.normalized(e["content"]) for e in lines if not view.is_control(e)}
    origins = {e.get("origin") for e in lines if not view.is_control(e) and isinstance(e.get("origin"), str)}
    new, here, forgotten = [], 0, 0
    seen: set[str] = set()
    for record in records:
        text = dedupe.normalized(record["content"])
        if state.forgotten(record["key"]):
            forgotten += 1
        elif text in held or text in seen or (record.get("origin") in origins and record.get("via") == "import:bd"):
            here += 1
        else:
            seen.add(text)
            new.append(record)
    return new, here, forgotten


def from_recall_argv(argv: list[str]) -> list[str]:
    """recall.sh's `--import SOURCE [--dry-run]` as this command line: `SOURCE [--dry-run]`."""
    out: list[str] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--import":
            out.insert(0, args.pop(0) if args else "")
        elif arg.startswith("--import="):
            out.insert(0, arg.split("=", 1)[1])
        else:
            out.append(arg)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recall.sh --import", description="Bring existing memory into the project's shared knowledge.",
        epilog="Exit status: 0 added (or, with --dry-run, would add), 1 nothing new, 2 usage error or the "
               "source could not be read. Claude's auto memory is only read, never changed.")
    parser.add_argument("source", choices=SOURCES, help="claude: Claude Code's auto memory for this project "
                                                         "(project and reference notes); bd: bd memories")
    parser.add_argument("--dry-run", action="store_true", help="show what would be added; write nothing")
    parser.add_argument("--from", dest="folder", metavar="FOLDER",
                        help="claude: read this auto memory folder instead of the one Claude Code uses")
    parser.add_argument("--memory-dir", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    cwd = os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()
    root = paths.project_root(cwd, None)
    memory_dir = args.memory_dir or paths.memory_dir(cwd)
    source = entry.detect_source(cwd, None)
    try:
        if args.source == "claude":
            records, notes = claude_records(root, args.folder, source)
        else:
            records, notes = bd_records(root, source)
        new, here, forgotten = fresh(memory_dir, records)
    except SourceError as exc:
        print(f"import: {exc}", file=sys.stderr)
        return USAGE
    except OSError as exc:
        print(f"import: cannot read {exc.filename or memory_dir}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE
    for line in notes:
        print(f"import: {render.strip_control(line)}", file=sys.stderr)
    for record in new:
        redacted = f"  (redacted: {', '.join(record['redacted'])})" if record.get("redacted") else ""
        print(f"{'would add' if args.dry_run else 'added'} {record['key']}: "
              f"{render.one_line(record['content'], 100)}{redacted}")
    skipped = f"{here} already in the knowledge" + (f", {forgotten} forgotten here" if forgotten else "")
    if new and not args.dry_run:
        result = store.append(memory_dir, new, repeat=False)
        written = result.written + result.spooled
        print(f"imported {written} entr{'y' if written == 1 else 'ies'} from {args.source} ({skipped}); "
              "to share them: git add .beads/memory && git commit (they are in its inbox/ folder)")
        return FOUND if written else NOTHING
    if new:
        print(f"--dry-run: {len(new)} entr{'y' if len(new) == 1 else 'ies'} would be added ({skipped}); "
              "nothing written")
        return FOUND
    print(f"import: nothing new from {args.source} ({skipped})", file=sys.stderr)
    return NOTHING
