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
the allowed set).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence

from memory import TYPE_CHECKING
from memory.core import config as settings
from memory.core import layout, paths, state
from memory.store import redact

if TYPE_CHECKING:
    from typing import Callable

COMPLETE = "COMPLETE"  # the other outcomes, BLOCKED and FAILED, carry a reason

_LEAD = r"^[ \t>]*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:#+[ \t]+)?"  # quote, list item, heading
_ID = r"[A-Za-z0-9][A-Za-z0-9._-]*"
REPORT_LINE = re.compile(
    _LEAD + r"(?P<open>[*_`]*)BEAD[ \t]+`?(?P<bead>" + _ID + r")`?[ \t]+"
    r"(?:COMPLETE[*_`.!]*|(?P<outcome>BLOCKED|FAILED)[*_`]*[ \t]*:[*_`]*[ \t]*(?P<reason>.*?))[ \t]*$", re.M)
NEAR_MISS = re.compile(r"^.*\bBEAD\s+`?" + _ID + r"`?\s+(?:COMPLETE|BLOCKED|FAILED)\b.*$", re.I | re.M)
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


class Check:
    """One named check: passed, failed (with the command that fixes it) or skipped (with why)."""

    def __init__(self, name: str, status: str, detail: str, fix: str = "") -> None:
        self.name, self.status, self.detail, self.fix = name, status, detail, fix

    def line(self) -> str:
        text = f"- {self.name}: {self.detail}"
        return text + (f"\n  fix: {self.fix}" if self.fix else "")


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
    branch = (labels.get("branch") or "").split()
    return Report(match.group("bead"), match.group("outcome") or COMPLETE, _reason(match),
                  labels.get("worktree") or None, branch[0] if branch else None)


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
    return report is not None or _type_matches(kind, config["supervisor_types"], last_only=True)


def run(cmd: list[str], cwd: str, timeout: float) -> tuple[int | None, str]:
    """(exit code, stdout); (None, reason) when it could not run or timed out."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"`{' '.join(cmd)}` timed out after {timeout:g}s"
    except OSError as exc:
        return None, f"`{cmd[0]}` could not run ({exc.strerror or exc})"
    # a failing command's own words (stderr) say more than its empty stdout
    return proc.returncode, proc.stdout if proc.returncode == 0 or proc.stdout.strip() else proc.stderr


def find_worktree(main: str, bead: str, worktree: str | None, branch: str | None, timeout: float) -> str | None:
    """The bead's worktree: the reported path, `.worktrees/bd-<ID>` (or a case variant), or the branch's."""
    candidates = []
    if worktree:
        candidates.append(worktree if os.path.isabs(worktree) else os.path.join(main, worktree))
    folder = os.path.join(main, ".worktrees")
    names = {f"bd-{bead}", bead, "bd-" + re.sub(r"^bd-", "", bead, flags=re.I)}
    if os.path.isdir(folder):
        candidates += [os.path.join(folder, n) for n in os.listdir(folder) if n.lower() in {x.lower() for x in names}]
    for path in candidates:
        if os.path.isdir(path):
            return path
    if branch:
        code, out = run(["git", "worktree", "list", "--porcelain"], main, timeout)
        current = None
        for line in out.splitlines() if code == 0 else []:
            if line.startswith("worktree "):
                current = line[len("worktree "):]
            elif line.strip() in (f"branch refs/heads/{branch}",) and current:
                return current
    return None


def evaluate(main: str, report: Report | None, final_text: str, config: dict) -> list[Check]:
    """The enabled checks of a COMPLETE `report` (or of its absence), against the repo at `main`."""
    timeout = float(config["timeout"])
    checks = []
    if report is None or not (report.worktree or report.branch):
        if enabled(config, "report"):
            checks.append(_report_failure(report, final_text))
        if report is None:
            return checks
    else:
        checks.append(Check("report", "pass", f"names BEAD {report.bead}"))
    bead = report.bead
    wt = find_worktree(main, bead, report.worktree, report.branch, timeout)
    if wt is None and enabled(config, "worktree"):
        checks.append(Check("worktree", "fail", f"no worktree for {bead} (looked for .worktrees/bd-{bead}"
                            + (f" and branch {report.branch}" if report.branch else "") + ")",
                            f"git worktree add .worktrees/bd-{bead} -b bd-{bead}"))
        return checks
    if wt is not None and enabled(config, "worktree"):
        checks.append(_clean_check(wt, timeout))
    if enabled(config, "pushed"):
        checks.append(_pushed_check(wt, bool(config["fetch"]), timeout) if wt is not None
                      else Check("pushed", "skip", f"no worktree for {bead} to check"))
    if enabled(config, "bead-status"):
        checks.append(_status_check(main, bead, config))
    return checks


def _report_failure(report: Report | None, final_text: str) -> Check:
    if report is not None:
        return Check("report", "fail", "the final message has no `Worktree:` or `Branch:` line",
                     f"add them under BEAD {report.bead} COMPLETE:\n    Worktree: .worktrees/bd-{report.bead}\n"
                     f"    Branch: bd-{report.bead}")
    detail = "the final message has no report line"
    almost = near_miss(final_text)
    if almost:
        detail += (f" (`{almost}` is not one: a report line is exactly BEAD <ID> COMPLETE, or BLOCKED/FAILED"
                   " with `: <reason>`, keywords uppercase, alone on its line)")
    return Check("report", "fail", detail, "end the final message with\n" + REPORT_FORMAT)


def record_outcome(main: str, report: Report, timeout: float) -> str | None:
    """Comment a BLOCKED/FAILED report on its bead (`bd comments add`); returns a problem, or None.

    Skipped without bd. Never blocks: the agent told the truth, and a bd failure is not its fault.
    """
    if not paths.on_path("bd"):
        return None
    text, _ = redact.redact(f"{report.outcome}: {report.reason}")
    code, out = run(["bd", "comments", "add", report.bead, text], main, timeout)
    if code == 0:
        return None
    return out if code is None else f"bd comments add {report.bead} exited {code}: {out.strip()[:200]}"


def _clean_check(wt: str, timeout: float) -> Check:
    code, out = run(["git", "status", "--porcelain"], wt, timeout)
    if code is None:
        return Check("worktree", "skip", out)
    if code != 0:
        return Check("worktree", "fail", f"{wt} is not a git worktree", f"git worktree prune && git worktree add {wt}")
    dirty = [line for line in out.splitlines() if line.strip()]
    if dirty:
        return Check("worktree", "fail", f"{len(dirty)} uncommitted change(s) in {wt} ({dirty[0].strip()}…)",
                     f'git -C "{wt}" add -A && git -C "{wt}" commit -m "<message>"')
    return Check("worktree", "pass", f"{wt} is clean")


def _pushed_check(wt: str, fetch: bool, timeout: float) -> Check:
    code, branch = run(["git", "rev-parse", "--abbrev-ref", "HEAD"], wt, timeout)
    branch = branch.strip() if code == 0 else "HEAD"
    if fetch:
        run(["git", "fetch", "--quiet"], wt, timeout)
    code, upstream = run(["git", "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"], wt, timeout)
    if code is None:
        return Check("pushed", "skip", upstream)
    if code != 0:
        return Check("pushed", "fail", f"branch {branch} has no upstream (never pushed)",
                     f'git -C "{wt}" push -u origin {branch}')
    code, ahead = run(["git", "rev-list", "--count", "@{u}..HEAD"], wt, timeout)
    if code is None:
        return Check("pushed", "skip", ahead)
    if code == 0 and ahead.strip() not in ("", "0"):
        return Check("pushed", "fail", f"{ahead.strip()} commit(s) on {branch} not in {upstream.strip()}",
                     f'git -C "{wt}" push')
    return Check("pushed", "pass", f"{branch} is pushed to {upstream.strip()}"
                 + ("" if fetch else " (local refs; set fetch to refresh)"))


def _status_check(main: str, bead: str, config: dict) -> Check:
    allowed = [str(s) for s in config["review_statuses"]]
    if not paths.on_path("bd"):
        return Check("bead-status", "skip", "bd is not installed; bead status not verified")
    code, out = run(["bd", "show", bead, "--json"], main, float(config["timeout"]))
    if code is None:
        return Check("bead-status", "skip", out)
    try:
        data = json.loads(out)
        record = data[0] if isinstance(data, list) else data
        status = record.get("status")
    except (ValueError, IndexError, AttributeError, KeyError):
        return Check("bead-status", "fail" if code else "skip", f"`bd show {bead} --json` gave no status"
                     + (f" (exit {code})" if code else ""), f"bd show {bead}" if code else "")
    if status in allowed:
        return Check("bead-status", "pass", f"{bead} is {status}")
    return Check("bead-status", "fail", f"{bead} is {status!r}, expected {' or '.join(allowed)}",
                 f"bd update {bead} --status {allowed[0]}")


def failures(checks: list[Check]) -> list[Check]:
    return [c for c in checks if c.status == "fail"]


def block_reason(report: Report | None, checks: list[Check]) -> str:
    """What the subagent is told: every failed check, the exact command that fixes it, and that an honest
    BLOCKED/FAILED report is always accepted (the gate must never push an agent into a false claim)."""
    bead = report.bead if report else None
    head = f"Completion check for BEAD {bead} failed" if bead else "Completion check failed"
    notes = [c.line() for c in checks if c.status == "skip"]
    tail = [] if report is None else [
        f"Fix these, then finish again with the report. If BEAD {bead} cannot be finished, do not claim it:"
        f" end with `BEAD {bead} BLOCKED: <reason>` or `BEAD {bead} FAILED: <reason>` instead."]
    return "\n".join([head + ":"] + [c.line() for c in failures(checks)]
                     + (["(not verified:)"] + notes if notes else []) + tail)


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
