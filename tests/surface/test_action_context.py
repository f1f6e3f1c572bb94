"""hooks/action_context.py through the real hook file, fed recorded payloads: the knowledge about a file a tool
reads or edits and about a failed command, once per session, within the budget, silent otherwise."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, assert_protocol, clean_env, error_log, fixture_payload, make_repo, run_hook
from memory.core import layout, render
from memory.store import entry, store
from memory.surface import injected, use

ROUTES = "src/api/routes.py registers every route twice when the app reloads; guard with app.url_map."
ALEMBIC = "Alembic migrations must be reversible: every upgrade needs a working downgrade."
PSYCOPG = "ModuleNotFoundError: No module named psycopg2 on CI means libpq-dev is missing; use psycopg2-binary."
OTHER = "The release notes are written by hand every Friday by the on-call engineer."


def project(tmp_path, extra=()):
    repo = make_repo(tmp_path / "app")
    memory = str(repo / ".beads" / "memory")
    store.append(memory, [entry.build(ROUTES, "BD-1", "orchestrator"),
                          entry.build(ALEMBIC, "BD-2", "orchestrator", "warning"),
                          entry.build(PSYCOPG, "BD-3", "orchestrator"),
                          entry.build(OTHER, "BD-4", "orchestrator"), *extra])
    return repo


def file_event(repo, rel, fixture="PreToolUse-15.json", session="s1"):
    payload = fixture_payload(f"claude-code/2.1.330/{fixture}")
    payload.update(cwd=str(repo), session_id=session)
    payload["tool_input"]["file_path"] = str(repo / rel)
    return payload


def failure(repo, command, error, session="s1"):
    payload = fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json")
    payload.update(cwd=str(repo), session_id=session, error=error)
    payload["tool_input"]["command"] = command
    return payload


def context(proc, event):
    assert proc.returncode == 0, proc.stderr
    assert_protocol(proc.stdout)
    if not proc.stdout:
        return ""
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == event
    return answer["additionalContext"]


def test_a_read_of_a_named_file_gets_the_entry_once_per_session(tmp_path):
    repo = project(tmp_path)
    first = context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    assert first.startswith("## Knowledge about this file\n") and ROUTES in first
    assert ALEMBIC not in first and OTHER not in first
    assert context(run_hook("action_context", file_event(repo, "src/api/routes.py", "PreToolUse-17.json"), repo),
                   "PreToolUse") == ""  # the Edit after it: already given
    assert ROUTES in context(run_hook("action_context", file_event(repo, "src/api/routes.py", session="s2"), repo),
                             "PreToolUse")  # another session
    assert error_log(repo) == ""


def test_an_entry_given_and_then_acted_on_by_editing_its_file_counts_as_used(tmp_path):
    repo = make_repo(tmp_path / "app")
    memory = str(repo / ".beads" / "memory")
    routes = entry.build(ROUTES, "BD-1", "orchestrator")
    psycopg = entry.build(PSYCOPG + " Pin it in requirements/base.txt.", "BD-3", "orchestrator")
    store.append(memory, [routes, psycopg, entry.build(OTHER, "BD-4", "orchestrator")])
    assert ROUTES in context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    assert use.counts(memory) == {}  # shown is not used
    edit = file_event(repo, "src/api/routes.py", "PreToolUse-17.json")
    assert context(run_hook("action_context", edit, repo), "PreToolUse") == ""
    assert use.counts(memory) == {routes["key"]: 1}
    run_hook("action_context", edit, repo)  # the same session edits again: one use
    fresh = file_event(repo, "src/api/routes.py", "PreToolUse-17.json", session="s2")
    assert ROUTES in context(run_hook("action_context", fresh, repo), "PreToolUse")  # given at the edit itself
    assert use.counts(memory) == {routes["key"]: 1}
    # given at an error, then the file it names edited
    assert PSYCOPG in context(run_hook("action_context", failure(
        repo, "pytest", "Exit code 1\nModuleNotFoundError: No module named 'psycopg2'", session="s3"), repo),
        "PostToolUseFailure")
    requirements = file_event(repo, "requirements/base.txt", "PreToolUse-17.json", session="s3")
    requirements["tool_input"].update(old_string="psycopg2==2.9\n", new_string="psycopg2-binary==2.9\n")
    run_hook("action_context", requirements, repo)
    assert use.counts(memory) == {routes["key"]: 1, psycopg["key"]: 1}
    assert error_log(repo) == ""


def test_folder_and_framework_words_of_the_area(tmp_path):
    repo = project(tmp_path)
    edit = file_event(repo, "db/alembic/migrations/0042_add_refunds.py", "PreToolUse-17.json")  # two area words
    text = context(run_hook("action_context", edit, repo), "PreToolUse")
    assert text.startswith("## Knowledge about this file") and "[WARN] " + ALEMBIC in text and ROUTES not in text
    lone = file_event(repo, "alembic/env.py", session="s2")  # one area word alone is below the bar
    assert context(run_hook("action_context", lone, repo), "PreToolUse") == ""


def test_a_failed_command_gets_the_entry_its_error_explains(tmp_path):
    repo = project(tmp_path)
    error = ("Exit code 1\nImportError while loading conftest '/app/tests/conftest.py'.\n"
             "tests/conftest.py:3: in <module>\n    import psycopg2\n"
             "E   ModuleNotFoundError: No module named 'psycopg2'")
    text = context(run_hook("action_context", failure(repo, "pytest tests/test_db.py -q", error), repo),
                   "PostToolUseFailure")
    assert text.startswith("## Knowledge about this error\n") and PSYCOPG in text and ROUTES not in text
    again = run_hook("action_context", failure(repo, "pytest tests/test_db.py -q", error), repo)
    assert context(again, "PostToolUseFailure") == ""


VENV = "Open `make shell` first: the project's interpreter lives in the dev container, not on the host."


def test_an_entry_captured_right_after_the_same_error_is_given_whatever_its_words(tmp_path):
    """Provenance `errors` (memory.search.recurrence): the entry shares no word with the error, yet it was
    recorded right after a failure that printed the same line."""
    recorded = entry.build(VENV, "BD-9", "orchestrator", errors=["ModuleNotFoundError: No module named 'django'"])
    repo = project(tmp_path, [recorded])
    error = ("Exit code 4\nImportError while loading conftest '/home/me/app/posthog/conftest.py'.\n"
             "posthog/conftest.py:4: in <module>\n    from django.conf import settings\n"
             "E   ModuleNotFoundError: No module named 'django'")
    text = context(run_hook("action_context", failure(repo, "pytest posthog/api/test/test_user.py", error), repo),
                   "PostToolUseFailure")
    assert text.startswith("## Knowledge about this error\n")
    assert f"[LEARN] (recorded right after this same error) {VENV}" in text
    other = error.replace("'django'", "'yaml'")
    assert VENV not in context(run_hook("action_context", failure(repo, "pytest posthog", other, session="s2"), repo),
                               "PostToolUseFailure")
    tighter = repo / ".beads" / "memory" / layout.CONFIG  # the bar is config's
    tighter.write_text(json.dumps({"action_error_recurrence": 0.95}))
    loose_line = error.replace("'django'", "'django' (interpreter python3)")
    assert VENV not in context(run_hook("action_context", failure(repo, "pytest posthog", loose_line, session="s3"),
                                        repo), "PostToolUseFailure")
    tighter.write_text("{}")
    assert VENV in context(run_hook("action_context", failure(repo, "pytest posthog", loose_line, session="s3"), repo),
                           "PostToolUseFailure")


def with_notes(tmp_path, texts: list, note: str, words: tuple) -> Path:
    """A project holding `texts` (BD-20, BD-21, …) and a note per word (`note` formatted with it), so that a word
    of the texts is rare among the entries."""
    return project(tmp_path, [entry.build(text, f"BD-{20 + i}", "x") for i, text in enumerate(texts)]
                   + [entry.build(note.format(word), f"BD-{30 + i}", "x") for i, word in enumerate(words)])


def test_an_entry_matching_only_the_command_is_not_given(tmp_path):
    """How to run the tests is what the agent just did: the error lines must share a rare word with the entry."""
    how = "Run one test file with `TZ=UTC yarn vitest run path/to/file.test.ts` from the repository root."
    slots = "getSlots vitest tests see hourly slots shifted by the machine's UTC offset unless TZ=UTC is set."
    repo = with_notes(tmp_path, [how, slots], "Note about the {} service.",
                      ("billing", "search", "mailer", "queue", "auth", "cache"))
    slug = ("Exit code 1\n ❯ packages/lib/slugify.test.ts (9 tests | 1 failed) 7ms\n"
            "   × slugify > collapses repeated separators 3ms\n"
            "     → expected 'hello--world' to be 'hello-world' // Object.is equality")
    command = "TZ=UTC yarn vitest run packages/lib/slugify.test.ts"
    assert context(run_hook("action_context", failure(repo, command, slug), repo), "PostToolUseFailure") == ""
    shifted = ("Exit code 1\n ❯ packages/features/slots.test.ts (24 tests | 3 failed) 412ms\n"
               "   × getSlots > can fit 24 hourly slots for an empty day 38ms\n"
               "     → expected '2021-06-20T23:00:00.000Z' to be '2021-06-21T00:00:00.000Z'")
    text = context(run_hook("action_context", failure(repo, "yarn vitest run packages/features/slots.test.ts",
                                                      shifted, session="s2"), repo), "PostToolUseFailure")
    assert slots in text and how not in text


def test_an_error_gets_the_entry_that_names_what_its_code_stands_for(tmp_path):
    """`B006` prints no "bugbear": the entry about the flake8-bugbear selects is reached through the code's rule set
    (memory.search.error_links); the entry on how to run ruff is not."""
    bugbear = "Python code: ruff extends its selects with flake8-bugbear (`B`); mutable defaults are real bugs here."
    how = "Run `ruff check python/` and `ruff format python/` before committing Python changes."
    repo = with_notes(tmp_path, [bugbear, how], "Note about the {} module and its defaults.",
                      ("resolver", "installer", "cache", "client", "python", "git"))
    out = ("Exit code 1\npython/uv/_find_uv.py:9:25: B006 Do not use mutable data structures for argument "
           "defaults\nFound 1 error.")
    text = context(run_hook("action_context", failure(repo, "ruff check python/", out), repo), "PostToolUseFailure")
    assert bugbear in text and how not in text


STD_FS = "NEVER use `std::fs` directly in uv code; use the `uv_fs` crate (clippy disallows `std::fs::read_dir`)."


def test_an_edit_gets_the_entry_about_what_it_writes(tmp_path):
    """An Edit is judged on what it adds too: the new `std::fs::read_dir` call calls for the std::fs rule; the
    same file read, or an edit adding nothing it names, gets nothing."""
    repo = with_notes(tmp_path, [STD_FS], "Note about the {} crate and its tests.",
                      ("resolver", "installer", "cache", "client", "pep440", "python", "git"))
    rel = "crates/uv-python/src/managed.rs"
    assert context(run_hook("action_context", file_event(repo, rel), repo), "PreToolUse") == ""
    edit = file_event(repo, rel, fixture="PreToolUse-17.json", session="s2")
    edit["tool_input"].update(old_string="        let entries = match fs_err::read_dir(&self.root) {\n",
                              new_string="        let entries = match std::fs::read_dir(&self.root) {\n")
    text = context(run_hook("action_context", edit, repo), "PreToolUse")
    assert text.startswith("## Knowledge about this file\n") and STD_FS in text
    plain = file_event(repo, rel, fixture="PreToolUse-17.json", session="s3")
    plain["tool_input"].update(old_string="let a = 1;\n", new_string="let a = 2; // the first value\n")
    assert context(run_hook("action_context", plain, repo), "PreToolUse") == ""
    write = file_event(repo, "crates/uv-python/src/new.rs", fixture="PreToolUse-13.json", session="s4")
    write["tool_input"]["content"] = "use std::fs;\nfn list() { std::fs::read_dir(\".\").unwrap(); }\n"
    assert STD_FS in context(run_hook("action_context", write, repo), "PreToolUse")


def test_an_entry_saying_to_run_what_just_failed_is_advice_already_followed(tmp_path):
    migrate = "After pulling main, always run `yarn workspace @acme/prisma db-migrate` before the dev server."
    repo = project(tmp_path, [entry.build(migrate, "BD-5", "orchestrator")])
    command = "yarn workspace @acme/prisma db-migrate"
    syntax = ("Exit code 1\nError: P3018\nA migration failed to apply. Database error: ERROR: syntax error at or "
              "near \"WHERE\"\nMigration name: 20250614101500_backfill_prisma_db_migrate_hidden")
    assert context(run_hook("action_context", failure(repo, command, syntax), repo), "PostToolUseFailure") == ""
    timeout = "Command timed out after 2m 0.0s\nApplying migration `20250614101500_backfill`"
    assert migrate in context(run_hook("action_context", failure(repo, command, timeout, session="s3"), repo),
                              "PostToolUseFailure")  # timed out: how it is run may be the fix
    # the advice not followed: another command failing on the pending migrations gets it
    pending = "Exit code 1\nError: the dev server found the schema behind main after pulling; run db-migrate"
    assert migrate in context(run_hook("action_context", failure(repo, "yarn dev", pending, session="s2"), repo),
                              "PostToolUseFailure")


def test_silence_on_negatives(tmp_path):
    repo = project(tmp_path)
    for rel in ("docs/changelog.md", "web/src/components/Header.tsx", "README.md", "src/api/views.py"):
        assert context(run_hook("action_context", file_event(repo, rel), repo), "PreToolUse") == "", rel
    unrelated = failure(repo, "npm run build", "Exit code 2\nsrc/index.ts(4,7): error TS2322: Type 'string' is "
                                                "not assignable to type 'number'.")
    assert context(run_hook("action_context", unrelated, repo), "PostToolUseFailure") == ""
    assert context(run_hook("action_context", failure(repo, "exit 3", "Exit code 3"), repo), "PostToolUseFailure") == ""
    bash = fixture_payload("claude-code/2.1.330/PreToolUse-1.json")  # a Bash call: not a file event
    assert context(run_hook("action_context", dict(bash, cwd=str(repo)), repo), "PreToolUse") == ""
    cursor = json.loads((ROOT / "tests" / "fixtures" / "public" / "cursor-afterFileEdit-1.json").read_text())
    assert run_hook("action_context", cursor, repo).stdout == b""  # Cursor: no context on tool events
    for raw in (b"", b"\xff\xfe", b"[1]", b'{"file_path": 3, "tool_input": "x"}', b"{" * 5000):
        proc = run_hook("action_context", raw, repo)
        assert proc.returncode == 0 and proc.stdout == b""
    assert not (repo / ".beads" / "memory" / layout.INJECTED).exists()  # nothing was given


def test_nothing_the_session_was_already_given(tmp_path):
    repo = project(tmp_path)
    memory = str(repo / ".beads" / "memory")
    injected.remember(memory, "s1", [entry.make_key("learned", ROUTES)])  # e.g. by the prompt hook
    assert context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse") == ""


def test_a_file_many_entries_are_about_still_gets_those_the_session_was_not_given(tmp_path):
    """The session was given the newest 26 of 30 entries about a file (session start, earlier reads): a Read kept
    the top 11 of its ranking, all given already, and got nothing although 4 were never shown."""
    notes = [entry.build(f"src/payments/refund.py rule {i}: refunds of kind {i} round half up.", f"BD-{i}",
                         "orchestrator", ts=1_700_000_000 + i) for i in range(30)]
    repo = project(tmp_path, notes)
    memory = str(repo / ".beads" / "memory")
    given = [n["key"] for n in notes[4:]]  # the newest, as session start gives them
    injected.remember(memory, "s1", given)  # e.g. by session start, in full
    text = context(run_hook("action_context", file_event(repo, "src/payments/refund.py"), repo), "PreToolUse")
    shown = [n for n in notes if n["content"] in text]
    assert len(shown) == 3 and not {n["key"] for n in shown} & set(given)


def test_budget_and_order(tmp_path):
    many = [entry.build(f"routes.py note {i}: " + "the handler registry is rebuilt on reload. " * 4, f"BD-{10 + i}",
                        "orchestrator", ts=1_700_000_000 + i) for i in range(6)]
    many.append(entry.build("routes.py must never import the models at module level.", "BD-30", "orchestrator",
                            "warning", ts=1_600_000_000))
    repo = project(tmp_path, many)
    text = context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    assert text.splitlines()[1] == render.FRAMING  # what follows is data, never orders
    lines = text.splitlines()[2:]
    assert len(lines) == 3 and len(text) <= 1000
    assert lines[0].startswith("  [LEARN] src/api/routes.py")  # the whole path named: the strongest cue
    assert lines[1] == "  [WARN] routes.py must never import the models at module level."  # then warnings
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"action_max_entries": 1}))
    text = context(run_hook("action_context", file_event(repo, "src/api/routes.py", session="s9"), repo),
                   "PreToolUse")
    assert len(text.splitlines()) == 3  # heading, framing line, one entry


def test_the_bar_is_read_from_config(tmp_path):
    repo = project(tmp_path)
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"action_file_min_score": 10}))
    assert context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse") == ""


def test_an_error_block_is_never_padded_with_weaker_entries(tmp_path):
    """`action_error_follow`: entries scoring under that share of the best one stay out of the block (every
    grounded entry passes the bar of 0 here; the Docker note shares two words of the error, PSYCOPG five)."""
    docker = "In the slim Docker image psycopg2 fails to build; install libpq-dev first."
    repo = project(tmp_path, [entry.build(docker, "BD-9", "orchestrator")])
    config = repo / ".beads" / "memory" / "config.json"
    error = "Exit code 1\nE   ModuleNotFoundError: No module named 'psycopg2'"
    shown = {}
    for follow, session in ((0.0, "s1"), (1.0, "s2")):
        config.write_text(json.dumps({"action_error_min_fraction": 0.0, "action_error_follow": follow}))
        text = context(run_hook("action_context", failure(repo, "pytest -q", error, session), repo),
                       "PostToolUseFailure")
        shown[follow] = [t for t in (PSYCOPG, docker) if t in text]
    assert shown[0.0] == [PSYCOPG, docker] and shown[1.0] == [PSYCOPG]


def test_a_repeated_read_is_a_cache_lookup(tmp_path):
    """The second Read of a file never opens the cue map: garbage there stays untouched; another file rebuilds it."""
    repo = project(tmp_path)
    cues = repo / ".beads" / "memory" / layout.PATH_CUES
    assert ROUTES in context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    cues.write_bytes(b"garbage")
    assert context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse") == ""
    assert cues.read_bytes() == b"garbage"  # answered from the session's cache
    run_hook("action_context", file_event(repo, "docs/other.md"), repo)
    assert cues.read_bytes() != b"garbage"  # a new file: the map is read (and rebuilt)
    store.append(str(repo / ".beads" / "memory"), [entry.build("routes.py answers 404 for HEAD.", "BD-9", "x")])
    text = context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    assert "routes.py answers 404 for HEAD." in text and ROUTES not in text  # the knowledge changed: looked up


def test_gemini_after_tool_read_and_failed_shell(tmp_path):
    repo = project(tmp_path)
    read = fixture_payload("gemini/0.61.0/AfterTool-read_file-1.json")
    read.update(cwd=str(repo), tool_input={"file_path": str(repo / "src" / "api" / "routes.py")})
    assert ROUTES in context(run_hook("action_context", read, repo), "AfterTool")
    failed = dict(fixture_payload("gemini/0.61.0/AfterTool-failed-1.json"), cwd=str(repo))
    assert PSYCOPG in context(run_hook("action_context", failed, repo), "AfterTool")
    ok = dict(fixture_payload("gemini/0.61.0/AfterTool-1.json"), cwd=str(repo))
    assert context(run_hook("action_context", ok, repo), "AfterTool") == ""


def test_codex_shell_read_and_failure(tmp_path):
    repo = project(tmp_path)
    base = dict(fixture_payload("codex/0.169.0/PostToolUse-1.json"), cwd=str(repo))
    pre = dict(base, hook_event_name="PreToolUse", tool_input={"command": "sed -n 1,80p src/api/routes.py"})
    del pre["tool_response"]
    assert ROUTES in context(run_hook("action_context", pre, repo, args=["--codex"]), "PreToolUse")
    listing = dict(pre, tool_input={"command": "ls -la src"}, session_id="s2")
    assert context(run_hook("action_context", listing, repo, args=["--codex"]), "PreToolUse") == ""
    failed = dict(base, tool_input={"command": "python3 -c 'import psycopg2'"},
                  tool_response="Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                                "ModuleNotFoundError: No module named 'psycopg2'\n")
    assert PSYCOPG in context(run_hook("action_context", failed, repo, args=["--codex"]), "PostToolUse")
    assert context(run_hook("action_context", base, repo, args=["--codex"]), "PostToolUse") == ""  # succeeded


def test_claude_shell_read_gets_the_file_knowledge_after_the_call(tmp_path):
    """In bypass-permissions mode Claude Code 2.1.330 tells the model to read files with cat, head or sed -n
    instead of the Read tool: such a read got nothing (only the file tools were registered)."""
    repo = project(tmp_path)
    base = dict(fixture_payload("claude-code/2.1.330/PostToolUse-15.json"), cwd=str(repo))
    read = dict(base, tool_input={"command": "sed -n 1,80p src/api/routes.py", "description": "read the routes"})
    assert ROUTES in context(run_hook("action_context", read, repo), "PostToolUse")
    whole = dict(base, session_id="s2", tool_input={"command": f"cat {repo}/src/api/routes.py | head -40"})
    assert ROUTES in context(run_hook("action_context", whole, repo), "PostToolUse")
    from_inside = dict(base, session_id="s5", tool_input={"command": "cd src && cat api/routes.py"})
    assert ROUTES in context(run_hook("action_context", from_inside, repo), "PostToolUse")
    listing = dict(base, session_id="s3", tool_input={"command": "ls -la src/api"})
    assert context(run_hook("action_context", listing, repo), "PostToolUse") == ""
    # the call succeeded (a failure is PostToolUseFailure): what it printed is no error, whatever it says
    printed = dict(base, session_id="s4", tool_input={"command": "grep -rn psycopg2 ci.log | head -5"},
                   tool_response=dict(base["tool_response"],
                                      stdout="Exit code 1\nModuleNotFoundError: No module named 'psycopg2'\n"))
    assert context(run_hook("action_context", printed, repo), "PostToolUse") == ""
    assert not (repo / ".beads" / "memory" / "errors.log").exists()


def test_claude_in_place_shell_edit_counts_what_the_session_was_given_about_the_file(tmp_path):
    """`sed -i` through Claude's Bash is an edit of the file: what the session was given about it was used."""
    repo = project(tmp_path)
    memory = str(repo / ".beads" / "memory")
    assert ROUTES in context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    edit = dict(fixture_payload("claude-code/2.1.330/PostToolUse-15.json"), cwd=str(repo), session_id="s1",
                tool_input={"command": "sed -i 's/twice/once/' src/api/routes.py"})
    assert context(run_hook("action_context", edit, repo), "PostToolUse") == ""  # given already
    [key] = [e["key"] for e in store.load(memory).entries if e["content"] == ROUTES]
    assert use.counts(memory) == {key: 1}


def test_codex_in_a_subfolder_reads_relative_to_it(tmp_path):
    """Codex started in `src/` runs `sed -n 1,80p api/routes.py` there: the path was taken from the repository's
    top (`api/routes.py`), and the file's knowledge never came."""
    repo = project(tmp_path)
    (repo / "src" / "api").mkdir(parents=True)
    pre = dict(fixture_payload("codex/0.169.0/PostToolUse-1.json"), cwd=str(repo / "src"),
               hook_event_name="PreToolUse", tool_input={"command": "sed -n 1,80p api/routes.py"})
    del pre["tool_response"]
    assert ROUTES in context(run_hook("action_context", pre, repo / "src", args=["--codex"],
                                      env={"CLAUDE_PROJECT_DIR": ""}), "PreToolUse")


def test_codex_failure_is_read_from_its_rollout_when_the_output_does_not_say(tmp_path):
    """Codex's PostToolUse gives the output alone: a failure whose words do not read like one (a Go toolchain
    mismatch, a missing C compiler) got nothing, though the rollout log records the call's exit code."""
    import shutil

    from memory.runtimes import shell_outcome

    repo = project(tmp_path)
    rollout = tmp_path / "rollout.jsonl"
    shutil.copy(ROOT / "tests" / "fixtures" / "codex" / "0.169.0" / "rollout-1.jsonl", rollout)
    base = dict(fixture_payload("codex/0.169.0/PostToolUse-1.json"), cwd=str(repo), transcript_path=str(rollout),
                tool_input={"command": "python3 -c 'import psycopg2'"},
                tool_response="cannot import psycopg2 here\n")  # no error word at all
    assert shell_outcome.codex_exit_code(dict(base, tool_use_id="call_2")) == 2
    assert shell_outcome.codex_exit_code(dict(base, tool_use_id="call_3")) == 0
    assert PSYCOPG in context(run_hook("action_context", dict(base, tool_use_id="call_2"), repo, args=["--codex"]),
                              "PostToolUse")
    passed = dict(base, tool_use_id="call_3", session_id="s2")  # exit 0: the same words are no failure
    assert context(run_hook("action_context", passed, repo, args=["--codex"]), "PostToolUse") == ""


def test_codex_patch_tool_gets_the_file_knowledge(tmp_path):
    """Current Codex models edit through its apply_patch tool (a PreToolUse of tool_name apply_patch, recorded from
    the real codex-cli 0.169): the registration matched Bash alone, so those edits got nothing."""
    from memory.runtimes import runtimes

    repo = project(tmp_path)
    patch = fixture_payload("codex/0.169.0/PreToolUse-1.json")
    patch.update(cwd=str(repo), tool_input={"command": patch["tool_input"]["command"].replace(
        "conf/defaults.ini", "src/api/routes.py")})
    assert ROUTES in context(run_hook("action_context", patch, repo, args=["--codex"]), "PreToolUse")
    matchers = [m for hook, event, m, _ in runtimes.CODEX_EVENTS if hook == "action_context" and event == "PreToolUse"]
    assert matchers and all(re.fullmatch(m, "apply_patch") and re.fullmatch(m, "Bash") for m in matchers)


def cursor_post_tool_use(repo, tool_name, tool_input, tool_output, conversation="c1", as_string=True):
    """Cursor's postToolUse as its hooks documentation gives it (hook-protocols.md §2.4): flat, `tool_output` a
    JSON string (`as_string=False`: an object, as a later Cursor might send it); no recorded payload exists yet."""
    return {"conversation_id": conversation, "generation_id": "g1", "hook_event_name": "postToolUse",
            "cursor_version": "3.9.16", "workspace_roots": [str(repo)], "tool_name": tool_name,
            "tool_input": tool_input, "tool_output": json.dumps(tool_output) if as_string else tool_output,
            "tool_use_id": "t1", "cwd": str(repo), "duration": 812, "model": "claude-4-sonnet"}


def test_cursor_post_tool_use_gets_the_file_and_the_error_knowledge(tmp_path):
    repo = project(tmp_path)
    read = cursor_post_tool_use(repo, "Read", {"file_path": str(repo / "src/api/routes.py")}, {"content": "x"})
    proc = run_hook("action_context", read, repo, args=["--cursor"])
    assert proc.returncode == 0 and ROUTES in json.loads(proc.stdout)["additional_context"]  # flat, Cursor's
    failed = cursor_post_tool_use(repo, "Shell", {"command": "pytest"}, {
        "exitCode": 1, "stdout": "E   ModuleNotFoundError: No module named 'psycopg2'\n", "stderr": ""})
    answer = json.loads(run_hook("action_context", failed, repo, args=["--cursor"]).stdout)
    assert set(answer) == {"additional_context"} and PSYCOPG in answer["additional_context"]
    ok = cursor_post_tool_use(repo, "Shell", {"command": "pytest"}, {
        "exitCode": 0, "stdout": "ModuleNotFoundError: No module named 'psycopg2' was fixed\n"}, "c2")
    assert run_hook("action_context", ok, repo, args=["--cursor"]).stdout == b""
    before = cursor_post_tool_use(repo, "Read", {"file_path": str(repo / "src/api/routes.py")}, {}, "c3")
    before["hook_event_name"] = "preToolUse"  # carries no context in Cursor
    assert run_hook("action_context", before, repo, args=["--cursor"]).stdout == b""
    assert error_log(repo) == ""


def test_under_cursor_only_its_own_copy_answers_and_notes_the_trail(tmp_path):
    """Cursor runs .claude/settings.json's hooks beside its own: Claude's PostToolUse[Bash] copy ran on every
    failed Shell call too, ranking the error twice and noting the failure twice in the session's trail."""
    from helpers import installed_project

    repo = installed_project(tmp_path / "app")
    store.append(str(repo / ".beads" / "memory"), [entry.build(PSYCOPG, "BD-3", "orchestrator")])
    failed = cursor_post_tool_use(repo, "Shell", {"command": "pytest"}, {
        "exitCode": 1, "stdout": "E   ModuleNotFoundError: No module named 'psycopg2'\n", "stderr": ""})
    assert run_hook("action_context", failed, repo).stdout == b""  # the Claude settings' copy steps aside
    cache = repo / ".beads" / "memory" / layout.ACTION_CACHE
    assert not cache.exists() or not list(cache.iterdir())  # nor noted the failure in the session's trail
    answer = json.loads(run_hook("action_context", failed, repo, args=["--cursor"]).stdout)
    assert PSYCOPG in answer["additional_context"]
    assert error_log(repo) == ""


def test_a_copy_steps_aside_only_for_one_that_runs_this_hook_on_this_event(tmp_path):
    """An install from before a hook existed on an event registers other hooks of ours: the copy that stepped
    aside for it left the event with no answer at all (Cursor's file without postToolUse; the plugin beside
    settings whose PostToolUse[Bash] runs only the capture)."""
    from helpers import installed_project

    repo = installed_project(tmp_path / "app")
    store.append(str(repo / ".beads" / "memory"), [entry.build(PSYCOPG, "BD-3", "orchestrator"),
                                                    entry.build(ROUTES, "BD-1", "orchestrator")])
    cursor = json.loads((repo / ".cursor" / "hooks.json").read_text())
    del cursor["hooks"]["postToolUse"]
    (repo / ".cursor" / "hooks.json").write_text(json.dumps(cursor))
    failed = cursor_post_tool_use(repo, "Shell", {"command": "pytest"}, {
        "exitCode": 1, "stdout": "E   ModuleNotFoundError: No module named 'psycopg2'\n", "stderr": ""})
    assert PSYCOPG in json.loads(run_hook("action_context", failed, repo).stdout)["additional_context"]
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    settings["hooks"]["PostToolUse"] = [group for group in settings["hooks"]["PostToolUse"]
                                        if "action_context" not in json.dumps(group)]
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings))
    read = dict(fixture_payload("claude-code/2.1.330/PostToolUse-15.json"), cwd=str(repo),
                tool_input={"command": "sed -n 1,80p src/api/routes.py"})
    assert ROUTES in context(run_hook("action_context", read, repo, args=["--plugin"]), "PostToolUse")
    edit = file_event(repo, "src/api/routes.py", session="s2")  # PreToolUse[Read|…]: the install's copy answers
    assert context(run_hook("action_context", edit, repo, args=["--plugin"]), "PreToolUse") == ""
    assert ROUTES in context(run_hook("action_context", edit, repo), "PreToolUse")
    assert error_log(repo) == ""


@pytest.mark.parametrize("as_string", [True, False], ids=["documented", "object"])
@pytest.mark.parametrize("code", [1, "1", 127, "2"], ids=["1", "string-1", "127", "string-2"])
def test_a_failed_cursor_shell_call_whatever_the_shape_of_its_tool_output(tmp_path, as_string, code):
    """Beside the documented shape (a JSON string, exitCode a number): tool_output as an object, exitCode as a
    numeric string. A failed call gets its error's knowledge; a success ("0", 0) nothing."""
    repo = project(tmp_path)
    failed = cursor_post_tool_use(repo, "Shell", {"command": "pytest"}, {
        "exitCode": code, "stdout": "E   ModuleNotFoundError: No module named 'psycopg2'\n", "stderr": ""},
        as_string=as_string)
    proc = run_hook("action_context", failed, repo, args=["--cursor"])
    assert proc.returncode == 0 and PSYCOPG in json.loads(proc.stdout)["additional_context"]
    for ok, conversation in ((0, "c2"), ("0", "c3")):
        success = cursor_post_tool_use(repo, "Shell", {"command": "pytest"}, {
            "exitCode": ok, "stdout": "ModuleNotFoundError: No module named 'psycopg2' was fixed\n"},
            conversation, as_string=as_string)
        assert run_hook("action_context", success, repo, args=["--cursor"]).stdout == b""
    assert error_log(repo) == ""


def test_the_plugins_longer_recall_path_keeps_the_action_budget(tmp_path):
    """Entries naming `.beads/memory/recall.sh`, filling the block to the budget's edge: the plugin's answer names
    its own, longer recall.sh, and still holds the budget."""
    named = [entry.build(f"src/api/routes.py note {i}: list its handlers with .beads/memory/recall.sh routes, "
                         ".beads/memory/recall.sh --handoff, .beads/memory/recall.sh --stale.", f"BD-{40 + i}", "x")
             for i in range(3)]
    repo = project(tmp_path, named)
    plain = context(run_hook("action_context", file_event(repo, "src/api/routes.py", session="plain"), repo),
                    "PreToolUse")
    assert plain.count(".beads/memory/recall.sh") >= 6
    one = "\n".join(plain.splitlines()[:3])  # the heading, the framing, the first entry
    for session, budget in (("plugin-1", len(plain)), ("plugin-2", len(one))):  # the second: a single entry cut
        (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"action_budget_chars": budget}))
        rewritten = context(run_hook("action_context", file_event(repo, "src/api/routes.py", session=session), repo,
                                     args=["--plugin"]), "PreToolUse")
        assert str(ROOT / "bin" / "recall.sh") in rewritten and len(rewritten) <= budget
    assert rewritten.endswith("…") and error_log(repo) == ""


def test_sixteen_parallel_tool_calls_keep_the_ledger_right(tmp_path):
    """16 real hook processes at once, one session, files that share entries: no entry is given twice, every
    entry given is in the ledger, the ledger is whole JSON; 16 sessions at once lose no update."""
    shared = [entry.build(f"Every module under src/pkg/ note {i}: keep imports lazy.", f"BD-{50 + i}", "x")
              for i in range(4)]
    own = [entry.build(f"mod{i}.py holds the handler number {i}.", f"BD-{60 + i}", "x") for i in range(16)]
    repo = project(tmp_path, shared + own)
    memory = repo / ".beads" / "memory"
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo))

    def launch(session_of):
        procs = [subprocess.Popen([sys.executable, str(ROOT / "hooks" / "action_context.py")], cwd=repo, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(16)]
        for i, proc in enumerate(procs):  # all started before any gets its stdin: they run together
            proc.stdin.write(json.dumps(file_event(repo, f"src/pkg/mod{i}.py", session=session_of(i))).encode())
            proc.stdin.close()
        outs = [proc.stdout.read() for proc in procs]
        assert all(proc.wait(60) == 0 for proc in procs)
        return [json.loads(o)["hookSpecificOutput"]["additionalContext"] if o else "" for o in outs]

    texts = launch(lambda i: "one")
    shown = [line for text in texts for line in text.splitlines()[2:]]
    assert len(shown) == len(set(shown))  # no entry twice
    assert sum(f"mod{i}.py holds" in "".join(texts) for i in range(16)) == 16  # each file's own entry
    ledger = json.loads((memory / layout.INJECTED).read_text())
    keys = {entry.make_key("learned", e["content"]) for e in shared + own
            if any(e["content"] in line for line in shown)}
    assert keys <= set(ledger["one"]["keys"]) and len(ledger["one"]["keys"]) == len(set(ledger["one"]["keys"]))
    launch(lambda i: f"s{i}")
    ledger = json.loads((memory / layout.INJECTED).read_text())
    assert all(entry.make_key("learned", own[i]["content"]) in ledger[f"s{i}"]["keys"] for i in range(16))
    assert error_log(repo) == ""


def test_nothing_to_add_is_decided_without_json_re_or_git(tmp_path, monkeypatch):
    """The hook before every file read: for a file no entry is about (the cue map built), no json, no re, no
    subprocess are imported; a file an entry is about goes on to the full handler."""
    repo = project(tmp_path)
    run_hook("action_context", file_event(repo, "src/api/routes.py"), repo)  # builds the cue map
    raw = json.dumps(file_event(repo, "docs/guide/setup.md", session="s5"), separators=(",", ":")).encode()
    proc = run_hook("action_context", raw, repo, python_args=["-X", "importtime"])
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
    assert proc.stdout == b"" and "memory.search.action_paths" in imported
    assert not imported & {"json", "re", "subprocess", "memory.runtimes.payload", "memory.surface.injected"}
    from memory.surface import action_gate

    for name in ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR", "MEMORY_HOOKS_DIR"):
        monkeypatch.delenv(name, raising=False)  # the payload's cwd names the project
    positive = json.dumps(file_event(repo, "src/api/routes.py"), separators=(",", ":")).encode()
    assert action_gate.nothing_to_add(raw) is True and action_gate.prefilter(raw) is False
    assert action_gate.nothing_to_add(positive) is False and action_gate.prefilter(positive) is True
    spaced = json.dumps(file_event(repo, "docs/guide/setup.md")).encode()  # `": "`: read alike
    assert action_gate.nothing_to_add(spaced) is True
    escaped = raw.replace(b"/guide/", b"\\/guide\\/")  # an escape: the full parser decides
    assert action_gate.nothing_to_add(escaped) is False
    edit = file_event(repo, "docs/guide/setup.md", fixture="PreToolUse-17.json")
    assert action_gate.nothing_to_add(json.dumps(edit).encode()) is False  # what an edit adds is ranked


def test_a_cursor_read_of_a_file_no_entry_is_about_is_decided_without_json(tmp_path):
    """Cursor's postToolUse after every file read takes the same fast path as Claude's PreToolUse."""
    repo = project(tmp_path)
    run_hook("action_context", file_event(repo, "src/api/routes.py"), repo)  # builds the cue map
    read = cursor_post_tool_use(repo, "Read", {"file_path": str(repo / "docs/guide/setup.md")}, {"content": "x"})
    raw = json.dumps(read, separators=(",", ":")).encode()
    proc = run_hook("action_context", raw, repo, args=["--cursor"], python_args=["-X", "importtime"],
                    env={"CURSOR_PROJECT_DIR": str(repo)})
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
    assert proc.returncode == 0 and proc.stdout == b"" and "memory.search.action_paths" in imported
    assert not imported & {"json", "re", "subprocess", "memory.runtimes.payload"}


def test_what_session_start_gave_in_full_is_not_given_again(tmp_path):
    repo = project(tmp_path)
    start = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo), session_id="s1")
    assert ROUTES in context(run_hook("session_start", start, repo), "SessionStart")  # the newest, in full
    assert context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse") == ""


def test_codex_a_patch_counts_only_what_was_given_before_it_not_at_its_own_pre_tool_use(tmp_path):
    """Codex runs the hook before and after the same shell call: what the PreToolUse of a patch showed was
    not known to the agent when it wrote that patch, so its PostToolUse counts no use."""
    repo = project(tmp_path)
    memory = str(repo / ".beads" / "memory")
    key = next(e["key"] for e in store.load(memory).entries if e["content"] == ROUTES)
    patch = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/api/routes.py\n@@\n"
             "+if rule not in app.url_map: register(rule)\n*** End Patch\nEOF\n")
    base = dict(fixture_payload("codex/0.169.0/PostToolUse-1.json"), cwd=str(repo), tool_input={"command": patch})
    pre = dict(base, hook_event_name="PreToolUse")
    del pre["tool_response"]
    assert ROUTES in context(run_hook("action_context", pre, repo, args=["--codex"]), "PreToolUse")
    post = dict(base, tool_response="Success. Updated the following files:\nM src/api/routes.py\n")
    assert context(run_hook("action_context", post, repo, args=["--codex"]), "PostToolUse") == ""
    assert use.counts(memory) == {}
    again = dict(pre, tool_use_id="call_2")  # a later patch of the file: the entry was given before it
    assert context(run_hook("action_context", again, repo, args=["--codex"]), "PreToolUse") == ""
    assert use.counts(memory) == {key: 1}
    assert error_log(repo) == ""


def test_an_edit_that_only_deletes_lines_counts_what_was_given_before_it(tmp_path):
    repo = project(tmp_path)
    memory = str(repo / ".beads" / "memory")
    key = next(e["key"] for e in store.load(memory).entries if e["content"] == ROUTES)
    assert ROUTES in context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    delete = file_event(repo, "src/api/routes.py", "PreToolUse-17.json")
    delete["tool_input"].update(old_string="app.run(reload=True)\n", new_string="")
    assert context(run_hook("action_context", delete, repo), "PreToolUse") == ""
    assert use.counts(memory) == {key: 1}
    assert error_log(repo) == ""


MAKE = "make check fails with 'No rule to make target check': run make test instead, the check target was removed."


def test_gemini_failed_shell_is_read_without_its_report_wrapper(tmp_path):
    """Gemini wraps a shell call's output ("<untrusted_context>\\nOutput: …\\nExit Code: 2\\nProcess Group PGID:
    …"): the error is what the command printed, not the wrapper's last lines (`make: *** No rule to make target`
    says no failure word, so its error lines are the output's last ones)."""
    repo = project(tmp_path, [entry.build(MAKE, "BD-5", "orchestrator")])
    failed = dict(fixture_payload("gemini/0.61.0/AfterTool-failed-1.json"), cwd=str(repo),
                  tool_input={"command": "make check"},
                  tool_response={"llmContent": "<untrusted_context>\nOutput: make: *** No rule to make target "
                                                "'check'.  Stop.\nExit Code: 2\nProcess Group PGID: 27847\n"
                                                "</untrusted_context>",
                                 "returnDisplay": "make: *** No rule to make target 'check'.  Stop."})
    assert MAKE in context(run_hook("action_context", failed, repo), "AfterTool")
    claude = failure(repo, "make check", "Exit code 2\nmake: *** No rule to make target 'check'.  Stop.", "s2")
    assert MAKE in context(run_hook("action_context", claude, repo), "PostToolUseFailure")  # the same under Claude


def test_a_read_of_a_named_file_without_an_extension_gets_its_entry(tmp_path):
    """bin/ scripts and fake tools have no extension: an entry naming `bin/memory-merge` or `scripts/deploy` by
    its path is about that file (it came to no Read of it, and an entry about `bin/` in general still is not)."""
    merge = "bin/memory-merge orders lines by ts then identity, never by side; both merge directions give one result"
    deploy = "scripts/deploy needs AWS_PROFILE=prod set; without it the script deploys to the sandbox account"
    folder = "Everything under bin/ is run by path, so keep it executable"
    repo = project(tmp_path, [entry.build(text, "BD-5", "orchestrator") for text in (merge, deploy, folder)])
    text = context(run_hook("action_context", file_event(repo, "bin/memory-merge"), repo), "PreToolUse")
    assert merge in text and deploy not in text and folder not in text
    text = context(run_hook("action_context", file_event(repo, "tools/scripts/deploy"), repo), "PreToolUse")
    assert deploy in text and merge not in text
    # a folder of that name is not the file: `scripts/deploy/` read as a folder on a path
    assert deploy not in context(run_hook("action_context", file_event(repo, "scripts/deployment", session="s2"),
                                          repo), "PreToolUse")
    assert error_log(repo) == ""


def test_a_read_of_a_file_whose_path_has_a_space_gets_the_entry_that_quotes_it(tmp_path):
    """`My Docs/setup guide.md` in an entry was read as the words `My`, `Docs/setup` and `guide.md`: a Read of
    that file brought nothing."""
    note = "`My Docs/setup guide.md` is out of date: the install steps moved to the README."
    repo = project(tmp_path, extra=[entry.build(note, "BD-8", "orchestrator")])
    assert note in context(run_hook("action_context", file_event(repo, "My Docs/setup guide.md"), repo), "PreToolUse")
    other = file_event(repo, "notes/setup.md", session="s2")
    assert note not in context(run_hook("action_context", other, repo), "PreToolUse")


def test_a_missing_file_error_does_not_bring_an_entry_about_some_directory(tmp_path):
    """`file or directory not found` / `No such file or directory` say that a path is missing, never what about:
    pytest on a mistyped test file brought an unrelated entry that shared `python` and `directory`."""
    install_dir = "`UV_PYTHON_INSTALL_DIR` (storage directory for Python installations) must be absolute."
    repo = project(tmp_path, [entry.build(install_dir, "BD-6", "orchestrator")])
    missing = ("Exit code 4\nERROR: file or directory not found: tests/core/test_nonexistent.py\n\n\n"
               "no tests ran in 0.44s")
    pytest = "python3 -m pytest -q tests/core/test_nonexistent.py"
    proc = run_hook("action_context", failure(repo, pytest, missing), repo)
    assert context(proc, "PostToolUseFailure") == ""
    ls = "Exit code 2\nls: cannot access 'build/python': No such file or directory"
    assert context(run_hook("action_context", failure(repo, "ls build/python", ls, session="s2"), repo),
                   "PostToolUseFailure") == ""
    # an error about a directory itself still finds the entry that explains it
    absolute = ("Exit code 2\nerror: UV_PYTHON_INSTALL_DIR must be an absolute path, the storage directory "
                "`./pythons` is relative")
    assert install_dir in context(run_hook("action_context", failure(repo, "uv python install", absolute,
                                                                      session="s3"), repo), "PostToolUseFailure")
    assert error_log(repo) == ""


def test_a_failed_recall_sh_command_brings_no_error_knowledge(tmp_path):
    """`recall.sh --pin KEY` with a mistyped key fails and names the key in its message ("did you mean …"); the
    error hook then brought the entry the agent had recorded a moment before, as knowledge about this error.
    Our own commands' failures are about the memory, answered by their own message."""
    inbox = ("memory/store/inbox.py names files by ns timestamp; two captures in one ns get distinct random "
             "suffixes")
    repo = project(tmp_path, [entry.build(inbox, "BD-7", "orchestrator", "warning")])
    key = "warning-memory-store-inbox-py-names-files-by-ns-timestamp-two-captures"
    said = (f"Exit code 2\nrecall.sh: no entry has the key `{key}`; did you mean `{key[:-2]}`? "
            f"(recall.sh --pin {key[:-2]})")
    for n, command in enumerate((f".beads/memory/recall.sh --pin {key}",
                                 f"cd app && ./.beads/memory/recall.sh --pin {key}",
                                 f"{repo}/.claude/hooks/memory-hooks/bin/memory-doctor --pin {key}")):
        proc = run_hook("action_context", failure(repo, command, said, session=f"s{n}"), repo)
        assert context(proc, "PostToolUseFailure") == "", command
    # the same words from another tool still find it
    other = failure(repo, "python -m app.ingest", "Exit code 1\nerror: two captures in one ns: inbox.py timestamp "
                    "collision, random suffixes exhausted", session="s9")
    assert inbox in context(run_hook("action_context", other, repo), "PostToolUseFailure")
    assert error_log(repo) == ""


@pytest.mark.parametrize("runtime", ["gemini", "codex"])
@pytest.mark.parametrize("said", ["Exit Code: \u00b2", "Exit Code: --1", "Process exited with code \u0663"])
def test_an_exit_status_of_digits_int_refuses_is_no_status_not_a_crash(tmp_path, runtime, said):
    """A successful command that prints `Exit Code: ²` (digits to isdigit, not to int): no failure, nothing to
    say, and no ValueError failing the hook open into errors.log."""
    repo = project(tmp_path)
    if runtime == "gemini":
        event = dict(fixture_payload("gemini/0.61.0/AfterTool-1.json"), cwd=str(repo), tool_response={
            "llmContent": f"<untrusted_context>\nOutput: {said}\nProcess Group PGID: 27187\n</untrusted_context>",
            "returnDisplay": said})
    else:
        event = dict(fixture_payload("codex/0.169.0/PostToolUse-1.json"), cwd=str(repo), tool_response=said + "\n")
    proc = run_hook("action_context", event, repo, args=["--codex"] if runtime == "codex" else [])
    assert context(proc, event["hook_event_name"]) == ""
    assert error_log(repo) == ""


@pytest.mark.parametrize("value", [["Read"], {"a": 1}])
def test_a_tool_name_of_an_unhashable_type_is_a_payload_problem_not_a_type_error(tmp_path, value):
    """A payload whose tool_name is a list (a runtime's change, another tool's payload): nothing, and no
    TypeError from a set lookup in errors.log."""
    repo = project(tmp_path)
    payload = dict(file_event(repo, "src/api/routes.py"), tool_name=value)
    proc = run_hook("action_context", payload, repo)
    assert proc.returncode == 0 and proc.stdout == b""
    assert "TypeError" not in error_log(repo)


def test_one_entry_longer_than_the_budget_is_cut_between_words_never_inside_a_path(tmp_path):
    """An entry longer than an action line holds is cut before a path, not inside it: the agent would read
    `src/api/routes/regi…` as a path to open."""
    head = "src/api/routes.py registers every route twice: "
    filler = ("guard " * 200)[:880 - len(head)]  # the path below then spans the line's 900-character edge
    path = "src/api/routes/registry_of_blueprints.py"
    long_entry = f"{head}{filler}{path} and more after it " * 2
    assert long_entry.index(path) < 900 < long_entry.index(path) + len(path)
    repo = make_repo(tmp_path / "app")
    store.append(str(repo / ".beads" / "memory"), [entry.build(long_entry, "BD-1", "orchestrator")])
    text = context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    assert text.endswith("…") and len(text) <= 1000
    assert text[:-1].split()[-1] in long_entry.split() and "src/api/routes/regi" not in text


@pytest.mark.parametrize("kind", ["error", "edit"])
def test_below_the_bar_an_entry_holding_enough_rare_words_of_the_error_or_edit_passes(tmp_path, kind):
    """config.json's lower bar and rare-word weight, for a failure and for what an edit writes (a whole new file
    spreads the best reachable score over all its words: a Write importing `@calcom/prisma/client` in a service
    had the entry forbidding it first, under the 0.30 bar). Of the error line's words PSYCOPG alone holds five
    (modulenotfounderror, module, named, psycopg, psycopg2), of the new file's four (psycopg2, psycopg, libpq,
    binary); nothing reaches a bar of 0.99."""
    repo = project(tmp_path)
    config = repo / ".beads" / "memory" / "config.json"
    for weight, session, given in ((2.0, "s1", True), (4.0, "s2", True), (8.0, "s3", False)):
        config.write_text(json.dumps({f"action_{kind}_min_fraction": 0.99, f"action_{kind}_low_fraction": 0.0,
                                      f"action_{kind}_rare_weight": weight}))
        if kind == "error":
            event, name = failure(repo, "pytest -q", "Exit code 1\nE   ModuleNotFoundError: No module named "
                                  "'psycopg2'", session), "PostToolUseFailure"
        else:
            event, name = file_event(repo, "db/connect.py", fixture="PreToolUse-13.json", session=session), "PreToolUse"
            event["tool_input"]["content"] = ("# CI images lack libpq: build with the binary wheel\nimport psycopg2\n"
                                              "\nconn = psycopg2.connect()\n")
        assert (PSYCOPG in context(run_hook("action_context", event, repo), name)) is given, weight


def test_entries_rotated_into_the_archive_still_come_at_their_file_and_their_error(tmp_path):
    """After a rotation (memory-doctor --compact) the entries about a file or captured after an error stand
    in the archive: the file cues map the archive's live entries too (memory.store.archived), taken from session
    start's cache or read when small; a forget in the active file still hides one."""
    from memory.store import rotation

    repo = make_repo(tmp_path / "app")
    memory = str(repo / ".beads" / "memory")
    recorded = entry.build(VENV, "BD-9", "orchestrator", errors=["ModuleNotFoundError: No module named 'django'"])
    store.append(memory, [entry.build(ROUTES, "BD-1", "orchestrator"), entry.build(ALEMBIC, "BD-2", "orchestrator"),
                          recorded])
    store.append(memory, [entry.build(f"filler note {i} about the release train", "BD-5", "orchestrator")
                          for i in range(1001)])
    assert rotation.compact(memory).rotated
    archive = (repo / ".beads" / "memory" / layout.ARCHIVE).read_text()
    active = (repo / ".beads" / "memory" / layout.KNOWLEDGE).read_text()
    assert ROUTES in archive and VENV in archive and ROUTES not in active
    assert ROUTES in context(run_hook("action_context", file_event(repo, "src/api/routes.py"), repo), "PreToolUse")
    error = "Exit code 4\nE   ModuleNotFoundError: No module named 'django'"
    assert VENV in context(run_hook("action_context", failure(repo, "pytest posthog", error), repo),
                           "PostToolUseFailure")
    store.append(memory, [entry.build_control("forget", entry.make_key("learned", ROUTES), "BD-1")])
    assert context(run_hook("action_context", file_event(repo, "src/api/routes.py", session="s2"), repo),
                   "PreToolUse") == ""
    assert error_log(repo) == ""
