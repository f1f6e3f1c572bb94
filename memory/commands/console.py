"""The `memory-hooks` command of the Python package (pipx install / uv tool install / pip install).

    memory-hooks install [REPO]      what ./install.sh REPO does (same options: --dry-run, --no-venv, …)
    memory-hooks uninstall [REPO]    what ./install.sh --uninstall REPO does
    memory-hooks doctor              memory-doctor in the repository you are in
    memory-hooks recall …            recall.sh … (search, --add, --pin, --forget, …)
    memory-hooks import SOURCE       bring Claude Code's auto memory (claude) or bd memories (bd) in
    memory-hooks report [FILE.html]  one static HTML page about the knowledge
    memory-hooks --version

Each subcommand is the existing command line, unchanged: this file only dispatches.
"""
from __future__ import annotations

import sys

from memory import TYPE_CHECKING, __version__

if TYPE_CHECKING:
    from typing import Callable

USAGE = 2


def _install(argv: list[str]) -> int:
    from memory.install import cli

    return cli.main(argv)


def _uninstall(argv: list[str]) -> int:
    from memory.install import cli

    return cli.main(["--uninstall", *argv])


def _doctor(argv: list[str]) -> int:
    from memory.commands import doctor

    return doctor.main(argv)


def _recall(argv: list[str]) -> int:
    from memory.commands import recall

    return recall.main(argv)


def _import(argv: list[str]) -> int:
    from memory.capture import importer

    return importer.main(argv)


def _report(argv: list[str]) -> int:
    from memory.commands import report

    return report.main(argv)


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "install": (_install, "put memory-hooks into a git repository (default: this one), like ./install.sh"),
    "uninstall": (_uninstall, "take it out again (knowledge kept; --purge deletes it too)"),
    "doctor": (_doctor, "is memory-hooks healthy in this repository? (--repair, --json, --report [FILE.html])"),
    "recall": (_recall, "search the knowledge, or --add / --pin / --forget (recall.sh's options)"),
    "import": (_import, "bring existing memory in: `claude` (Claude Code's auto memory) or `bd` (bd memories)"),
    "report": (_report, "write one self-contained HTML page about the knowledge"),
}


def usage() -> str:
    lines = ["usage: memory-hooks COMMAND [ARGS…]   (memory-hooks COMMAND --help for its options)", "", "commands:"]
    lines += [f"  {name:<10} {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "  --version  print the version"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Dispatch to the subcommand's own command line; its exit status is ours."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    if not argv or argv[0] in ("-h", "--help"):
        (sys.stdout if argv else sys.stderr).write(usage())
        return 0 if argv else USAGE
    if argv[0] in ("--version", "-V"):
        print(f"memory-hooks {__version__}")
        return 0
    command = COMMANDS.get(argv[0])
    if command is None:
        sys.stderr.write(f"memory-hooks: no command {argv[0]!r}\n" + usage())
        return USAGE
    try:
        return command[0](argv[1:])
    except BrokenPipeError:  # `memory-hooks recall x | head`
        sys.stderr.close()
        return 0
