"""The SubagentStop completion gate: did a subagent that claims a bead finished really finish it?

A completion report (the last lines of the subagent's final message):

    BEAD BD-12 COMPLETE
    Worktree: .worktrees/bd-BD-12
    Branch: bd-BD-12

`BEAD <ID> COMPLETE` is required; at least one of `Worktree:` / `Branch:` too. Checks, each by name:
report, worktree (exists, nothing uncommitted), pushed (upstream set, no local commits missing from it;
local refs only unless fetch is on), bead-status (`bd show <ID> --json` status in the allowed set).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import Dict, List, Optional, Tuple

REPORT = re.compile(r"\bBEAD\s+([A-Za-z0-9][A-Za-z0-9._-]*)\s+COMPLETE\b", re.I)
WORKTREE_LINE = re.compile(r"^\s*[-*]?\s*Worktree:\s*`?([^`\n]+?)`?\s*$", re.I | re.M)
BRANCH_LINE = re.compile(r"^\s*[-*]?\s*Branch:\s*`?([^`\s]+)`?\s*$", re.I | re.M)

DEFAULTS = {
    "supervisor_types": ["supervisor"],  # agent types (substrings) always checked
    "exempt_types": ["worker"],          # agent types (substrings) never checked
    "review_statuses": ["inreview"],     # bead statuses that count as handed over
    "max_blocks": 2,                     # blocks per agent before letting it finish with a warning
    "timeout": 5.0,                      # seconds, every subprocess
    "fetch": False,                      # git fetch before the push check (network)
}
CONFIG_FILE = "completion.json"  # in .beads/memory/, optional, committed with the knowledge


def load_config(memory_dir: str) -> dict:
    """Defaults, overridden by .beads/memory/completion.json and MEMORY_HOOKS_FETCH / _MAX_BLOCKS."""
    config = dict(DEFAULTS)
    try:
        with open(os.path.join(memory_dir, CONFIG_FILE), "rb") as fh:
            custom = json.loads(fh.read())
        if isinstance(custom, dict):
            config.update({k: v for k, v in custom.items() if k in DEFAULTS})
    except (OSError, ValueError):
        pass
    if os.environ.get("MEMORY_HOOKS_FETCH"):
        config["fetch"] = os.environ["MEMORY_HOOKS_FETCH"] not in ("0", "false", "")
    if os.environ.get("MEMORY_HOOKS_MAX_BLOCKS", "").isdigit():
        config["max_blocks"] = int(os.environ["MEMORY_HOOKS_MAX_BLOCKS"])
    return config


class Check:
    """One named check: passed, failed (with the command that fixes it) or skipped (with why)."""

    def __init__(self, name: str, status: str, detail: str, fix: str = "") -> None:
        self.name, self.status, self.detail, self.fix = name, status, detail, fix

    def line(self) -> str:
        text = f"- {self.name}: {self.detail}"
        return text + (f"\n  fix: {self.fix}" if self.fix else "")


def applies(agent_type: str, final_text: str, config: dict) -> bool:
    """Supervisors, and any agent whose final message claims a bead; never internal or exempt agents."""
    kind = (agent_type or "").lower()
    if not kind or any(x.lower() in kind for x in config["exempt_types"]):
        return False
    return any(x.lower() in kind for x in config["supervisor_types"]) or bool(REPORT.search(final_text or ""))


def run(cmd: List[str], cwd: str, timeout: float) -> Tuple[Optional[int], str]:
    """(exit code, stdout); (None, reason) when it could not run or timed out."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"`{' '.join(cmd)}` timed out after {timeout:g}s"
    except OSError as exc:
        return None, f"`{cmd[0]}` could not run ({exc.strerror or exc})"
    return proc.returncode, proc.stdout


def find_worktree(main: str, bead: str, worktree: Optional[str], branch: Optional[str], timeout: float) -> Optional[str]:
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


def evaluate(main: str, final_text: str, config: dict) -> Tuple[Optional[str], List[Check]]:
    """(bead id, checks) for the completion report in `final_text`, checked against the repo at `main`."""
    timeout = float(config["timeout"])
    match = REPORT.search(final_text or "")
    worktree_line = WORKTREE_LINE.search(final_text or "")
    branch_line = BRANCH_LINE.search(final_text or "")
    if not match or not (worktree_line or branch_line):
        missing = "`BEAD <ID> COMPLETE`" if not match else "a `Worktree:` or `Branch:` line"
        return (match.group(1) if match else None), [Check(
            "report", "fail", f"the final message has no {missing}",
            "end the final message with: BEAD <ID> COMPLETE / Worktree: .worktrees/bd-<ID> / Branch: bd-<ID>")]
    bead = match.group(1)
    checks = [Check("report", "pass", f"names BEAD {bead}")]
    reported_branch = branch_line.group(1) if branch_line else None
    wt = find_worktree(main, bead, worktree_line.group(1).strip() if worktree_line else None, reported_branch, timeout)
    if wt is None:
        checks.append(Check("worktree", "fail", f"no worktree for {bead} (looked for .worktrees/bd-{bead}"
                            + (f" and branch {reported_branch}" if reported_branch else "") + ")",
                            f"git worktree add .worktrees/bd-{bead} -b bd-{bead}"))
        return bead, checks
    checks.append(_clean_check(wt, timeout))
    checks.append(_pushed_check(wt, bool(config["fetch"]), timeout))
    checks.append(_status_check(main, bead, config))
    return bead, checks


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
    if shutil.which("bd") is None:
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


def failures(checks: List[Check]) -> List[Check]:
    return [c for c in checks if c.status == "fail"]


def block_reason(bead: Optional[str], checks: List[Check]) -> str:
    """What the subagent is told: every failed check and the exact command that fixes it."""
    head = f"Completion check for BEAD {bead} failed" if bead else "Completion check failed"
    notes = [c.line() for c in checks if c.status == "skip"]
    return "\n".join([head + ":"] + [c.line() for c in failures(checks)]
                     + (["(not verified:)"] + notes if notes else [])
                     + ["Fix these, then finish again with the completion report."])


STATE_FILE = "completion-state.json"  # machine-local: blocks per agent, for the loop guard


def update_state(memory_dir: str, change) -> int:
    """Apply `change(state) -> int` to the loop-guard state under the store's lock; returns its result."""
    from memory import fsio, locking, store

    os.makedirs(memory_dir, exist_ok=True)
    path = os.path.join(memory_dir, STATE_FILE)
    with locking.exclusive(os.path.join(memory_dir, store.LOCK)):
        try:
            state = json.loads(fsio.read_bytes(path) or b"{}")
        except ValueError:
            state = {}
        result = change(state if isinstance(state, dict) else {})
        fsio.atomic_write(path, json.dumps(state, sort_keys=True).encode())
    return result


FRESH_AFTER = 900.0  # seconds: an agent's count starts over on a fresh stop this long after its last block


def record_block(state: Dict[str, dict], agent: str, continuing: bool, now: float) -> int:
    """Blocks so far for `agent` after this one. A continuation (stop_hook_active) keeps counting; so does
    any stop soon after a block, so a runtime that never sets stop_hook_active cannot trap an agent."""
    last = state.get(agent, {})
    recent = now - last.get("ts", 0) < FRESH_AFTER
    previous = last.get("blocks", 0) if continuing or recent else 0
    state[agent] = {"blocks": previous + 1, "ts": now}
    for key in [k for k, v in state.items() if now - v.get("ts", 0) > 86400]:
        del state[key]
    return previous + 1
