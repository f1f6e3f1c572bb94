"""memory-doctor's checks of the memory folder: where it is, its files (health, the inbox, the quarantine),
whether it takes captures, the lock, the last capture, stale, held and replaced entries, the recorded
redactions, the settings files and errors.log. Each check returns findings: (level, check, detail)."""
from __future__ import annotations

import os
import time

from memory.core import fsio, layout, locking, paths, render
from memory.store import health, inbox, store

OK, WARN, FAIL = "OK", "WARN", "FAIL"
REPAIR = ".beads/memory/recall.sh --doctor --repair"  # memory-doctor is on PATH only after a pipx install
Finding = tuple[str, str, str]  # (level, check, detail)


def root_check(anchor: str, memory_dir: str) -> Finding:
    info = paths.git_info(anchor)
    if os.environ.get(paths.OVERRIDE_ENV):
        return OK, "memory root", f"{memory_dir} (from ${paths.OVERRIDE_ENV})"
    if info is None:
        refusal = git_refusal(anchor)
        if refusal:
            return WARN, "memory root", f"{memory_dir}: {refusal}"
        return WARN, "memory root", f"{memory_dir} (not a git repository: knowledge is not shared through git)"
    if info.is_linked_worktree:
        return OK, "memory root", f"{memory_dir} (main checkout; you are in worktree {info.toplevel})"
    return OK, "memory root", f"{memory_dir} (main checkout)"


def git_refusal(anchor: str) -> str | None:
    """Why git would not answer in `anchor` when that is not "no repository here": git missing, or a repository
    it refuses (owned by another user: "dubious ownership"), said with git's own fix."""
    import subprocess

    try:
        proc = subprocess.run(["git", "-C", anchor, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                              errors="replace", timeout=paths.GIT_TIMEOUT, stdin=subprocess.DEVNULL,
                              env=paths.git_env())
    except FileNotFoundError:
        return "git is not installed or not on PATH"
    except (OSError, subprocess.SubprocessError):
        return None
    if "dubious ownership" not in proc.stderr:
        return None
    fix = next((line.strip() for line in proc.stderr.splitlines() if "safe.directory" in line
                and line.strip().startswith("git ")), "git config --global --add safe.directory <the repository>")
    return f"git refuses this repository, owned by another user (dubious ownership), so knowledge is not shared " \
        f"through git and worktrees are not found; if you trust it: {fix}"


def file_checks(memory_dir: str) -> list[Finding]:
    found = []
    for name in (store.ACTIVE, store.ARCHIVE):
        path = store.path(memory_dir, name)
        if os.path.islink(path):
            found.append((FAIL, name, f"is a symlink to {os.readlink(path)}: hooks refuse to write through it"))
            continue
        if not os.path.exists(path):
            empty = name == store.ACTIVE and not inbox.names(memory_dir)
            found.append((WARN if empty else OK, name, "missing" + (" (nothing captured yet)" if empty else "")))
            continue
        found_health = health.health(path)
        level = OK if found_health.healthy else WARN
        size = os.path.getsize(path) / 1024
        torn = ", an unterminated last line" if found_health.unterminated else ""
        found.append((level, name, f"{found_health.lines} lines, {size:.1f} KiB, {found_health.malformed} malformed, "
                                   f"{found_health.duplicates} duplicate{torn}"
                      + (" (recall.sh --doctor --repair)" if level == WARN else "")))
    found.append(_inbox_check(memory_dir))
    if os.path.exists(store.path(memory_dir, store.CORRUPT)):
        n = store.read(store.path(memory_dir, store.CORRUPT)).lines
        found.append((WARN, "quarantine",
                      f"{store.CORRUPT} holds {n} line(s) moved out by repairs; review, then delete"))
    return found


def _inbox_check(memory_dir: str) -> Finding:
    if inbox.linked(memory_dir):
        return FAIL, "inbox", (f"{layout.INBOX}/ is a symbolic link: no capture is stored and nothing there is "
                               f"read; remove the link (git rm .beads/memory/{layout.INBOX}), the next capture makes "
                               "the folder")
    count, held = health.inbox_health(memory_dir)
    level = WARN if held.malformed or held.duplicates or count > health.COMPACT_HINT else OK
    detail = (f"{count} capture file(s), {held.lines} lines, {held.malformed} malformed, {held.duplicates} duplicate"
              + (" (recall.sh --doctor --repair)" if held.malformed or held.duplicates else ""))
    if count > health.COMPACT_HINT:
        detail += "; reads slow down: run .beads/memory/recall.sh --doctor --compact on a clean tree, then commit"
    bad = inbox.bad_names(memory_dir)
    if bad:
        level = WARN
        detail += (f"; {len(bad)} not read (not a regular file this user may read: a symlink, a folder, no "
                   f"permission): {', '.join(bad[:3])}{' …' if len(bad) > 3 else ''}; remove them or fix them")
    probe = os.path.join(layout.INBOX, "probe" + inbox.SUFFIX)
    if os.path.isdir(memory_dir) and paths.git_lines(["check-ignore", "--no-index", probe], memory_dir, 5.0):
        return FAIL, "inbox", (f"{detail}; {layout.INBOX}/ is gitignored, so captures are never committed: add "
                               f"`!.beads/memory/{layout.INBOX}/` to .gitignore")
    return level, "inbox", detail


def write_checks(memory_dir: str) -> list[Finding]:
    """A memory folder or knowledge file this user can't write loses every capture: FAIL, with the fix."""
    problems = health.write_problem(memory_dir)
    if not problems:
        return [(OK, "writable", f"{memory_dir} takes captures")]
    return [(FAIL, "writable", f"{problem} (until then no insight is stored)") for problem in problems]


def capture_check(memory_dir: str) -> Finding:
    snap = store.load(memory_dir)
    if not snap.entries:
        return WARN, "last capture", "none yet (agents capture with: bd comment <ID> \"LEARNED: …\")"
    newest = max(e.get("ts", 0) for e in snap.entries if isinstance(e.get("ts", 0), (int, float)))
    when = render.clock(newest)
    live = len(store.latest(snap.entries, cache_dir=memory_dir))
    return OK, "last capture", f"{when}; {live} live key{'' if live == 1 else 's'} in the active file"


def stale_check(memory_dir: str, tree: str) -> Finding:
    from memory.search import stale

    found = stale.find(store.latest(store.load(memory_dir).entries, cache_dir=memory_dir), tree)
    if found is None:
        return OK, "stale", (f"not checked: git could not list the repository's files and symbols (not a git "
                             f"repository, or no answer within {stale.GIT_TIMEOUT:.0f} s)")
    hint = " (recall.sh --stale lists them; nothing is removed)" if found else ""
    return OK, "stale", f"{len(found)} entr{'y' if len(found) == 1 else 'ies'} not re-confirmed for " \
                        f"{stale.DEFAULT_DAYS} days name files or symbols that are gone{hint}"


def replaced_check(memory_dir: str) -> Finding:
    """Live keys whose text replaced a different insight that opened with the same 60 characters (both under the
    automatic key): latest per key keeps the earlier one out of view. A reply line's capture or a merge of two
    clones' inboxes makes them without anyone being told at the time."""
    from memory.store import entry, view

    lines = store.load(memory_dir).entries
    live = {str(e["key"]): e for e in view.latest(lines, include_held=True, every_copy=True)}
    found = []
    for line in lines:
        key, content = line.get("key"), line.get("content")
        latest = live.get(str(key))
        if latest is None or view.is_control(line) or not isinstance(content, str) or line is latest \
                or key in found or entry.make_key(str(line.get("type")), content) != key \
                or entry.make_key(str(latest.get("type")), str(latest.get("content"))) != key \
                or view.same_text(content) == view.same_text(latest.get("content")):
            continue
        found.append(key)
    if not found:
        return OK, "replaced", "no live entry took the automatic key of a different insight"
    listed = ", ".join(f"`{k}`" for k in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return OK, "replaced", (f"{len(found)} live entr{'y' if len(found) == 1 else 'ies'} replaced a different insight "
                            f"that opened with the same 60 characters: {listed} (recall.sh KEY --history shows "
                            "both; to keep both, add the other again with other opening words)")


def held_check(memory_dir: str) -> Finding:
    from memory.commands import review

    n = len(review.held_entries(memory_dir))
    if not n:
        return OK, "held", "no entry is held for review"
    return WARN, "held", (f"{n} entr{'y is' if n == 1 else 'ies are'} held for review and never shown to agents "
                          "(recall.sh --held lists them with why; recall.sh --approve KEY releases one)")


def lock_check(memory_dir: str) -> list[Finding]:
    found = []
    lock = store.path(memory_dir, store.LOCK)
    holder = (fsio.read_bytes(lock) or b"").decode("ascii", "replace").strip()
    if locking.is_held(lock):
        alive = holder.isdigit() and _pid_alive(int(holder))
        found.append((OK if alive else FAIL, "lock", f"held by pid {holder or '?'}"
                      + ("" if alive else " which is not running (a stale lock on a network filesystem?)")))
    else:
        found.append((OK, "lock", "free"))
    parked = store.parked(memory_dir)
    if parked:
        found.append((WARN, "pending", f"{len(parked)} capture(s) parked in {store.SPOOL}/ while the lock was "
                                       "busy; the next write (or --repair) merges them"))
    if health.rotation_pending(memory_dir):
        found.append((WARN, "rotation", "an interrupted rotation is pending; the next write or --repair finishes it"))
    return found


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def redactions_check(memory_dir: str) -> list[Finding]:
    """Another clone's `recall.sh --redact` (recorded in redactions.jsonl) not applied to this clone's files:
    a line here still holds what it took out (memory.store.redactions)."""
    from memory.store import redaction_apply, redactions

    if not os.path.exists(os.path.join(memory_dir, redactions.RECORDS)):
        return []
    left = redaction_apply.pending(memory_dir)
    found: list[Finding] = []
    if left.lines:
        files = ", ".join(f"{n} in {name}" for name, n in left.rewritten.items())
        found.append((FAIL, "redactions", f"{left.lines} line(s) ({files}) still hold text another clone redacted "
                      f"(recall.sh --redact, recorded in {redactions.RECORDS}); run: {REPAIR}, then commit "
                      ".beads/memory"))
    if left.records_healed:
        found.append((FAIL, "redactions", f"{left.records_healed} record(s) of {redactions.RECORDS} name a key "
                      f"another clone's redaction renamed (it held that clone's secret); run: {REPAIR}, then commit "
                      ".beads/memory"))
    for key in left.ambiguous:
        found.append((WARN, "redactions", f"the recorded redaction of `{key}` matches two entries of one capture "
                      "here: find the one that still holds the text (recall.sh WORD --all --history) and run "
                      "recall.sh --redact KEY on it"))
    return found or [(OK, "redactions", f"every recorded redaction is applied ({len(redactions.load(memory_dir))})")]


def settings_checks(memory_dir: str) -> list[Finding]:
    """config.json and completion.json: a setting misspelt or of the wrong type is ignored by the hooks, silently
    (they use the default): say which."""
    from memory.core import config
    from memory.orchestration import completion

    found: list[Finding] = []
    for name, defaults in ((layout.CONFIG, config.DEFAULTS), (layout.COMPLETION_CONFIG, completion.DEFAULTS)):
        path = os.path.join(memory_dir, name)
        if os.path.exists(path):
            problems = config.read_settings(path, defaults)[1]
            found.append((WARN, "settings", f"{name}: " + "; ".join(problems)) if problems
                         else (OK, "settings", f"{name}: every setting taken"))
    return found


def errors_check(memory_dir: str) -> list[Finding]:
    """errors.log of the memory folder, and the lines about it in the per-user one (errorlog.fallback_dir: where
    the hooks write when this folder could not be written, which is when captures were lost)."""
    from memory.core import errorlog

    found = []
    path = os.path.join(memory_dir, layout.ERRORS)
    if not os.path.exists(path):
        found.append((OK, "errors.log", "empty"))
    elif not os.path.isfile(path):
        found.append((WARN, "errors.log", f"{path} is not a file: the hooks' errors go to the per-user log"))
    else:
        lines = (fsio.read_bytes(path) or b"").decode("utf-8", "replace").splitlines()
        recent = time.time() - os.path.getmtime(path) < 86400
        found.append(((WARN if recent else OK), "errors.log",
                      f"{len(lines)} line(s); last: {lines[-1][:160] if lines else '-'}"))
    fallback = os.path.join(errorlog.fallback_dir(), layout.ERRORS)
    mine = f" memory={os.path.abspath(memory_dir)}"
    ours = [line for line in (fsio.read_bytes(fallback) or b"").decode("utf-8", "replace").splitlines()
            if line.endswith(mine)] if os.path.isfile(fallback) else []
    if ours:
        recent = time.time() - os.path.getmtime(fallback) < 86400
        found.append(((WARN if recent else OK), "errors elsewhere",
                      f"{len(ours)} line(s) about this memory in {fallback} (written there because this folder "
                      f"could not be); last: {ours[-1][:160]}"))
    return found
