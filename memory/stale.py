"""Stale entries: not re-confirmed for a while, and naming files or symbols the repository no longer has.

A re-confirmation is any newer line of the same key (writing the entry again, a correction). What an entry
names: path-like words (`src/app.py`, `Makefile.toml`, `docs/`), and code symbols (backticked words,
`CamelCase`, `snake_case`, `dotted.names`, `call()`). Paths are checked against `git ls-files`, symbols
with one bounded `git grep`; when git can't answer in time nothing is called stale. Nothing is removed:
`recall.sh --stale` lists, the agent or a person decides (`recall.sh --forget KEY`, or a correction).
"""
from __future__ import annotations

import os
import re
import subprocess
import time

DEFAULT_DAYS = 180
GIT_TIMEOUT = 10.0
MAX_SYMBOLS = 500
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:py|js|jsx|ts|tsx|go|rs|rb|java|kt|swift|c|h|cc|cpp|"
                   r"hpp|cs|php|sh|toml|yaml|yml|json|md|sql|proto|css|scss|html|vue|svelte|lock|cfg|ini))(?![\w/])")
_BACKTICKED = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")
_CODE_WORD = re.compile(r"(?<![\w.])([a-z]+_[a-z0-9_]+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z]+[A-Z]\w*|"
                        r"[A-Za-z_]\w*(?=\(\)))(?![\w])")
_URLISH = re.compile(r"https?://\S+")


def named(text: str) -> tuple[set[str], set[str]]:
    """(paths, symbols) the text names."""
    text = _URLISH.sub(" ", text)
    paths = {p.rstrip(".") for p in _PATH.findall(text) if not p.startswith(("http", "www."))}
    text = _PATH.sub(" ", text)  # a path's parts are not symbols of their own
    symbols = set(_BACKTICKED.findall(text)) | set(_CODE_WORD.findall(text))
    symbols = {s.rsplit(".", 1)[-1] for s in symbols if s not in paths and len(s) >= 4}
    return {p for p in paths if len(p) >= 4}, symbols


def _git(root: str, args: list[str]) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", root, *args], capture_output=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.decode("utf-8", "replace") if proc.returncode in (0, 1) else None


def _existing_paths(root: str) -> set[str] | None:
    listed = _git(root, ["ls-files", "-z"])
    if listed is None:
        return None
    found = set()
    for path in listed.split("\0"):
        if not path:
            continue
        parts = path.split("/")
        found.add(path)
        found.add(parts[-1])
        found.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
        found.update("/".join(parts[i:]) for i in range(1, len(parts)))  # `memory/store.py` for `x/memory/store.py`
    return found


def _existing_symbols(root: str, symbols: set[str]) -> set[str] | None:
    if not symbols:
        return set()
    args = ["grep", "-I", "-o", "-h", "-w", "-F"]
    for symbol in sorted(symbols)[:MAX_SYMBOLS]:
        args += ["-e", symbol]
    out = _git(root, args + ["--", ".", ":(exclude).beads"])  # the knowledge itself names them all
    return None if out is None else set(out.split())


def find(entries: list[dict], root: str, days: int = DEFAULT_DAYS,
         now: float | None = None) -> list[tuple[dict, list[str]]]:
    """Live entries older than `days` naming something gone, each with what is gone; [] when git can't tell."""
    cutoff = (time.time() if now is None else now) - days * 86400
    old = [(e, *named(str(e.get("content", "")))) for e in entries
           if isinstance(e.get("ts"), (int, float)) and e["ts"] < cutoff]
    old = [(e, p, s) for e, p, s in old if p or s]
    if not old:
        return []
    paths = _existing_paths(root)
    symbols = _existing_symbols(root, set().union(*(s for _, _, s in old)))
    if paths is None or symbols is None:
        return []
    stale = []
    for entry, wanted_paths, wanted_symbols in old:
        gone = sorted(p for p in wanted_paths if p not in paths and not os.path.exists(os.path.join(root, p)))
        gone += sorted(s for s in wanted_symbols if s not in symbols)
        if gone:
            stale.append((entry, gone))
    return stale
