"""The capture hook run as Claude Code and Cursor run it: a subprocess fed real payload shapes."""
import io
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, bash_payload, error_log, fixture_payload, git, knowledge, make_repo, run_hook
from helpers import RUNTIME_ENV_PREFIXES

EXAMPLE = 'bd comment BD-001 "LEARNED: TaskGroup requires @Sendable closures in strict concurrency mode."'
FAKE_BD = str(ROOT / "tests" / "fake_bd")


@pytest.fixture
def capture_here(monkeypatch):
    """The capture hook's handler (memory.capture.capture_gate.main) run in this process as
    hooks/memory_capture.py runs it: the payload as JSON on stdin, CLAUDE_PROJECT_DIR and cwd the project,
    the answer on stdout. Without the interpreter start, for the parametrized tests of what a command's text
    becomes; the other tests here run the hook file itself, on the same paths."""
    from memory.capture import capture_gate

    def run(payload, cwd):
        for name in list(os.environ):
            if name.startswith(RUNTIME_ENV_PREFIXES):
                monkeypatch.delenv(name)
        monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(cwd))
        monkeypatch.setenv("MEMORY_HOOKS_FOREGROUND", "1")
        monkeypatch.chdir(cwd)
        out = io.BytesIO()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8"))
        code = capture_gate.main([])
        sys.stdout.flush()
        return subprocess.CompletedProcess([], code, out.getvalue(), b"")

    return run


def context(proc) -> str:
    """The model-visible text of a Claude Code hook answer."""
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_capture_end_to_end(repo):
    proc = run_hook("memory_capture", bash_payload(EXAMPLE, repo), repo)
    assert proc.returncode == 0
    [e] = knowledge(repo)
    assert context(proc) == ("memory-hooks: captured 1 insight (`learned-taskgroup-requires-sendable-closures-in-"
                             "strict-concurrency`) into .beads/memory/inbox/.")
    assert e["key"] == "learned-taskgroup-requires-sendable-closures-in-strict-concurrency"
    assert (e["type"], e["source"], e["bead"], e["tags"]) == ("learned", "orchestrator", "BD-001",
                                                             ["learned", "async", "concurrency"])
    assert e["content"] == "TaskGroup requires @Sendable closures in strict concurrency mode."
    assert e["session_id"] and e["branch"] == "main" and len(e["commit"]) == 40


@pytest.mark.parametrize("version", ["2.1.197", "2.1.330"])
def test_real_payloads_capture_nothing_they_should_not(repo, version):
    """Every recorded PostToolUse (echo 'LEARNED: …', Write, Read, Agent …) is a no-op: none is a bd comment."""
    for path in sorted((FIXTURES / "claude-code" / version).glob("PostToolUse-*.json")):
        payload = json.loads(path.read_text())
        payload["cwd"] = str(repo)
        proc = run_hook("memory_capture", payload, repo)
        assert proc.returncode == 0 and proc.stdout == b"", path.name
    assert knowledge(repo) == [] and error_log(repo) == ""


def test_public_task_payload_is_ignored(repo):
    payload = fixture_payload("public/claude-PostToolUse-2.json")
    payload["cwd"] = str(repo)
    assert run_hook("memory_capture", payload, repo).returncode == 0
    assert knowledge(repo) == []


def test_supervisor_in_worktree_writes_to_main_checkout(repo):
    git(repo, "worktree", "add", "-q", ".worktrees/bd-12", "-b", "bd-12")
    wt = repo / ".worktrees" / "bd-12"
    proc = run_hook("memory_capture", bash_payload('bd comment bd-12 "LEARNED: worktrees share memory"', wt), wt,
                    env={"CLAUDE_PROJECT_DIR": str(wt)})
    assert proc.returncode == 0
    [e] = knowledge(repo)
    assert e["source"] == "supervisor" and e["branch"] == "bd-12"
    assert not (wt / ".beads").exists()


def test_agent_type_supervisor_sets_source(repo):
    run_hook("memory_capture", bash_payload(EXAMPLE, repo, agent_type="swift-supervisor", agent_id="a1"), repo)
    [e] = knowledge(repo)
    assert e["source"] == "supervisor" and e["agent_type"] == "swift-supervisor" and e["agent_id"] == "a1"


def test_file_form_relative_to_payload_cwd(repo):
    (repo / "sub").mkdir()
    (repo / "sub" / "notes.md").write_text("LEARNED: read from --file relative to cwd\n")
    run_hook("memory_capture", bash_payload("bd comment BD-2 --file notes.md", repo / "sub"), repo)
    assert [e["content"] for e in knowledge(repo)] == ["read from --file relative to cwd"]


def test_same_tool_call_twice_is_captured_once(repo):
    payload = bash_payload(EXAMPLE, repo)
    for _ in range(3):
        run_hook("memory_capture", payload, repo)
    assert len(knowledge(repo)) == 1


def test_cursor_native_and_claude_settings_copies_capture_once(repo):
    common = {"conversation_id": "conv-1", "generation_id": "gen-1", "cursor_version": "3.9.16",
              "workspace_roots": [str(repo)], "model": "default", "transcript_path": None}
    native = dict(common, hook_event_name="afterShellExecution", command=EXAMPLE, output="ok", duration=12)
    via_claude = dict(common, session_id="conv-1", hook_event_name="postToolUse", tool_name="Shell",
                      tool_input={"command": EXAMPLE}, tool_output=json.dumps({"exitCode": 0}), tool_use_id="t1")
    env = {"CURSOR_VERSION": "3.9.16", "CURSOR_PROJECT_DIR": str(repo)}
    first = run_hook("memory_capture", native, repo, env=env, args=["--cursor"])
    second = run_hook("memory_capture", via_claude, repo, env=env)
    assert first.returncode == second.returncode == 0
    assert [e["bead"] for e in knowledge(repo)] == ["BD-001"]
    assert first.stdout == b""  # afterShellExecution takes no output
    assert second.stdout == b""  # the second copy stored nothing, so it says nothing


def test_redaction_is_reported_to_the_agent(repo):
    proc = run_hook("memory_capture", bash_payload(
        'bd comment BD-3 "LEARNED: staging uses AKIAIOSFODNN7EXAMPL3 as key id"', repo), repo)
    answer = json.loads(proc.stdout)
    assert "aws_access_key_id" in answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    [e] = knowledge(repo)
    assert "AKIA" not in json.dumps(e) and e["redacted"] == ["aws_access_key_id"]


def test_same_key_replacement_is_reported(repo):
    prefix = "Always run the migrations before seeding the database in CI, "
    run_hook("memory_capture", bash_payload(f'bd comment BD-1 "LEARNED: {prefix}first"', repo), repo)
    proc = run_hook("memory_capture", bash_payload(f'bd comment BD-2 "LEARNED: {prefix}second"', repo), repo)
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "replaced an earlier, different insight" in context
    assert len(knowledge(repo)) == 2


@pytest.mark.parametrize("stdin", [b"", b"   \n", b"not json", b"[1,2]", b"42", b'"LEARNED comment"',
                                   b"\xff\xfe\x00LEARNED comment", b'{"tool_name":"Bash","tool_input":{"command":7}}',
                                   b'{"tool_name":"Bash","tool_input":"bd comment X \\"LEARNED: y\\""}',
                                   b'{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":'
                                   b'"bd comment X \\"LEARNED: y\\""},"cwd":17}'])
def test_bad_stdin_fails_open(repo, stdin):
    proc = run_hook("memory_capture", stdin, repo)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert proc.stdout == b"" or json.loads(proc.stdout)


def test_non_object_stdin_is_logged(repo):
    run_hook("memory_capture", b"not json", repo)
    assert "memory_capture" in error_log(repo) and "not a JSON object" in error_log(repo)


def test_stdin_past_the_limit_is_logged_as_too_large(repo):
    """A 65 MiB payload was cut at 64 MiB and logged as `stdin is not JSON`: it is too large, and says so."""
    from memory.runtimes import hookrun

    payload = bash_payload('bd comment BD-1 "LEARNED: huge"', repo)
    payload["tool_response"] = {"stdout": "x" * (hookrun.MAX_STDIN_BYTES + (1 << 20))}
    proc = run_hook("memory_capture", payload, repo)
    assert proc.returncode == 0 and proc.stdout == b""
    assert "stdin over 64 MiB" in error_log(repo) and "not JSON" not in error_log(repo)


def test_internal_error_is_logged_not_raised(repo):
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    (memory / "knowledge.jsonl").mkdir()  # a folder where the file should be: every write fails
    proc = run_hook("memory_capture", bash_payload(EXAMPLE, repo), repo)
    assert proc.returncode == 0
    said = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]  # #21 item 9: the agent is told
    assert said.startswith("memory-hooks: NOT stored") and "Is a directory" in said and "captured" not in said
    assert "not stored" in error_log(repo)


def test_without_orjson_and_filelock(repo):
    """A teammate's plain python3: -S hides site-packages, so orjson and filelock cannot be imported."""
    proc = run_hook("memory_capture", bash_payload(EXAMPLE, repo), repo, python_args=["-S"])
    assert proc.returncode == 0 and proc.stderr == b""
    assert [e["bead"] for e in knowledge(repo)] == ["BD-001"]
    start = run_hook("session_start", {"hook_event_name": "SessionStart", "cwd": str(repo)}, repo, python_args=["-S"])
    assert "TaskGroup requires @Sendable" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]


# -- what a new user hit ------------------------------------------------------------------------------------

def test_capture_in_a_submodule_goes_to_the_project(repo, tmp_path):
    """`cd vendor/lib && bd comment …`: Claude Code reports the cwd after the command, inside the submodule."""
    lib = make_repo(tmp_path / "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sub = repo / "vendor" / "lib"
    proc = run_hook("memory_capture", bash_payload('cd vendor/lib && bd comment BD-9 "LEARNED: x"', sub), repo)
    assert proc.returncode == 0
    assert [e["content"] for e in knowledge(repo)] == ["x"]
    assert not (sub / ".beads").exists()
    assert knowledge(repo)[0]["branch"] == "main"  # the project's branch, not the submodule's detached HEAD


def test_capture_in_a_sibling_repository_goes_to_the_project(repo, tmp_path):
    sibling = make_repo(tmp_path / "sibling")
    run_hook("memory_capture", bash_payload('cd ../sibling && bd comment BD-9 "LEARNED: y"', sibling), repo)
    assert [e["content"] for e in knowledge(repo)] == ["y"]
    assert not (sibling / ".beads").exists()


def test_cursor_capture_uses_the_workspace_root_as_project(repo, tmp_path):
    sibling = make_repo(tmp_path / "sibling")
    payload = {"conversation_id": "c", "generation_id": "g", "cursor_version": "3.9.16", "hook_event_name":
               "afterShellExecution", "command": 'bd comment BD-1 "LEARNED: z"', "cwd": str(sibling),
               "workspace_roots": [str(repo)], "output": "", "duration": 3}
    proc = run_hook("memory_capture", payload, repo, env={"CLAUDE_PROJECT_DIR": ""}, args=["--cursor"])
    assert proc.returncode == 0 and [e["content"] for e in knowledge(repo)] == ["z"]


def test_non_latin_insights_get_distinct_keys(repo, capture_here):
    texts = ["在 CI 中不要使用缓存，因为缓存会过期", "Не используйте кэш в CI", "Всегда используйте кэш в CI"]
    for n, text in enumerate(texts):
        proc = capture_here(bash_payload(f'bd comment BD-{n} "LEARNED: {text}"', repo), repo)
        assert "replaced an earlier" not in context(proc)
    stored = knowledge(repo)
    assert [e["content"] for e in stored] == texts
    assert len({e["key"] for e in stored}) == 3
    start = run_hook("session_start", {"hook_event_name": "SessionStart", "cwd": str(repo)}, repo)
    shown = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert all(text[:20] in shown for text in texts)


@pytest.mark.parametrize("command, content", [
    ('(cd sub && bd comment BD-1 "LEARNED: subshell")', "subshell"),
    ('{ bd comment BD-1 "LEARNED: group"; }', "group"),
    ('if bd comment BD-1 "LEARNED: in an if"; then echo ok; fi', "in an if"),
    ("bd comments add BD-1 -f/tmp/__NOTES__", "attached file form"),
    ("bd comment BD-1 --stdin < __NOTES__", "attached file form"),
    ("cat __NOTES__ | bd comment BD-1 --stdin", "attached file form"),
    ('bd comment BD-1 "LEARNED : space before the colon"', "space before the colon"),
    ('bd comment BD-1 "**LEARNED:** markdown bold"', "markdown bold"),
    ('bd comment BD-1 "Learned: capitalised at the start"', "capitalised at the start"),
    ('bd comment BD-1 "Done with the fix.\n- learned: as a list item"', "as a list item"),
])
def test_capture_forms(repo, tmp_path, command, content, capture_here):
    notes = tmp_path / "notes.md"
    notes.write_text("LEARNED: attached file form\n")
    (repo / "sub").mkdir()
    command = command.replace("/tmp/__NOTES__", str(notes)).replace("__NOTES__", str(notes))
    proc = capture_here(bash_payload(command, repo), repo)
    assert proc.returncode == 0
    assert [e["content"] for e in knowledge(repo)] == [content]
    assert "captured 1 insight" in context(proc)


def test_prose_about_learning_gets_a_hint_not_a_capture(repo):
    proc = run_hook("memory_capture", bash_payload('bd comment BD-1 "what we learned: caches expire"', repo), repo)
    assert knowledge(repo) == []
    assert "starts with `LEARNED:`" in context(proc)
    quiet = run_hook("memory_capture", bash_payload('bd comment BD-1 "progress: tests pass"', repo), repo)
    assert quiet.stdout == b""


def _failure_payload(command: str, cwd, **extra) -> dict:
    payload = fixture_payload("claude-code/2.1.330/PostToolUseFailure-1.json")
    payload.update(cwd=str(cwd), tool_input={"command": command, "description": "t"}, error="Exit code 1", **extra)
    return payload


def test_failing_chain_keeps_the_insight_bd_recorded(repo, tmp_path):
    """`bd comment … && git push` with a failing push: PostToolUseFailure, but bd did record the insight."""
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd")}
    command = 'bd comment BD-4 "LEARNED: kept although the push failed" && git push'
    (tmp_path / "bd").mkdir()
    (tmp_path / "bd" / "issues.json").write_text(json.dumps({"BD-4": {"status": "open"}}))
    subprocess.run(["sh", "-c", 'bd comment BD-4 "LEARNED: kept although the push failed"'], env={**os.environ, **env},
                   cwd=repo, check=True, capture_output=True)
    proc = run_hook("memory_capture", _failure_payload(command, repo), repo, env=env)
    assert [e["content"] for e in knowledge(repo)] == ["kept although the push failed"]
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PostToolUseFailure" and "captured 1 insight" in answer["additionalContext"]


def test_failing_bd_comment_is_not_captured(repo, tmp_path):
    """bd itself failed (or never ran): nothing it holds, nothing stored."""
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd")}
    proc = run_hook("memory_capture", _failure_payload('false && bd comment BD-4 "LEARNED: never ran"', repo), repo,
                    env=env)
    assert proc.returncode == 0 and knowledge(repo) == []
    without_bd = run_hook("memory_capture", _failure_payload('bd comment BD-4 "LEARNED: no bd"', repo), repo,
                          env={"PATH": "/usr/bin:/bin"})
    assert without_bd.returncode == 0 and knowledge(repo) == [] and error_log(repo) == ""


def test_a_bd_error_in_a_chain_that_exits_0_is_checked_against_bd(repo, tmp_path):
    """`bd comment BD-99 "LEARNED: …" || true` exits 0 while bd printed `Error: issue BD-99 not found`: before, the
    insight was stored, tagged BD-99 (a second walkthrough). Now bd is asked, as for a failed call."""
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd")}
    (tmp_path / "bd").mkdir()
    (tmp_path / "bd" / "issues.json").write_text(json.dumps({"BD-4": {"status": "open"}}))
    command = 'bd comment BD-99 "LEARNED: the pool size is 16" || true'
    ran = subprocess.run(["sh", "-c", command], env={**os.environ, **env}, cwd=repo, capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stderr.startswith("Error: ")
    payload = bash_payload(command, repo)
    payload["tool_response"].update(stdout=ran.stdout, stderr=ran.stderr)
    proc = run_hook("memory_capture", payload, repo, env=env)
    assert proc.returncode == 0 and knowledge(repo) == []
    assert "not captured" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "bd said `Error: " in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    ok = 'bd comment BD-4 "LEARNED: the pool size is 16" || true'
    ran = subprocess.run(["sh", "-c", ok], env={**os.environ, **env}, cwd=repo, capture_output=True, text=True)
    payload = bash_payload(ok, repo)
    payload["tool_response"].update(stdout=ran.stdout, stderr=ran.stderr)
    assert run_hook("memory_capture", payload, repo, env=env).returncode == 0
    assert [e["content"] for e in knowledge(repo)] == ["the pool size is 16"]


def test_env_style_secrets_are_neither_stored_nor_shown_at_session_start(repo):
    """The issue's reproduction: `.env`-form secrets with prefixed names (`POSTGRES_PASSWORD`, `JWT_SECRET`)
    used to slip past the `\\bpassword` rule, land verbatim in knowledge.jsonl and come back at session start."""
    command = ('bd comment BD-3 "LEARNED: tests need POSTGRES_PASSWORD=Xk9mP2vL8qR4nZ7w and '
               'JWT_SECRET=Xk9mP2vL8qR4nZ7wQ3eR in .env"')
    proc = run_hook("memory_capture", bash_payload(command, repo), repo)
    assert proc.returncode == 0
    assert "secret_assignment" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    stored = b"".join(p.read_bytes() for p in (repo / ".beads").rglob("*") if p.is_file())
    assert b"Xk9mP2vL8qR4nZ7w" not in stored
    [e] = knowledge(repo)
    assert e["content"] == ("tests need POSTGRES_PASSWORD=<redacted:secret_assignment> and "
                            "JWT_SECRET=<redacted:secret_assignment> in .env")
    start = run_hook("session_start", {"hook_event_name": "SessionStart", "cwd": str(repo)}, repo)
    shown = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "POSTGRES_PASSWORD=<redacted:secret_assignment>" in shown and "Xk9mP2vL8qR4nZ7w" not in shown


# Issue #21 item 12: credentials written on a command line, captured through the real hook.
_CLI_PW = "Tr0ub4dor3xyz"


@pytest.mark.parametrize("insight", [
    f"connect with mysql -uadmin -p{_CLI_PW} app_db",
    f"dump it: mysqldump --password={_CLI_PW} app_db > dump.sql",
    f"the migration tool wants --password {_CLI_PW} on every call",
    f"copy with sshpass -p {_CLI_PW} scp build.tgz deploy@web1:",
    f"check the cache with redis-cli -h cache -a {_CLI_PW} ping",
    f"the API answers curl -u deploy:{_CLI_PW} https://ci.internal/api",
    f"run PGPASSWORD={_CLI_PW} psql -h db -U app before the restore",
])
def test_command_line_credentials_are_redacted_and_the_note_is_truthful(repo, insight, capture_here):
    proc = capture_here(bash_payload(f'bd comment BD-3 "LEARNED: {insight}"', repo), repo)
    assert proc.returncode == 0
    stored = b"".join(p.read_bytes() for p in (repo / ".beads").rglob("*") if p.is_file())
    assert _CLI_PW.encode() not in stored
    [e] = knowledge(repo)
    kind = e["redacted"][0]
    # exactly the password went; every other word of the insight is stored as written
    assert e["content"] == insight.replace(_CLI_PW, f"<redacted:{kind}>")
    note = context(proc)
    assert f"Replaced 1 credential-shaped value ({kind}) with <redacted:TYPE>; the rest of the text is stored " \
           "as written." in note
    assert "never verbatim" not in note


def test_the_note_claims_no_redaction_when_there_was_none(repo, capture_here):
    proc = capture_here(bash_payload(
        'bd comment BD-3 "LEARNED: mysql -u root -p app prompts for the password; use ~/.my.cnf instead"', repo), repo)
    [e] = knowledge(repo)
    assert "redacted" not in e and "<redacted:" not in e["content"]
    assert "credential" not in context(proc) and "redacted" not in context(proc)


def test_the_note_counts_every_replaced_value(repo, capture_here):
    proc = capture_here(bash_payload(
        f'bd comment BD-3 "LEARNED: sshpass -p {_CLI_PW} ssh web1, then redis-cli -a {_CLI_PW}x ping"', repo), repo)
    assert "Replaced 2 credential-shaped values (cli_password) with <redacted:TYPE>" in context(proc)


# --- entry types, explicit keys, forget (issue 10) ------------------------------------------------------

@pytest.mark.parametrize("marker,kind,tag", [("DECISION", "decision", "DECIDE"), ("WARNING", "warning", "WARN"),
                                             ("PATTERN", "pattern", "PATTERN"), ("LEARNED", "learned", "LEARN")])
def test_every_entry_type_is_captured_with_its_key_prefix(repo, marker, kind, tag, capture_here):
    proc = capture_here(bash_payload(f'bd comment BD-3 "{marker}: services live in src/services"', repo), repo)
    [e] = knowledge(repo)
    assert (e["type"], e["key"], e["tags"][0]) == (kind, f"{kind}-services-live-in-src-services", kind)
    assert f"`{kind}-services-live-in-src-services`" in context(proc)
    from memory.core import render
    assert render.label(e["type"]) == tag


def test_types_through_heredoc_file_and_stdin(repo, tmp_path):
    notes = repo / "notes.md"
    notes.write_text("WARNING: the seed script drops every table\nPATTERN: one module per hook\n")
    commands = [f"bd comment BD-1 --file {notes}",
                "bd comment BD-1 --stdin <<'EOF'\nDECISION: we pin uv because lockfiles drift\nEOF",
                "bd comments add BD-1 \"**DECISION:** feature flags live in flags.yaml\""]
    for command in commands:
        assert run_hook("memory_capture", bash_payload(command, repo), repo).returncode == 0
    assert sorted(e["type"] for e in knowledge(repo)) == ["decision", "decision", "pattern", "warning"]


def test_explicit_key_replaces_and_the_hook_says_what_it_replaced(repo, capture_here):
    capture_here(bash_payload('bd comment BD-1 "LEARNED[pnpm-tests]: run pnpm test"', repo), repo)
    proc = capture_here(bash_payload(
        'bd comment BD-2 "LEARNED[pnpm-tests]: run pnpm vitest --run, not pnpm test"', repo), repo)
    assert [e["key"] for e in knowledge(repo)] == ["learned-pnpm-tests", "learned-pnpm-tests"]
    assert 'replaced the earlier entry "run pnpm test"' in context(proc)
    from memory.store import store as store_mod
    [live] = store_mod.latest(knowledge(repo))
    assert live["content"] == "run pnpm vitest --run, not pnpm test"


@pytest.mark.parametrize("bad", ["Pnpm Tests", "-leading-dash", "x" * 61, "under_score"])
def test_a_key_outside_the_grammar_is_not_a_key(repo, bad, capture_here):
    proc = capture_here(bash_payload(f'bd comment BD-1 "LEARNED[{bad}]: use the cache"', repo), repo)
    [e] = knowledge(repo)
    assert e["key"] == "learned-use-the-cache" and f"`{bad}` is not a key" in context(proc)


@pytest.mark.parametrize("form", ["FORGET: learned-use-the-cache", "FORGET[learned-use-the-cache]",
                                  "FORGET: use-the-cache"])
def test_forget_in_a_bd_comment_appends_a_tombstone(repo, form, capture_here):
    capture_here(bash_payload('bd comment BD-1 "LEARNED: use the cache"', repo), repo)
    proc = capture_here(bash_payload(f'bd comment BD-1 "{form}"', repo), repo)
    lines = knowledge(repo)
    assert len(lines) == 2 and lines[1]["type"] == "forget" and lines[1]["key"] == "learned-use-the-cache"
    assert "content" not in lines[1] and "forgot `learned-use-the-cache`" in context(proc)
    from memory.store import store as store_mod
    assert store_mod.latest(lines) == []


def test_forget_of_an_unknown_key_writes_nothing_and_says_so(repo):
    proc = run_hook("memory_capture", bash_payload('bd comment BD-1 "FORGET: no-such-key"', repo), repo)
    assert knowledge(repo) == [] and "no entry has the key `no-such-key`" in context(proc)


def test_echoed_session_start_block_is_not_captured_back(repo):
    block = ("## Recent Knowledge (2 entries)\n\n  [LEARN] use the cache  (orchestrator)\n  [DECIDE, 2 days ago] "
             "postgres\n  Search: .beads/memory/recall.sh \"keyword\"\n  Record: bd comment <ID> \"LEARNED: …\" "
             "(also DECISION:, WARNING:, PATTERN:; LEARNED[some-key]: replaces that entry)\n")
    command = "bd comment BD-1 --stdin <<'EOF'\n" + block + "EOF"
    assert run_hook("memory_capture", bash_payload(command, repo), repo).stdout == b""
    assert knowledge(repo) == []


def test_same_text_under_a_second_key_is_not_stored(repo, capture_here):
    capture_here(bash_payload('bd comment BD-1 "LEARNED: Use the cache, always."', repo), repo)
    proc = capture_here(bash_payload('bd comment BD-2 "LEARNED[cache]: use   the CACHE always"', repo), repo)
    assert len(knowledge(repo)) == 1
    assert "`learned-use-the-cache-always` already holds the same text" in context(proc)


def test_recall_add_run_by_the_agent_is_not_captured_twice(repo):
    command = '.beads/memory/recall.sh --add "LEARNED: recall add writes directly"'
    proc = run_hook("memory_capture", bash_payload(command, repo), repo)
    assert proc.returncode == 0 and proc.stdout == b"" and knowledge(repo) == []


# --- the confirmation says only what was checked (issue 21.6's class) ----------------------------------------

def test_confirmation_names_the_file_the_insight_went_to(repo):
    """From a worktree the capture goes to the main checkout's file: the worktree's `.beads/memory/…` has none."""
    git(repo, "worktree", "add", "-q", ".worktrees/bd-7", "-b", "bd-7")
    wt = repo / ".worktrees" / "bd-7"
    proc = run_hook("memory_capture", bash_payload('bd comment bd-7 "LEARNED: where it went"', wt), wt,
                    env={"CLAUDE_PROJECT_DIR": str(wt)})
    assert f"into {os.path.realpath(repo)}/.beads/memory/inbox/." in context(proc)
    assert knowledge(repo) and not (wt / ".beads" / "memory" / "knowledge.jsonl").exists()


def test_a_parked_capture_is_not_called_stored_in_the_file(repo):
    from helpers import held_lock
    from memory.store import store as store_mod

    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    with held_lock(memory / store_mod.LOCK):
        proc = run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: parked"', repo), repo,
                        env={"MEMORY_HOOKS_LOCK_TIMEOUT": "0.3"})
    said = context(proc)
    assert knowledge(repo) == [] and "into .beads/memory/inbox/" not in said
    assert "stayed busy: they wait in .beads/memory/knowledge.pending/, the next write adds them" in said


def test_a_capture_imports_neither_json_nor_what_only_rarer_paths_need(repo):
    """A capture parses and writes its JSON through CPython's C scanner and encoder (memory.core.jsonio) and
    leaves forgets, key notes and lock helpers to the paths that need them; the insight is stored all the same."""
    proc = run_hook("memory_capture", bash_payload(EXAMPLE, repo), repo, python_args=["-X", "importtime"])
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
    assert "memory.store.inbox" in imported and "memory.store.screen" in imported  # stored and screened
    assert not imported & {"json", "contextlib", "math", "memory.core.render", "subprocess"}
    [e] = knowledge(repo)
    assert e["content"] == "TaskGroup requires @Sendable closures in strict concurrency mode."
    assert json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"].startswith("memory-hooks: captured 1")


def test_the_way_to_record_an_insight_bd_did_not_hold_is_shown_redacted(repo, tmp_path):
    """A failed `bd comment … "LEARNED: … <token>"`: the hook tells the agent to record it with recall.sh --add,
    quoting the insight; a credential in it is quoted as the store would keep it (<redacted:…>), never echoed back
    into the context, where every later turn reads it."""
    env = {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(tmp_path / "bd")}
    token = "ghp_" + "k3Jd9fLq2Zx8Wv4Tn6Yp1Rb7Hs5Gm0Cc2Ae4"
    proc = run_hook("memory_capture", _failure_payload(f'bd comment BD-4 "LEARNED: CI pushes with {token}" && '
                                                       "git push", repo), repo, env=env)
    said = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "recall.sh --add" in said and "CI pushes with <redacted:" in said
    assert token not in said and knowledge(repo) == []


def test_a_comment_of_many_insights_names_ten_keys_and_counts_the_rest(repo):
    """A pasted list of 300 LEARNED lines: every one is stored, and the note the agent reads on every later turn
    names ten keys and the count, not 300 (40,000 lines answered 2.9 MB)."""
    lines = "\n".join(f"LEARNED: service number {i} restarts with make restart-{i}" for i in range(300))
    proc = run_hook("memory_capture", bash_payload(f"bd comment BD-1 \"{lines}\"", repo), repo)
    said = context(proc)
    assert len(knowledge(repo)) == 300
    assert said.startswith("memory-hooks: captured 300 insights (") and " and 290 more) into " in said
    assert said.count("`learned-service-number-") == 10 and len(said) < 1200


def test_bd_comment_file_naming_a_fifo_never_holds_the_hook(repo):
    """`bd comment --file F`: the hook reads F to capture what bd stored. A FIFO named there (a process
    substitution such as `--file <(cmd)` is one, gone by the time the hook runs; or one nobody writes) made
    open() wait for a writer: the hook hung until Claude Code killed it. Now it is unreadable, as for bd."""
    os.mkfifo(repo / "notes.fifo")
    (repo / "notes.md").write_text("LEARNED: a regular file beside it is still read\n")
    for command in ("bd comment BD-2 --file notes.fifo", "bd comment BD-3 --file /dev/zero",
                    "bd comment BD-4 --file notes.md"):
        proc = run_hook("memory_capture", bash_payload(command, repo), repo, timeout=20)
        assert proc.returncode == 0, proc.stderr
    assert [e["content"] for e in knowledge(repo)] == ["a regular file beside it is still read"]
