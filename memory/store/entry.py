"""The knowledge entry: its key, tags and source; the first seven fields every reader relies on."""
from __future__ import annotations

import re
import time

from memory import TYPE_CHECKING
from memory.core.shape import (  # noqa: F401 - entry's API too
    APPROVE,
    CONTROL_TYPES,
    FORGET,
    PIN,
    REQUIRED_FIELDS,
    TYPE_TAGS,
    TYPES,
    UNPIN,
    is_control,
    is_line,
    is_valid,
)
from memory.store import redact

if TYPE_CHECKING:
    from collections.abc import Iterable

MAX_CONTENT_CHARS = 2048
REDACT_MARGIN = 4  # times the cap: what is redacted before the cap is applied
KEY_PREFIX_CHARS = 60
# An explicit key (`LEARNED[pnpm-tests]: …`): the part after the type prefix.
KEY_NAME = r"[a-z0-9][a-z0-9-]{0,59}"
SUPERVISOR = "supervisor"
ORCHESTRATOR = "orchestrator"

# Tag -> words that, as whole words, earn it. Whole-word matching is the point: a substring scan
# tags "requires" as `ui` and "latest" as `test`.
TAG_VOCABULARY: dict[str, Iterable[str]] = {
    "async": ("async", "await", "asyncio", "coroutine", "coroutines", "promise", "promises", "future", "futures",
              "taskgroup", "eventloop", "nonblocking"),
    "concurrency": ("concurrency", "concurrent", "thread", "threads", "threading", "mutex", "lock", "locks",
                    "race", "deadlock", "sendable", "actor", "actors", "parallel", "atomic", "semaphore"),
    "testing": ("test", "tests", "testing", "pytest", "jest", "vitest", "xctest", "unittest", "fixture",
                "fixtures", "mock", "mocks", "flaky", "coverage", "e2e"),
    "build": ("build", "builds", "compile", "compiler", "webpack", "vite", "bazel", "gradle", "cmake",
              "makefile", "xcodebuild", "linker", "toolchain"),
    "deps": ("dependency", "dependencies", "npm", "pnpm", "yarn", "pip", "poetry", "cargo", "lockfile",
             "package", "packages", "version", "semver"),
    "git": ("git", "branch", "branches", "merge", "rebase", "commit", "commits", "worktree", "worktrees"),
    "ci": ("ci", "pipeline", "workflow", "workflows", "actions", "jenkins", "buildkite"),
    "database": ("database", "db", "sql", "sqlite", "postgres", "postgresql", "mysql", "migration",
                 "migrations", "schema", "query", "queries", "index", "transaction", "orm"),
    "api": ("api", "apis", "endpoint", "endpoints", "rest", "graphql", "grpc", "http", "request", "response",
            "webhook", "webhooks"),
    "auth": ("auth", "authentication", "authorization", "oauth", "jwt", "token", "tokens", "login", "session",
             "sessions", "permission", "permissions", "credential", "credentials"),
    "security": ("security", "secret", "secrets", "xss", "csrf", "injection", "sanitize", "vulnerability",
                 "encryption", "tls", "cve"),
    "performance": ("performance", "perf", "latency", "slow", "fast", "cache", "caching", "memory", "leak",
                    "profiling", "benchmark", "throughput", "optimize"),
    "ui": ("ui", "ux", "css", "layout", "swiftui", "react", "component", "components", "button", "view",
           "views", "window", "render", "rendering", "menubar", "appkit", "uikit"),
    "config": ("config", "configuration", "env", "environment", "settings", "yaml", "toml", "dotenv", "flag",
               "flags"),
    "errors": ("error", "errors", "exception", "exceptions", "crash", "crashes", "panic", "retry", "timeout",
               "timeouts", "bug"),
    "types": ("type", "types", "typing", "generic", "generics", "typescript", "mypy", "protocol", "interface"),
    "docker": ("docker", "container", "containers", "kubernetes", "k8s", "helm", "dockerfile"),
    "logging": ("log", "logs", "logging", "logger", "trace", "tracing", "telemetry", "metrics"),
    "swift": ("swift", "xcode", "ios", "spm"),  # not macos: a platform every stack runs on (celery on macOS)
    "python": ("python", "venv", "pip", "pyproject", "django", "flask", "fastapi"),
    "javascript": ("javascript", "js", "node", "nodejs", "typescript", "ts", "deno", "bun"),
    "rust": ("rust", "cargo", "crate", "crates", "borrow", "lifetime", "lifetimes"),
    "go": ("golang", "goroutine", "goroutines", "gofmt"),
}
_WORD_TO_TAGS: dict[str, list[str]] = {}
for _tag, _words in TAG_VOCABULARY.items():
    for _word in _words:
        _WORD_TO_TAGS.setdefault(_word, []).append(_tag)

# A word that also means something else earns its tag only beside one of these words (another of them, not
# itself): `node` is a ClickHouse node as often as Node.js, `view` a materialized view, `types` the event types of
# a booking app, `session` a shell session, `memory` this project's own name. Counted on the relevance set's 336
# entries, where these words gave most of the wrong tags (docs/entries.md, `python bench/tags.py`).
_JS = ("javascript", "typescript", "nodejs", "npm", "npx", "nvm", "yarn", "pnpm", "tsc", "tsx", "jsx", "react",
       "eslint", "jest", "vitest", "webpack", "vite", "deno", "bun", "js", "ts", "node")
_DB = ("database", "databases", "db", "sql", "sqlite", "postgres", "postgresql", "mysql", "clickhouse", "orm",
       "table", "tables", "column", "columns", "migration", "migrations", "prisma", "select", "join", "query",
       "queries", "index", "indexes", "schema")
_AUTH = ("login", "logout", "signin", "cookie", "cookies", "token", "tokens", "jwt", "oauth", "auth", "sso",
         "saml", "authentication", "password", "passwords", "credential", "credentials", "session", "sessions")
_DEPS = ("dependency", "dependencies", "lockfile", "semver")  # a package manager's name alone runs scripts
_TYPES = ("typescript", "mypy", "pyright", "tsc", "typing", "typed", "generic", "generics", "interface",
          "interfaces", "annotation", "annotations", "hint", "hints", "check", "checker", "checks", "inference",
          "cast", "any", "safe", "strict", "error", "errors", "dto", "dtos", "struct", "structs")
_PERF = ("performance", "perf", "latency", "slow", "fast", "faster", "speed", "profiling", "benchmark", "throughput",
         "optimize", "hit", "miss", "ttl", "memoize", "usage", "footprint", "heap", "rss", "oom", "allocation",
         "allocations", "leak", "leaks", "memory", "cache")
_LOCKING = ("thread", "threads", "mutex", "race", "concurrent", "concurrency", "deadlock", "parallel", "atomic",
            "semaphore", "process", "processes", "writer", "writers", "contention", "flock")
_SCREEN = ("ui", "ux", "css", "layout", "component", "components", "react", "swiftui", "button", "buttons", "window",
           "render", "page", "screen", "frontend", "html", "appkit", "uikit")
_FEATURE = ("feature", "features", "toggle", "toggles", "config", "configuration", "setting", "settings", "env",
            "option", "options", "cli")
# word -> (the tag it earns only in context, the context); its other tags it earns anywhere (`cargo`: rust)
_NEEDS_CONTEXT: dict[str, tuple[str, Iterable[str]]] = {
    **{w: ("javascript", _JS) for w in ("ts", "node")},
    **{w: ("database", _DB) for w in ("query", "queries", "index", "schema")},
    **{w: ("auth", _AUTH) for w in ("session", "sessions", "login")},
    **{w: ("deps", _DEPS) for w in ("npm", "yarn", "pnpm", "cargo", "pip", "poetry", "package", "packages", "version")},
    **{w: ("types", _TYPES) for w in ("type", "types")},
    **{w: ("performance", _PERF) for w in ("memory", "cache", "leak")},
    **{w: ("concurrency", _LOCKING) for w in ("lock", "locks")},
    **{w: ("ui", _SCREEN) for w in ("view", "views")},
    "flag": ("config", _FEATURE),
}
# A package manager with a subcommand that changes dependencies (`yarn add`, `cargo update`) is about deps.
_DEPS_COMMAND = re.compile(r"\b(?:npm|yarn|pnpm|cargo|pip3?|poetry|uv|bun)\s+(?:add|install|i|ci|remove|rm|"
                           r"uninstall|update|upgrade|up|lock|audit|outdated|why|dedupe|tree|sync)\b")
# What is not prose: a file name (`index.ts`, `lock.rs`) or a path (`packages/prisma/…`, `memory/store/`); its
# folders and extension say where, not what the entry is about. A framework's name (`Node.js`) is prose, and so
# are words joined by slashes outside code (`JS/TS`, `yml/yaml/json`).
_FILE_NAME = re.compile(
    r"[\w.*-]*[\w*-]\.(?:[jt]sx?|[cm]js|py|pyi|rs|go|rb|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|json|jsonl|"
    r"ya?ml|toml|ini|cfg|conf|md|mdx|mdc|rst|txt|lock|sql|prisma|proto|css|scss|sass|less|html|vue|svelte|mod|sum|xml|"
    r"gradle|tf|env|log|csv|ipynb|snap|plist)", re.IGNORECASE)
_FRAMEWORK = re.compile(r"[A-Z][a-z]+\.js")
_WORD = re.compile(r"[a-z0-9]+")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def clean_text(text: str) -> tuple[str, list[str]]:
    """Text safe to store: valid UTF-8, credentials redacted (before the cap, so none is cut in half
    and slips through), capped on a character boundary, trimmed; plus the credential types removed."""
    # far past the cap first: redacting a 20 MB text took seconds (a credential that ends past this margin
    # starts past the cap, so none is cut in half into what is kept)
    text = text.strip()[:REDACT_MARGIN * MAX_CONTENT_CHARS]
    text, redacted = redact.redact(text.encode("utf-8", "replace").decode("utf-8"))
    return text.strip()[:MAX_CONTENT_CHARS].strip(), redacted


def slug(text: str) -> str:
    """Lowercase, runs of non-alphanumerics -> '-', trimmed of dashes (ASCII letters and digits only)."""
    return _NON_ALNUM.sub("-", text.lower()).strip("-")


def unicode_slug(text: str) -> str:
    """`slug` for any script: letters and digits of every alphabet kept (NFKC, casefolded)."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).casefold()
    # letters, marks (Devanagari vowel signs are marks) and digits; anything else separates words
    kept = "".join(c if unicodedata.category(c)[0] in "LMN" else " " for c in text)
    return "-".join(kept.split())


def valid_key_name(name: str) -> bool:
    """True for an explicit key name: `[a-z0-9][a-z0-9-]{0,59}`."""
    return re.fullmatch(KEY_NAME, name) is not None


def make_key(entry_type: str, content: str) -> str:
    """`<type>-` + slug of the first 60 characters.

    ASCII text keeps the plain ASCII slug (so every key computed before stays the same); text with
    letters outside ASCII keeps them (`learned-не-используйте-кэш-в-ci`), or two insights in Cyrillic or
    Chinese that share their Latin words would share a key and replace each other. A content hash when
    nothing is left.
    """
    head = content[:KEY_PREFIX_CHARS]
    s = slug(head) if head.isascii() else unicode_slug(head)
    if not s:
        import hashlib

        s = hashlib.sha1(content.encode("utf-8")).hexdigest()[:12]
    return f"{entry_type}-{s}"


def detect_tags(entry_type: str, content: str) -> list[str]:
    """The type first, then vocabulary tags whose words occur as whole words, alphabetically."""
    words = set(_WORD.findall(_prose(content).lower()))
    tags: set[str] = set()
    for word in words:
        earned = _WORD_TO_TAGS.get(word, ())
        if word in _NEEDS_CONTEXT:
            tag, context = _NEEDS_CONTEXT[word]
            if not any(other in words and other != word for other in context):
                earned = [t for t in earned if t != tag]
        tags.update(earned)
    if _DEPS_COMMAND.search(content.lower()):
        tags.add("deps")
    return [entry_type] + sorted(tags - {entry_type})


def _prose(text: str) -> str:
    """`text` without its file names and paths: the words a tag may be read from."""
    return " ".join(token for token in text.split() if not _is_location(token))


def _is_location(token: str) -> bool:
    """A file name, or a path: in code quotes, rooted (`./`, `/`, `~/`), a folder (`memory/`) or ending in a file;
    not a list of code words (`yarn`/`jest`)."""
    bare = token.lstrip("`'\"([{<").rstrip("`'\")]}>,;:!?.")
    if "/" not in bare:
        return bool(_FILE_NAME.fullmatch(bare)) and not _FRAMEWORK.fullmatch(bare)
    if "`" in bare:
        return False
    return (token.startswith("`") or bare.startswith(("./", "../", "/", "~/")) or bare.endswith("/")
            or bool(_FILE_NAME.fullmatch(bare.rsplit("/", 1)[1])))


def detect_source(cwd: str | None, agent_type: str | None) -> str:
    """`supervisor` inside a `.worktrees/` checkout or for a supervisor agent, else `orchestrator`."""
    if agent_type and SUPERVISOR in agent_type.lower():
        return SUPERVISOR
    parts = (cwd or "").replace("\\", "/").split("/")
    return SUPERVISOR if ".worktrees" in parts else ORCHESTRATOR


def build(content: str, bead: str, source: str, entry_type: str = "learned",
          ts: int | None = None, key_name: str | None = None, **provenance: object) -> dict:
    """A complete entry: the seven fields every reader relies on, in order, then any provenance given
    (None values dropped). `key_name` (valid_key_name) sets the key: `<type>-<key_name>`."""
    content, redacted = clean_text(content)
    entry = {
        "key": f"{entry_type}-{key_name}" if key_name else make_key(entry_type, content),
        "type": entry_type,
        "content": content,
        "source": source,
        "tags": detect_tags(entry_type, content),
        "ts": int(time.time()) if ts is None else int(ts),
        "bead": bead,
    }
    entry.update({k: v for k, v in provenance.items() if v not in (None, "")})
    if redacted:
        entry["redacted"] = redacted
    return entry


def build_control(kind: str, key: str, bead: str, ts: int | None = None, **provenance: object) -> dict:
    """A control line (forget / pin / unpin / approve) for `key`; provenance as in `build`."""
    line = {"key": key, "type": kind, "ts": int(time.time()) if ts is None else int(ts), "bead": bead}
    line.update({k: v for k, v in provenance.items() if v not in (None, "")})
    return line


def committable_path(path: str) -> bool:
    """Whether an entry may name the file in its provenance (`files`, `edited`; the entry is committed): inside the
    project (a path outside it, `~/.aws/config` or `/Users/<name>/clients/…`, tells teammates of someone's machine
    and is no cue in their clone), and holding no credential-shaped part (a token as a file or folder name: the
    redaction wants a word boundary that a path's `/`, `.` or `-` is not)."""
    import posixpath

    plain = posixpath.normpath(path.replace("\\", "/"))  # `src/../../clients/x.md` is outside too
    if plain.startswith(("/", "~", "$", "../")) or plain == ".." or re.match(r"[A-Za-z]:/", plain):
        return False
    return not any(redact.redact(variant)[1] for variant in (path.replace("/", " "), re.sub(r"[/.+-]", " ", path)))
