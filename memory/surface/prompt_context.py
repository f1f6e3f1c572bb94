"""The UserPromptSubmit hook (Claude Code): the knowledge relevant to what the user just asked.

Ranks the knowledge against the prompt (memory.search.rank over the derived index) and answers with a short
`## Relevant Knowledge` block, or with nothing at all: when the prompt asks nothing (a slash command,
"yes", "continue"), when no entry passes the ranker's gate, or when every entry that does was already
given to this session (memory.surface.injected) or is quoted in the prompt itself. Cursor has no prompt-time
context (its `beforeSubmitPrompt` can only allow or block): there the session-start digest carries more instead.
"""
from __future__ import annotations

import os
import re
import time

from memory import TYPE_CHECKING
from memory.core import config, layout, locking, paths, render
from memory.runtimes import hookrun, payload
from memory.search import index, rank, recurrence, tokenize
from memory.surface import injected, notices

if TYPE_CHECKING:
    from collections.abc import Callable

HOOK = "prompt_recall"
MIN_ENTRY_CHARS = 200
HEADING = "## Relevant Knowledge"
# Prompts that ask nothing new: answers and go-aheads. Compared after lowercasing and stripping punctuation.
_NO_QUESTION = {"y", "n", "yes", "no", "ok", "okay", "k", "sure", "yep", "nope", "continue", "go", "go on",
                "go ahead", "proceed", "next", "done", "thanks", "thank you", "thx", "ty", "lgtm", "do it",
                "please do", "yes please", "ok go", "sounds good", "great", "perfect", "keep going", "retry",
                "try again", "again", "stop", "cancel", "undo"}
_WORD = re.compile(r"[^\W_]+")
# what a prompt is ranked on: its first and last halves of this many characters (the question, and a pasted
# error's end). A 2 MB log pasted whole was ranked whole: seconds past the hook's 10 s timeout, and nothing shown
QUERY_CHARS = 32_000


def asks_something(prompt: str) -> bool:
    """False for slash commands, bare acknowledgements and prompts of fewer than two words (or, in a script
    without spaces, four characters)."""
    text = prompt.strip()
    if not text or text.startswith("/"):
        return False
    words = _WORD.findall(text.lower())
    return (len(words) >= 2 or tokenize.unspaced(text) >= 4) and " ".join(words) not in _NO_QUESTION


def age(ts: object, now: float | None = None) -> str:
    """How old an entry is, in words a reader weighs at a glance."""
    if not isinstance(ts, (int, float)):
        return "undated"
    days = int(((now or time.time()) - ts) // 86400)
    if days < 1:
        return "today"
    for size, unit in ((365, "year"), (30, "month"), (7, "week"), (1, "day")):
        if days >= size:
            n = days // size
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    return "today"  # pragma: no cover - days >= 1 always matches a unit


def gate_params(settings: dict) -> type[rank.Params]:
    """The ranker's gate with config.json's thresholds (`prompt_min_fraction`, `prompt_relative_cut`,
    `prompt_min_terms`)."""
    return type("Configured", (rank.Params,), {"min_fraction": settings["prompt_min_fraction"],
                                               "relative_cut": settings["prompt_relative_cut"],
                                               "min_terms": settings["prompt_min_terms"]})


def choose(memory_dir: str, ranked: list[rank.Scored], prompt: str, semantic_on: bool,
           params: type[rank.Params] = rank.Params) -> list[dict]:
    """The entries to inject, best first: the lexical ranker behind its gate, fused with the semantic
    option's cosines when the model is installed (memory.search.semantic: any trouble there means lexical only)."""
    gated = [s.entry for s in rank.gated(ranked, params)]
    if not semantic_on:
        return gated
    from memory.search import embed  # a few stat calls: is the model installed for this interpreter?

    if embed.find_model_dir() is None:
        return gated
    from memory.search import semantic
    from memory.store import store

    active = store.latest(store.load(memory_dir).entries, cache_dir=memory_dir)  # vectors cover the active file
    # the lexical candidates' vectors first: the newest entries' would otherwise take the prompt's few
    cosines = semantic.similarities(memory_dir, active, prompt, first=[str(s.entry.get("key")) for s in ranked])
    lexical = {str(s.entry.get("key")): s.fraction for s in ranked}
    # the same relative cut as the lexical block: never padded with entries far weaker than the best
    fused = type("Configured", (semantic.FuseParams,), {"follow": max(semantic.FuseParams.follow,
                                                                      params.relative_cut)})
    complete = cosines is not None and set(cosines) >= {str(e.get("key")) for e in active}
    keys = semantic.fuse(lexical, [str(e.get("key")) for e in gated], cosines, limit=len(ranked) + 50,
                         params=fused, complete=complete)
    by_key = {str(e.get("key")): e for e in active}
    by_key.update({str(s.entry.get("key")): s.entry for s in ranked})
    return [by_key[k] for k in keys if k in by_key]


def seen_before(memory_dir: str, prompt: str, settings: dict) -> list[dict]:
    """The entries captured right after a failure that printed a line the prompt holds (an error pasted into
    it: memory.search.path_cues.seen_in_text), newest first, marked `seen_before`."""
    from memory.search import path_cues

    return [{"key": key, "type": kind, "content": content, "ts": ts, "seen_before": True}
            for key, kind, content, ts in path_cues.seen_in_text(
                memory_dir, prompt, float(settings["action_error_recurrence"]))]


def pasted_error(memory_dir: str, prompt: str, settings: dict, ranked: list[rank.Scored]) -> list[dict]:
    """Of the prompt's own candidates, those the action hook's error ranking gives for an error pasted into it (a
    line stating one: `ModuleNotFoundError: No module named 'psycopg2'`), best first: judged as if a command had
    printed it, since an error's words (`module`, `named`) say little and the prompt's gate, on every word, let
    the entry naming `psycopg2` fall under its bar."""
    if ":" not in prompt or not ranked:
        return []
    lines = [line for line in prompt.splitlines() if ":" in line]
    if not any((recurrence.statement(line) or ("", "", False))[2] for line in lines):
        return []
    from memory.surface import action_context

    by_key = {str(s.entry.get("key")): s.entry for s in ranked}
    found = action_context.error_entries(memory_dir, "\n" + "\n".join(lines), settings, "")
    return [by_key[key] for key, _ in found if key in by_key]


def _flat(text: str) -> str:
    """`text` lowercased, its whitespace runs one space: an entry the prompt quotes, whatever its line breaks."""
    return " ".join(text.lower().split())


def relevant_block(found: list[dict], budget: int, entry_chars: int,
                   measure: Callable[[str], int] = len) -> tuple[str, list[dict]]:
    """The block for the ranked entries within `budget` characters as `measure` counts them (the answer's:
    hookrun.answered_length) (the best first; the last dropped while it does not fit), and the entries it shows;
    ('', []) when nothing fits."""
    chars = max(MIN_ENTRY_CHARS, entry_chars)
    entries = list(found)
    while entries:
        lines = [HEADING, render.FRAMING]
        for e in entries:
            kind = render.label(str(e.get("type", "")))
            bead = f", {render.one_line(str(e['bead']), 30)}" if e.get("bead") else ""
            content = render.one_line(str(e.get("content", "")), chars)
            note = recurrence.MARK if e.get("seen_before") else ""
            lines.append(f"  [{kind}, {age(e.get('ts'))}{bead}] {note}{content}")
        text = "\n".join(lines)
        if measure(text) <= budget:
            return text, entries
        if chars > MIN_ENTRY_CHARS:
            chars = MIN_ENTRY_CHARS
        else:
            entries.pop()
    return "", []


def handle(ctx: hookrun.Context) -> str | None:
    data = payload.parse(ctx.raw)
    if payload.runtime(data) == payload.CURSOR:
        return None  # Cursor runs our Claude hooks too; its beforeSubmitPrompt shows the model nothing
    ctx.problems += payload.field_problems(data, required=("hook_event_name", "prompt"))
    prompt = payload.user_prompt(data)
    ctx.memory_dir = memory_dir = paths.memory_dir_quick(payload.cwd(data), payload.project_dir(data))
    text = knowledge(ctx, memory_dir, data, prompt) if prompt and asks_something(prompt) else ""
    # a background subagent's report arrives as a prompt: what the completion gate let it claim unverified (taken
    # last, so an answer that is never written takes none with it)
    try:
        told = notices.take_session(memory_dir, payload.session_id(data))
    except (OSError, locking.LockTimeout) as exc:  # a read-only folder: the knowledge is still answered
        ctx.problems.append(f"a subagent's note not delivered: {type(exc).__name__}: {exc}")
        told = []
    if not told and not text:
        return None
    return payload.context_answer(data, "\n\n".join(told + ([text] if text else [])),
                                  event=payload.event_name(data) or "UserPromptSubmit")


def knowledge(ctx: hookrun.Context, memory_dir: str, data: dict, prompt: str) -> str:
    """The `## Relevant Knowledge` block for `prompt`, claimed in the session's ledger; "" for none."""
    if not any(os.path.exists(os.path.join(memory_dir, name))
               for name in (layout.KNOWLEDGE, layout.ARCHIVE, layout.INBOX)):
        return ""
    settings = config.load(memory_dir)
    session = payload.session_id(data)
    given = injected.given(memory_dir, session)
    limit = settings["prompt_max_entries"]
    corpus = index.load(memory_dir, inline_limit=index.INLINE_BUILD_BYTES)
    if corpus.partial:
        index.build_in_background(memory_dir)
    query = prompt if len(prompt) <= QUERY_CHARS else \
        prompt[:QUERY_CHARS // 2] + "\n" + prompt[-QUERY_CHARS // 2:]
    ranked = rank.search(corpus, query, limit=max(4 * limit, 20) + min(len(given), 50))
    chosen = choose(memory_dir, ranked, query, settings["semantic"], gate_params(settings))
    seen = seen_before(memory_dir, query, settings)  # an error pasted into the prompt
    known = {e["key"] for e in seen}
    seen += [e for e in pasted_error(memory_dir, query, settings, ranked) if e.get("key") not in known]
    known = {e["key"] for e in seen}
    holds = _flat(prompt)  # a pasted entry, or a subagent's report (<task-notification>) quoting what it recorded
    found = [e for e in seen + [e for e in chosen if e.get("key") not in known]
             if e.get("key") not in given and _flat(str(e.get("content", ""))) not in holds][:limit]
    budget = config.budget_chars(settings["prompt_budget_tokens"])
    def measure(text: str) -> int:
        return hookrun.answered_length(ctx, text)

    text, shown = relevant_block(found, budget, settings["entry_chars"], measure)
    if text and session:
        # claimed, not read then written: a tool call of this session (its action hook) may have been given one
        # of them since `given` was read; a busy ledger shows nothing rather than a repeat
        claimed = set(injected.claim(memory_dir, session, [e["key"] for e in shown], unwritable_shows=True))
        if len(claimed) < len(shown):
            text, shown = relevant_block([e for e in shown if e["key"] in claimed], budget, settings["entry_chars"],
                                         measure)
    return text


def main(argv: list[str] | None = None) -> int:
    return hookrun.run(HOOK, handle, argv)
