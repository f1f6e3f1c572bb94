"""File-scoped knowledge: which live entries are about a file, its directory or its kind.

An entry is about `src/api/routes.py` when it names that path (`src/api/routes.py`, `api/routes.py`,
`routes.py`), a folder on it (`src/api/`, "the api folder"), its extension (`*.py`), the words of its
area (`api`, `routes`, or its kind: `python`, `pytest` for a test file), or when it was captured by a session
that had read or edited the file (provenance `files`, memory.capture.provenance). Each cue has a weight
(Params); an entry is about the file when its cues add up to the bar (`action_file_min_score` in config.json).
The map also keeps the error lines each entry was captured after (provenance `errors`: memory.search.recurrence).

The cues of every live entry sit in a derived, machine-local file (layout.PATH_CUES, marshal), rebuilt when
knowledge.jsonl changes, so the hook that runs before every file read answers with one small read and a
few dict lookups.
"""
from __future__ import annotations

import marshal
import os

from memory import TYPE_CHECKING
from memory.core import fsio, layout

if TYPE_CHECKING:
    from re import Pattern
    from typing import Callable

VERSION = 4
_BULK = ("entries", "errors")  # saved with the texts, after the look-ups: only a full load parses them
MAX_CONTENT = 2048
_patterns: dict[str, Pattern[str]] = {}


def _pattern(name: str) -> Pattern[str]:
    """The mention patterns, compiled on first use: looking up a file never needs `re` (~5 ms)."""
    if not _patterns:
        import re

        # a path mention: identifier characters joined by / . - (a leading ./ or / allowed)
        _patterns["path"] = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?[\w@+-]+(?:[/.][\w@+-]+)*/?")
        _patterns["ext"] = re.compile(r"(?<![\w/])\*?\.([a-z][a-z0-9]{0,5})\b")
        _patterns["folder_word"] = re.compile(r"\b([\w.-]+)[`'\"]?\s+(?:folder|directory|dir|package|module)\b", re.I)
        _patterns["urlish"] = re.compile(r"^[a-z]+://|^www\.|\.(?:com|org|net|io|dev)$", re.I)
    return _patterns[name]


# extensions of files people name in notes (a word.word without one of these is prose or a version)
EXTENSIONS = frozenset((
    "py", "pyi", "pyx", "ipynb", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "vue", "svelte", "go", "rs", "rb",
    "php", "java", "kt", "kts", "scala", "swift", "m", "mm", "c", "h", "cc", "cpp", "hpp", "cs", "fs", "sql", "sh",
    "bash", "zsh", "fish", "ps1", "bat", "yml", "yaml", "toml", "ini", "cfg", "conf", "json", "jsonl", "lock", "md",
    "rst", "txt", "html", "css", "scss", "sass", "less", "xml", "proto", "graphql", "gql", "tf", "tfvars", "hcl",
    "nix", "lua", "dart", "ex", "exs", "erl", "hs", "ml", "clj", "r", "jl", "zig", "env", "gradle", "cmake", "mk",
    "dockerfile", "prisma"))
SPECIAL_NAMES = frozenset((
    "dockerfile", "makefile", "justfile", "procfile", "gemfile", "rakefile", "vagrantfile", "jenkinsfile",
    "codeowners", "brewfile", "podfile"))
# folder and file words too common to say what area a file is in
GENERIC = frozenset((
    "src", "lib", "libs", "app", "apps", "pkg", "pkgs", "packages", "package", "internal", "cmd", "test", "tests",
    "spec", "specs", "doc", "docs", "bin", "scripts", "script", "util", "utils", "common", "core", "main", "build",
    "dist", "out", "public", "static", "assets", "vendor", "include", "source", "sources", "index", "init", "mod",
    "config", "configs", "tmp", "home", "root", "usr", "work", "repo", "project", "file", "files", "dir", "folder",
    "code", "module", "modules", "new", "old", "data", "py", "js", "ts"))
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
    provenance = 3.0  # the entry was captured by a session that had read or edited this file
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


def _mentions(text: str) -> tuple[set[str], set[str], set[str], str]:
    """(file mentions, folder mentions, extension mentions) in an entry's text, lowercased, and the text
    without its file mentions (the folders of `src/api/routes.py` are not words of the entry's area: it
    is about that one file)."""
    files, folders, exts = set(), set(), set()
    prose = text
    for match in _pattern("path").finditer(text):
        token = match.group().strip("./").lower() if not match.group().startswith("/") else match.group().lower()
        token = token.lstrip("/") if token.startswith("/") else token
        if not token or _pattern("urlish").search(token):
            continue
        ends_in_slash = match.group().endswith("/")
        token = token.rstrip("/")
        last = token.rsplit("/", 1)[-1]
        ext = last.rsplit(".", 1)[-1] if "." in last else ""
        if ext in EXTENSIONS and not last.startswith(".") or last in SPECIAL_NAMES:
            files.add(token)
            prose = prose.replace(match.group(), " ")
        elif "/" in token or ends_in_slash:
            folders.add(token)
    for match in _pattern("ext").finditer(text.lower()):
        if match.group(1) in EXTENSIONS:
            exts.add(match.group(1))
    for match in _pattern("folder_word").finditer(text):
        word = match.group(1).strip("`'\".").lower()
        if word and word not in GENERIC:
            folders.add(word)
    return files, folders, exts, prose


def entry_cues(entry: dict) -> dict[str, list[str]]:
    """An entry's cues: named files, folders, extensions, provenance files, and its words (stemmed)."""
    from memory.search.tokenize import terms

    content = entry.get("content")
    files, folders, exts, prose = _mentions(content if isinstance(content, str) else "")
    provenance = [f.lower() for f in entry.get("files", ()) if isinstance(f, str)] \
        if isinstance(entry.get("files"), list) else []
    return {"files": sorted(files), "folders": sorted(folders), "exts": sorted(exts), "prov": provenance,
            "words": sorted(set(terms(prose)))}


def build(entries: list[dict]) -> dict:
    """The cue map of `entries` (the live ones): lookups by last path segment, extension and word, and the
    error lines each was captured after (memory.search.recurrence)."""
    from memory.search import recurrence

    by_name: dict[str, list[tuple[int, str, str]]] = {}  # last segment -> (entry, kind, whole mention)
    by_ext: dict[str, list[int]] = {}
    by_word: dict[str, list[int]] = {}
    errors: dict[int, list[list[str]]] = {}
    kept: list[tuple[str, str, str, float]] = []
    for e in entries:
        key = e.get("key")
        if not isinstance(key, str):
            continue
        cues = entry_cues(e)
        i = len(kept)
        kept.append((key, str(e.get("type", "")), str(e.get("content", ""))[:MAX_CONTENT],
                     float(e["ts"]) if isinstance(e.get("ts"), (int, float)) else 0.0))
        for kind in ("files", "folders", "prov"):
            for mention in cues[kind]:
                for segment in set(mention.split("/")) if kind == "folders" else [mention.rsplit("/", 1)[-1]]:
                    by_name.setdefault(segment, []).append((i, kind, mention))
        for ext in cues["exts"]:
            by_ext.setdefault(ext, []).append(i)
        for word in cues["words"]:
            by_word.setdefault(word, []).append(i)
        recorded = recurrence.recorded_terms(e)
        if recorded:
            errors[i] = recorded
    common = _common(len(kept))
    by_word = {word: holders for word, holders in by_word.items() if len(holders) <= common}  # never counted
    return {"v": VERSION, "n": len(kept), "entries": kept, "names": by_name, "exts": by_ext, "words": by_word,
            "errors": errors, "with_errors": len(errors)}


def _common(n: int) -> float:
    """More entries than this hold a word that says nothing about one file."""
    return max(Params.common_min, Params.common_share * n)


def fingerprint(memory_dir: str) -> list[int] | None:
    """What the map was built from: the active knowledge's identity, knowledge.jsonl and the inbox
    (memory.store.inbox; None when there is neither)."""
    from memory.store import inbox

    found = inbox.identity(memory_dir)
    return None if found is None else list(found)


def load_saved(memory_dir: str, fp: list[int], with_entries: bool = True) -> dict | None:
    """The saved cue map when it was built from the knowledge as it is (`fp`), else None. Without
    `with_entries` only the look-ups are parsed (the entries' texts and recorded errors are the larger part:
    `nothing to add` never needs them)."""
    try:
        with os.fdopen(fsio.open_regular(os.path.join(memory_dir, layout.PATH_CUES), os.O_RDONLY), "rb") as fh:
            data = fh.read()
        size = int.from_bytes(data[:8], "little")
        saved = marshal.loads(fsio.unseal(data[8:8 + size]))
        if not (isinstance(saved, dict) and saved.get("v") == VERSION and saved.get("fp") == fp):
            return None
        if with_entries:
            saved.update(marshal.loads(fsio.unseal(data[8 + size:])))
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return saved


def load(memory_dir: str, fp: list[int]) -> dict:
    """The cue map for the knowledge as it is (`fp`): the derived file when it matches, else rebuilt and
    saved (atomically; a failed save only means the next hook rebuilds it too)."""
    saved = load_saved(memory_dir, fp)
    if saved is not None:
        return saved
    from memory.store import store

    cues = build(store.latest(store.load(memory_dir).entries))
    cues["fp"] = fp
    lookups = fsio.seal(marshal.dumps({k: v for k, v in cues.items() if k not in _BULK}))
    try:
        fsio.atomic_write(os.path.join(memory_dir, layout.PATH_CUES), len(lookups).to_bytes(8, "little") + lookups
                          + fsio.seal(marshal.dumps({k: cues[k] for k in _BULK})), durable=False)
    except OSError:
        pass
    return cues


def seen_before(memory_dir: str, command: str, output: str, bar: float,
                rebuild: bool = True) -> list[tuple[str, str, str, float]]:
    """The live entries (key, type, content, ts) captured right after a failure that printed a line of `output`
    again (or a timeout of the same `command`; memory.search.recurrence), newest first. The map's look-ups alone
    say when no entry recorded an error; without `rebuild`, a map older than the knowledge answers nothing
    (the next file or error event rebuilds it) rather than being rebuilt here."""
    from memory.search import error_text, recurrence

    if not error_text.failure_lines(output, limit=recurrence.SCAN_LINES) and not error_text.timed_out(output):
        return []  # nothing that could be a recorded line: the map is not even opened
    fp = fingerprint(memory_dir)
    if fp is None:
        return []
    lookups = load_saved(memory_dir, fp, with_entries=False)
    if lookups is None and not rebuild or lookups is not None and not lookups.get("with_errors"):
        return []  # the larger part of the map is not even parsed
    cues = load(memory_dir, fp)
    found = recurrence.recurring(cues.get("errors") or {}, command, output, bar)
    return sorted((tuple(cues["entries"][i]) for i in found), key=lambda e: -e[3])


def seen_in_text(memory_dir: str, text: str, bar: float | None = None,
                 rebuild: bool = False) -> list[tuple[str, str, str, float]]:
    """seen_before for an error a person pasted (a prompt, a recall.sh query): only a text holding a `label:
    message` shape (a `:`) is looked at, and by default only a current map (a prompt never waits for a
    rebuild; recall.sh, asked by a person, may). `bar`: config.json's `action_error_recurrence` when not given."""
    if ":" not in text:
        return []
    if bar is None:
        from memory.core import config

        bar = float(config.load(memory_dir)["action_error_recurrence"])
    import re

    # a traceback pasted as one line (a chat box, a shell prompt joined it): each error statement on its own
    lines = re.sub(r"[ \t]+(?=(?:E[ \t]+)?[A-Z]\w*(?:Error|Exception|Warning):)", "\n", text)
    return seen_before(memory_dir, "", lines, bar, rebuild=rebuild)


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
    _word_cues(cues, segments, add)
    return found


def _path_cues(cues: dict, rel: str, segments: list[str], add: Callable[[int, str, float], None]) -> None:
    """The file named (whole path or name), a folder on its path named, its extension named, provenance."""
    name, folders = segments[-1], "/".join(segments[:-1])
    for i, kind, mention in cues["names"].get(name, ()):
        if kind == "prov" and mention == rel:
            add(i, "prov", Params.provenance)
        elif kind == "files" and _ends_with(rel, mention):
            weight = Params.path if "/" in mention else Params.basename
            add(i, "file", Params.generic_basename if weight == Params.basename and name in GENERIC_BASENAMES
                else weight)
        elif kind == "folders" and "/" in mention and _ends_with(rel, mention):
            # a path without an extension (`bin/memory-merge`, `scripts/deploy`) is kept as a folder mention;
            # the file read is named by it whole, so it is that file (a folder is never read)
            add(i, "file", Params.path)
    for segment in set(segments[:-1]):
        for i, kind, mention in cues["names"].get(segment, ()):
            if kind == "folders" and _has_folder(folders, mention):
                add(i, "folder", Params.folder)
    for i in cues["exts"].get(_extension(name), ()):
        add(i, "ext", Params.extension)


def _extension(name: str) -> str:
    return name.rsplit(".", 1)[-1] if "." in name else ("dockerfile" if name == "dockerfile" else "")


def _word_cues(cues: dict, segments: list[str], add: Callable[[int, str, float], None]) -> None:
    """Words of the file's folders and name in the entry (a rare folder word counts more), and its kind."""
    from memory.search.stemming import stem

    name = segments[-1]
    folder_terms = _word_terms(segments[:-1])
    name_terms = _word_terms([name.split(".", 1)[0]]) - folder_terms
    counted: dict[int, int] = {}
    for term in sorted(folder_terms) + sorted(name_terms):
        holders = cues["words"].get(term, ())  # the common words were left out of the map
        weight = Params.rare_folder_word if term in folder_terms and len(holders) <= Params.rare else Params.word
        for i in holders:
            if counted.get(i, 0) < Params.max_words:
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
