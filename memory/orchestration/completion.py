"""The SubagentStop completion gate: did a subagent that claims a bead finished really finish it?

The report is the last report line of the subagent's final message, alone on its line (markdown decoration
such as `**`, `- `, `> `, backticks around it is fine):

    BEAD BD-12 COMPLETE                      plus `Worktree: <path>` and/or `Branch: <name>` lines
    BEAD BD-12 BLOCKED: <reason>             an honest "not done": accepted, recorded on the bead
    BEAD BD-12 FAILED: <reason>              likewise

BEAD and COMPLETE/BLOCKED/FAILED must be uppercase: the report is a machine-read token, and prose ("you can
mark bead BD-7 complete", a heading "Bead BD-7 complete") must never gate an agent. Checks, each by name and
each switchable in `checks`: report, worktree (exists, nothing uncommitted), pushed (upstream set, no local
commits missing from it; local refs only unless fetch is on), bead-status (`bd show <ID> --json` status in
the allowed set): memory.orchestration.completion_checks runs them. Here: the report line, whom the gate applies
to, its settings and the loop guard.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence

from memory import TYPE_CHECKING
from memory.core import config as settings
from memory.core import layout, state

if TYPE_CHECKING:
    from typing import Callable

COMPLETE = "COMPLETE"  # the other outcomes, BLOCKED and FAILED, carry a reason

_LEAD = r"^[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:#+[ \t]+)?"  # quote, list item, heading
_ID = r"[A-Za-z0-9][A-Za-z0-9._-]*"
REPORT_LINE = re.compile(
    _LEAD + r"(?P<open>[*_`]*)BEAD[ \t]+`?(?P<bead>" + _ID + r")`?[ \t]+"
    r"(?:COMPLETE[*_`.!]*|(?P<outcome>BLOCKED|FAILED)[*_`]*[ \t]*:[*_`]*[ \t]*(?P<reason>.*?))[ \t]*$", re.M)
NEAR_MISS = re.compile(r"^.*\bBEAD\s+`?" + _ID + r"`?:?\s+(?:COMPLETE|BLOCKED|FAILED)\b.*$", re.I | re.M)
LABEL_LINE = re.compile(_LEAD + r"[*_]*(?P<label>Worktree|Branch)[*_]*[ \t]*:[*_]*[ \t]*(?P<value>.*?)[ \t]*$",
                        re.I | re.M)
REPORT_FORMAT = ("    BEAD <ID> COMPLETE\n    Worktree: .worktrees/bd-<ID>\n    Branch: bd-<ID>\n"
                 "  or, if the bead is not finished, say so honestly:\n"
                 "    BEAD <ID> BLOCKED: <reason>\n    BEAD <ID> FAILED: <reason>")

DEFAULTS = {
    "supervisor_types": ["supervisor"],  # agent types always checked: the type's last word(s)
    "exempt_types": ["worker"],          # agent types never checked: any word(s) of the type
    "review_statuses": ["inreview"],     # bead statuses that count as handed over
    "checks": {},                        # {"pushed": false}: off by name (report, worktree, pushed, bead-status)
    "max_blocks": 2,                     # blocks per agent before letting it finish with a warning
    "timeout": 5.0,                      # seconds, every subprocess
    "fetch": False,                      # git fetch before the push check (network)
}


def load_config(memory_dir: str) -> dict:
    """Defaults, overridden by .beads/memory/completion.json and MEMORY_HOOKS_FETCH / _MAX_BLOCKS."""
    config = settings.read_settings(os.path.join(memory_dir, layout.COMPLETION_CONFIG), DEFAULTS)[0]
    if os.environ.get("MEMORY_HOOKS_FETCH"):
        config["fetch"] = os.environ["MEMORY_HOOKS_FETCH"] not in ("0", "false", "")
    if os.environ.get("MEMORY_HOOKS_MAX_BLOCKS", "").isdigit():
        config["max_blocks"] = int(os.environ["MEMORY_HOOKS_MAX_BLOCKS"])
    return config


def enabled(config: dict, check: str) -> bool:
    """A check runs unless completion.json switches it off with `"checks": {"<name>": false}`."""
    return config["checks"].get(check) is not False


class Report:
    """The report line of a final message, and the `Worktree:` / `Branch:` lines with it."""

    __slots__ = ("bead", "outcome", "reason", "worktree", "branch")

    def __init__(self, bead: str, outcome: str, reason: str, worktree: str | None, branch: str | None) -> None:
        self.bead = bead
        self.outcome = outcome  # COMPLETE, BLOCKED or FAILED
        self.reason = reason  # BLOCKED / FAILED only
        self.worktree, self.branch = worktree, branch

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Report) and all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __repr__(self) -> str:
        return f"Report({', '.join(repr(getattr(self, n)) for n in self.__slots__)})"


def parse_report(text: str) -> Report | None:
    """The last report line of `text` (None when there is none); prose never counts as one."""
    lines = list(REPORT_LINE.finditer(text or ""))
    match = next((m for m in reversed(lines) if m.group("outcome") is None or _reason(m)), None)
    if match is None:
        return None
    labels = {m.group("label").lower(): _label_value(m.group("value")) for m in LABEL_LINE.finditer(text)}
    return Report(match.group("bead"), match.group("outcome") or COMPLETE, _reason(match),
                  labels.get("worktree") or None, branch_name(labels.get("branch") or ""))


def unquoted(text: str) -> str:
    """`text` without its code: fenced blocks, and indented code blocks (lines indented four spaces or a tab after
    a blank line). What an ordinary agent quotes there (the report's format, documenting the protocol) is no
    claim of its own. Indented lines right under a line of text stay: `Worktree:` under the report line, as the
    gate's own fix hint writes it, or a report nested in a list."""
    from memory.core.markers import without_code

    kept: list[str] = []
    code, after_blank = False, True
    for line in without_code(text).splitlines():
        if not line.strip():
            after_blank = True
            kept += [] if code else [line]
            continue
        code = line.startswith(("    ", "\t")) and (code or after_blank)
        after_blank = False
        kept += [] if code else [line]
    return "\n".join(kept)


def branch_name(value: str) -> str | None:
    """The branch a `Branch:` line names, as git's short name: its first word, without the punctuation of prose
    after it (`bd-BD-12.`, `bd-BD-12, pushed`) or a `refs/heads/` / `origin/` before it."""
    link = re.match(r"\s*\[([^\]]+)\]\(", value)  # a markdown link: its text
    words = (link.group(1) if link else value).replace(",", " ").split()
    name = words[0].strip("\"'`()[]<>").rstrip(".;:!") if words else ""
    for prefix in ("refs/heads/", "refs/remotes/origin/", "origin/"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name or None


def _reason(match: re.Match[str]) -> str:
    reason, opening = (match.group("reason") or "").strip(), match.group("open")
    if opening and reason.endswith(opening[::-1]):  # `**BEAD X BLOCKED: why**` closes what it opened
        reason = reason[:-len(opening)].rstrip()
    return reason


def _label_value(value: str) -> str:
    quoted = re.search(r"`([^`]+)`", value)
    return (quoted.group(1) if quoted else value.strip("*_ \t")).strip()


def near_miss(text: str) -> str | None:
    """A line that looks like a report but is not one (lowercase keywords, missing reason), for the hint."""
    match = NEAR_MISS.search(text or "")
    return " ".join(match.group(0).strip(" \t>-*`_").split())[:120] if match else None


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])", r"\1\3 \2\4", name)  # camelCase, XMLName
    return re.findall(r"[a-z0-9]+", spaced.lower())


def _type_matches(agent_type: str, names: Sequence[str], last_only: bool) -> bool:
    words = _words(agent_type)
    for name in [names] if isinstance(names, str) else names:
        want = _words(str(name))
        if not want:
            continue
        starts = [len(words) - len(want)] if last_only else range(len(words) - len(want) + 1)
        if any(i >= 0 and words[i:i + len(want)] == want for i in starts):
            return True
    return False


def applies(agent_type: str, report: Report | None, config: dict) -> bool:
    """Supervisors, and any agent whose final message has a report line; never internal or exempt agents.

    A supervisor type must be the agent type's last word(s) (`swift-supervisor`, not `non-supervisor-helper`);
    an exempt type may be any word(s) of it: when in doubt the gate leaves an agent alone.
    """
    kind = agent_type or ""
    if not kind.strip() or _type_matches(kind, config["exempt_types"], last_only=False):
        return False
    return report is not None or supervisor(kind, config)


def supervisor(agent_type: str, config: dict) -> bool:
    """Whether the agent type is a supervisor's (always checked): a supervisor type as its last word(s)."""
    return _type_matches(agent_type or "", config["supervisor_types"], last_only=True)


def update_state(memory_dir: str, change: Callable[[dict], int]) -> int:
    """Apply `change(state) -> int` to the loop-guard state (layout.COMPLETION_STATE); returns its result."""
    return state.update(memory_dir, layout.COMPLETION_STATE, change)


FRESH_AFTER = 900.0  # seconds: an agent's count starts over on a fresh stop this long after its last block


def record_block(state: dict[str, dict], agent: str, continuing: bool, now: float) -> int:
    """Blocks so far for `agent` after this one. A continuation (stop_hook_active) keeps counting; so does
    any stop soon after a block, so a runtime that never sets stop_hook_active cannot trap an agent."""
    last = state.get(agent, {})
    recent = now - last.get("ts", 0) < FRESH_AFTER
    previous = last.get("blocks", 0) if continuing or recent else 0
    state[agent] = {"blocks": previous + 1, "ts": now}
    for key in [k for k, v in state.items() if now - v.get("ts", 0) > 86400]:
        del state[key]
    return previous + 1
