"""memory-doctor (also `recall.sh --doctor`): is memory-hooks healthy here, and repair what it safely can.

Each line is OK, WARN or FAIL. Exit status: 0 all OK, 1 a warning, 2 a failure.
`--repair` (under the store's lock): finishes an interrupted rotation, moves malformed lines to
knowledge.corrupt.jsonl and drops byte-identical duplicate lines; nothing else is touched.
`--compact` (under the lock): folds the inbox's captures into knowledge.jsonl and rotates (memory.store.inbox);
commit right after.

The checks: memory.commands.memory_checks (the memory folder), memory.commands.setup_checks (the installation).
"""
from __future__ import annotations

import argparse
import json
import os

from memory.commands import memory_checks, setup_checks
from memory.commands.memory_checks import FAIL, OK, WARN, Finding
from memory.core import layout, locking, paths
from memory.store import health, store

EXIT = {OK: 0, WARN: 1, FAIL: 2}


def diagnose(anchor: str, memory_dir: str) -> list[Finding]:
    """Every finding, in report order; a check that cannot run is itself a FAIL line."""
    info = paths.git_info(anchor)
    tree = info.toplevel if info else paths.project_root(anchor)
    steps = [("memory root", lambda: [memory_checks.root_check(anchor, memory_dir)]),
             ("registered", lambda: setup_checks.registration_checks(tree)),
             ("interpreter", lambda: [setup_checks.interpreter_check(tree)]),
             ("merge driver", lambda: setup_checks.merge_check(tree) if info else []),
             ("review status", lambda: setup_checks.review_status_check(tree, memory_dir)),
             ("files", lambda: memory_checks.file_checks(memory_dir)),
             ("writable", lambda: memory_checks.write_checks(memory_dir)),
             ("redactions", lambda: memory_checks.redactions_check(memory_dir)),
             ("lock", lambda: memory_checks.lock_check(memory_dir)),
             ("last capture", lambda: [memory_checks.capture_check(memory_dir)]),
             ("stale", lambda: [memory_checks.stale_check(memory_dir, tree)]),
             ("held", lambda: [memory_checks.held_check(memory_dir)]),
             ("replaced", lambda: [memory_checks.replaced_check(memory_dir)]),
             ("settings", lambda: memory_checks.settings_checks(memory_dir)),
             ("errors.log", lambda: memory_checks.errors_check(memory_dir))]
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
        except health.CompactRefused as refused:
            failed.append((FAIL, "compact", str(refused)))
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
