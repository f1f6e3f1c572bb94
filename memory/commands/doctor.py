"""memory-doctor (also `recall.sh --doctor`): is memory-hooks healthy here, and repair what it safely can.

Each line is OK, WARN or FAIL. Exit status: 0 all OK, 1 a warning, 2 a failure.
`--repair` (under the store's lock): finishes an interrupted rotation, moves malformed lines to
knowledge.corrupt.jsonl and drops byte-identical duplicate lines; nothing else is touched.
`--compact` (under the lock): folds the inbox's captures into knowledge.jsonl and rotates (memory.store.inbox);
commit right after.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import time

from memory import TYPE_CHECKING
from memory.core import fsio, layout, locking, paths, render
from memory.runtimes import registration
from memory.store import health, inbox, store

if TYPE_CHECKING:
    from collections.abc import Callable

OK, WARN, FAIL = "OK", "WARN", "FAIL"
EXIT = {OK: 0, WARN: 1, FAIL: 2}
Finding = tuple[str, str, str]  # (level, check, detail)


def _root_check(anchor: str, memory_dir: str) -> Finding:
    info = paths.git_info(anchor)
    if os.environ.get(paths.OVERRIDE_ENV):
        return OK, "memory root", f"{memory_dir} (from ${paths.OVERRIDE_ENV})"
    if info is None:
        return WARN, "memory root", f"{memory_dir} (not a git repository: knowledge is not shared through git)"
    if info.is_linked_worktree:
        return OK, "memory root", f"{memory_dir} (main checkout; you are in worktree {info.toplevel})"
    return OK, "memory root", f"{memory_dir} (main checkout)"


def _file_checks(memory_dir: str) -> list[Finding]:
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
                      + (" (memory-doctor --repair)" if level == WARN else "")))
    found.append(_inbox_check(memory_dir))
    if os.path.exists(store.path(memory_dir, store.CORRUPT)):
        n = store.read(store.path(memory_dir, store.CORRUPT)).lines
        found.append((WARN, "quarantine",
                      f"{store.CORRUPT} holds {n} line(s) moved out by repairs; review, then delete"))
    return found


def _inbox_check(memory_dir: str) -> Finding:
    count, held = health.inbox_health(memory_dir)
    level = WARN if held.malformed or held.duplicates or count > health.COMPACT_HINT else OK
    detail = (f"{count} capture file(s), {held.lines} lines, {held.malformed} malformed, {held.duplicates} duplicate"
              + (" (memory-doctor --repair)" if held.malformed or held.duplicates else ""))
    if count > health.COMPACT_HINT:
        detail += "; reads slow down: run memory-doctor --compact on a clean tree, then commit"
    probe = os.path.join(layout.INBOX, "probe" + inbox.SUFFIX)
    if os.path.isdir(memory_dir) and paths.git_lines(["check-ignore", "--no-index", probe], memory_dir, 5.0):
        return FAIL, "inbox", (f"{detail}; {layout.INBOX}/ is gitignored, so captures are never committed: add "
                               f"`!.beads/memory/{layout.INBOX}/` to .gitignore")
    return level, "inbox", detail


def _write_checks(memory_dir: str) -> list[Finding]:
    """A memory folder or knowledge file this user can't write loses every capture: FAIL, with the fix."""
    problems = health.write_problem(memory_dir)
    if not problems:
        return [(OK, "writable", f"{memory_dir} takes captures")]
    return [(FAIL, "writable", f"{problem} (until then no insight is stored)") for problem in problems]


def _capture_check(memory_dir: str) -> Finding:
    snap = store.load(memory_dir)
    if not snap.entries:
        return WARN, "last capture", "none yet (agents capture with: bd comment <ID> \"LEARNED: …\")"
    newest = max(e.get("ts", 0) for e in snap.entries if isinstance(e.get("ts", 0), (int, float)))
    when = render.clock(newest)
    live = len(store.latest(snap.entries, cache_dir=memory_dir))
    return OK, "last capture", f"{when}; {live} live key{'' if live == 1 else 's'} in the active file"


def _stale_check(memory_dir: str, tree: str) -> Finding:
    from memory.search import stale

    found = stale.find(store.latest(store.load(memory_dir).entries, cache_dir=memory_dir), tree)
    hint = " (recall.sh --stale lists them; nothing is removed)" if found else ""
    return OK, "stale", f"{len(found)} entr{'y' if len(found) == 1 else 'ies'} not re-confirmed for " \
                        f"{stale.DEFAULT_DAYS} days name files or symbols that are gone{hint}"


def _held_check(memory_dir: str) -> Finding:
    from memory.commands import review

    n = len(review.held_entries(memory_dir))
    if not n:
        return OK, "held", "no entry is held for review"
    return WARN, "held", (f"{n} entr{'y is' if n == 1 else 'ies are'} held for review and never shown to agents "
                          "(recall.sh --held lists them with why; recall.sh --approve KEY releases one)")


def _lock_check(memory_dir: str) -> list[Finding]:
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


def _registration_checks(tree: str) -> list[Finding]:
    """Each runtime's project file(s) that install.sh writes (memory.runtimes.runtimes.RUNTIMES): readable, our
    events all there, each running a hook file that is installed, in this version's command."""
    found: list[Finding] = []
    hooks_dir = os.path.join(tree, registration.INSTALL_DIR, "hooks")
    available = {n[:-3] for n in (os.listdir(hooks_dir) if os.path.isdir(hooks_dir) else []) if n.endswith(".py")}
    claude: list[tuple[str, str | None, dict]] = []
    for label, files, table, command in registration.RUNTIMES:
        handlers = []
        for rel in files:
            config, problem = _read_settings(tree, rel)
            if problem:
                found.append((FAIL, "registered", f"{problem}: {label} runs no hook from it (fix the file, then "
                                                  "re-run memory-hooks' install.sh)"))
            mine = registration.our_handlers(config)
            if mine:
                found.append((OK, "registered", f"{rel}: {registration.describe(mine)}"))
            handlers += mine
        if label == "Claude Code":
            claude = handlers
        if handlers:
            found += _handler_problems(label, handlers, table, command, available)
        if handlers:  # what the runtime's own settings say
            from memory.commands import runtime_checks

            why = runtime_checks.gemini_findings(tree, handlers) if label == "Gemini CLI" \
                else runtime_checks.codex_findings(tree, config) if label == "Codex CLI" \
                else runtime_checks.claude_findings(tree) if label == "Claude Code" else []
            found += [(WARN, "registered", f"{label}: {line}") for line in why]
    plugin = registration.plugin_enabled(tree)
    if plugin:
        found.append((OK, "registered", "the memory-hooks Claude Code plugin is enabled"))
        if claude:
            found.append((WARN, "duplicates", "plugin and settings both register the hooks (harmless: the plugin "
                                              "copy stays quiet, but remove one)"))
    left_out = registration.read_config(os.path.join(tree, registration.MANIFEST)).get("left_out", [])
    if not any(e == "SessionStart" for e, _, _ in claude) and not plugin and "claude" in left_out:
        found.append((OK, "registered", "Claude Code left out at install (--no-claude)"))
    elif not any(e == "SessionStart" for e, _, _ in claude) and not plugin:
        found.append((FAIL, "registered", "no SessionStart/PostToolUse hooks of ours in .claude/settings*.json "
                                          "(run memory-hooks' install.sh)"))
    return found


def _read_settings(tree: str, rel: str) -> tuple[dict, str | None]:
    """A runtime's settings object ({} when absent), or the reason the runtime can't read it."""
    try:
        with open(os.path.join(tree, rel), "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, f"{rel}: cannot be read ({exc.strerror or exc})"
    try:
        config = registration.parse_json_file(rel, data.decode("utf-8"))
    except UnicodeDecodeError:
        return {}, f"{rel}: not UTF-8 text"
    except registration.SettingsError as exc:
        return {}, str(exc).split("; ")[0]
    problems = registration.schema_problems(config, cursor=rel == registration.CURSOR_HOOKS, strict=False,
                                            gemini=rel == registration.GEMINI_SETTINGS)
    return config, (f"{rel}: not of the documented hooks shape ({'; '.join(problems[:3])})" if problems else None)


def _handler_problems(label: str, handlers: list[tuple[str, str | None, dict]], table: list,
                      command: Callable[[str], str], available: set[str]) -> list[Finding]:
    found: list[Finding] = []
    registered = [(event, matcher) for event, matcher, _ in handlers]
    missing = [f"{e}[{m}]" if m else e for hook, e, m, _ in table if hook in available and (e, m) not in registered]
    if missing:
        found.append((WARN, "registered", f"{label}: not registered for {', '.join(missing)} (re-run memory-hooks' "
                                          "install.sh)"))
    runs = [(event, matcher, registration.hook_of(handler)) for event, matcher, handler in handlers]
    doubled = sorted({f"{e}[{m}]" if m else e for e, m, hook in runs if runs.count((e, m, hook)) > 1})
    if doubled:  # the same hook twice on one event (two of ours on one event is by design)
        found.append((WARN, "duplicates", f"{label}: registered more than once: {', '.join(doubled)}"))
    for event, _, handler in handlers:
        hook = registration.hook_of(handler)
        if hook is None or hook not in available:
            found.append((FAIL, "registered", f"{label}: {event} runs {f'hooks/{hook}.py' if hook else 'a hook'}, "
                                              "which is not installed (re-run memory-hooks' install.sh)"))
        elif handler.get("command") != command(hook):
            found.append((WARN, "registered", f"{label}: {event} is registered by another version of install.sh "
                                              "(re-run memory-hooks' install.sh)"))
    return found


def _interpreter_check(tree: str) -> Finding:
    venv = os.path.join(tree, registration.INSTALL_DIR, ".venv", "bin", "python")
    python = venv if os.path.exists(venv) else "python3"
    try:
        proc = subprocess.run([python, "-c", "import sys\ntry:\n import orjson, filelock; m='orjson+filelock'\n"
                               "except ImportError: m='stdlib fallbacks'\nprint(m); print(sys.executable)"],
                              capture_output=True, text=True, timeout=10)
        mods, _, exe = proc.stdout.strip().partition("\n")
    except (OSError, subprocess.SubprocessError) as exc:
        return FAIL, "interpreter", f"{python} does not run ({exc})"
    if python == venv:
        return (OK if mods == "orjson+filelock" else WARN), "interpreter", f"{exe} (project virtualenv; {mods})"
    return WARN, "interpreter", f"{exe or python} (no project virtualenv: run install.sh; {mods})"


def _merge_check(tree: str) -> list[Finding]:
    """In a repository whose .gitattributes names our merge driver: is it set in this clone's git config
    (git never clones config), and did a merge stop on the knowledge files as text?"""
    from memory.store import gitmerge

    if not gitmerge.has_attributes(tree):
        return []
    fix = ".beads/memory/recall.sh --setup-git"
    stuck = gitmerge.unresolved(tree)
    if stuck:
        return [(FAIL, "merge", f"{', '.join(stuck)}: a merge stopped on git's text conflict (this clone had no "
                 f"merge driver); run: {fix} (it merges them again as data and stages them)")]
    if not gitmerge.configured(tree):
        return [(WARN, "merge driver", f"not set in this clone (git never clones config): the knowledge files "
                 f"merge as text, with conflicts; run once: {fix}")]
    return [(OK, "merge driver", f"git config merge.{gitmerge.DRIVER}.driver is set")]


def _redactions_check(memory_dir: str) -> list[Finding]:
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
                      f"(recall.sh --redact, recorded in {redactions.RECORDS}); run: memory-doctor --repair, "
                      "then commit .beads/memory"))
    for key in left.ambiguous:
        found.append((WARN, "redactions", f"the recorded redaction of `{key}` matches two entries of one capture "
                      "here: find the one that still holds the text (recall.sh WORD --all --history) and run "
                      "recall.sh --redact KEY on it"))
    return found or [(OK, "redactions", f"every recorded redaction is applied ({len(redactions.load(memory_dir))})")]


def _settings_checks(memory_dir: str) -> list[Finding]:
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


def _errors_check(memory_dir: str) -> Finding:
    path = os.path.join(memory_dir, layout.ERRORS)
    if not os.path.exists(path):
        return OK, "errors.log", "empty"
    lines = (fsio.read_bytes(path) or b"").decode("utf-8", "replace").splitlines()
    recent = time.time() - os.path.getmtime(path) < 86400
    return (WARN if recent else OK), "errors.log", f"{len(lines)} line(s); last: {lines[-1][:160] if lines else '-'}"


def diagnose(anchor: str, memory_dir: str) -> list[Finding]:
    """Every finding, in report order; a check that cannot run is itself a FAIL line."""
    info = paths.git_info(anchor)
    tree = info.toplevel if info else paths.project_root(anchor)
    steps = [("memory root", lambda: [_root_check(anchor, memory_dir)]),
             ("registered", lambda: _registration_checks(tree)),
             ("interpreter", lambda: [_interpreter_check(tree)]),
             ("merge driver", lambda: _merge_check(tree) if info else []),
             ("files", lambda: _file_checks(memory_dir)),
             ("writable", lambda: _write_checks(memory_dir)),
             ("redactions", lambda: _redactions_check(memory_dir)),
             ("lock", lambda: _lock_check(memory_dir)),
             ("last capture", lambda: [_capture_check(memory_dir)]),
             ("stale", lambda: [_stale_check(memory_dir, tree)]),
             ("held", lambda: [_held_check(memory_dir)]),
             ("settings", lambda: _settings_checks(memory_dir)),
             ("errors.log", lambda: [_errors_check(memory_dir)])]
    findings: list[Finding] = []
    for name, step in steps:
        try:
            findings += step()
        except OSError as exc:
            findings.append((FAIL, name, f"could not check: {exc}"))
    return findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memory-doctor", description=__doc__.split("\n\n")[0],
                                     epilog="Exit status: 0 all OK, 1 warnings, 2 failures.")
    parser.add_argument("--repair", action="store_true", help="quarantine malformed lines, drop duplicate lines")
    parser.add_argument("--compact", action="store_true",
                        help="fold the inbox into knowledge.jsonl and rotate (then commit)")
    parser.add_argument("--json", action="store_true", help="one JSON object, for machines")
    parser.add_argument("--report", metavar="FILE.html", nargs="?", const="",
                        help="write one static HTML page about the knowledge (nothing fetched; "
                             f"FILE.html or .beads/memory/{layout.REPORT}) and stop")
    parser.add_argument("--memory-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.report is not None:
        from memory.commands import report
        return report.write(args.report or None, args.memory_dir)
    anchor = os.environ.get("MEMORY_HOOKS_ANCHOR") or os.getcwd()
    memory_dir = args.memory_dir or paths.memory_dir(anchor)
    try:
        repaired = health.repair(memory_dir) if args.repair and os.path.isdir(memory_dir) else []
        failed: list[Finding] = []
    except OSError as exc:  # e.g. a folder this user can't write: the report says so (see "writable")
        repaired, failed = [], [(FAIL, "repair", f"could not repair: {exc.strerror or exc} ({exc.filename})")]
    if args.compact and os.path.isdir(memory_dir):
        try:
            repaired += health.compact(memory_dir)
        except locking.LockTimeout:
            repaired.append(f"not compacted: {store.LOCK} stayed busy; try again")
        except OSError as exc:
            failed.append((FAIL, "compact", f"could not compact: {exc.strerror or exc} ({exc.filename})"))
    findings = failed + diagnose(anchor, memory_dir)
    worst = max((EXIT[level] for level, _, _ in findings), default=0)
    if args.json:
        print(json.dumps({"status": [OK, WARN, FAIL][worst], "memory_dir": memory_dir, "repaired": repaired,
                          "checks": [{"level": lv, "check": c, "detail": d} for lv, c, d in findings]}, indent=2))
    else:
        for line in repaired:
            print(f"repair  {line}")
        for level, check, detail in findings:
            print(f"{level:<5} {check:<13} {detail}")
    return worst


if __name__ == "__main__":
    from memory.core.cli import run_cli

    run_cli(main)
