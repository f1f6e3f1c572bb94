"""The project's memory settings: `.beads/memory/config.json` (optional, committed) over the defaults.

Budgets are in tokens, counted as characters / 4 (the runtimes cap injected context at 10,000 chars).
"""
from __future__ import annotations

import os

from memory.core import layout

CHARS_PER_TOKEN = 4
DEFAULTS = {
    # everything session start injects: the groups in full and the map of the rest (8,800 characters, under
    # the 10,000 past which Claude Code moves context into a file)
    "session_budget_tokens": 2200,
    "session_budget_tokens_cursor": 2200,
    "session_newest": 5,  # the newest entries shown after the bead's and the branch's
    "session_newest_cursor": 10,
    "prompt_budget_tokens": 500,  # what one prompt may get
    "prompt_max_entries": 5,
    # the prompt gate (memory.search.rank.Params): the best entry must reach this share of the best score the prompt
    # could reach, and the block holds only entries scoring at least `prompt_relative_cut` of the best one.
    # Tuned on the dev split (bench/relevance.py): 0.7 cuts the unlabelled entries per prompt 1.46 -> 0.26
    # for 0.35 -> 0.34 recall@5.
    "prompt_min_fraction": 0.2,
    "prompt_relative_cut": 0.7,
    # ...and share this many distinct words with the prompt: at 1,000 entries nearly every coding word stands in
    # some entry ("commit it" met the pre-commit hooks). 1 -> 2: held-out recall@5 unchanged (0.419 on the
    # four projects, 0.348 at uv@1000), everyday instructions answered 10/32 -> 3/32 (docs/relevance.md)
    "prompt_min_terms": 2,
    "entry_chars": 300,  # an entry's text is cut here (never below 200) when the budget needs it
    # rank with the local embedding model too, when `install.sh --semantic` put it in the hooks' virtualenv
    # (off unless installed; `false` keeps it off where it is installed)
    "semantic": True,
    # capture lines of the agent's final message that start with LEARNED: / DECISION: / WARNING: / PATTERN:
    "capture_replies": True,
    # import Claude Code's project / reference auto memory notes as Claude writes them (memory.capture.note_capture)
    "capture_claude_notes": False,
    # leave the memories of `bd remember` out of session start where bd's own hook prints them (memory.surface.bdprime)
    "leave_bd_memories_to_bd_prime": True,
    # action time (memory.surface.action_context): what a file read/edit or a failed command may get
    "action_max_entries": 3,
    "action_budget_chars": 1000,
    "action_file_min_score": 2.5,  # cue weights: memory.search.action_paths.Params (swept on bench/relevance dev)
    "action_file_follow": 0.6,  # and at least this share of the best entry's score
    "action_error_min_fraction": 0.30,  # of the best score the error's words could reach (memory.search.rank)
    "action_error_min_terms": 2,  # distinct words of the error the entry must share
    # or this lower share, when the rare words of the error lines it holds weigh at least this many words
    # only one entry holds (memory.search.grounded; bench/relevance_actions.py --split dev, all batches)
    "action_error_low_fraction": 0.18,
    "action_error_rare_weight": 2.0,
    "action_error_follow": 0.6,  # and at least this share of the best passing entry's score
    # an entry captured right after a failure that printed the same line (memory.search.recurrence): the line's
    # terms overlap at least this much (Jaccard), its distinctive words all there
    "action_error_recurrence": 0.6,
    # an edit: what it adds (memory.runtimes.tool_files.added_text) ranked like an error
    "action_edit_min_fraction": 0.30,
    "action_edit_min_terms": 2,
    # the errors' second way through, for a long edit or a whole new file (bench/relevance_actions.py, file
    # events, batches 1 and 7: the error values taken as they are, not swept)
    "action_edit_low_fraction": 0.18,
    "action_edit_rare_weight": 2.0,
    # errors and edits: an entry must hold a word of the error lines / the added code that at most this share
    # of the entries hold (memory.search.grounded)
    "action_rare_share": 0.08,
}
MAX_INJECTED_CHARS = 9000  # the runtimes drop context past 10,000 characters


def load(memory_dir: str) -> dict:
    """Defaults overridden by the values of config.json that have the default's type; never raises."""
    return read_settings(os.path.join(memory_dir, layout.CONFIG), DEFAULTS)[0]


def read_settings(path: str, defaults: dict) -> tuple[dict, list[str]]:
    """`defaults` overridden by the values of the JSON object in `path` that have the default's type (exact: `true`
    is no budget, `"500"` no number; `1` for a share is 1.0; a list holds strings), and what was not taken, one
    phrase each (for memory-doctor; the hooks use the defaults and say nothing). Never raises."""
    import json  # here: the action-time hook's fast path reads DEFAULTS without paying for json (and re)

    settings = dict(defaults)
    from memory.core import fsio

    try:
        # a FIFO is an OSError, not an open waiting for a writer (every hook reads this file); a symlink the
        # user made is followed. RecursionError: JSON nested deeper than the parser goes
        with os.fdopen(fsio.open_regular(path, os.O_RDONLY, follow=True), "rb") as fh:
            custom = json.loads(fh.read())
    except FileNotFoundError:
        return settings, []
    except (OSError, ValueError, RecursionError) as exc:
        return settings, [f"not read ({type(exc).__name__}: {exc}): every default is used"]
    if not isinstance(custom, dict):
        return settings, [f"holds a JSON {type(custom).__name__}, not an object: every default is used"]
    problems = []
    for name, value in custom.items():
        default = defaults.get(name)
        if name not in defaults:
            problems.append(f"`{name}` is no setting{_did_you_mean(name, defaults)}: ignored")
        elif type(value) is type(default) and not (isinstance(value, list)
                                                   and not all(isinstance(v, str) for v in value)):
            settings[name] = value
        elif type(default) is float and type(value) is int:
            settings[name] = float(value)
        else:
            problems.append(f"`{name}` is {json.dumps(value)[:40]}, not {_kind(default)}: the default "
                            f"{json.dumps(default)} is used")
    return settings, problems


def _kind(default: object) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a string",
            list: "a list of strings", dict: "an object"}.get(type(default), type(default).__name__)


def _did_you_mean(name: str, defaults: dict) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(defaults), n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def budget_chars(tokens: int) -> int:
    """A token budget as characters, within what a runtime accepts."""
    return max(0, min(int(tokens) * CHARS_PER_TOKEN, MAX_INJECTED_CHARS))
