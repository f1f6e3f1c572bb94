"""memory.search.error_links: what an error stands for in the words an entry would use."""
from memory.search import error_links, error_text

B006 = "python/uv/_find_uv.py:9:25: B006 Do not use mutable data structures for argument defaults"


def test_a_lint_code_names_its_rule_set_when_a_python_linter_ran():
    assert error_links.words("ruff check python/", B006).split() == ["flake8-bugbear", "bugbear"]
    codes = "a.py:1:1: C901 too complex\na.py:2:1: PLR0913 too many arguments\na.py:3:1: T201 print found"
    assert error_links.words("flake8 src", codes).split() == [
        "mccabe", "complexity", "pylint", "flake8-print", "print"]  # the longest known prefix: C90, PLR, T20
    assert error_links.words("make lint", "ruff: " + B006) != ""  # the linter named in the output


def test_a_code_alone_links_nothing_without_a_python_linter_or_a_known_prefix():
    assert error_links.words("cargo build", "error[E0432]: unresolved import; code B006") == ""
    assert error_links.words("shellcheck a.sh", "SC2045 (error): Iterating over ls output is fragile.") == ""
    assert error_links.words("ruff check .", "a.py:1:1: XYZ123 unknown") == ""


def test_an_error_identifier_links_what_it_is_about_but_never_the_command_s_own_words():
    pep668 = "error: externally-managed-environment\n× This environment is externally managed"
    assert error_links.words("pip install -r requirements.txt", pep668).split() == [
        "venv", "virtualenv", "uv", "pipx"]  # not "pip": an entry naming only that says how to run it
    assert error_links.words("yarn build", "error TS2307: Cannot find module '@x/y'") == "import"
    # Python's missing module: most often not the project's environment; a missing C toolchain
    assert error_links.words("pytest", "E   ModuleNotFoundError: No module named 'django'").split() == [
        "import", "venv", "virtualenv", "activate"]
    assert error_links.words("cargo build", "error: linker `cc` not found").split() == [
        "c", "compiler", "gcc", "build-essential"]
    assert error_links.words("go build", 'cgo: C compiler "gcc" not found').split() == ["gcc", "build-essential"]


def test_timestamps_a_whole_number_of_hours_apart_stand_for_a_time_zone():
    shifted = "→ expected '2021-06-20T23:00:00.000Z' to be '2021-06-21T00:00:00.000Z' // Object.is equality"
    assert error_links.words("yarn vitest run", shifted) == "timezone tz utc offset"
    for other in ("→ expected '2021-06-20T23:00:00Z' to be '2021-06-20T23:30:00Z'",  # half an hour: not whole
                  "→ expected '2021-06-20T23:00:00Z' to be '2021-06-22T23:00:00Z'",  # two days: not an offset
                  "→ expected '2021-06-20T23:00:00Z' to be '2021-13-40T23:00:00Z'",  # not a date
                  "token 2021-06-20T10:00:00Z"):
        assert error_links.words("yarn vitest run", other) == "", other


def test_the_links_join_the_error_part_of_the_query():
    text, errors = error_text.query("ruff check python/", "Exit code 1\n" + B006 + "\nFound 1 error.")
    assert "bugbear" in errors and "bugbear" in text
    assert error_text.query("ruff check python/", "Exit code 1\nFound 1 error.")[1] == "Found   error."
