"""What every check of the completion gate is made of: a named verdict with its fix (Check), and a subprocess under
the gate's timeout (run): memory.orchestration.worktree_checks (git) and completion_checks (the report, bd)."""
from __future__ import annotations

import subprocess

from memory.core import paths


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
