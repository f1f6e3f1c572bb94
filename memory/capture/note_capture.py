"""PostToolUse(Write|Edit|MultiEdit): Claude Code wrote one of its auto memory notes; with
`"capture_claude_notes": true` in .beads/memory/config.json (off by default) its `project` / `reference`
facts go into the shared knowledge as `recall.sh --import claude` would bring them (memory.capture.importer), `via`
"capture:claude". The note is only read.

Runs on every Write and Edit: decides from the raw stdin bytes first (a `.md` path), imports only
`memory.runtimes.hookrun` before that. Never answers, never blocks.
"""
from memory.runtimes import hookrun

HOOK = "claude_note"


def might_capture(raw: bytes) -> bool:
    """Cheap test on the raw stdin: False means the tool wrote no markdown file, so no note."""
    return b".md" in raw


def handle(ctx: hookrun.Context) -> "str | None":
    import os

    from memory.capture import importer
    from memory.core import config, paths
    from memory.runtimes import automemory, payload
    from memory.store import entry, store

    data = payload.parse(ctx.raw)
    tool_input = data.get("tool_input")
    written = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(written, str) or not written.endswith(".md"):
        return None
    cwd, project = payload.cwd(data), payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    if not config.load(ctx.memory_dir)["capture_claude_notes"]:
        return None
    folder, _ = automemory.folder(paths.project_root(cwd, project))
    path = os.path.join(cwd or project or ".", written)  # Write/Edit give absolute paths; a relative one is cwd's
    if os.path.dirname(os.path.realpath(path)) != os.path.realpath(folder) or \
            os.path.basename(path) == automemory.INDEX:
        return None
    records = importer.note_records(folder, automemory.read_note(path), entry.detect_source(cwd, None),
                                    "capture:claude")
    new, _, _ = importer.fresh(ctx.memory_dir, records)
    if new:
        store.append(ctx.memory_dir, new, repeat=False)
    return None


def main(argv: "list[str] | None" = None) -> int:
    """The hook: decide from the raw bytes, then read the note; always exit 0."""
    return hookrun.run(HOOK, handle, argv, prefilter=might_capture)
