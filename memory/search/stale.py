"""Stale entries: not re-confirmed for a while, and naming files or symbols the repository no longer has.

A re-confirmation is any newer line of the same key (writing the entry again, a correction). What an entry
names: paths (`src/app.py`, `Makefile.toml`, `docs/`), and code symbols (backticked words, `CamelCase`,
`snake_case`, `dotted.names`, `call()`). Words with slashes are paths only where they look like one: in a
code span (backticks), or marked by a file extension, a trailing or leading slash, `./`, or a lowercase
part with a digit, dash, dot or underscore (`crates/uv-python`); never a scoped package (`@grafana/ui`), a
MIME type (`application/json`), a git ref (`origin/main`), a placeholder (`path/to/file`), or prose
(`and/or`, `before/after`, `macOS/Ubuntu`, `.rs/.py`). bench/stale_paths.py measures this on labelled texts.
Paths are checked against `git ls-files`, symbols with one bounded `git grep`; when git can't answer in time
nothing is called stale, and the callers say that nothing was checked. Nothing is removed: `recall.sh
--stale` lists, the agent or a person decides (`recall.sh --forget KEY`, or a correction).
"""
from __future__ import annotations

import os
import re
import subprocess
import time

from memory.core import paths

DEFAULT_DAYS = 180
GIT_TIMEOUT = 10.0
SYMBOLS_PER_GREP = 2000
_EXTENSIONS = ("py|js|jsx|ts|tsx|go|rs|rb|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|toml|yaml|yml|json|md|sql|proto|css|"
               "scss|html|vue|svelte|lock|cfg|ini")
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:" + _EXTENSIONS + r"))(?![\w/])")
_HAS_EXTENSION = re.compile(r"[\w-]\.(?:" + _EXTENSIONS + r"|[a-z]{2,8})$")
_BARE_EXTENSION = re.compile(r"\.(?:" + _EXTENSIONS + r")$")
_MARKED_PART = re.compile(r"^[a-z0-9._-]*[0-9._-][a-z0-9._-]*$")  # crates/uv-python, apps/api/v2
_MIME_TYPES = ("application", "audio", "font", "image", "message", "model", "multipart", "text", "video")
_GIT_REFS = ("origin", "upstream", "refs", "remotes", "heads", "tags")
_LIBRARY_JS = {"node", "day", "vue", "next", "nuxt", "three", "chart", "express", "ember", "backbone", "moment",
               "angular", "react", "alpine", "socket", "p5", "d3", "pixi", "babylon", "knockout", "meteor"}
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_BACKTICKED = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")
_CODE_WORD = re.compile(r"(?<![\w.])([a-z]+_[a-z0-9_]+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z]+[A-Z]\w*|"
                        r"[A-Za-z_]\w*(?=\(\)))(?![\w])")
_URLISH = re.compile(r"https?://\S+")


def named(text: str) -> tuple[set[str], set[str]]:
    """(paths, symbols) the text names."""
    paths, _, symbols = named_all(text)
    return paths, symbols


def named_all(text: str) -> tuple[set[str], set[str], set[str]]:
    """(paths, maybe paths, symbols) the text names. A maybe path is plain lowercase words with slashes
    outside a code span (`pkg/services/dashboards`, but also `data/logic/presentation`): `find` counts it
    only where its first part is a folder of the repository."""
    text = _URLISH.sub(" ", text)
    spans = [m.span() for m in _CODE_SPAN.finditer(text)]
    paths, maybe = set(), set()
    for match in _PATH.finditer(text):
        path = match.group(1).rstrip(".")
        in_code = any(start < match.start(1) < end for start, end in spans)
        verdict = is_path(path, in_code, text[match.start(1) - 1:match.start(1)], text[match.end(1):match.end(1) + 1])
        if verdict:
            paths.add(path)
        elif verdict is None:
            maybe.add(path)
    text = _PATH.sub(" ", text)  # a path's parts are not symbols of their own
    symbols = set(_BACKTICKED.findall(text)) | set(_CODE_WORD.findall(text))
    symbols = {s.rsplit(".", 1)[-1] for s in symbols if s not in paths}
    symbols = {s for s in symbols if len(s) >= 4}  # after the split: `config.` is no symbol, `os.ab` none of 4
    return {p for p in paths if len(p) >= 4}, maybe, symbols


def is_path(word: str, in_code: bool, before: str = "", after: str = "") -> bool | None:
    """Whether a path-shaped word (`_PATH`) names a file or folder of the repository (see the module's doc);
    None for plain lowercase words with slashes outside a code span, which prose writes too."""
    if word.startswith(("http", "www.")) or before in ("@", "*", "<", "{", "$") or after in ("#", "@") \
            or (after in ("*", "<", "{") and not word.endswith("/")):  # `pkg/services/<domain>/` is a folder
        return False
    parts = [part for part in word.split("/") if part]
    if not parts:
        return False
    if "/" not in word:  # a file name: the extension made it a candidate
        stem = word.rsplit(".", 1)[0]
        return not (word.endswith(".js") and stem.lower() in _LIBRARY_JS)  # Node.js, Day.js: libraries
    first = parts[0].lower()
    if (first in _MIME_TYPES and len(parts) == 2) or first in _GIT_REFS or word.lower().startswith("path/to/"):
        return False
    if all(_BARE_EXTENSION.match(part) for part in parts):
        return False  # `.rs/.py`: a list of file types
    if in_code or word.endswith("/") or word.startswith(("./", "../", "~/", "/")):
        return True
    if _HAS_EXTENSION.search(parts[-1]) or any(_MARKED_PART.match(part) for part in parts):
        return True
    return None if word == word.lower() else False  # `macOS/Ubuntu`, `JS/TS`, `OpenAPI/Swagger`: prose


def _git(root: str, args: list[str]) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", root, *args], capture_output=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL, env=paths.git_env())
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.decode("utf-8", "replace") if proc.returncode in (0, 1) else None


def _existing_paths(root: str, commit: str | None = None) -> set[str] | None:
    """The repository's paths (at `commit`, else the index), with every name `find` may look them up by."""
    listed = _git(root, ["ls-tree", "-r", "-z", "--name-only", commit] if commit else ["ls-files", "-z"])
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
        found.update("/".join(parts[i:]) for i in range(1, len(parts)))  # `a/b.py` for `x/a/b.py`
        found.update(part + FOLDER for part in parts[:-1])  # folder names, wherever they are (maybe paths)
        if "." in parts[-1]:  # an import path names a module without its extension (`mocks/server/db`)
            stem = path.rsplit(".", 1)[0].split("/")
            found.update("/".join(stem[i:]) for i in range(len(stem)))
    return found


FOLDER = "/\0"  # marks a folder name in _existing_paths' set (no path holds a NUL)


def _existing_symbols(root: str, symbols: set[str], commit: str | None = None) -> set[str] | None:
    """Which of `symbols` the repository's text files hold as a word (at `commit`, else the work tree)."""
    found: set[str] = set()
    ordered = sorted(symbols, key=lambda s: (-len(s), s))
    for start in range(0, len(ordered), SYMBOLS_PER_GREP):
        # One alternation, not one `-e` per symbol: git grep tries every pattern on every line, and with `-o`
        # 325 symbols took past the timeout on uv's 1,700 files (one alternation: 0.4 s; 1,800 symbols 0.5 s).
        # A symbol is a word (`named_all`): where the longest alternative fails `-w`, a shorter one does too.
        pattern = "|".join(re.escape(s) for s in ordered[start:start + SYMBOLS_PER_GREP])
        # the user's grep.lineNumber / grep.column / color settings would prefix or colour each word (as config,
        # not --no-column: a git before 2.19 refuses that option and nothing would be checked)
        out = _git(root, ["-c", "grep.lineNumber=false", "-c", "grep.column=false", "-c", "color.grep=never",
                          "grep", "-I", "-o", "-h", "-w", "-E", "-e", pattern, *([commit] if commit else []),
                          "--", ".", ":(exclude).beads"])  # the knowledge itself names them all
        if out is None:
            return None
        found.update(out.split())
    return found


def find(entries: list[dict], root: str, days: int = DEFAULT_DAYS,
         now: float | None = None) -> list[tuple[dict, list[str]]] | None:
    """Live entries older than `days` naming something gone, each with what is gone; None when git can't tell
    (not a repository, no git, or no answer within GIT_TIMEOUT): "nothing is stale" would be a false answer."""
    cutoff = (time.time() if now is None else now) - days * 86400
    old = [(e, *named_all(str(e.get("content", "")))) for e in entries
           if isinstance(e.get("ts"), (int, float)) and e["ts"] < cutoff]
    old = [(e, p, m, s) for e, p, m, s in old if p or m or s]
    if not old:
        return []
    paths = _existing_paths(root)
    symbols = _existing_symbols(root, set().union(*(s for _, _, _, s in old)))
    if paths is None or symbols is None:
        return None
    written = _written_at(root, [e for e, *_ in old])
    then = _as_written(root, old, written)
    stale = []
    for entry, sure, maybe, wanted_symbols in old:
        wanted_paths = sure | {p for p in maybe if p.split("/", 1)[0] + FOLDER in paths}
        gone = sorted(p for p in wanted_paths if p not in paths and not os.path.exists(os.path.join(root, p)))
        gone += sorted(s for s in wanted_symbols if s not in symbols)
        had = then.get(written.get(id(entry), ""))
        if had is not None:  # only what the repository had when the entry was written can be gone since
            gone = [name for name in gone if name in had[0] or name in had[1]]
        if gone:
            stale.append((entry, gone))
    return stale


MAX_COMMITS = 20  # commits whose trees are read (the most common among the entries); others are not checked


def _written_at(root: str, entries: list[dict]) -> dict[int, str]:
    """id(entry) -> the commit it was written at: its recorded `commit` (from capture) when git knows it, else
    HEAD's last commit before its day (imports and hand-written lines record none: a GitHub repository's name,
    an example file or a placeholder path in them were called gone). At most MAX_COMMITS days are asked about;
    past that an entry takes the nearest asked day before its own (what the repository had a little earlier:
    a name added since is not called gone, never the reverse)."""
    import bisect
    from collections import Counter

    recorded = Counter(e.get("commit") for e in entries if isinstance(e.get("commit"), str) and e.get("commit"))
    known = {commit for commit, _ in recorded.most_common(MAX_COMMITS)  # the trees read below: at most these
             if (_git(root, ["rev-parse", "--verify", "-q", f"{commit}^{{commit}}"]) or "").strip()}
    found = {}
    undated = []
    for entry in entries:
        if entry.get("commit") in known:
            found[id(entry)] = str(entry["commit"])
        else:  # none recorded, one git does not know, or past the most common: judged by its day
            undated.append(entry)
    days = sorted({int(e["ts"]) // 86400 for e in undated})
    if len(days) > MAX_COMMITS:
        days = [days[i * len(days) // MAX_COMMITS] for i in range(MAX_COMMITS)]
    at = {day: (_git(root, ["rev-list", "-1", f"--before={(day + 1) * 86400}", "HEAD"]) or "").strip() for day in days}
    for entry in undated:
        place = bisect.bisect_right(days, int(entry["ts"]) // 86400) - 1
        if place >= 0 and at[days[place]]:
            found[id(entry)] = at[days[place]]
    return found


def _as_written(root: str, old: list, written: dict[int, str]) -> dict[str, tuple[set[str], set[str]]]:
    """Per commit the entries were written at (`_written_at`): its (paths, symbols), so a name the repository
    never had (`tmp_path`, a file an entry only planned) is not called gone. An entry whose commit git does not
    know (a shallow clone, another repository) and that predates HEAD's history is judged as before."""
    from collections import Counter

    by_commit = Counter(written[id(e)] for e, *_ in old if written.get(id(e)))
    found = {}
    for commit, _ in by_commit.most_common(MAX_COMMITS):
        wanted = set().union(*(s for e, _, _, s in old if written.get(id(e)) == commit))
        paths, symbols = _existing_paths(root, commit), _existing_symbols(root, wanted, commit)
        if paths is not None and symbols is not None:
            found[commit] = (paths, symbols)
    return found
