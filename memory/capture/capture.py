"""The capture hook's handler: a shell tool call's `bd comment` insights -> knowledge.jsonl, and one line
telling the agent what was stored. Reached only through memory.capture.capture_gate (the hot path)."""
from __future__ import annotations

import os

from memory import TYPE_CHECKING
from memory.capture import bdcomment
from memory.capture.provenance import FAILURE_TERMS, session_provenance
from memory.core import layout, paths
from memory.runtimes import hookrun, payload, shell_outcome
from memory.store import entry, store

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def handle(ctx: hookrun.Context) -> str | None:
    """Capture every insight of the command and tell the agent what was stored (or why nothing was)."""
    data = payload.parse(ctx.raw)
    ctx.problems += payload.field_problems(data, required=("hook_event_name",))
    command = payload.shell_command(data)
    if command is None:
        is_shell = payload.tool_name(data) in payload.SHELL_TOOLS
        if is_shell and not isinstance(payload.tool_input(data).get("command"), str):
            ctx.problems.append("shell tool call without a tool_input.command string")
        return None
    cwd = payload.cwd(data)
    found = bdcomment.insights_in_command(command, cwd)
    unconfirmed: list[tuple[bdcomment.Insight, str]] = []
    output = shell_outcome.shell_output(data)
    if found and (not shell_outcome.succeeded(data) or bdcomment.shell_missed_bd(output)
                  or bdcomment.bd_error(output)):
        # `bd comment … "LEARNED: x" && git push` with a failing push: bd did record x. Keep what bd holds.
        asked = [(f, bdcomment.bd_holds(f, cwd)) for f in found]
        found = [f for f, (held, _) in asked if held]
        unconfirmed = [(f, why) for f, (held, why) in asked if not held]
    failed = not_recorded_note(unconfirmed, _what_failed(data)) if unconfirmed else ""
    if not found:
        hint = failed or bdcomment.marker_hint(command, cwd)
        return payload.context_answer(data, hint, event=payload.event_name(data)) \
            if hint and payload.answers_context(data) else None
    project = payload.project_dir(data)
    ctx.memory_dir = paths.memory_dir(cwd, project)
    root = paths.project_root(cwd, project)
    git = paths.work_tree_git(cwd, root)
    agent_type = payload.text_field(data, "agent_type")
    call = payload.capture_id(data, command)
    provenance = {"session_id": payload.session_id(data), "agent_type": agent_type,
                  "agent_id": payload.text_field(data, "agent_id"), "branch": git.branch if git else None,
                  "commit": git.head if git else None, "capture_id": call,
                  **session_provenance(payload.text_field(data, "transcript_path"), root, ctx.memory_dir,
                                       payload.session_id(data))}
    entries, problems = build_records(ctx.memory_dir, found, entry.detect_source(cwd, agent_type), provenance)
    problems += [failed] if failed else []
    if not entries:
        said = " ".join(problems)
        return payload.context_answer(data, said, event=payload.event_name(data)) \
            if said and payload.answers_context(data) else None
    try:
        result = store.append(ctx.memory_dir, entries, capture_id=call)
    except OSError as exc:  # errors.log alone would leave the agent believing its insight is in memory
        ctx.problems.append(f"not stored: {type(exc).__name__}: {exc}")
        return payload.context_answer(data, not_stored_note(entries, exc), event=payload.event_name(data)) \
            if payload.answers_context(data) else None
    if result.spooled:
        ctx.problems.append(f"{store.LOCK} stayed busy: {result.spooled} insight(s) parked in {store.SPOOL}/, "
                            "merged by the next write")
    if not (result.written or result.spooled or result.duplicates) or not payload.answers_context(data):
        return None  # already stored by another copy of this hook: that copy answered
    note = capture_note(entries, result, problems, shown_path(ctx.memory_dir, cwd), memory_dir=ctx.memory_dir)
    return payload.context_answer(data, note, event=payload.event_name(data))


def _what_failed(data: dict) -> str:
    """What the payload says went wrong, as it says it."""
    output = shell_outcome.shell_output(data)
    if bdcomment.shell_missed_bd(output):
        return "the shell said `bd: command not found`"
    error = bdcomment.bd_error(output)
    if error and shell_outcome.succeeded(data):  # `bd comment … || true`: the call exited 0, bd said why not
        return f"bd said `{error[:160]}`"
    said = shell_outcome.failure(data)
    return f"the command failed ({said})" if said else "the command failed"


def build_records(memory_dir: str, found: Sequence[bdcomment.Marked], source: str, provenance: dict,
                  bead: str = "") -> tuple[list[dict], list[str]]:
    """The lines to append for `found` (entries and forgets), and what the agent should hear about the
    pieces that could not be taken (a key outside the grammar, a forget of a key that doesn't exist)."""
    from memory.capture import bdmemory
    from memory.search.recurrence import about_failure

    records, problems = [], []
    lines: list[dict] | None = None
    seen = provenance.get(FAILURE_TERMS)
    provenance = {k: v for k, v in provenance.items() if k != FAILURE_TERMS}  # compared with, never stored
    # files and errors: an entry's provenance, not a forget's
    control = {k: v for k, v in provenance.items() if k not in ("files", "edited", "errors")}
    for piece in found:
        piece_bead = getattr(piece, "bead", bead)
        bd_key = getattr(piece, "bd_key", None)
        if piece.kind == entry.FORGET:
            from memory.store import view  # here: only a forget reads the entries

            if lines is None:
                lines = store.load(memory_dir, include_archive=True).entries
            if bd_key is not None:  # `bd forget K`: the entry `bd remember` stored under bd's key K
                ours = bdmemory.key_of(lines, bd_key)
                if ours is None:
                    problems.append(f"memory-hooks: bd forgot `{bd_key}`; no entry here came from a `bd remember` "
                                    "with that key, so nothing else was forgotten (.beads/memory/recall.sh --forget "
                                    "KEY does).")
                elif not view.State(lines).forgotten(ours):
                    records.append(entry.build_control(entry.FORGET, ours, piece_bead,
                                                       bd_key=bdmemory.kept_of(lines, bd_key), **control))
                continue
            keys = view.resolve(lines, piece.key or "")
            if len(keys) != 1:
                near = ", ".join(f"`{k}`" for k in view.suggest(lines, piece.key or "")) if not keys else ""
                near = f" Keys that match: {near} (FORGET: takes the whole key)." if near else ""
                problems.append(f"memory-hooks: nothing forgotten: `{piece.key}` may mean {', '.join(keys)}." if keys
                                else f"memory-hooks: nothing forgotten: no entry has the key `{piece.key}`.{near}")
                continue
            records.append(entry.build_control(entry.FORGET, keys[0], piece_bead, **control))
            continue
        # the whole key as every listing prints it (`LEARNED[learned-pool-size]:`) names that entry, not a new one
        # `learned-learned-pool-size`
        whole = piece.key[len(piece.kind) + 1:] if piece.key and piece.key.startswith(f"{piece.kind}-") else None
        name = whole if whole and entry.valid_key_name(whole) else \
            piece.key if piece.key and entry.valid_key_name(piece.key) else None
        if piece.key and name is None:
            problems.append(f"memory-hooks: `{piece.key}` is not a key (lowercase letters, digits and dashes, "
                            "up to 60): stored under its automatic key.")
        elif name is not None and bdmemory.kept_key(name, piece.content) != name:  # a key is never redacted
            name = None
            problems.append("memory-hooks: the key given holds part of a credential: stored under its automatic "
                            "key.")
        kept = bdmemory.kept_key(bd_key, piece.content) if bd_key is not None else None
        # the session's last failure, only on an insight sharing a term with it (memory.search.recurrence)
        unrelated = isinstance(seen, list) and bool(provenance.get("errors")) and not about_failure(piece.content, seen)
        record = entry.build(piece.content, piece_bead, source, piece.kind, key_name=name, bd_key=kept,
                             **({**provenance, "errors": None} if unrelated else provenance))
        note = bdmemory.key_note(bd_key, record["key"], kept) if bd_key is not None else None
        problems += [note] if note else []
        records.append(record)
    return records, problems


def shown_path(memory_dir: str, cwd: str | None) -> str:
    """Where a capture lands, as the agent should read it: the inbox folder (memory.store.inbox: one new file per
    capture), relative to its working folder when inside it, else absolute (a worktree's captures go to the
    main checkout's memory, not to the worktree's)."""
    full = os.path.join(memory_dir, layout.INBOX)
    if cwd:
        relative = os.path.relpath(os.path.realpath(full), os.path.realpath(cwd))
        if not relative.startswith(os.pardir):
            return relative + os.sep
    return os.path.abspath(full) + os.sep


def not_recorded_note(unconfirmed: list[tuple[bdcomment.Insight, str]], what_failed: str) -> str:
    """What the agent hears about insights left out because the tool call failed: that bd did not record
    them (bd said so) or could not be asked, and how to record them without bd."""
    import shlex

    first, _ = unconfirmed[0]
    calls = ", ".join(sorted({f"`{insight.invocation()}`" for insight, _ in unconfirmed}))
    whys = sorted({why for _, why in unconfirmed if why})
    bd_said = f"bd could not be asked whether it recorded it ({'; '.join(whys)})" if whys else "bd does not hold it"
    if first.kind == entry.FORGET:
        how = "To forget without bd: .beads/memory/recall.sh --forget KEY."
    else:
        from memory.store import redact

        # quoted as the store would keep it: a credential in it is not echoed back into the context
        text = redact.redact(f"{first.kind.upper()}: {first.content}")[0]
        how = "To record it without bd: .beads/memory/recall.sh --add " + \
              (shlex.quote(text) if len(text) <= 300 else '"LEARNED: …"') + "."
    return f"memory-hooks: not captured from {calls}: {what_failed} and {bd_said}. {how}"


def capture_note(entries: list[dict], result: store.AppendResult, problems: list[str] | None = None,
                 where: str = os.path.join(layout.MEMORY_SUBDIR, layout.INBOX) + os.sep,
                 memory_dir: str | None = None) -> str:
    """One short line for the agent: what was stored under which key (in `where`, or parked beside it when
    the file stayed busy), and anything it should know; with `memory_dir`, which live entry a stored one
    nearly repeats (near_copy_notes)."""
    from memory.store import hold

    stored = [e for e in entries if "content" in e and e["key"] not in result.duplicates]
    forgot = [e["key"] for e in entries if e.get("type") == entry.FORGET]
    notes = []
    if stored:
        keys = _listed([e["key"] for e in stored])
        parked = os.path.join(os.path.dirname(os.path.dirname(where)), store.SPOOL)
        into = f"(the knowledge lock stayed busy: they wait in {parked}/, the next write adds them)" if result.spooled \
            else f"into {where}"
        notes.append(f"memory-hooks: captured {len(stored)} insight{'s' if len(stored) > 1 else ''} "
                     f"({keys}) {into}.")
        full = [e["key"] for e in stored if len(str(e["content"])) == entry.MAX_CONTENT_CHARS]
        if full:  # said: a text cut mid-word, stored as "captured", read like all of it
            notes.append(f"memory-hooks: {_listed(full)} holds {entry.MAX_CONTENT_CHARS:,} characters, the most an "
                         "insight keeps: a longer text was cut there; record the rest as its own insight.")
    if memory_dir is not None:
        try:
            notes += near_copy_notes(memory_dir, stored)
        except OSError:  # a hint: the confirmation of what was stored must come all the same
            pass
    held_note = hold.note(stored)
    if held_note:
        notes.append(held_note)
    if forgot:
        notes.append(f"memory-hooks: forgot {_listed(forgot)} (a tombstone line; "
                     "`recall.sh --all --history KEY` still shows it).")
    for key, held in list(result.duplicates.items())[:LISTED]:
        if key == held:
            notes.append(f"memory-hooks: not stored again: `{key}` already holds this text (nothing written).")
            continue
        notes.append(f"memory-hooks: not stored: `{held}` already holds the same text (as `{key}` it would be "
                     f"a second copy). To change it, write {_rewrite(held)}.")
    redacted = sorted({kind for e in stored for kind in e.get("redacted", ())})
    if redacted:
        # Say only what happened: these values were replaced; the rest of the text is stored as written.
        count = sum(e["content"].count("<redacted:") for e in stored)
        notes.append(f"Replaced {count} credential-shaped value{'s' if count != 1 else ''} ({', '.join(redacted)}) "
                     "with <redacted:TYPE>; the rest of the text is stored as written.")
    notes += replaced_notes(stored, result.replaced)
    unsaid = max(0, len(result.duplicates) - LISTED) + max(0, len(result.replaced) - LISTED)
    if unsaid:
        notes.append(f"({unsaid} more not stored again or replaced: `recall.sh --all --history KEY` shows any.)")
    return " ".join(notes + (problems or []))


def replaced_notes(stored: list[dict], replaced: dict[str, str]) -> list[str]:
    """What the stored entries replaced under their keys (`store.AppendResult.replaced`: key -> the text before):
    a correction under an explicit key, or a different insight that opened with the same 60 characters."""
    explicit = {e["key"] for e in stored if e["key"] != entry.make_key(e["type"], e["content"])}
    notes = []
    for key, before in list(replaced.items())[:LISTED]:
        if key in explicit:
            from memory.core import render

            notes.append(f"`{key}` replaced the earlier entry \"{render.one_line(before, 80)}\" (latest wins).")
        else:
            notes.append(f"`{key}` replaced an earlier, different insight with the same first 60 characters "
                         "(same key: the latest wins). If both are worth keeping, reword the start of the new one.")
    return notes


def near_copy_notes(memory_dir: str, stored: list[dict]) -> list[str]:
    """One line per stored entry that nearly repeats a live entry under another key (memory.search.similar: the
    same words but a few): which one, and how to fold them. Both stay stored: a near-identical text may differ
    where it matters, so the agent decides."""
    from memory.search import similar
    from memory.store import view

    # the first NEAR_CHECKED: each is compared with the live entries it may resemble, the others just stored
    # among them (a reply of 1,600 LEARNED lines took 13.7 s, past the hook's timeout: all of it was lost)
    fresh = [e for e in stored if len(similar.words(str(e.get("content", "")))) >= similar.MIN_WORDS][:NEAR_CHECKED]
    if not fresh:
        return []
    raw = store.active_bytes(memory_dir)
    data = raw.lower()
    probe = [p for e in fresh for p in similar.probes(similar.words(e["content"]), held_by=_held_by(data))]
    if data.isascii() and b"\\u" not in data:  # nothing escaped or case-folded hides a word from the bytes:
        # only the lines holding a probe, and every line of their keys (latest-wins), are parsed (the bytes
        # read once: an inbox of many captures is many files)
        from memory.store import reading

        lines = reading.matching(raw[:raw.rfind(b"\n") + 1], tuple(p.encode() for p in probe)).entries
    else:
        lines = store.load(memory_dir).entries
    near = {e.get("key") for e in lines if "content" in e and similar.may_resemble(probe, str(e["content"]))}
    # named with its opening words: a held entry (memory.store.hold) is never shown, so never a candidate
    live = view.State([e for e in lines if e.get("key") in near]).live()
    notes = []
    for new, old, _ in similar.resembling(fresh, live)[:LISTED]:
        from memory.core import render  # only with something to say

        title = render.one_line(old["content"], 80)
        notes.append(f"memory-hooks: `{new['key']}` looks like `{old['key']}` (\"{title}\"): if it says the same, "
                     f"keep one (.beads/memory/recall.sh --forget KEY), or write {_rewrite(old['key'])} to replace "
                     "that one.")
    return notes


LISTED = 10  # keys named in a note: a comment of thousands of LEARNED lines must not answer in megabytes
NEAR_CHECKED = 50  # stored entries a capture compares with the live ones: far more than a session records at once


def _held_by(data: bytes) -> Callable[[str], int]:
    """How often the knowledge's lowercased bytes hold a word, counted in their last RARITY_SAMPLE bytes: its
    rarity, for choosing probes (a word that is not plain ASCII counts as rare: how JSON spells it varies)."""
    sample = data[-RARITY_SAMPLE:]
    # a word of one or two characters is inside many others: common, and not worth counting
    return lambda word: len(sample) if len(word) < 3 else sample.count(word.encode()) if word.isascii() else 0


RARITY_SAMPLE = 1 << 15  # ~120 entries: enough to tell a rare word from a common one, cheap for any knowledge


def _rewrite(key: str) -> str:
    """How to write a new version of the entry `key`: `LEARNED[name]: …`."""
    kind, name = key.split("-", 1) if "-" in key else (key, key)
    return f"{kind.upper()}[{name}]: …"


def _listed(keys: list[str]) -> str:
    """`a`, `b`, … and N more: at most LISTED keys named."""
    named = ", ".join(f"`{k}`" for k in keys[:LISTED])
    return named + (f" and {len(keys) - LISTED} more" if len(keys) > LISTED else "")


def not_stored_note(entries: list[dict], exc: OSError) -> str:
    """The one line an agent gets when the knowledge file could not be written: nothing was stored."""
    keys = _listed([e["key"] for e in entries])
    where = exc.filename or store.ACTIVE
    return (f"memory-hooks: NOT stored ({keys}): {where} could not be written ({exc.strerror or exc}). "
            "The insight is not in memory: say so to the user (`.beads/memory/recall.sh --doctor` shows what is "
            "wrong), and record it again once that is fixed.")
