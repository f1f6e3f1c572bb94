"""File-scoped knowledge: which live entries are about a file, its directory or its kind.

An entry is about `src/api/routes.py` when it names that path (`src/api/routes.py`, `api/routes.py`,
`routes.py`), a folder on it (`src/api/`, "the api folder"), its extension (`*.py`), the words of its
area (`api`, `routes`, or its kind: `python`, `pytest` for a test file), or when it was captured by a session
that had changed the file (provenance `files` and `edited`, memory.capture.provenance; a file it only read counts
for less). Each cue has a weight
(Params); an entry is about the file when its cues add up to the bar (`action_file_min_score` in config.json).

The cues of every live entry sit in a derived, machine-local file (layout.PATH_CUES, marshal: built by
memory.search.path_cues, with the error lines each entry was captured after), rebuilt when the knowledge
changes, so the hook that runs before every file read answers with one small read and a few dict lookups:
this module holds all that look-up needs (`load_saved`, `scores`), and nothing else.
"""
from __future__ import annotations

import marshal
import os

from memory import TYPE_CHECKING
from memory.core import fsio, layout

if TYPE_CHECKING:
    from typing import Callable

VERSION = 8
# folder and file words too common to say what area a file is in
GENERIC = frozenset((
    "src", "lib", "libs", "crates", "app", "apps", "pkg", "pkgs", "packages", "package", "internal", "cmd", "test",
    "tests", "spec", "specs", "doc", "docs", "bin", "scripts", "script", "util", "utils", "common", "core", "main",
    "build", "dist", "out", "public", "static", "assets", "vendor", "include", "source", "sources", "index", "init",
    "mod", "config", "configs", "tmp", "home", "root", "usr", "work", "repo", "project", "file", "files", "dir",
    "folder", "code", "module", "modules", "new", "old", "data", "py", "js", "ts"))
GENERIC_BASENAMES = frozenset((
    "__init__.py", "index.js", "index.ts", "index.tsx", "index.jsx", "mod.rs", "main.go", "main.py", "lib.rs",
    "readme.md", "setup.py", "conftest.py"))
# the kind of a file: words an entry about such files uses
KIND_WORDS = {
    "py": ("python",), "pyi": ("python",), "ipynb": ("jupyter", "notebook"), "js": ("javascript", "node"),
    "jsx": ("react",), "ts": ("typescript",), "tsx": ("react", "typescript"), "vue": ("vue",),
    "svelte": ("svelte",), "go": ("golang",), "rs": ("rust", "cargo"), "rb": ("ruby", "rails"), "php": ("php",),
    "java": ("java",), "kt": ("kotlin",), "swift": ("swift",), "sql": ("sql",), "sh": ("shell", "bash"),
    "tf": ("terraform",), "proto": ("protobuf", "grpc"), "graphql": ("graphql",), "css": ("css",),
    "scss": ("scss", "sass"), "dockerfile": ("docker",), "cs": ("csharp",), "c": ("gcc",), "cpp": ("cpp",),
}
TEST_WORDS = {"py": ("pytest",), "js": ("jest", "vitest"), "ts": ("jest", "vitest"), "tsx": ("jest", "vitest"),
              "go": ("testing",), "rs": ("cargo",), "rb": ("rspec",)}


def _is_test_name(name: str) -> bool:
    return name.startswith("test_") or any(mark in name for mark in ("_test.", ".test.", ".spec.", "_spec."))


class Params:
    """Cue weights; the bar they must add up to is config.json's `action_file_min_score`."""

    path = 4.0  # the file's path, two or more segments (`api/routes.py`)
    basename = 3.0  # its file name alone (`routes.py`)
    generic_basename = 1.0  # a name many folders have (`__init__.py`, `index.ts`)
    provenance = 3.0  # the entry was captured by a session that had changed this file
    # ... that had only read it: one file of the several a session reads (AGENTS.md, a neighbour, a config), so
    # something else must say so too (a word of its path, its folder, its kind). Judged on a blind set of
    # sessions (bench/relevance/source/PROVENANCE.md): at 3.0, 52 of 52 incidental files brought the entry
    read_provenance = 1.5
    folder = 2.0  # a folder on its path, named with a slash (`src/api/`) or as "the api folder"
    word = 1.0  # a word of its folders or of its file name (`alembic`, `routes`), at most `max_words`
    rare_folder_word = 2.0  # a folder word only `rare` entries have: the framework or area (`alembic/`)
    rare = 2
    max_words = 2
    extension = 1.0  # its extension (`*.tsx`, `.py files`)
    kind = 1.0  # its kind (`python`; `pytest` for a test file), once
    # a word in more than this share of the entries (and more than `common_min` of them) says nothing
    # about one file: in a Python project `python` does not make an entry about every .py file
    common_share = 0.05
    common_min = 3


def fingerprint(memory_dir: str) -> list[int] | None:
    """What the map was built from: the active knowledge's identity, knowledge.jsonl and the inbox
    (memory.store.inbox), and the archive's (its live entries are mapped too: memory.store.archived); None
    when there is no knowledge."""
    from memory.store import inbox

    active, archive = inbox.identity(memory_dir), fsio.identity(os.path.join(memory_dir, layout.ARCHIVE))
    if active is None and archive is None:
        return None
    return list(active or (0, 0, 0, 0)) + list(archive or (0, 0, 0, 0))


def load_saved(memory_dir: str, fp: list[int], with_entries: bool = True) -> dict | None:
    """The saved cue map when it was built from the knowledge as it is (`fp`), else None. Without
    `with_entries` only the look-ups are parsed (the entries' texts and recorded errors are the larger part:
    `nothing to add` never needs them)."""
    try:
        with os.fdopen(fsio.open_regular(os.path.join(memory_dir, layout.PATH_CUES), os.O_RDONLY), "rb") as fh:
            data = fh.read()
        saved = marshal.loads(fsio.unseal(fsio.section(data, 0)))
        if not (isinstance(saved, dict) and saved.get("v") == VERSION and saved.get("fp") == fp):
            return None
        if with_entries:
            saved.update(marshal.loads(fsio.unseal(fsio.section(data, 1))))
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return saved


def relative(file_path: str, root: str) -> str:
    """`file_path` relative to the project `root` when inside it, lowercased, with / separators."""
    path = file_path.replace("\\", "/")
    base = root.replace("\\", "/").rstrip("/") + "/"
    if path.startswith(base):
        path = path[len(base):]
    return path.lstrip("./").lower() if path.startswith("./") else path.lstrip("/").lower()


def _ends_with(path: str, mention: str) -> bool:
    return path == mention or path.endswith("/" + mention)


def _has_folder(folders: str, mention: str) -> bool:
    return f"/{mention}/" in f"/{folders}/"


def scores(cues: dict, rel: str) -> dict[int, float]:
    """Entry number -> how strongly the cues say it is about the file `rel` (relative, lowercased)."""
    segments = [s for s in rel.split("/") if s]
    if not segments:
        return {}
    found: dict[int, float] = {}
    best: dict[tuple[int, str], float] = {}

    def add(i: int, group: str, weight: float) -> None:
        """Each group of cues counts once per entry, with its strongest weight."""
        if weight > best.get((i, group), 0.0):
            found[i] = found.get(i, 0.0) - best.get((i, group), 0.0) + weight
            best[(i, group)] = weight

    _path_cues(cues, rel, segments, add)
    _word_cues(cues, segments, add, _compound_folders(cues, segments, add))
    return found


def _path_cues(cues: dict, rel: str, segments: list[str], add: Callable[[int, str, float], None]) -> None:
    """The file named (whole path or name), a folder on its path named, its extension named, provenance."""
    name, folders = segments[-1], "/".join(segments[:-1])
    for i, kind, mention in cues["names"].get(name, ()):
        if kind in ("prov", "read") and mention == rel:
            add(i, "prov", Params.provenance if kind == "prov" else Params.read_provenance)
        elif kind == "files" and _ends_with(rel, mention):
            weight = Params.path if "/" in mention else Params.basename
            add(i, "file", Params.generic_basename if weight == Params.basename and name in GENERIC_BASENAMES
                else weight)
        elif kind == "folders" and "/" in mention and _ends_with(rel, mention):
            # a path without an extension (`bin/memory-merge`, `scripts/deploy`) is kept as a folder mention;
            # the file read is named by it whole, so it is that file (a folder is never read)
            add(i, "file", Params.path)
    bare, dot, _ = rel.rpartition(".")
    if dot and "/" not in rel[len(bare):]:
        # a module path names its file without the extension (`features/alerting/routes`, an import)
        for i, kind, mention in cues["names"].get(bare.rsplit("/", 1)[-1], ()):
            if kind == "folders" and "/" in mention and _ends_with(bare, mention):
                add(i, "file", Params.path)
    for segment in set(segments[:-1]):
        for i, kind, mention in cues["names"].get(segment, ()):
            if kind == "folders" and _has_folder(folders, mention):
                add(i, "folder", Params.folder)
    for i in cues["exts"].get(_extension(name), ()):
        add(i, "ext", Params.extension)


def _compound_folders(cues: dict, segments: list[str], add: Callable[[int, str, float], None]) -> dict[int, set[str]]:
    """A folder with a compound name named alone, as a crate or package is (`uv-auth` names crates/uv-auth/):
    the tokenizer keeps the joined word (uvauth). Entry number -> the words of those folders' parts, which then
    say nothing more (the same name, counted once)."""
    from memory.search.stemming import stem

    folded: dict[int, set[str]] = {}
    for segment in set(segments[:-1]):
        parts = [p for p in segment.replace("_", "-").split("-") if p]
        if len(parts) < 2 or segment in GENERIC:
            continue
        for i in cues["words"].get(stem("".join(parts)), ()):
            add(i, "folder", Params.folder)
            folded.setdefault(i, set()).update(_word_terms([segment]))
    return folded


def _extension(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ("dockerfile" if name == "dockerfile" else "")


def _word_cues(cues: dict, segments: list[str], add: Callable[[int, str, float], None],
               folded: dict[int, set[str]]) -> None:
    """Words of the file's folders and name in the entry (a rare folder word counts more), and its kind. A word
    counts once: a name's word that a folder has too counts as the folder's, unless the entry named that folder
    by its compound name (`folded`: then its words are the name's only)."""
    from memory.search.stemming import stem

    name = segments[-1]
    folder_terms = _word_terms(segments[:-1])
    name_terms = _word_terms([name.split(".", 1)[0]])
    counted: dict[int, int] = {}
    for in_folder, term in [(True, t) for t in sorted(folder_terms)] + [(False, t) for t in sorted(name_terms)]:
        holders = cues["words"].get(term, ())  # the common words were left out of the map
        weight = Params.rare_folder_word if in_folder and len(holders) <= Params.rare else Params.word
        for i in holders:
            counts = (term not in folded.get(i, ())) if in_folder else \
                (term not in folder_terms or term in folded.get(i, ()))
            if counts and counted.get(i, 0) < Params.max_words:
                counted[i] = counted.get(i, 0) + 1
                add(i, f"word{counted[i]}", weight)
    ext = _extension(name)
    kind_words = list(KIND_WORDS.get(ext, ()))
    if _is_test_name(name) or "tests" in segments[:-1] or "test" in segments[:-1]:
        kind_words += TEST_WORDS.get(ext, ())
    for word in kind_words:
        for i in cues["words"].get(stem(word), ()):
            add(i, "kind", Params.kind)


def _word_terms(parts: list[str]) -> set[str]:
    """The stemmed words of path parts (`123_add_refunds` -> add, refund), without the generic ones."""
    from memory.search.stemming import stem

    words = (w for part in parts if part not in GENERIC for w in part.replace("-", "_").replace(".", "_").split("_"))
    return {stem(w) for w in words if len(w) > 2 and not w.isdigit() and w not in GENERIC}


def about(cues: dict, rel: str, bar: float) -> list[tuple[float, str, str, str, float]]:
    """(score, key, type, content, ts) of the entries about `rel` that reach `bar`, best first (then
    warnings and decisions before the rest, then the newest)."""
    order = {"warning": 0, "decision": 1}
    out = []
    for i, score in scores(cues, rel).items():
        if score >= bar:
            key, kind, content, ts = cues["entries"][i]
            out.append((score, key, kind, content, ts))
    out.sort(key=lambda r: (-r[0], order.get(r[2], 2), -r[4], r[1]))
    return out
