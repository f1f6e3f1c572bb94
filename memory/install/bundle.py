"""What install.sh ships: the files of ours copied into a target's INSTALL_DIR, and where this copy came from.

The installer itself (memory/install) never ships: a target gets only what its hooks and commands run.
"""
from __future__ import annotations

import functools
import os

from memory.core import paths

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the clone (or site-packages)
DATA_PACKAGE = "memory_hooks"  # installed from a wheel: hooks/, bin/ and requirements*.txt are this package's data


def data_root() -> str:
    """Where hooks/, bin/ and the requirements files are: the clone, or beside the installed `memory` package
    the DATA_PACKAGE folder that pyproject.toml ships them in (pip, pipx and uv install the wheel there)."""
    packaged = os.path.join(SOURCE, DATA_PACKAGE)
    if not os.path.isdir(os.path.join(SOURCE, "hooks")) and os.path.isdir(os.path.join(packaged, "hooks")):
        return packaged
    return SOURCE


def source_path(rel: str) -> str:
    """The file of ours a shipped path (relative to INSTALL_DIR, as code_files() names it) is copied from."""
    top = rel.split(os.sep, 1)[0]
    return os.path.join(SOURCE if top == "memory" else data_root(), rel)


@functools.lru_cache(maxsize=1)  # one walk of the bundle per run (a plan, the bytecode and the report ask)
def code_files() -> tuple[str, ...]:
    """The files of ours that go into the target's INSTALL_DIR (paths relative to it; source_path() finds each)."""
    files: list[str] = []
    for folder, suffixes in (("hooks", (".py",)), ("memory", (".py",)), ("bin", ("",))):
        root = SOURCE if folder == "memory" else data_root()
        for here, dirs, names in os.walk(os.path.join(root, folder)):
            rel = os.path.relpath(here, root)
            # the installer itself never ships: the target gets only what the hooks and commands run
            dirs[:] = sorted(d for d in dirs if os.path.join(rel, d) != os.path.join("memory", "install")
                             and not d.startswith((".", "__")))
            files += [os.path.join(rel, name) for name in sorted(names)
                      if name.endswith(suffixes) and not name.startswith(".")
                      and os.path.isfile(os.path.join(here, name))]
    return (*sorted(files), "requirements.txt")


def source_url() -> str | None:
    """Where this copy of memory-hooks came from (its clone's origin, credentials dropped), or None."""
    top = paths.git_lines(["rev-parse", "--show-toplevel"], SOURCE, 30.0)
    if not top or os.path.realpath(top[0]) != os.path.realpath(SOURCE):
        return None  # not a clone of its own (vendored into another repository), or no git: its origin is not ours
    url = "".join(paths.git_lines(["remote", "get-url", "origin"], SOURCE, 30.0)).strip()
    if not any(mark in url for mark in "@?#"):  # no credentials to drop (and no urllib.parse to import, ~2 ms)
        return url or None
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.scheme:  # never into a tracked file: https://user:token@host/…, …/repo.git?private_token=…
        netloc = parts.netloc.rsplit("@", 1)[1] if "@" in parts.netloc else parts.netloc
        url = urlunsplit(parts._replace(netloc=netloc, query="", fragment=""))
    return url or None
