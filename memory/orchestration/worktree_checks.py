"""The completion gate's git checks of a bead's worktree: which checkout is the bead's (find_worktree), that it is
this repository's, the bead's, on the reported branch (identity), clean (clean), and pushed (pushed); each
failure with the command that fixes it, every git call under the gate's timeout."""
from __future__ import annotations

import os
import re

from memory.core import layout
from memory.orchestration.checks import Check, run
from memory.orchestration.completion import Report


def find_worktree(main: str, bead: str, worktree: str | None, branch: str | None, timeout: float) -> str | None:
    """The bead's worktree: the reported path, `.worktrees/bd-<ID>` (or a case variant), or the branch's."""
    candidates = []
    if worktree:
        candidates.append(worktree if os.path.isabs(worktree) else os.path.join(main, worktree))
    folder = os.path.join(main, ".worktrees")
    names = _bead_names(bead)
    if os.path.isdir(folder):
        candidates += [os.path.join(folder, n) for n in os.listdir(folder) if n.lower() in names]
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


def _bead_names(bead: str) -> set[str]:
    """The names a bead's worktree folder or branch goes by, lowercased: `BD-7`, `bd-BD-7`, `bd-7`."""
    return {bead.lower(), f"bd-{bead}".lower(), "bd-" + re.sub(r"^bd-", "", bead, flags=re.I).lower()}


def add_worktree(main: str, bead: str, timeout: float) -> str:
    """The command that makes the bead's worktree: on its branch when that exists already (`-b` then fails)."""
    code, _ = run(["git", "rev-parse", "--verify", "-q", f"refs/heads/bd-{bead}"], main, timeout)
    return f"git worktree add .worktrees/bd-{bead} " + (f"bd-{bead}" if code == 0 else f"-b bd-{bead}")


def identity(main: str, wt: str, report: Report, timeout: float) -> Check | None:
    """A failed check when the worktree found is not the one the report claims: a plain folder (git answers
    for the checkout around it), a checkout of another repository (its cleanliness says nothing of this bead),
    another bead's worktree, or on another branch than the `Branch:` line."""
    here, there = _common_dir(main, timeout), _common_dir(wt, timeout)
    if here and there and here != there and not _same_origin(main, wt, timeout):  # a clone of it counts too
        return Check("worktree", "fail", f"{wt} is not a worktree of this repository ({main})",
                     "report the bead's own worktree or clone of this repository")
    code, top = run(["git", "rev-parse", "--show-toplevel"], wt, timeout)
    top = os.path.realpath(top.strip()) if code == 0 and top.strip() else ""
    if top and top == os.path.realpath(main) != os.path.realpath(wt):  # a subfolder of a worktree is that worktree
        return Check("worktree", "fail", f"{wt} is a plain folder of the main checkout, not a worktree",
                     add_worktree(main, report.bead, timeout))
    branch = _current_branch(wt, timeout)
    folder = top or os.path.realpath(wt)
    under = os.path.basename(os.path.dirname(folder)) == ".worktrees"  # the convention's folder names a bead
    other = _other_bead(report.bead, ([os.path.basename(folder)] if under else []) + [branch])
    if other:
        return Check("worktree", "fail", f"{wt} (branch {branch or '?'}) is the worktree of bead {other}, not of "
                     f"{report.bead}", f"report the worktree of {report.bead}, or "
                     + add_worktree(main, report.bead, timeout))
    if report.branch and branch and branch != report.branch:
        return Check("worktree", "fail", f"{wt} is on branch {branch}, the report says Branch: {report.branch}",
                     f"correct the report's line to Branch: {branch}")
    return None


def _current_branch(wt: str, timeout: float) -> str:
    """The checkout's branch ("" when detached): its full name cut, never `--abbrev-ref`, which says
    `heads/bd-7` when a tag is named like the branch."""
    code, out = run(["git", "symbolic-ref", "-q", "HEAD"], wt, timeout)
    ref = out.strip() if code == 0 else ""
    return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ""


def _same_origin(main: str, wt: str, timeout: float) -> bool:
    """Both checkouts clone one remote (`origin`'s URL): a bead worked in a clone instead of a worktree."""
    urls = [run(["git", "config", "--get", "remote.origin.url"], folder, timeout) for folder in (main, wt)]
    return all(code == 0 and out.strip() for code, out in urls) and urls[0][1].strip() == urls[1][1].strip()


def _other_bead(bead: str, names: list[str]) -> str | None:
    """Another bead's ID when every `bd-<ID>`-shaped name of the worktree (its `.worktrees/` folder, its branch)
    names one (`bd-BD-1` for BEAD BD-6); None when one names this bead, alone or with more after it
    (`bd-BD-12-login`), or none is shaped so: `bd-` and an id holding a digit (`bd-tools` names no bead)."""
    mine = _bead_names(bead)
    shaped = [n for n in names if n and n.lower().startswith("bd-") and any(c.isdigit() for c in n[3:])]

    def ours(name: str) -> bool:
        return any(name.lower() == m or name.lower().startswith(m + sep) for m in mine for sep in "-_/.")

    if not shaped or any(ours(n) or ours(n[3:]) for n in shaped):
        return None
    return shaped[0][3:]


def _common_dir(folder: str, timeout: float) -> str | None:
    """The repository a checkout belongs to: its common git folder, resolved (None when git can't say)."""
    code, out = run(["git", "rev-parse", "--git-common-dir"], folder, timeout)
    return os.path.realpath(os.path.join(folder, out.strip())) if code == 0 and out.strip() else None


def clean(wt: str, timeout: float, memory_dir: str | None = None) -> Check:
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
        # `add -A` alone would commit `.worktrees/*` as embedded repositories, and the memory folder
        left_out = " ".join(f"'{part}'" for part in spec[1:])
        return Check("worktree", "fail", f"{len(dirty)} uncommitted change(s) in {wt} ({dirty[0].strip()}…)",
                     f'git -C "{wt}" add -A -- {left_out} && git -C "{wt}" commit -m "<message>"')
    return Check("worktree", "pass", f"{wt} is clean")


def pushed(wt: str, fetch: bool, timeout: float) -> Check:
    branch = _current_branch(wt, timeout) or "HEAD"
    if fetch:
        run(["git", "fetch", "--quiet"], wt, timeout)
    code, upstream = run(["git", "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"], wt, timeout)
    if code is None:
        return Check("pushed", "skip", upstream)
    if code != 0:
        return Check("pushed", "fail", f"branch {branch} has no upstream (never pushed)",
                     f'git -C "{wt}" push -u origin {branch}')
    upstream = upstream.strip()
    remote, _, their = upstream.partition("/")
    target = "@{u}"
    if their and branch != "HEAD" and their != branch:
        # made from origin/main (`git worktree add … -b bd-7 origin/main` tracks it): the bead's own branch on
        # that remote is what counts; `git push` alone refuses a differently named upstream
        own = f"{remote}/{branch}"
        code, _ = run(["git", "rev-parse", "--verify", "-q", f"refs/remotes/{own}"], wt, timeout)
        if code != 0:
            return Check("pushed", "fail", f"branch {branch} tracks {upstream}, and {own} does not exist (never "
                         "pushed)", f'git -C "{wt}" push -u {remote} {branch}')
        upstream, target = own, own
    code, ahead = run(["git", "rev-list", "--count", f"{target}..HEAD"], wt, timeout)
    if code is None:
        return Check("pushed", "skip", ahead)
    if code == 0 and ahead.strip() not in ("", "0"):
        push = "push" if target == "@{u}" else f"push -u {remote} {branch}"
        return Check("pushed", "fail", f"{ahead.strip()} commit(s) on {branch} not in {upstream}",
                     f'git -C "{wt}" {push}')
    return Check("pushed", "pass", f"{branch} is pushed to {upstream}"
                 + ("" if fetch else " (local refs; set fetch to refresh)"))
