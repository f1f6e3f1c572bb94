"""What every command-line entry point (recall.sh, memory-doctor) shares."""
from __future__ import annotations

import sys

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Callable


def prepare_stdout() -> None:
    """An emoji on a Latin-1 terminal is a `?`, not a traceback."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")


def run_cli(entry_point: Callable[[], int]) -> None:
    """Exit with `entry_point()`'s status; a closed pipe (`recall.sh … | head`) is not an error, and an
    emoji on a Latin-1 terminal is a `?`, not a traceback."""
    prepare_stdout()
    try:
        raise SystemExit(entry_point())
    except BrokenPipeError:
        sys.stderr.close()
        raise SystemExit(0) from None


# recall.sh's exit statuses: something found, nothing found, a usage error or an unreadable knowledge file,
# nothing written (full disk, read-only) or an unexpected failure
FOUND, NOTHING, USAGE, FAILED = 0, 1, 2, 3
READ_FAILED = USAGE


def cannot_read(exc: OSError, fallback: str) -> int:
    """Say which file could not be read and why, in one line on stderr; recall.sh's status for it."""
    print(f"recall.sh: cannot read {exc.filename or fallback}: {exc.strerror or exc}", file=sys.stderr)
    return READ_FAILED
