"""memory.search.error_text: what a failed command's output says went wrong, without its noise."""
from memory.search import error_text

VITEST = """Exit code 1
 RUN  v2.1.9 /home/dev/work/app

 ❯ packages/lib/slugify.test.ts (9 tests | 1 failed) 7ms
   × slugify > collapses repeated separators 3ms
     → expected 'hello--world' to be 'hello-world' // Object.is equality

 Test Files  1 failed (1)
      Tests  1 failed | 8 passed (9)"""

CLIPPY = """Exit code 101
error: use of `println!`
   --> crates/uv/src/commands/project/lock.rs:214:9
    |
214 |         println!("Resolved {} packages", resolution.len());
    |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
error: could not compile `uv` (lib) due to 1 previous error"""


def test_the_lines_that_say_what_failed_not_the_echoed_source_or_the_exit_line():
    found = error_text.lines(CLIPPY)
    assert found[0] == "error: use of `println!`"
    assert not any("Resolved" in line or line.startswith(("-->", "|", "^")) or "Exit code" in line for line in found)
    assert "× slugify > collapses repeated separators 3ms" in error_text.lines(VITEST)


def test_compound_error_names_and_codes_count_as_failure_lines():
    out = ("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
           "ModuleNotFoundError: No module named 'psycopg2'")
    assert "ModuleNotFoundError: No module named 'psycopg2'" in error_text.lines(out)
    assert error_text.lines("src/a.py:9:25: B006 Do not use mutable data structures") != []
    assert 'File "x.py", line 1, in <module>' not in error_text.lines(out)  # a stack frame: where, not what


def test_an_output_saying_nothing_keeps_its_last_lines():
    assert error_text.lines("Exit code 1\nDiff in src/settings.rs:412:\n     pub struct Options {") == [
        "Diff in src/settings.rs:412:", "pub struct Options {"]
    assert error_text.lines("Command timed out after 2m 0.0s") == ["Command timed out after 2m 0.0s"]


def test_clean_drops_file_paths_links_numbers_and_hashes_but_keeps_module_names_and_codes():
    text = error_text.clean("src/ee/services/bookings.service.ts:14:30 - error TS2307: Cannot find module "
                            "'@calcom/features/bookings/lib/getLuckyUser' (https://x.dev/a/b) 8c1f2d0e7b3a4c55 12ms")
    assert "bookings.service" not in text and "https" not in text and "8c1f2d0e" not in text and "12ms" not in text
    assert "TS2307" in text and "@calcom/features/bookings/lib/getLuckyUser" in text
    assert "e2e" in error_text.clean("e2e tests failed")  # a word with a digit is not a number


def test_command_words_say_what_ran_not_how():
    command = "TZ=UTC yarn vitest run --no-watch packages/lib/slugify.test.ts"
    assert error_text.command_words(command) == "yarn vitest run"
    assert error_text.command_words("go test ./pkg/api/...") == "go test ./pkg/api/..."  # a package, not a file


def test_the_reporting_words_never_rank():
    terms = error_text.ranking_terms("error: test failed with exit code 1; Found 2 errors in typecheck")
    assert terms == ["typecheck"]


def test_query_is_the_command_then_the_error_lines():
    text, errors = error_text.query("TZ=UTC yarn vitest run packages/lib/slugify.test.ts", VITEST)
    assert text.startswith("yarn vitest run\n") and text.endswith(errors)
    assert "slugify > collapses repeated separators" in errors and "slugify.test.ts" not in errors


def test_rustc_s_note_naming_the_lint_is_an_error_line():
    out = CLIPPY + "\n    = note: `-D clippy::print-stdout` implied by `-D warnings`"
    assert "= note: `-D clippy::print-stdout` implied by `-D warnings`" in error_text.lines(out)
    assert "stdout" in error_text.query("cargo clippy", out)[1]


def test_a_timeout_is_the_runtime_stopping_the_command_not_a_test_timing_out():
    assert error_text.timed_out("Command timed out after 2m 0.0s\n   Compiling serde v1.0.219\n")
    assert not error_text.timed_out("Running 1 test\n  Error: Timed out 15000ms waiting for expect(locator)\n")
    assert not error_text.timed_out("")


def test_an_entry_that_only_prescribes_the_command_that_failed_was_followed():
    said = error_text.ranking_terms("F821 Undefined name `teams_by_id`")
    lint = "Python lint: `ruff check . --fix` and `ruff format .`."
    assert error_text.runs_already(lint, "ruff check posthog/tasks --fix", said)  # every word of the span ran
    assert error_text.runs_already(lint, "cd backend && ruff check . --fix", said)  # one part of a chain
    assert not error_text.runs_already(lint, "ruff check posthog/tasks", said)  # without --fix: not what it says
    assert not error_text.runs_already(lint, "ruff format .", [])  # a timeout or a bare failure: may be the fix
    # the rest of the entry speaks of this error: it still explains it
    bugbear = "Python code: ruff extends `[\"B\"]` (flake8-bugbear, e.g. B006); run `ruff check`."
    assert not error_text.runs_already(bugbear, "ruff check python/", error_text.ranking_terms("B006 mutable default"))
    assert not error_text.runs_already("Use `uv_fs` for file access.", "cargo test", said)  # one word: no command
    # another command it prescribes is what the error asks for: not followed yet
    lint_and_format = "Lint and format: `yarn lint` / `yarn lint:fix` (ESLint), `yarn prettier:write`."
    prettier = error_text.ranking_terms("Code style issues found in 3 files. Run Prettier with --write to fix.")
    assert not error_text.runs_already(lint_and_format, "yarn prettier:check && yarn lint", prettier)
    assert error_text.runs_already(lint_and_format, "yarn lint", error_text.ranking_terms("react-hooks/rules-of-hooks"))


def test_an_entry_that_forbids_the_command_that_failed_is_not_advice_followed():
    """`Never run X: it needs Y` says why X failed: it is the entry to give, not advice the agent followed."""
    cmd = "pytest tests/test_api.py"
    said = error_text.ranking_terms("sqlalchemy.exc.OperationalError: could not connect to server: Connection refused")
    for content in ("Never run `pytest tests/test_api.py` directly: it needs the test database; use `make test`.",
                    "Do not run `pytest tests/test_api.py` on its own, `make test` starts the database first.",
                    "Don't use `pytest tests/test_api.py` here; `make test` brings up Postgres.",
                    "Use `make test` instead of `pytest tests/test_api.py`: the database comes up first."):
        assert not error_text.runs_already(content, cmd, said), content
    assert error_text.runs_already("Run `pytest tests/test_api.py` to check the API routes.", cmd, said)
    assert error_text.runs_already("Note: `pytest tests/test_api.py` checks the API routes.", cmd, said)
