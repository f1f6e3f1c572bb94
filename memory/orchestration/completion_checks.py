"""The completion gate's checks (memory.orchestration.completion: the report, whom it applies to, the settings):
each against the bead's worktree (git) and the bead itself (bd), every subprocess under the configured timeout,
each failure with the command that fixes it; and what the blocked subagent is told."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

from memory.core import layout, paths
from memory.orchestration.completion import REPORT_FORMAT, Report, enabled, near_miss
from memory.store import redact


class Check:
    """One named check: passed, failed (with the command that fixes it) or skipped (with why)."""

    def __init__(self, name: str, status: str, detail: str, fix: str = "") -> None:
        self.name, self.status, self.detail, self.fix = name, status, detail, fix

    def line(self) -> str:
        text = f"- {self.name}: {self.detail}"
        return text + (f"\n  fix: {self.fix}" if self.fix else "")


def run(cmd: list[str], cwd: str, timeout: float) -> tuple[int | None, str]:
    """(exit code, stdout); (None, reason) when it could not run, timed out, or git refused the repository
    (another user's: "dubious ownership"), which says nothing of the bead's work."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout, env=paths.git_env())
    except subprocess.TimeoutExpired:
        return None, f"`{' '.join(cmd)}` timed out after {timeout:g}s"
    except OSError as exc:
        return None, f"`{cmd[0]}` could not run ({exc.strerror or exc})"
    if cmd[0] == "git" and proc.returncode != 0 and "dubious ownership" in proc.stderr:
        return None, f"git refuses {cwd} (owned by another user: dubious ownership; git config --global " \
            f"--add safe.directory {cwd})"
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
    wt = find_worktree(main, bead, report.worktree, report.branch, timeout)
    if wt is None and enabled(config, "worktree"):
        looked = ([report.worktree] if report.worktree else []) + [f".worktrees/bd-{bead}"] \
            + ([f"branch {report.branch}"] if report.branch else [])
        checks.append(Check("worktree", "fail", f"no worktree for {bead} (looked for {', '.join(looked)})",
                            f"git worktree add .worktrees/bd-{bead} -b bd-{bead}"))
        return checks
    if wt is not None and enabled(config, "worktree"):
        checks.append(_identity_check(main, wt, report, timeout) or _clean_check(wt, timeout, memory_dir))
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


def _identity_check(main: str, wt: str, report: Report, timeout: float) -> Check | None:
    """A failed check when the worktree found is not the one the report claims: a checkout of another
    repository (its cleanliness says nothing of this bead), or on another branch than the `Branch:` line."""
    here, there = _common_dir(main, timeout), _common_dir(wt, timeout)
    if here and there and here != there:
        return Check("worktree", "fail", f"{wt} is not a worktree of this repository ({main})",
                     f"git worktree add .worktrees/bd-{report.bead} -b bd-{report.bead}")
    if report.branch:
        code, out = run(["git", "rev-parse", "--abbrev-ref", "HEAD"], wt, timeout)
        branch = out.strip() if code == 0 else ""
        if branch and branch != "HEAD" and branch != report.branch:
            return Check("worktree", "fail", f"{wt} is on branch {branch}, the report says Branch: {report.branch}",
                         f"correct the Branch: line to {branch}, or git -C \"{wt}\" switch {report.branch}")
    return None


def _common_dir(folder: str, timeout: float) -> str | None:
    """The repository a checkout belongs to: its common git folder, resolved (None when git can't say)."""
    code, out = run(["git", "rev-parse", "--git-common-dir"], folder, timeout)
    return os.path.realpath(os.path.join(folder, out.strip())) if code == 0 and out.strip() else None


def _clean_check(wt: str, timeout: float, memory_dir: str | None = None) -> Check:
    # The memory folder is not the bead's work: hooks write it at any moment, this gate's own capture of the
    # report's LEARNED lines included (a supervisor in the main checkout was blocked by that inbox file)
    # nor are the beads' worktrees under `.worktrees/` (git lists each as untracked in the main checkout, and the
    # fix offered, `git add -A`, would commit them as embedded repositories)
    spec = [":(top)", f":(exclude,top){layout.MEMORY_SUBDIR.replace(os.sep, '/')}", ":(exclude,top).worktrees"]
    if memory_dir:
        inside = os.path.relpath(os.path.realpath(memory_dir), os.path.realpath(wt)).replace(os.sep, "/")
        if inside.split("/")[0] not in (".", ".."):
            spec.append(f":(exclude,top){inside}")
    code, out = run(["git", "status", "--porcelain", "--", *spec], wt, timeout)
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
