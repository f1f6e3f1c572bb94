"""What a failed command is about: the lines of its output that say what went wrong, without the noise.

A failing test run prints hundreds of lines: progress, the test file's path, source echoed with line numbers,
stack frames, diffs, timestamps. Ranked whole, that text matches whatever entry says "run the tests with X"
(the command's own words) and nothing distinctive. What an entry can explain is in a few lines: the error
message, its code (`TS2305`, `B006`, `SC2045`, `YN0018`), the module or tool it names. So:

    lines(output)           the error lines of an output (or its last lines when none says what failed)
    failure_lines(output)   only the lines that report a failure (memory.search.recurrence records them)
    timed_out(output)       whether the runtime stopped the command for running too long
    query(command, output)  the text to rank: the command's program and subcommand, then the error lines
                            with paths, numbers and hashes left out

Tool-agnostic: the markers are the words tools use to report a failure (error, failed, panicked, cannot,
not found, …) and the shape of an error code, never the names of particular tools (what a code or an error
identifier of a known tool stands for is memory.search.error_links).
"""
from __future__ import annotations

import re

MAX_LINES = 12  # error lines kept: the first ones (the first error usually causes the rest)
MAX_LINE_CHARS = 300
TAIL_LINES = 3
MAX_COMMAND_WORDS = 8

# a line that reports a failure: a failure word, a failure mark, or an error code
_FAILURE = re.compile(
    r"(?:error|exception)s?\b|\b(?:failed|failure|failing|fail|fatal|panicked|panic|cannot|can't|could not|"
    r"couldn't|unable|not found|no such|denied|missing|invalid|unexpected|refused|timed out|undefined|"
    r"mismatch|not allowed|disallowed|deprecated|unknown|unresolved|conflict|expected|violation|forbidden|"
    r"does not exist|doesn't exist|not installed|requires?|aborted|killed|traceback|warning|"
    r"implied by)\b"  # rustc's note naming the lint a `-D warnings` turned into the error
    r"|[×✕✖✗✘]|^\s*[EX]\s{2,}|\b[A-Z]{1,5}-?\d{3,5}\b",
    re.IGNORECASE)
# lines that never say what failed: source echoed with a gutter, carets, stack frames, diff hunks, rules
_NOISE = re.compile(
    r"^\s*(?:\d+\s*)?\|"  # `214 |         println!(…)`, `   |`
    r"|^\s*[\^~\-=_*.─━>]{3,}\s*$"  # ^^^^, ~~~~, ====, ────
    r"|^\s*at\s+\S"  # JS / Java stack frames
    r"|^\s*File \"[^\"]+\", line \d+"  # Python stack frames
    r"|^\s*[+-](?![-+])\s"  # diff lines
    r"|^\s*-->\s")  # rustc's location line (the path alone)
# a file's path (with :line:col), or an absolute one: where, not what (a module path like `@scope/pkg/enums`
# has no extension and stays: it names what is missing)
_FILE_PATH = re.compile(r"(?<![\w@])(?:[\w@.+-]*/)+[\w@+-][\w@.+-]*\.[A-Za-z]\w{0,5}\b(?::\d+)*"
                        r"|(?<![\w@.])/[\w@.+-]+(?:/[\w@.+-]*)+"
                        r"|\b[A-Za-z]:\\[\w@.+ -]*(?:\\[\w@.+-]+)+")  # C:\Users\alice\app\x.py
_URL = re.compile(r"\b[a-z]+://\S+|\b(?:[\w-]+\.)+(?:com|org|net|io|dev|local|internal|lan|corp|intra)\b",
                  re.IGNORECASE)  # a link, a host (public or a company's own)
# a person: an email address (not `react@18.2.0`), ssh's `alice@bastion:`, the name after `user` / `login` /
# GitHub's `denied to`
_PERSON = re.compile(r"[\w.+-]+@(?:[\w-]+\.)+[A-Za-z]{2,}\b|\b[\w.+-]+@[A-Za-z][\w.-]*(?=:)"
                     r"|(?<=\buser )([\"'`]?)[\w.@-]+\1|(?<=\busername )([\"'`]?)[\w.@-]+\2"
                     r"|(?<=\blogin )([\"'`]?)[\w.@-]+\3|(?<=\bdenied to )[\w.@-]+", re.IGNORECASE)
# timestamps, numbers (with a unit), hashes
_NUMBERISH = re.compile(r"\b\d{4}-\d\d-\d\d[T ][\d:.]+Z?|\b\d+(?:[.:]\d+)*(?:ms|s|m|h)?\b"
                        r"|\b(?=[0-9a-f]*\d)[0-9a-f]{7,}\b")
_TIMED_OUT = re.compile(r"(?:command )?timed out\b", re.IGNORECASE)
_ERROR_CODE = re.compile(r"\b[A-Z]{1,5}-?\d{3,5}\b")
# words every failure report uses: they say that something failed, never what (never grounds a match)
REPORTING_WORDS = frozenset((
    "error", "errors", "exception", "fail", "failed", "failure", "failing", "fatal", "exit", "code", "found",
    "command", "line", "file", "files", "test", "tests", "run", "warning", "warnings", "trace", "traceback",
    "status", "result", "passed", "total", "problem", "problems", "timed", "timeout", "killed", "signal",
    "directory", "ran"))  # `No such file or directory`, `file or directory not found`, pytest's `no tests ran`
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def lines(output: str) -> list[str]:
    """The lines of `output` that report what failed (at most MAX_LINES, first first); the last non-noise
    lines when none does."""
    kept, rest = _scan(output)
    chosen = kept[:MAX_LINES] if kept else rest[-TAIL_LINES:]
    if rest and rest[-1] not in chosen:
        chosen.append(rest[-1])  # the last line: the summary, often naming the tool or its version
    return [line[:MAX_LINE_CHARS] for line in chosen]


def timed_out(output: str) -> bool:
    """Whether the command was stopped for running too long (the runtime's first line says so: Claude Code's
    `Command timed out after 2m 0.0s`), rather than failing on its own."""
    return bool(_TIMED_OUT.match(output.lstrip()[:100]))


def failure_lines(output: str, limit: int = MAX_LINES) -> list[str]:
    """Only the lines of `output` that report a failure (at most `limit`, first first)."""
    return [line[:MAX_LINE_CHARS] for line in _scan(output)[0][:limit]]


def _scan(output: str) -> tuple[list[str], list[str]]:
    """(the distinct lines reporting a failure, every line that is not noise), in order."""
    kept: list[str] = []
    rest: list[str] = []
    for raw in output.splitlines():
        text = raw.strip()
        if not text or _NOISE.search(raw):
            continue
        if re.fullmatch(r"exit code -?\d+", text, re.IGNORECASE):
            continue  # Claude Code's first line: that it failed, not why
        rest.append(text)
        if _FAILURE.search(text) and text not in kept:
            kept.append(text)
    return kept, rest


def clean(line: str, names: bool = False) -> str:
    """A line without its paths, numbers, hashes, hosts and people (an error code like TS2305 stays: it is the
    error). With `names`, a path that is not a location leaves its name (`cat: .env: No such file` is about
    `.env`)."""
    codes = _ERROR_CODE.findall(line)
    text = _FILE_PATH.sub(_name if names else " ", _URL.sub(" ", _PERSON.sub(" ", line)))
    text = _NUMBERISH.sub(" ", text)
    return " ".join([text] + [c for c in codes if c not in text])


def _name(path: re.Match[str]) -> str:
    """A path's file name (`.env`, `conf.d`, `config.yaml`), unless the path is a location (`a.ts:12:5`,
    `a.ts(12,5)`: where, not what); a folder leaves nothing (`/home/alice`: never a user's name)."""
    text, after = path.group(0), path.string[path.end():path.end() + 2]
    name = text.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    if re.search(r":\d", text) or re.match(r"\(\d", after) or text.endswith(("/", "\\")) or "." not in name:
        return " "
    return name


def command_words(command: str) -> str:
    """What the command ran, not how: its words without options (`--no-watch`, `-D warnings`' dash part),
    environment assignments, file paths and numbers (`TZ=UTC yarn vitest run --no-watch a/b.test.ts` ->
    `yarn vitest run`). An entry matching only how it was run says what the agent already did."""
    kept = [word for word in clean(command).split() if not word.startswith("-") and not _ASSIGNMENT.match(word)]
    return " ".join(kept[:MAX_COMMAND_WORDS])


def reporting_terms() -> frozenset[str]:
    """REPORTING_WORDS as ranking terms (stemmed)."""
    from memory.search.tokenize import terms

    return frozenset(terms(" ".join(REPORTING_WORDS)))


def ranking_terms(text: str) -> list[str]:
    """The distinct ranking terms of `text` without the reporting words, in first-seen order."""
    from memory.search.tokenize import terms

    reporting = reporting_terms()
    return [t for t in dict.fromkeys(terms(text)) if t not in reporting]


def query(command: str, output: str) -> tuple[str, str]:
    """(text to rank, its error part): the command without file paths and numbers, then the cleaned error
    lines and what they stand for (memory.search.error_links)."""
    from memory.search import error_links

    said = lines(output)
    links = error_links.words(command, "\n".join(said))  # `B006` is flake8-bugbear: the words an entry would use
    errors = "\n".join([clean(line) for line in said] + ([links] if links else []))
    return f"{command_words(command)}\n{errors}", errors


_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# `Never run X`, `do not use X`, `don't X`, `avoid X`, `instead of X`: the entry forbids the command, not prescribes it
_FORBIDS = re.compile(r"(?:\bnever|\bnot|n['’]t|\bavoid(?:ing)?|\binstead of|\brather than|\bno longer)"
                      r"\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)


def command_parts(command: str) -> list[str]:
    """The simple commands of a chain (`cd app && make test; echo done`: three), empty ones left out."""
    return [part for part in re.split(r"&&|\|\||[;|]", command) if part.strip()]


def runs_already(content: str, command: str, said: list[str]) -> bool:
    """Whether an entry only prescribes the command that just failed: a backticked command of it (two words at
    least, not one it forbids: `never run X`) stands whole in one part of `command` (`ruff check . --fix` for
    `ruff check a.py --fix`), and the rest of its text, other commands included, shares none of the error's
    words (`said`: ranking terms; `yarn prettier:write` beside `yarn lint` shares `prettier`, `write` with "Run
    Prettier with --write"). That advice was followed; the failure is about something else. False when `said` is
    empty (an error that says nothing, or a timeout: how to run the command may be the fix)."""
    if not said:
        return False
    parts = [set(part.split()) for part in command_parts(command)]

    def ran(span: re.Match[str]) -> bool:
        words = {w for w in span.group(1).split() if w not in (".", "./...") and not w.startswith("<")}
        return len(words) >= 2 and any(words <= part for part in parts) \
            and not _FORBIDS.search(content, 0, span.start())  # `Never run X: it …`: why X failed

    rest = _CODE_SPAN.sub(lambda span: " " if ran(span) else span.group(0), content)
    return rest != content and not set(ranking_terms(rest)) & set(said)
