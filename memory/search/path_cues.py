"""The cue map of the live entries (memory.search.action_paths looks a file up in it): each entry's mentions of
files, folders, extensions and its words (`entry_cues`), built into look-ups by name, extension and word, with the
error lines each entry was captured after (memory.search.recurrence), and saved (layout.PATH_CUES, marshal),
rebuilt when the knowledge changes; and a failure seen again looked up in it (`seen_before`).
"""
from __future__ import annotations

import marshal
import os

from memory import TYPE_CHECKING
from memory.core import fsio, layout
from memory.search.action_paths import GENERIC, VERSION, Params, fingerprint, load_saved

if TYPE_CHECKING:
    from re import Pattern

_CUE_KINDS = ("files", "folders", "exts", "prov", "read", "words")  # what entry_cues gives
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
        _patterns["quoted"] = re.compile(r"`([^`\n]*[^`\s][ \t][^`\n]*)`")  # a code span with a space in it
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


def _mentions(text: str) -> tuple[set[str], set[str], set[str], str]:
    """(file mentions, folder mentions, extension mentions) in an entry's text, lowercased, and the text
    without its file mentions (the folders of `src/api/routes.py` are not words of the entry's area: it
    is about that one file)."""
    files, folders, exts = set(), set(), set()
    prose = text
    # `My Docs/setup guide.md`, a path with a space, is one file too (a command such as `cat a.py` may read the
    # same: the whole span is only added, its words stay mentions as before)
    for match in _pattern("quoted").finditer(text):
        span = match.group(1).strip().lstrip("./")
        last = span.rsplit("/", 1)[-1]
        if "/" in span and "." in last and last.rsplit(".", 1)[-1].lower() in EXTENSIONS \
                and not _pattern("urlish").search(span):
            files.add(span.lower())
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
    """An entry's cues: named files, folders, extensions, provenance files (those the session changed, "prov",
    and those it only read, "read"), and its words (stemmed)."""
    from memory.search.tokenize import terms

    content = entry.get("content")
    files, folders, exts, prose = _mentions(content if isinstance(content, str) else "")
    provenance = [f.lower() for f in entry.get("files", ()) if isinstance(f, str)] \
        if isinstance(entry.get("files"), list) else []
    edited = {f.lower() for f in entry.get("edited", ()) if isinstance(f, str)} \
        if isinstance(entry.get("edited"), list) else set()
    return {"files": sorted(files), "folders": sorted(folders), "exts": sorted(exts),
            "prov": [f for f in provenance if f in edited], "read": [f for f in provenance if f not in edited],
            "words": sorted(set(terms(prose)))}


def build(entries: list[dict], known: dict[bytes, dict] | None = None) -> dict:
    """The cue map of `entries` (the live ones): lookups by last path segment, extension and word, and the
    error lines each was captured after (memory.search.recurrence). `known`: each entry's cues from the map
    before, by what they are drawn from (`made` of the map it returns): only new or changed entries are read."""
    from memory.search import recurrence

    made: dict[bytes, dict] = {}

    by_name: dict[str, list[tuple[int, str, str]]] = {}  # last segment -> (entry, kind, whole mention)
    by_ext: dict[str, list[int]] = {}
    by_word: dict[str, list[int]] = {}
    errors: dict[int, list[list[str]]] = {}
    kept: list[tuple[str, str, str, float]] = []
    for e in entries:
        key = e.get("key")
        if not isinstance(key, str):
            continue
        signature = _signature(e)
        cues = (known or {}).get(signature)
        if not (isinstance(cues, dict) and all(isinstance(cues.get(kind), list)
                                               and all(isinstance(x, str) for x in cues[kind]) for kind in _CUE_KINDS)):
            cues = entry_cues(e)  # none kept, or kept in another shape (a damaged or foreign file)
        made[signature] = cues
        i = len(kept)
        kept.append((key, str(e.get("type", "")), str(e.get("content", ""))[:MAX_CONTENT],
                     float(e["ts"]) if isinstance(e.get("ts"), (int, float)) else 0.0))
        for kind in ("files", "folders", "prov", "read"):
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
            "errors": errors, "with_errors": len(errors), "made": made}


def _signature(entry: dict) -> bytes:
    """What an entry's cues are drawn from (its text, `files`, `edited`), as a digest."""
    import hashlib

    drawn = (entry.get("content"), entry.get("files"), entry.get("edited"))
    try:
        return hashlib.blake2b(marshal.dumps(drawn), digest_size=16).digest()
    except ValueError:  # not a JSON value (a hand-made line): its own, every time
        return hashlib.blake2b(repr(drawn).encode("utf-8", "replace"), digest_size=16).digest()


# the modules that draw an entry's cues: a change to any of them (an upgrade) drops the cues kept
_RULES = ("path_cues.py", "tokenize.py", "stemming.py", "action_paths.py")


def _rules() -> tuple:
    return fsio.stamps(os.path.dirname(os.path.abspath(__file__)), _RULES)


def _known(data: bytes | None) -> dict[bytes, dict] | None:
    """The entries' cues the saved map `data` was built with, when the rules that drew them are these."""
    if not data:
        return None
    try:
        kept = marshal.loads(fsio.unseal(fsio.section(data, 2)))
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(kept, dict) or kept.get("rules") != _rules() or not isinstance(kept.get("made"), dict):
        return None
    return kept["made"]


def _common(n: int) -> float:
    """More entries than this hold a word that says nothing about one file."""
    return max(Params.common_min, Params.common_share * n)


def load(memory_dir: str, fp: list[int]) -> dict:
    """The cue map for the knowledge as it is (`fp`): the derived file when it matches, else rebuilt and
    saved (atomically; a failed save only means the next hook rebuilds it too)."""
    saved = load_saved(memory_dir, fp)
    if saved is not None:
        return saved
    from memory.store import archived, store

    try:
        before = fsio.read_bytes(os.path.join(memory_dir, layout.PATH_CUES))
    except OSError:
        before = None

    active = store.load(memory_dir).entries
    # the archive's live entries too, from session start's cache (a hook does not read a large archive)
    src = archived.source(memory_dir)
    part, exact = archived.part(memory_dir, src, archived.read_cache(memory_dir))
    if not exact:
        from memory.search import index

        if index.in_background(memory_dir, lambda: archived.refresh(memory_dir)):  # it ran here (no fork)
            part, exact = archived.part(memory_dir, src, archived.read_cache(memory_dir))
    lines = archived.before(memory_dir, part, active)[0] if part is not None else []
    cues = build(store.latest(lines + active, cache_dir=memory_dir), _known(before))  # the screen's verdicts kept
    made = cues.pop("made")
    if not exact:
        return cues  # not saved: once the archive's part is kept, the next event maps it
    cues["fp"] = fp
    lookups = fsio.seal(marshal.dumps({k: v for k, v in cues.items() if k not in _BULK}))
    bulk = fsio.seal(marshal.dumps({k: cues[k] for k in _BULK}))
    kept = fsio.seal(marshal.dumps({"rules": _rules(), "made": made}))
    try:
        fsio.atomic_write(os.path.join(memory_dir, layout.PATH_CUES), fsio.sections(lookups, bulk, kept),
                          durable=False)
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
