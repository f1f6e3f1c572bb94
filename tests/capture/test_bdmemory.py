"""`bd remember` / `bd forget` through the real capture hook (issue 21.4), and what the agent is told when bd
itself failed (issue 21.6). The fake bd (tests/fake_bd/bd) runs where bd would have run."""
import json
import os
import subprocess

import pytest

from conftest import bash_payload, bd_env, error_log, fixture_payload, knowledge, run_hook
from memory.store import store


def context(proc) -> str:
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def bd(command: str, cwd, state) -> subprocess.CompletedProcess:
    """Run a command line with the fake bd, as the agent's shell did before the hook ran."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env={**os.environ, **bd_env(state)}, capture_output=True)


def capture(repo, command: str, **extra):
    return run_hook("memory_capture", bash_payload(command, repo, **extra), repo)


@pytest.mark.parametrize("command, key, bd_key, kind, content", [
    ('bd remember "always run tests with -race flag"', "learned-always-run-tests-with-race-flag",
     "always-run-tests-with-race-flag", "learned", "always run tests with -race flag"),
    ('bd remember "Dolt phantom DBs hide in three places" --key dolt-phantoms', "learned-dolt-phantoms",
     "dolt-phantoms", "learned", "Dolt phantom DBs hide in three places"),
    ("bd remember --key=auth-jwt 'auth module uses JWT not sessions'", "learned-auth-jwt", "auth-jwt", "learned",
     "auth module uses JWT not sessions"),
    ('bd --json remember "DECISION: postgres over sqlite for the queue"', "decision-postgres-over-sqlite-for-the-queue",
     "decision-postgres-over-sqlite-for-the-queue", "decision", "postgres over sqlite for the queue"),
    ('bd remember "LEARNED: pnpm, not npm" --key learned-pnpm', "learned-pnpm", "learned-pnpm", "learned",
     "pnpm, not npm"),
])
def test_bd_remember_is_captured_without_a_marker(repo, command, key, bd_key, kind, content):
    proc = capture(repo, command)
    [e] = knowledge(repo)
    assert (e["key"], e["bd_key"], e["type"], e["content"], e["bead"]) == (key, bd_key, kind, content, "")
    assert f"captured 1 insight (`{key}`)" in context(proc)


def test_the_same_bd_key_replaces_in_place_as_bd_does(repo):
    capture(repo, 'bd remember "run pnpm test" --key pnpm-tests')
    proc = capture(repo, 'bd remember "run pnpm vitest --run" --key pnpm-tests')
    assert 'replaced the earlier entry "run pnpm test"' in context(proc)
    [live] = store.latest(knowledge(repo))
    assert (live["key"], live["content"]) == ("learned-pnpm-tests", "run pnpm vitest --run")


@pytest.mark.parametrize("bd_key, stored", [("Auth_JWT", "learned-auth-jwt"), ("x" * 70, "learned-" + "x" * 60),
                                             ("日本", "learned-use-the-cache")])
def test_a_bd_key_outside_our_grammar_is_mapped_and_bd_forget_still_finds_it(repo, bd_key, stored):
    proc = capture(repo, f'bd remember "use the cache" --key "{bd_key}"')
    [e] = knowledge(repo)
    assert e["key"] == stored and e["bd_key"] == bd_key
    assert f"bd's key `{bd_key}` is outside memory-hooks' keys" in context(proc) and f"`{stored}`" in context(proc)
    forgot = capture(repo, f'bd forget "{bd_key}"')
    assert f"forgot `{stored}`" in context(forgot)
    assert store.latest(knowledge(repo)) == []


def test_a_bd_key_made_from_a_credential_is_kept_as_its_digest_and_bd_forget_still_finds_it(repo):
    """bd's key without --key is the slug of the text's first words: the token, lowercased, was stored as the
    entry's key and bd_key in the committed knowledge, a shape the redactor no longer knows."""
    from memory.capture import bdcli

    token = "ghp_R8s2kLm9QzX4vB7nP1wT6yH3jD5fG0aC2eKq"
    bd_key = bdcli.slug(f"push with {token} to the mirror")
    proc = capture(repo, f'bd remember "push with {token} to the mirror"')
    [e] = knowledge(repo)
    assert e["content"] == "push with <redacted:github_token> to the mirror"
    assert e["key"] == "learned-push-with-redacted-github-token-to-the-mirror" and e["bd_key"].startswith("sha1-")
    assert "r8s2klm9" not in context(proc).lower()
    forgot = capture(repo, f"bd forget {bd_key}")
    assert f"forgot `{e['key']}`" in context(forgot) and store.latest(knowledge(repo)) == []
    written = b"".join(p.read_bytes() for p in (repo / ".beads").rglob("*") if p.is_file())
    assert b"r8s2klm9" not in written.lower()


def test_a_chosen_bd_key_beside_a_credential_stays_the_key_and_a_correction_replaces_it(repo):
    """`--key deploy-notes` names no piece of the token in the text: it stays the entry's key, so remembering the
    key again replaces the entry as bd does (a digest there left the old text live beside the new one)."""
    token = "ghp_R8s2kLm9QzX4vB7nP1wT6yH3jD5fG0aC2eKq"
    proc = capture(repo, f'bd remember "the mirror bot pushes with {token}" --key deploy-notes')
    [e] = knowledge(repo)
    assert (e["key"], e["bd_key"]) == ("learned-deploy-notes", "deploy-notes")
    assert "bd's key holds part of a credential" not in context(proc)
    capture(repo, 'bd remember "the mirror bot pushes with the deploy key" --key deploy-notes')
    [live] = store.latest(knowledge(repo))
    assert (live["key"], live["content"]) == ("learned-deploy-notes", "the mirror bot pushes with the deploy key")


def test_bd_forget_appends_a_tombstone_for_the_entry_bd_remember_made(repo):
    capture(repo, 'bd remember "always run tests with -race flag"')
    proc = capture(repo, "bd forget always-run-tests-with-race-flag")
    lines = knowledge(repo)
    assert lines[-1]["type"] == "forget" and lines[-1]["key"] == "learned-always-run-tests-with-race-flag"
    assert lines[-1]["bd_key"] == "always-run-tests-with-race-flag"
    assert "forgot `learned-always-run-tests-with-race-flag`" in context(proc)
    assert store.latest(lines) == []
    again = capture(repo, "bd forget always-run-tests-with-race-flag")  # already forgotten: nothing appended
    assert len(knowledge(repo)) == len(lines) and again.stdout == b""


def test_bd_forget_of_a_key_we_never_captured_forgets_nothing_of_ours(repo):
    capture(repo, 'bd comment BD-1 "LEARNED: use the cache"')
    proc = capture(repo, "bd forget use-the-cache")  # bd's key, not ours: our entry did not come from bd remember
    assert len(knowledge(repo)) == 1 and store.latest(knowledge(repo))
    assert "no entry here came from a `bd remember` with that key" in context(proc)


@pytest.mark.parametrize("command", ['bd remember "a" "b"', "bd remember", 'bd --readonly remember "x"',
                                     'bd remember ""', 'bd remember "日本語"', 'echo bd remember "x"',
                                     'bd memories remember', 'git commit -m "remember to forget"'])
def test_what_bd_refuses_or_is_no_bd_remember_is_not_captured(repo, command):
    assert capture(repo, command).returncode == 0
    assert knowledge(repo) == [] and error_log(repo) == ""


def _payloads(repo, command):
    cursor = {"conversation_id": "c", "generation_id": "g", "cursor_version": "3.9.16", "workspace_roots": [str(repo)]}
    codex = fixture_payload("codex/0.169.0/PostToolUse-1.json")
    codex.update(cwd=str(repo), tool_input={"command": command})
    return {
        "claude": (bash_payload(command, repo), []),
        "cursor-native": (dict(cursor, hook_event_name="afterShellExecution", command=command, cwd=str(repo),
                               output="", duration=3), ["--cursor"]),
        "cursor-claude": (dict(cursor, session_id="c", hook_event_name="postToolUse", tool_name="Shell",
                               tool_input={"command": command}, tool_output=json.dumps({"exitCode": 0})), []),
        "gemini": ({"session_id": "g", "cwd": str(repo), "hook_event_name": "AfterTool",
                    "timestamp": "2026-11-22T12:51Z", "tool_name": "run_shell_command",
                    "tool_input": {"command": command},
                    "tool_response": {"llmContent": "ok", "returnDisplay": "ok"}}, ["--gemini"]),
        "codex": (codex, ["--codex"]),
    }


@pytest.mark.parametrize("runtime", ["claude", "cursor-native", "cursor-claude", "gemini", "codex"])
def test_bd_remember_is_captured_from_every_runtime(repo, runtime):
    payload, args = _payloads(repo, 'bd remember "every runtime captures bd remember" --key every-runtime')[runtime]
    proc = run_hook("memory_capture", payload, repo, args=args, env={"CURSOR_PROJECT_DIR": str(repo)})
    assert proc.returncode == 0
    assert [(e["key"], e["bd_key"]) for e in knowledge(repo)] == [("learned-every-runtime", "every-runtime")]


# -- when bd itself failed (issue 21.6) ---------------------------------------------------------------------

def _failure(command: str, repo, error="Exit code 127") -> dict:
    payload = fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json")
    payload.update(cwd=str(repo), tool_input={"command": command, "description": "t"}, error=error)
    return payload


def test_bd_not_installed_says_what_happened_and_how_to_record_without_bd(repo):
    """The issue's report: bd: command not found, and the agent was told its comment had no `LEARNED:` line."""
    proc = run_hook("memory_capture", _failure('bd comment BD-4 "LEARNED: no bd here"', repo), repo,
                    env={"PATH": "/usr/bin:/bin"})
    said = context(proc)
    assert knowledge(repo) == []
    assert "starts with `LEARNED:`" not in said and "nothing was captured from this bd comment" not in said
    assert "not captured from `bd comment BD-4`: the command failed (Exit code 127)" in said
    assert "bd is not on PATH" in said
    assert ".beads/memory/recall.sh --add 'LEARNED: no bd here'" in said


def test_an_unknown_bead_reports_what_bd_said(repo, tmp_path):
    state = tmp_path / "bd"
    command = 'bd comment NOPE-1 "LEARNED: the bead does not exist"'
    assert bd(command, repo, state).returncode == 1
    proc = run_hook("memory_capture", _failure(command, repo, "Exit code 1"), repo, env=bd_env(state))
    said = context(proc)
    assert knowledge(repo) == [] and "starts with `LEARNED:`" not in said
    assert "could not be asked whether it recorded it (`bd comments NOPE-1 --json` failed: Error: resolving" in said
    assert "recall.sh --add 'LEARNED: the bead does not exist'" in said


def test_a_failed_bd_remember_is_checked_with_bd_memories(repo, tmp_path):
    state = tmp_path / "bd"
    bd('bd remember "kept though the chain failed" --key kept && false', repo, state)
    kept = run_hook("memory_capture", _failure('bd remember "kept though the chain failed" --key kept && false', repo,
                                               "Exit code 1"), repo, env=bd_env(state))
    assert [e["key"] for e in knowledge(repo)] == ["learned-kept"] and "captured 1 insight" in context(kept)
    lost = run_hook("memory_capture", _failure('false && bd remember "never ran" --key lost', repo, "Exit code 1"),
                    repo, env=bd_env(state))
    assert [e["key"] for e in knowledge(repo)] == ["learned-kept"]
    assert "not captured from `bd remember`: the command failed (Exit code 1) and bd does not hold it" in context(lost)


def test_bd_refusing_the_call_is_said_as_such(repo):
    proc = capture(repo, "bd comment BD-1 -f notes.md")
    assert "bd refuses this `bd comment` (unknown shorthand flag: '-f')" in context(proc)
    assert "starts with `LEARNED:`" not in context(proc)
    dropped = capture(repo, 'bd comments add BD-1 "done" "LEARNED: in the second argument"')
    assert knowledge(repo) == [] and "stores only its first text argument" in context(dropped)


@pytest.mark.parametrize("output", ["/bin/bash: line 1: bd: command not found\n", "sh: 1: bd: not found\n",
                                    "zsh:1: command not found: bd\n"])
def test_codex_reports_no_status_but_the_shell_said_bd_is_missing(repo, tmp_path, output):
    """Codex's PostToolUse carries only the output (recorded with codex-cli 0.169: `exit 3` gives no status)."""
    payload = fixture_payload("codex/0.169.0/PostToolUse-1.json")
    payload.update(cwd=str(repo), tool_input={"command": 'bd remember "never stored by bd"'}, tool_response=output)
    proc = run_hook("memory_capture", payload, repo, args=["--codex"], env=bd_env(tmp_path / "bd"))
    assert knowledge(repo) == []
    assert ("not captured from `bd remember`: the shell said `bd: command not found` and bd does not hold it"
            in context(proc))
    ran = dict(payload, tool_response="Remembered [x]: sh: bd: command not found was yesterday's error\n")
    assert run_hook("memory_capture", ran, repo, args=["--codex"]).returncode == 0
    assert [e["content"] for e in knowledge(repo)] == ["never stored by bd"]  # bd ran: its output only quotes it
