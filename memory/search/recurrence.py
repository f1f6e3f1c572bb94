"""Failures seen before: the error a session hit just before it captured an entry, recognised when it recurs.

What a session records right after a failure is often the fix for it, in words the error does not print
("activate the venv first" after `No module named 'django'`), so no ranking of the error's words finds it. A
capture therefore keeps the failure's error lines as provenance `errors` (memory.capture.provenance), and a
later failure that prints one of those lines again gets the entry, whatever words the entry uses:

    signature(command, output)   the lines to record: the lines reporting the failure (memory.search.error_text),
                                 cleaned of numbers, hashes and folders (a path keeps its file name), that hold a
                                 distinctive word; at most MAX_LINES
    line_terms(line)             a line as the terms it is compared on
    recorded_terms(entry)        the terms of each line recorded on an entry
    recurring(by_entry, command, output, bar)   which entries recorded a line that this failure prints again
    recurs(recorded, printed, bar)  whether a printed line is a recorded one again
    failure_terms(command, output)  the terms of a failure, as a capture compares an insight with it
    about_failure(text, seen)    whether an insight shares a term with the failure (else nothing is recorded)

The knowledge's entries that recorded such a line: memory.search.path_cues.seen_before (its cue map).

A printed line is a recorded one again when it holds every distinctive word of the recorded line and their
terms overlap by at least `bar` (Jaccard): what varies between runs (a test's name, a location) may differ,
the names the failure is about may not. A distinctive word is one outside the vocabulary tools phrase
failures in: `django` in `No module named 'django'`, not `module` or `named`. A line whose message names
nothing (`expect(received).toBe(expected)`), or that only frames a failure (which test failed, that a build
failed, a run's totals), is never recorded. A timeout whose output names nothing records what timed out
(`timed out running: yarn test`), and recurs as a timeout of a command holding those words.

A capture records the failure on an insight only when the insight shares a term, any term, with the failed
command and its whole output (`about_failure`): a session's last failure is often not what it then records
(a lint error, then a lesson about API versioning), and the recurrence would bring that entry back marked as
recorded right after it. Any term, not a distinctive one: a lesson in other words than its error still shares
its tool or a path word (`make shell` first, after `No module named 'django'` under `/dev/`), and a stricter
test lost those (docs/relevance-actions.md, "Unrelated failures").
"""
from __future__ import annotations

import re

MARK = "(recorded right after this same error) "  # how a hook marks such an entry
MAX_LINES = 2
SCAN_LINES = 60  # failure lines looked at: a long run prints many framing lines before the message
MAX_LINE_CHARS = 200
# the words tools phrase failures in (besides error_text.REPORTING_WORDS): never what a failure is about
PHRASING = """
    module modules named name import imported importing cannot read reading properties property undefined null
    none nil type types typeerror valueerror keyerror attributeerror nameerror assertionerror runtimeerror
    syntaxerror referenceerror importerror modulenotfounderror indexerror oserror exists exist existing already
    defined declared value values object objects attribute attributes argument arguments parameter parameters
    function method call called callable expected received expect tobe toequal equal equality is not
    assignable assign string str int integer number float bool boolean list dict array tuple key keys index
    length size match matching matches unexpected token syntax invalid missing required requires unknown
    unresolved unable resolve resolved such directory path permission denied connection refused reset out
    after before column row table database query statement instance class struct field fields variable
    variables implement implemented returned returns return output input message panicked thread main note
    help see details info no has have had does did got get set when while because due previous previously
    could would should must may might only within most recent last assert nonetype subscriptable iterable
    hashable runtime range bounds overflow panic access open
"""
_distinct_cache: list[frozenset[str]] = []
TIMEOUT_PREFIX = "timed out running: "
_TIMEOUT_MARK = "~timeout"  # not a word any text tokenizes to
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(name: str) -> re.Pattern[str]:
    """The line patterns, compiled on first use: the prompt hook imports this module for MARK alone."""
    if not _compiled:
        _compiled.update(
            status=re.compile(r"\s*(?:---\s*)?(?:FAIL|FAILED|PASS)\b:?"),  # a test or file's status, its name
            mark=re.compile(r"\s*[×✕✖✗✘●❯›]\s*"),  # a failed test's mark, or a diagnostic's (biome, uv)
            # `suite > test`, `test (12 ms)`, vitest's file line `a.test.ts (3 tests | 1 failed)`
            test_name=re.compile(r" [>›] |\(\d+(?:\.\d+)?\s*m?s\)\s*$|\(\d+ tests?\b"),
            framing=re.compile(
                r"command failed|exit(?:ed|ing)? (?:with )?(?:code|status)|returned non-zero|could not compile|"
                r"due to (?:\d+ )?previous errors?|^\s*tests?(?: suites?| files)?:|above exception|"
                r"^\s*raise\b|^\s*\d+ (?:failed|passed|errors?)\b|^\s*make(?:\[\d+\])?: \*\*\*|"
                r"errors? (?:were|was) (?:emitted|found|reported)|^\s*found \d+ errors?|\btests? failed\b|"
                r"\.\.\. (?:FAILED|ok)\s*$|^\s*thread '[^']*' panicked at",
                re.IGNORECASE),
            label=re.compile(r"^.*?\b[\w.:]*(?:error|exception)(?:\[\w+\])?:\s*", re.IGNORECASE))
    return _compiled[name]


def _not_distinctive() -> frozenset[str]:
    """PHRASING and the reporting words as terms (stemmed like every line), computed once."""
    if not _distinct_cache:
        from memory.search import error_text
        from memory.search.tokenize import terms

        _distinct_cache.append(frozenset(terms(PHRASING)) | error_text.reporting_terms())
    return _distinct_cache[0]


def line_terms(line: str) -> set[str]:
    """The terms of a line (memory.search.tokenize), as a set; a recorded timeout is marked as one, with the
    words of what timed out as they are (`make`, `go`: programs a tokenizer drops as common English)."""
    from memory.search.tokenize import terms

    found = set(terms(line))
    if not line.startswith(TIMEOUT_PREFIX):
        return found
    return found | {_TIMEOUT_MARK} | {_TIMEOUT_MARK + word.lower() for word in line[len(TIMEOUT_PREFIX):].split()}


def distinctive(terms: set[str]) -> set[str]:
    """The terms of a line that say what the failure is about."""
    return terms - _not_distinctive()


def signature(command: str, output: str) -> list[str]:
    """The error lines of a failed command's `output` worth recording (cleaned, cut, at most MAX_LINES, first
    first): those whose message names something. A timeout that names nothing records what timed out (the
    command's program and subcommand: `timed out running: yarn test`)."""
    from memory.search import error_text
    from memory.store import redact

    labelled: list[str] = []
    plain: list[str] = []
    program = error_text.command_words(command).split(" ", 1)[0].rsplit("/", 1)[-1]
    # redacted whole, before cleaning cuts a secret up; every failure line, framing lines are many in a long run
    reported = error_text.failure_lines(redact.redact(output)[0], limit=SCAN_LINES)
    for raw in reported:
        stated = statement(raw)
        if stated is None:
            continue
        record, said, labelled_line = stated
        if program and said.lstrip().startswith(program + ":"):  # `ls: cannot access …`: the tool naming itself
            said = said.lstrip()[len(program) + 1:]
        # what cleaning leaves of a location (`( , ):` of `a.ts(12,5):`, ` - ` of `a.ts:3:9 - `) goes too
        text = _cut(" ".join(error_text.clean(record, names=True).split()).lstrip(" :;,()[]-").rstrip(" :;,"))
        if text and text not in labelled + plain and distinctive(line_terms(error_text.clean(said, names=True))):
            (labelled if labelled_line else plain).append(text)
    # a line that states an error (`TypeError: …`, `error[E0433]: …`, `× …`) says what; the rest (`ImportError
    # while loading conftest 'x'`) often only where: kept only when no line states one
    kept = (labelled or plain)[:MAX_LINES]
    if not kept and error_text.timed_out(output):
        ran = _ran(command)
        return [ran] if ran else []
    return kept


def _ran(command: str) -> str:
    """`timed out running: <program> [<subcommand>]` (memory.search.error_text.command_words: its first two
    words, the second only when a plain word right after the program — never a user, host or database name the
    rest may hold), '' when they name nothing. Of a chain, the first part that is not setup (`cd app && make
    test`: `make test`)."""
    from memory.search import error_text

    # `cd app && make test`: the part after the setup (cd, source, export) is what timed out
    parts = error_text.command_parts(command)
    command = _unwrapped(next((p for p in parts if _program(p) not in _SETUP), parts[0] if parts else command))
    words = error_text.command_words(command).split()[:2]
    tokens = [t for t in command.split() if not re.match(r"[A-Za-z_][A-Za-z0-9_]*=", t)]
    if len(words) == 2 and not (re.fullmatch(r"[a-z][a-z-]*", words[1]) and tokens[1:2] == [words[1]]):
        words = words[:1]  # a subcommand follows the program directly (`psql -U alice`: a user, not one)
    ran = " ".join(words)
    return TIMEOUT_PREFIX + ran if ran and distinctive(line_terms(TIMEOUT_PREFIX + ran)) - {_TIMEOUT_MARK} else ""


_SETUP = {"cd", "pushd", "popd", "source", ".", "export", "set", "unset", "ulimit", "umask", "true"}


_WRAPPERS = {"timeout", "time", "nice", "nohup", "env", "stdbuf", "caffeinate"}  # run what follows them


def _unwrapped(command: str) -> str:
    """The command a wrapper runs (`timeout 60 make test`, `nice -n 5 cargo build`: `make test`, `cargo
    build`), without the wrapper's options and durations."""
    words = command.split()
    while words and words[0] in _WRAPPERS:
        words = words[1:]
        while words and re.fullmatch(r"-\S*|\d+(?:\.\d+)?[smhd]?", words[0]):
            words = words[1:]
    return " ".join(words) or command


def _program(command: str) -> str:
    """The program a simple command runs (after its environment assignments), without its folder."""
    words = [w for w in command.split() if not re.match(r"[A-Za-z_][A-Za-z0-9_]*=", w)]
    return words[0].rsplit("/", 1)[-1] if words else ""


def _cut(text: str) -> str:
    """At most MAX_LINE_CHARS, ending on a whole word (a cut word would be a word no later line prints)."""
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS + 1].rsplit(" ", 1)[0]


def statement(line: str) -> tuple[str, str, bool] | None:
    """What a failure line says went wrong: (the text to record, the message that must name something, whether
    the line states an error). The message is the text after the line's error label (`TypeError: …`,
    `error[E0433]: …`, a diagnostic's `× …`), or the whole line; a test's `FAILED x - …` records only what
    follows its name. None for a line that only frames a failure: which test or file failed (`FAIL a.test.ts`,
    `--- FAIL: TestX (0.00s)`, `test a::b ... FAILED`, `× form > renders (12 ms)`, `thread 'a::b' panicked at`),
    that a command or build failed (`Command failed with exit code 1`, `could not compile`), a run's totals, a
    chained traceback's joint."""
    if _pattern("framing").search(line):
        return None
    status = _pattern("status").match(line)
    if status:
        rest = line[status.end():]
        if " - " not in rest:
            return None
        said = rest.split(" - ", 1)[1]
        return said, said, True
    mark = _pattern("mark").match(line)
    if mark:
        return None if _pattern("test_name").search(line) else (line, line[mark.end():], True)
    label = _pattern("label").search(line)
    return (line, line[label.end():], True) if label else (line, line, False)


def recurs(recorded: set[str], printed: set[str], bar: float) -> bool:
    """Whether the printed line's terms are the recorded line's again (see the module docstring); a recorded
    timeout, whether this is a timeout of a command holding the recorded command's words."""
    needed = distinctive(recorded)
    if not needed or not needed <= printed:
        return False
    return _TIMEOUT_MARK in recorded or len(recorded & printed) >= bar * len(recorded | printed)


def recorded_terms(entry: dict) -> list[list[str]]:
    """The terms of each error line recorded on the entry (provenance `errors`)."""
    lines = entry.get("errors")
    found = [sorted(line_terms(line)) for line in lines if isinstance(line, str)] if isinstance(lines, list) else []
    return [terms for terms in found if terms]


def recurring(by_entry: dict[int, list[list[str]]], command: str, output: str, bar: float) -> list[int]:
    """Which entries (`by_entry`: entry -> the terms of each line recorded on it) saw a line of this failure
    of `command` before, in their order."""
    from memory.search import error_text

    if not by_entry:
        return []
    reported = error_text.failure_lines(output, limit=SCAN_LINES)
    printed = [line_terms(error_text.clean(raw, names=True)) for raw in reported]
    if error_text.timed_out(output):
        printed.append(line_terms(TIMEOUT_PREFIX + error_text.command_words(command)))
    return [i for i, lines in by_entry.items()
            if any(recurs(set(terms), seen, bar) for terms in lines for seen in printed)]



def failure_terms(command: str, output: str) -> list[str]:
    """The terms (memory.search.tokenize) of a failed command and its output, distinct and sorted: what a capture
    compares an insight with before it records the failure on it (`about_failure`)."""
    from memory.search.tokenize import terms

    return sorted(set(terms(command + "\n" + output)))


def about_failure(text: str, seen: list[str] | set[str] | frozenset[str]) -> bool:
    """Whether an insight's `text` shares a term with a failure's terms (`failure_terms`)."""
    from memory.search.tokenize import terms

    return not set(seen).isdisjoint(terms(text))
