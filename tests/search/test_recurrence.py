"""memory.search.recurrence: which error lines are recorded, and when a printed line is a recorded one again."""
from memory.search import recurrence

MODULE = ("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
          "ModuleNotFoundError: No module named 'django'\n")


def seen(recorded_lines, output, bar=0.6, command="make test"):
    recorded = {0: recurrence.recorded_terms({"errors": recorded_lines})}
    return recurrence.recurring(recorded, command, output, bar) == [0]


def test_the_signature_keeps_failure_lines_that_name_something():
    assert recurrence.signature("python app.py", MODULE) == ["ModuleNotFoundError: No module named 'django'"]
    tsc = ("src/a.ts(12,5): error TS2339: Property 'hideFromInspect' does not exist on type 'Panel'.\n"
           "Found 1 error in src/a.ts:12\n")
    assert recurrence.signature("yarn tsc", tsc) == [
        "error TS2339: Property 'hideFromInspect' does not exist on type 'Panel'."]  # where it was: cleaned out
    # lines that only say something failed, in the words every tool uses, are never recorded
    assert recurrence.signature("yarn jest", "expect(received).toBe(expected) // Object.is equality\n") == []
    assert recurrence.signature("pytest", "E   AssertionError: assert 3 == 4\n") == []
    assert recurrence.signature("python x.py", "TypeError: 'NoneType' object is not subscriptable\n") == []
    many = "".join(f"error: cannot find crate `dep{i}`\n" for i in range(10))
    assert len(recurrence.signature("cargo build", many)) == recurrence.MAX_LINES


def test_the_same_failure_in_another_run_recurs():
    [line] = recurrence.signature("pytest", MODULE)
    assert seen([line], "ImportError while loading conftest '/w/conftest.py'.\nconftest.py:4: in <module>\n"
                        "E   ModuleNotFoundError: No module named 'django'\n")
    assert seen(["line : pnpm: command not found"], "Exit code 127\n/usr/bin/bash: line 3: pnpm: command not found\n")
    tsc = "error TS2339: Property 'hideFromInspect' does not exist on type 'Panel'."
    assert seen([tsc], "public/app/x.tsx(88,14): error TS2339: Property 'hideFromInspect' does not exist on type "
                       "'Panel'.\n")


def test_another_name_in_the_same_template_does_not_recur():
    [line] = recurrence.signature("pytest", MODULE)
    assert not seen([line], "E   ModuleNotFoundError: No module named 'yaml'\n")
    assert not seen(["TypeError: Cannot read properties of undefined (reading 'uid')"],
                    "TypeError: Cannot read properties of undefined (reading 'name')\n")
    # the recorded names inside a longer, different failure: too little of the line is the same
    assert not seen(["error[E0433]: failed to resolve: use of undeclared crate or module `tokio`"],
                    "warning: tokio feature `full` enables more than the runtime needs; see the tokio docs for "
                    "the list of the features, their costs and what each of them enables in the build\n")


def test_the_bar_is_a_parameter():
    recorded = ["error: linker `cc` not found"]
    printed = "error: linker `cc` not found while building proc-macro2 for the host triple\n"
    assert seen(recorded, printed, bar=0.3) and not seen(recorded, printed, bar=0.9)


def test_a_path_that_is_not_a_location_keeps_its_name():
    [line] = recurrence.signature("cat .env", "cat: /home/me/app/.env: No such file or directory\n")
    assert line == "cat: .env: No such file or directory"  # the user's folders never reach the knowledge file
    assert seen([line], "cat: /srv/build/.env: No such file or directory\n")
    assert not seen([line], "cat: /srv/build/config.yml: No such file or directory\n")
    tsc = recurrence.signature("tsc", "src/a.ts(12,5): error TS2552: Cannot find name 'Invoice'.\n")
    assert seen(tsc, "lib/b.ts:3:9 - error TS2552: Cannot find name 'Invoice'.\n")  # where it was varies


def test_lines_that_only_frame_a_failure_are_not_recorded():
    jest = ("FAIL src/app/RuleList.test.tsx (9.8 s)\n  ● RuleList › shows the button\n"
            "  ✕ shows the button (412 ms)\n    TypeError: groups.toSorted is not a function\n"
            "Test Suites: 1 failed, 1 total\nerror Command failed with exit code 1.\n")
    assert recurrence.signature("yarn jest", jest) == ["TypeError: groups.toSorted is not a function"]
    cargo = ("error: the `dbg!` macro is intended as a debugging tool\n"
             "error: could not compile `uv-resolver` (lib) due to 1 previous error\n")
    assert recurrence.signature("cargo clippy", cargo) == ["error: the `dbg!` macro is intended as a debugging tool"]
    dev = ("Error: uv.schema.json changed, please run `cargo dev generate-json-schema`\n"
           "error: test failed, to rerun pass `-p uv-dev --lib`\n")
    assert recurrence.signature("cargo test -p uv-dev", dev) == [
        "Error: uv.schema.json changed, please run `cargo dev generate-json-schema`"]
    pytest_conftest = ("ImportError while loading conftest '/w/app/conftest.py'.\n"
                       "E   ModuleNotFoundError: No module named 'django'\n")
    assert recurrence.signature("pytest", pytest_conftest) == ["E ModuleNotFoundError: No module named 'django'"]
    # a diagnostic's mark (biome, uv) is not a test's; a driver's exception class without a message names nothing
    biome = "a.ts lint/style/useFilenamingConvention ━━━━\n  × The filename should be in kebab-case.\n"
    assert recurrence.signature("yarn biome check", biome) == ["× The filename should be in kebab-case."]
    assert recurrence.signature("make build", "cgo: C compiler \"gcc\" not found\nmake: *** [Makefile:12: build-go] "
                                              "Error 1\n") == ['cgo: C compiler "gcc" not found']
    clickhouse = "clickhouse_driver.errors.ServerException: Code: 57.\n"
    assert recurrence.signature("python manage.py migrate_clickhouse", clickhouse) == []
    pytest_line = "FAILED tests/test_db.py::test_connect - ModuleNotFoundError: No module named 'psycopg2'\n"
    assert recurrence.signature("pytest", pytest_line) == [  # what failed, not which test
        "ModuleNotFoundError: No module named 'psycopg2'"]
    go = "--- FAIL: TestParseConfig (0.00s)\n    config_test.go:57: got 3 want 4\nFAIL\n"
    assert recurrence.signature("go test ./...", go) == []
    vitest = " ❯ packages/lib/date-ranges.test.ts (3 tests | 1 failed) 12ms\n   × ranges > spans midnight 4ms\n"
    assert recurrence.signature("yarn vitest run", vitest) == []
    cargo = ("test parser::tests::parses_empty ... FAILED\n"
             "thread 'parser::tests::parses_empty' panicked at crates/p/src/lib.rs:9:5:\n"
             "assertion failed: tokens.is_empty()\n")
    assert recurrence.signature("cargo test", cargo) == ["assertion failed: tokens.is_empty()"]
    # many framing lines before the message: it is still found
    many = "".join(f"  ✕ renders case {i} (5 ms)\n" for i in range(15)) + "TypeError: x.toSorted is not a function\n"
    assert recurrence.signature("yarn jest", many) == ["TypeError: x.toSorted is not a function"]
    # the tool naming itself is not what failed; a folder is nobody's business
    assert recurrence.signature("ls /home/alice/src", "ls: cannot access '/home/alice/src': No such file\n") == []
    windows = r"error: could not read C:\Users\alice\app\config.yaml: permission denied"
    assert recurrence.signature("app run", windows) == ["error: could not read config.yaml: permission denied"]


def test_no_person_or_host_is_recorded_and_the_failure_still_recurs():
    """Recorded lines go into the committed knowledge: an email address, a user or login name, ssh's
    `user@host:`, a company's host name never; the same failure for someone else still recurs."""
    failures = {
        "psql -h db": 'psql: error: connection to server at "db-prod-3.internal.acme.com" (10.2.3.4), port 5432 '
                      'failed: FATAL:  password authentication failed for user "alice"',
        "git push": "ERROR: Permission to acme/app.git denied to alice-smith.\nfatal: unable to access",
        "git push origin": "remote: error: GH007: Your push would publish a private email address: "
                           "alice.smith@acme.com",
        "curl https://api.acme.internal/v1": "curl: (6) Could not resolve host: api.acme.internal",
        "ssh bastion": "alice@bastion: Permission denied (publickey).",
        "mysql -u bob": "ERROR 1045 (28000): Access denied for user 'bob'@'localhost' (using password: YES)",
        "npm login": "npm ERR! code E401 Incorrect or missing password for login carol.j",
    }
    for command, output in failures.items():
        recorded = recurrence.signature(command, output)
        assert recorded, command
        for name in ("alice", "smith", "bob", "carol", "acme", "bastion", "10.2.3.4"):
            assert name not in " ".join(recorded), (command, recorded)
    [line] = recurrence.signature("psql -h db", failures["psql -h db"])
    assert seen([line], failures["psql -h db"].replace('"alice"', '"dave"'), command="psql -h db")
    assert recurrence.signature("npm i", "npm ERR! ERESOLVE could not resolve react@18.2.0 peer of @types/react") \
        == ["npm ERR! ERESOLVE could not resolve react@ peer of @types/react"]  # a package, not a person


def test_a_timeout_that_names_nothing_records_what_timed_out():
    timeout = "Command timed out after 2m 0.0s\n   Compiling serde v1.0.219\n"
    [line] = recurrence.signature("cargo build --release", timeout)
    assert line == "timed out running: cargo build"
    assert seen([line], timeout, command="cd crates/uv && cargo build -p uv")
    # the program and a plain subcommand only: never the user, host or database the command names
    assert recurrence.signature("psql -U alice -h db.internal.corp mydb", timeout) == ["timed out running: psql"]
    assert recurrence.signature("ssh deploy@prod-db.internal uptime", timeout) == ["timed out running: ssh"]
    assert not seen([line], timeout, command="cargo test")  # another command timing out
    assert not seen([line], "Exit code 101\nerror: linker `cc` not found\n", command="cargo build")  # not a timeout
    assert recurrence.signature("./scripts/check.sh --all", timeout) == []  # nothing named: nothing recorded
    # programs a tokenizer drops as common English words still name what timed out
    [make_run] = recurrence.signature("make run", timeout)
    assert make_run == "timed out running: make run"
    assert seen([make_run], timeout, command="make run") and not seen([make_run], timeout, command="make test")
    assert recurrence.signature("go test ./pkg/api/...", timeout) == ["timed out running: go test"]
    assert not seen(["timed out running: go test"], timeout, command="go build ./...")


def test_a_timeout_after_cd_records_the_command_that_timed_out_not_the_cd():
    """Agents run `cd app && make test`: the `cd` named nothing that timed out, and recorded, every later timeout in
    that folder (a dev server's) brought back the entry written after the tests'."""
    timeout = "Command timed out after 2m 0.0s\n"
    assert recurrence.signature("cd build && make test", timeout) == ["timed out running: make test"]
    assert recurrence.signature("cd services/api; go test ./...", timeout) == ["timed out running: go test"]
    assert recurrence.signature("source .venv/bin/activate && pytest -x", timeout) == ["timed out running: pytest"]
    [line] = recurrence.signature("cd frontend && yarn test", timeout)
    assert seen([line], timeout, command="cd frontend && yarn test --watch=false")
    assert not seen([line], timeout, command="cd frontend && yarn dev")
    assert recurrence.signature("cd build", timeout) == ["timed out running: cd build"]  # nothing else ran
    # a wrapper runs what follows it: that timed out
    [wrapped] = recurrence.signature("timeout 60 make test", timeout)
    assert wrapped == "timed out running: make test" and seen([wrapped], timeout, command="make test")
    assert recurrence.signature("nice -n 5 cargo build --release", timeout) == ["timed out running: cargo build"]
    assert not seen([wrapped], timeout, command="timeout 60 make lint")


def test_a_long_line_is_cut_on_a_word():
    [line] = recurrence.signature("x", "error: " + "word " * 80 + "ending\n")
    assert len(line) <= recurrence.MAX_LINE_CHARS and line.endswith("word")


def test_a_malformed_errors_field_records_nothing():
    for value in ("No module named 'django'", [None, 5, ""], {"a": 1}, None):
        assert recurrence.recorded_terms({"errors": value}) == []
    assert recurrence.recorded_terms({"errors": ["", "pnpm: command not found"]}) == [["command", "found", "pnpm"]]


def test_an_insight_is_about_a_failure_when_it_shares_any_term_with_the_command_or_its_output():
    command = "python3 -c 'import psycopg2'"
    output = ("Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
              "ModuleNotFoundError: No module named 'psycopg2'\n")
    seen = recurrence.failure_terms(command, output)
    assert seen == sorted(set(seen))  # distinct, in a stable order
    # a word of the error, a word only the command holds, a word only a framing line holds: each is enough
    assert recurrence.about_failure("The driver is psycopg 3 here, never psycopg2.", seen)
    assert recurrence.about_failure("Activate the venv first: the system python3 has no drivers.", seen)
    assert recurrence.about_failure("A traceback from a -c snippet names no file.", seen)
    # stemmed like every search: `modules` meets `module`
    assert recurrence.about_failure("Vendored modules live in third_party/.", seen)
    # nothing in common: the failure is not what the insight is about
    assert not recurrence.about_failure("Refunds are rounded in the service, not in the view.", seen)
    assert not recurrence.about_failure("Refunds are rounded in the service.", [])
