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
