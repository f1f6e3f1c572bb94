"""The completion gate's checks (memory.orchestration.completion: the report, whom it applies to, the settings):
the bead's worktree (git: memory.orchestration.worktree_checks) and the bead itself (bd), every subprocess under
the configured timeout, each failure with the command that fixes it; and what the blocked subagent is told."""
from __future__ import annotations

import json
import shlex

from memory.core import paths
from memory.orchestration import worktree_checks
from memory.orchestration.checks import Check, run
from memory.orchestration.completion import REPORT_FORMAT, Report, enabled, near_miss
from memory.store import redact


def evaluate(main: str, report: Report | None, final_text: str, config: dict,
             memory_dir: str | None = None) -> list[Check]:
    """The enabled checks of a COMPLETE `report` (or of its absence), against the repo at `main`; `memory_dir`,
    the memory folder, is no uncommitted work wherever it lies (`MEMORY_HOOKS_DIR`)."""
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
    wt = worktree_checks.find_worktree(main, bead, report.worktree, report.branch, timeout)
    if wt is None and enabled(config, "worktree"):
        looked = ([report.worktree] if report.worktree else []) + [f".worktrees/bd-{bead}"] \
            + ([f"branch {report.branch}"] if report.branch else [])
        checks.append(Check("worktree", "fail", f"no worktree for {bead} (looked for {', '.join(looked)})",
                            worktree_checks.add_worktree(main, bead, timeout)))
        return checks
    if wt is not None and enabled(config, "worktree"):
        checks.append(worktree_checks.identity(main, wt, report, timeout)
                      or worktree_checks.clean(wt, timeout, memory_dir))
    if enabled(config, "pushed"):
        checks.append(worktree_checks.pushed(wt, bool(config["fetch"]), timeout) if wt is not None
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
    if status in allowed or status == "closed":  # closed: merged and done; the fix would reopen it
        return Check("bead-status", "pass", f"{bead} is {status}")
    fix = f"bd update {bead} --status {allowed[0]}"
    declared = undeclared_status(main, allowed[0], float(config["timeout"]))
    if declared is not None:  # stock bd refuses the fix with "invalid status" until the project declares it
        fix = f"bd config set status.custom {declare(declared, allowed[0])} && {fix}"
    return Check("bead-status", "fail", f"{bead} is {status!r}, expected {' or '.join(allowed)}", fix)


BD_STATUSES = frozenset(("open", "in_progress", "blocked", "deferred", "closed", "pinned", "hooked"))


def undeclared_status(main: str, status: str, timeout: float) -> str | None:
    """When bd would refuse `--status STATUS` (not built in, nor declared in the project's `status.custom`):
    the statuses declared so far ("" for none); None when bd takes it, or when bd can't say."""
    if status in BD_STATUSES:
        return None
    code, out = run(["bd", "config", "get", "status.custom", "--json"], main, timeout)
    try:
        value = json.loads(out).get("value") if code == 0 else None
    except (ValueError, AttributeError):
        return None
    if not isinstance(value, str):
        return None
    names = [part.split(":")[0].strip() for part in value.split(",")]  # "a,b" or, with categories, "a:wip,b:done"
    return None if status in names else value.strip()


def declare(declared: str, status: str) -> str:
    """The `bd config set status.custom` value that adds `status` to those declared, shell-quoted."""
    return shlex.quote(f"{declared},{status}" if declared else status)


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
