"""What an error is about, in the words it does not print: links from public tool and error vocabulary.

An error names its code, not what the code belongs to (`B006`, not "flake8-bugbear"); says what a tool refused
(`externally-managed-environment`), not which tools manage Python environments; shows two timestamps an hour
apart, not that the machine's time zone leaks into the test. The entry that explains it uses the other words.
These links are public knowledge of the tools (their documentation), never words of one project:

    words(command, output)   the words the error stands for, beyond its own ("" when none applies)

- a lint rule code of Python's linters (ruff, flake8, pylint) -> the rule set it belongs to;
- a known error identifier -> what it is about (PEP 668's `externally-managed-environment`);
- a failed comparison of two timestamps a whole number of hours apart (1-14: a UTC offset) -> time zones.
"""
from __future__ import annotations

import re

# ruff's / flake8's rule-code prefixes and the plugin or tool each belongs to (docs.astral.sh/ruff/rules)
LINT_RULE_SETS: dict[str, str] = {
    "E": "pycodestyle", "W": "pycodestyle", "F": "pyflakes", "C90": "mccabe complexity", "I": "isort imports",
    "N": "pep8-naming naming", "D": "pydocstyle docstring", "UP": "pyupgrade", "YTT": "flake8-2020",
    "ANN": "flake8-annotations annotations", "ASYNC": "flake8-async async", "S": "flake8-bandit bandit security",
    "BLE": "flake8-blind-except", "FBT": "flake8-boolean-trap", "B": "flake8-bugbear bugbear",
    "A": "flake8-builtins builtins", "COM": "flake8-commas", "C4": "flake8-comprehensions comprehensions",
    "DTZ": "flake8-datetimez datetime timezone", "T10": "flake8-debugger debugger", "EM": "flake8-errmsg",
    "ISC": "flake8-implicit-str-concat", "ICN": "flake8-import-conventions", "LOG": "flake8-logging logging",
    "G": "flake8-logging-format logging", "INP": "flake8-no-pep420", "PIE": "flake8-pie", "T20": "flake8-print print",
    "PYI": "flake8-pyi stubs", "PT": "flake8-pytest-style pytest", "Q": "flake8-quotes quotes",
    "RSE": "flake8-raise", "RET": "flake8-return", "SLF": "flake8-self", "SIM": "flake8-simplify",
    "TID": "flake8-tidy-imports imports", "TC": "flake8-type-checking", "TCH": "flake8-type-checking",
    "ARG": "flake8-unused-arguments", "PTH": "flake8-use-pathlib pathlib", "TD": "flake8-todos todo",
    "ERA": "eradicate", "PD": "pandas-vet pandas", "PGH": "pygrep-hooks", "PL": "pylint", "PLC": "pylint",
    "PLE": "pylint", "PLR": "pylint", "PLW": "pylint", "TRY": "tryceratops", "FLY": "flynt", "NPY": "numpy",
    "PERF": "perflint performance", "FURB": "refurb", "RUF": "ruff", "DJ": "flake8-django django",
}
_LINTERS = frozenset(("ruff", "flake8", "pylint"))
_RULE_CODE = re.compile(r"\b[A-Z]{1,5}\d{3,5}\b")
# error identifiers (lower case, as printed) -> what they are about
IDENTIFIERS: tuple[tuple[str, str], ...] = (
    # PEP 668: the interpreter's packages belong to another manager; install into a virtual environment
    ("externally-managed-environment", "pip venv virtualenv uv pipx"),
    # a module that can't be found is an import that does not resolve (tsc TS2307, node, python, webpack)
    ("cannot find module", "import"), ("module not found", "import"),
    # Python's: the import does not resolve in the interpreter that ran, most often not the project's environment
    ("no module named", "import venv virtualenv activate"),
    # a C toolchain missing: rustc's linker, cgo's compiler, a build script's cc
    # (" c compiler": a word, not `protoc compiler`)
    ("linker `cc` not found", "c compiler gcc build-essential"), (" c compiler", "gcc build-essential"),
)
_TIMESTAMP = re.compile(r"\b(\d{4}-\d\d-\d\d)[T ](\d\d):(\d\d)(?::(\d\d))?")
_PLAIN_WORD = re.compile(r"[a-z0-9][a-z0-9+-]*")


def words(command: str, output: str) -> str:
    """The words the error lines `output` of a failed `command` stand for beyond their own (public links
    only), without the words of the command (an entry naming only those says how to run it)."""
    found: list[str] = []
    said = set(_PLAIN_WORD.findall(f"{command}\n{output}".lower()))
    if _LINTERS & said:
        for match in _RULE_CODE.finditer(output):
            rule_set = _rule_set(match.group(0))
            if rule_set:
                found.append(rule_set)
    lowered = output.lower()
    found.extend(meaning for marker, meaning in IDENTIFIERS if marker in lowered)
    if any(_hours_apart(line) for line in output.splitlines()):
        found.append("timezone tz utc offset")
    ran = set(_PLAIN_WORD.findall(command.lower()))
    return " ".join(dict.fromkeys(word for meaning in found for word in meaning.split() if word not in ran))


def _rule_set(code: str) -> str:
    """The rule set of a lint code (`B006` -> flake8-bugbear, `C901` -> mccabe, `PLR0913` -> pylint): its
    longest known prefix followed by digits only."""
    for end in range(min(5, len(code) - 1), 0, -1):
        prefix, number = code[:end], code[end:]
        if prefix in LINT_RULE_SETS and number.isdigit():
            return LINT_RULE_SETS[prefix]
    return ""


def _hours_apart(line: str) -> bool:
    """Whether the line compares timestamps that differ by a whole number of hours, 1 to 14 (a UTC offset):
    `expected '2021-06-20T23:00:00Z' to be '2021-06-21T00:00:00Z'`."""
    found = _TIMESTAMP.findall(line)
    if len(found) < 2:
        return False
    from datetime import datetime

    stamps = []
    for day, hour, minute, second in found:
        try:
            stamps.append(datetime.fromisoformat(f"{day}T{hour}:{minute}:{second or '00'}"))
        except ValueError:
            continue
    for first, other in zip(stamps, stamps[1:]):
        apart = abs((first - other).total_seconds())
        if apart and apart % 3600 == 0 and apart <= 14 * 3600:
            return True
    return False
