"""The installed copy's bytecode, written at install time.

Without it the first run of every hook after an install or an upgrade compiles each module it imports (about
30 ms a hook), and where PYTHONDONTWRITEBYTECODE is set every run does. A module whose source in this bundle has
a current .pyc for this interpreter gets that file (and the installed copy the source's mtime, which the .pyc
records); any other is compiled. The .pyc files are caches: each is written whole (temp file + rename), never
committed (the install folder's .gitignore), and rewritten by Python itself if it ever goes stale.
"""
from __future__ import annotations

import importlib.util
import os

from memory.core import fsio
from memory.install import bundle


def _current_pyc(source: str, data: bytes) -> bytes | None:
    """This interpreter's timestamp-based .pyc of `source`, if it matches the source as it is now."""
    try:
        st = os.stat(source)
        with open(importlib.util.cache_from_source(source), "rb") as fh:
            pyc = fh.read()
    except (OSError, NotImplementedError, ValueError):
        return None
    header_ok = (pyc[:4] == importlib.util.MAGIC_NUMBER and pyc[4:8] == b"\0\0\0\0"
                 and int.from_bytes(pyc[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                 and int.from_bytes(pyc[12:16], "little") == len(data) & 0xFFFFFFFF)
    return pyc if header_ok and len(pyc) > 16 else None


def ship(install_root: str) -> int:
    """Write the bytecode of every installed module beside it; returns how many. Never raises for one module."""
    written = 0
    for rel in bundle.code_files():
        if not rel.endswith(".py"):
            continue
        source, dest = bundle.source_path(rel), os.path.join(install_root, rel)
        try:
            with open(source, "rb") as fh:
                data = fh.read()
            with open(dest, "rb") as fh:
                if fh.read() != data:
                    continue  # not our file as shipped: Python compiles it when it runs it
            if _current_pyc(dest, data) is not None:
                continue  # already current (a second install changes nothing)
            cached = importlib.util.cache_from_source(dest)
            pyc = _current_pyc(source, data)
            os.makedirs(os.path.dirname(cached), exist_ok=True)
            if pyc is not None:
                st = os.stat(source)
                os.utime(dest, ns=(st.st_atime_ns, st.st_mtime_ns))
                fsio.atomic_write(cached, pyc, durable=False)
            else:
                import py_compile  # only when the bundle has no current .pyc to give

                try:
                    py_compile.compile(dest, cfile=cached, doraise=True)
                except py_compile.PyCompileError:
                    continue
            written += 1
        except (OSError, SyntaxError, NotImplementedError, ValueError):
            continue
    return written
