"""Stop / Cursor afterAgentResponse (and a step of SubagentStop): insights in the agent's final message.

For agents without bd, or that simply say it: a line of the final message that STARTS with `LEARNED:`,
`DECISION:`, `WARNING:` or `PATTERN:` (after a list bullet or number, or bold, at most; a key in brackets is fine) is
captured like a bd comment's. Never a quoted line (`> `), a line inside a fenced code block, or a line that
only mentions a marker mid-sentence; FORGET is taken from bd comments and recall.sh only. Text a live entry
already holds (a `bd comment` of the same turn stored it) is not stored again. Off with
`"capture_replies": false` in .beads/memory/config.json. Never blocks; answers only to tell the user which live
entry a captured line nearly repeats (Claude Code's Stop, a systemMessage: memory.capture.capture.near_copy_notes),
or that the lines could not be stored (the memory folder could not be written).
"""
from __future__ import annotations

from memory.core.markers import marked_runs
from memory.runtimes import hookrun

HOOK = "capture_reply"
_MARKER_BYTES = (b"LEARNED", b"DECISION", b"WARNING", b"PATTERN")


def might_capture(raw: bytes) -> bool:
    """Cheap test on the raw stdin: a marker, or no final message in the payload (then the transcript)."""
    return any(m in raw for m in _MARKER_BYTES) or not any(f in raw for f in (b"last_assistant_message", b'"text"',
                                                                             b"prompt_response"))


def final_text(data: dict) -> str:
    """The agent's final message: Claude's `last_assistant_message`, Gemini's `prompt_response` (AfterAgent),
    Cursor's `text` (afterAgentResponse) or `summary` (subagentStop), else the transcript's last assistant text."""
    from memory.runtimes import payload, transcript

    for field in ("last_assistant_message", "prompt_response", "text", "summary"):
        value = payload.text_field(data, field)
        if value:
            return value
    path = payload.text_field(data, "agent_transcript_path") or payload.text_field(data, "transcript_path")
    return transcript.last_assistant_text(path) or ""


def capture(data: dict, text: str, memory_dir: str, bead: str | None = None) -> tuple[list[dict], dict[str, str]]:
    """Store the marked lines of `text`; the entries written, and what they replaced under their keys (key -> the
    text before). `bead`: the one the reply reports on (a supervisor's `BEAD BD-7 COMPLETE`), else the bead in
    progress of the branch or worktree."""
    from memory.capture import bdcomment, edit
    from memory.capture import capture as capture_mod
    from memory.capture.provenance import session_provenance
    from memory.core import config, paths
    from memory.runtimes import payload
    from memory.store import entry, store

    runs = marked_runs(text)
    lines = "\n".join(line for run in runs for _, line in run)
    if not lines or not config.load(memory_dir)["capture_replies"]:
        return [], {}
    found = [m for run in runs for m in bdcomment.split_marked(run[0][1], "\n".join(line for _, line in run[1:]))
             if m.kind != entry.FORGET]
    if not found:
        return [], {}
    cwd, project = payload.cwd(data), payload.project_dir(data)
    root = paths.project_root(cwd, project)
    git = paths.work_tree_git(cwd, root)
    agent_type = payload.text_field(data, "agent_type") or payload.text_field(data, "subagent_type")
    transcript = payload.text_field(data, "agent_transcript_path") or payload.text_field(data, "transcript_path")
    call = payload.capture_id(data, lines)
    provenance = {"session_id": payload.session_id(data), "agent_type": agent_type,
                  "agent_id": payload.text_field(data, "agent_id"), "branch": git.branch if git else None,
                  "commit": git.head if git else None, "capture_id": call,
                  "via": "reply", **session_provenance(transcript, root, memory_dir, payload.session_id(data))}
    records, _ = capture_mod.build_records(memory_dir, found, entry.detect_source(cwd, agent_type), provenance,
                                           bead=bead.upper() if bead else edit.bead_in_progress(cwd or project or "."))
    result = store.append(memory_dir, records, capture_id=call, repeat=False)
    if not result.written:
        return [], {}
    return [r for r in records if r["key"] not in result.duplicates], result.replaced


def handle(ctx: hookrun.Context) -> str | None:
    from memory.capture import capture as capture_mod
    from memory.core import layout, paths
    from memory.runtimes import payload

    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    if data.get("stop_hook_active") is True:
        return None  # a turn another stop hook extended: its final message comes again at the next Stop
    ctx.memory_dir = paths.memory_dir(payload.cwd(data), payload.project_dir(data))
    # Told to the user (systemMessage): context on Stop "keeps it running", a model turn spent on a hint.
    # Codex validates Stop's answer strictly, Cursor's afterAgentResponse and Gemini's AfterAgent take no
    # message: there the pair waits for `recall.sh --similar`, and a failure for memory-doctor.
    tell = payload.event_name(data) == "Stop" and payload.runtime(data) == payload.CLAUDE \
        and layout.FLAG_CODEX not in ctx.argv
    try:
        stored, replaced = capture(data, final_text(data), ctx.memory_dir)
    except OSError as exc:  # errors.log alone (the per-user one, when the folder is the problem) told nobody
        ctx.problems.append(f"reply lines not stored: {type(exc).__name__}: {exc}")
        return payload.warning_answer(data, not_stored(exc)) if tell else None
    if not stored or not tell:
        return None
    # a line that took an entry's key from a different insight: the agent was not there to be told (a bd comment's
    # capture says it), so the person is
    notes = [f"memory-hooks: {note}" for note in capture_mod.replaced_notes(stored, replaced)]
    notes += capture_mod.near_copy_notes(ctx.memory_dir, stored)
    return payload.warning_answer(data, " ".join(notes)) if notes else None


def not_stored(exc: OSError) -> str:
    """The person's line when the reply's marked lines could not be written: they are in no memory now."""
    return (f"memory-hooks: the LEARNED/DECISION/WARNING/PATTERN lines of this reply were NOT stored: "
            f"{exc.filename or 'the memory folder'} could not be written ({exc.strerror or exc}). "
            "`.beads/memory/recall.sh --doctor` shows what is wrong; record them again once it is fixed.")


def main(argv: list[str] | None = None) -> int:
    """The hook: decide from the raw bytes, then capture; always exit 0."""
    return hookrun.run(HOOK, handle, argv, prefilter=might_capture)
