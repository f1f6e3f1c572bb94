"""recall.sh's writing commands (memory.capture.edit) run as the agent runs them: bin/recall.sh in the repo."""
import json
import os
import subprocess

from helpers import ROOT, bash_payload, git, knowledge, run_hook
from memory.store import store

RECALL = str(ROOT / "bin" / "recall.sh")


def recall(repo, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "CLAUDE"))}
    return subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=env)


def seed(monkeypatch, repo, *texts):
    """What `recall.sh --add TEXT` does (memory.capture.edit.add), in this process: the entries a test starts
    from. The tests above run recall.sh's --add itself."""
    from memory.capture import edit

    for name in list(os.environ):
        if name.startswith(("MEMORY_HOOKS", "CLAUDE")):
            monkeypatch.delenv(name)
    for text in texts:
        assert edit.add(str(repo / ".beads" / "memory"), text, str(repo)) == edit.DONE, text


def live(repo):
    return {e["key"]: e for e in store.latest(knowledge(repo))}


def test_add_writes_every_type_through_the_store(repo):
    proc = recall(repo, "--add", "DECISION[db]: postgres for jsonb. WARNING: never migrate prod by hand")
    assert proc.returncode == 0 and "`decision-db`" in proc.stdout
    assert sorted(live(repo)) == ["decision-db", "warning-never-migrate-prod-by-hand"]
    [first, _] = knowledge(repo)
    assert first["via"] == "recall.sh" and first["branch"] == "main" and first["source"] == "orchestrator"


def test_add_redacts_and_refuses_unmarked_text(repo):
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    assert recall(repo, "--add", f"LEARNED: the bot token is {token}").returncode == 0
    text = store.active_bytes(str(repo / ".beads" / "memory")).decode()
    assert token not in text and "<redacted:" in text
    proc = recall(repo, "--add", "just some words")
    assert proc.returncode == 2 and "start the text with LEARNED:" in proc.stderr and len(knowledge(repo)) == 1


def test_add_on_a_bead_branch_records_the_bead(repo):
    git(repo, "checkout", "-qb", "bd-a3f8")
    recall(repo, "--add", "PATTERN: handlers live in src/handlers")
    assert knowledge(repo)[0]["bead"] == "BD-A3F8"


def test_correct_forget_pin_unpin_and_history(repo):
    recall(repo, "--add", "LEARNED[pnpm-tests]: run pnpm test")
    proc = recall(repo, "--add", "LEARNED[pnpm-tests]: run pnpm vitest --run")
    assert 'replaced the earlier entry "run pnpm test"' in proc.stdout
    recall(repo, "--add", "LEARNED: the cache lives in .turbo")
    assert recall(repo, "--pin", "pnpm-tests").returncode == 0
    assert recall(repo, "--pin", "learned-pnpm-tests").returncode == 1  # already pinned: nothing appended
    pinned = recall(repo, "--pinned")
    assert "run pnpm vitest --run" in pinned.stdout and "(pinned)" in pinned.stdout and "turbo" not in pinned.stdout
    assert recall(repo, "--forget", "learned-the-cache-lives-in-turbo").returncode == 0
    assert recall(repo, "cache").returncode == 1  # gone from recall
    assert recall(repo, "--pin", "learned-the-cache-lives-in-turbo").returncode == 2  # forgotten: can't pin
    history = recall(repo, "--all", "--history", "cache")
    assert history.returncode == 0 and "the cache lives in .turbo" in history.stdout and "[FORGET]" in history.stdout
    assert recall(repo, "--unpin", "pnpm-tests").returncode == 0
    assert recall(repo, "--pinned").returncode == 1
    versions = recall(repo, "--history", "--json", "pnpm")
    kinds = [json.loads(line)["type"] for line in versions.stdout.splitlines()]
    assert kinds == ["learned", "learned", "pin", "unpin"]
    assert len(knowledge(repo)) == 6  # three adds, pin, forget, unpin: appended, nothing deleted


def test_forget_refuses_unknown_and_ambiguous_names(repo, monkeypatch):
    seed(monkeypatch, repo, "LEARNED[x]: one", "DECISION[x]: two")
    proc = recall(repo, "--forget", "x")
    assert proc.returncode == 2 and "decision-x, learned-x" in proc.stderr
    assert recall(repo, "--forget", "nope").returncode == 2
    assert len(knowledge(repo)) == 2


def test_type_filter_for_every_type(repo):
    """One entry of each type: the filter for each shows that one and none of the other three."""
    kinds = ["learned", "decision", "warning", "pattern"]
    for kind in kinds:
        assert recall(repo, "--add", f"{kind.upper()}: entry of type {kind}").returncode == 0
    for kind in kinds:
        proc = recall(repo, "--type", kind)
        assert proc.returncode == 0 and f"entry of type {kind}" in proc.stdout, (kind, proc.stdout)
        assert proc.stdout.count("\n    ") == 1, (kind, proc.stdout)


def test_writes_go_alone(repo):
    proc = recall(repo, "--forget", "a", "--pin", "b")
    assert proc.returncode == 2 and knowledge(repo) == []


def test_an_add_is_not_captured_again_by_the_hook(repo):
    """The agent runs recall.sh --add through its shell tool: the capture hook sees that command."""
    command = '.beads/memory/recall.sh --add "LEARNED: written once"'
    recall(repo, "--add", "LEARNED: written once")
    assert run_hook("memory_capture", bash_payload(command, repo), repo).stdout == b""
    assert len(knowledge(repo)) == 1


def limited(size):
    """A preexec_fn: files may not grow past `size` bytes (a full disk, as RLIMIT_FSIZE gives it: EFBIG)."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def recall_limited(repo, size, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "CLAUDE"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the limit would cut the interpreter's own .pyc short (it never checks)
    return subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=env,
                          preexec_fn=limited(size))


def test_an_identical_add_is_stored_once_and_said_so(repo):
    """#21 item 14: the same DECISION[db] twice, or an insight again with other whitespace: one line each."""
    assert recall(repo, "--add", "DECISION[db]: use postgres 15").returncode == 0
    again = recall(repo, "--add", "DECISION[db]: use postgres 15")
    assert again.returncode == 1 and "not stored again" in again.stdout and "captured" not in again.stdout
    assert recall(repo, "--add", "LEARNED: the build  needs two\n cores").returncode == 0
    spaced = recall(repo, "--add", "LEARNED: the build needs two cores")
    assert spaced.returncode == 1 and "different insight" not in spaced.stdout and "already holds" in spaced.stdout
    assert len(knowledge(repo)) == 2
    corrected = recall(repo, "--add", "DECISION[db]: use postgres 16")
    assert corrected.returncode == 0 and 'replaced the earlier entry "use postgres 15"' in corrected.stdout


def test_a_key_nobody_types_is_suggested_never_applied(repo, monkeypatch):
    """#21 item 15: `--pin werkzeug` with no such key proposes the key that matches; nothing is written."""
    seed(monkeypatch, repo, "LEARNED: werkzeug 3 dropped the url_quote helper that flask 2.2 imported at startup",
         "LEARNED: json responses go through app.json.response, never json.dumps directly",
         "DECISION: emit json logs in production")
    before = knowledge(repo)
    one = recall(repo, "--pin", "werkzeug")
    key = "learned-werkzeug-3-dropped-the-url-quote-helper-that-flask-2-2-impor"
    assert one.returncode == 2 and f"did you mean `{key}`" in one.stderr and f"--pin {key}" in one.stderr
    several = recall(repo, "--forget", "json")
    assert several.returncode == 2 and "keys that match" in several.stderr
    assert "`decision-emit-json-logs-in-production`" in several.stderr and "`learned-json-responses" in several.stderr
    by_text = recall(repo, "--unpin", "url_quote")  # not in any key: the entry's text holds it
    assert by_text.returncode == 2 and key in by_text.stderr
    nothing = recall(repo, "--pin", "kubernetes")
    assert nothing.returncode == 2 and "no key or entry text holds it" in nothing.stderr
    assert knowledge(repo) == before
    assert recall(repo, "--pin", key).returncode == 0  # the proposed command does it


def test_a_forget_in_a_bd_comment_suggests_keys_too(repo, monkeypatch):
    seed(monkeypatch, repo, "LEARNED: werkzeug 3 dropped url_quote")
    proc = run_hook("memory_capture", bash_payload('bd comment BD-1 "FORGET: werkzeug"', repo), repo)
    said = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "nothing forgotten" in said and "`learned-werkzeug-3-dropped-url-quote`" in said
    assert len(knowledge(repo)) == 1


def test_a_knowledge_file_that_cannot_be_written_is_exit_3_and_one_line(repo):
    """#21 item 9: a full disk (RLIMIT_FSIZE below the file's size): not a traceback, nothing half-written."""
    recall(repo, "--add", "LEARNED: first insight is here")
    memory = str(repo / ".beads" / "memory")
    before = store.active_bytes(memory)  # knowledge.jsonl and the inbox (memory.store.inbox)
    for args in (["--add", "LEARNED: a second insight"], ["--pin", "learned-first-insight-is-here"],
                 ["--redact", "learned-first-insight-is-here", "first"]):
        proc = recall_limited(repo, 40, *args)  # every capture is a new file: none fits in 40 bytes
        assert proc.returncode == 3 and "Traceback" not in proc.stderr, args
        assert proc.stderr.startswith("recall.sh: NOT ") and proc.stderr.count("\n") == 1, proc.stderr
        assert "File too large" in proc.stderr and proc.stdout == ""
        assert store.active_bytes(memory) == before
    proc = recall_limited(repo, 1, "--add", "LEARNED: a second insight")
    assert "NOT stored (`learned-a-second-insight`)" in proc.stderr


def test_add_run_by_claude_codes_bash_tool_records_the_session_and_what_it_ran_into(repo, tmp_path):
    """Claude Code gives its Bash tool CLAUDE_CODE_SESSION_ID (not CLAUDE_SESSION_ID); the session's transcript is
    `<config>/projects/<project folder>/<id>.jsonl`. An insight added right after a failure carries that failure's
    lines like a `bd comment` or a reply does, so the failure recurring brings it back whatever its words."""
    from helpers import FIXTURES

    config = tmp_path / "claude-config"
    session = "5d50c3c5-7db5-4a37-9363-efb345742d75"
    (config / "projects" / "-some-project").mkdir(parents=True)
    recorded = (FIXTURES / "claude-code" / "2.1.330" / "transcript-edit.jsonl").read_text()
    (config / "projects" / "-some-project" / f"{session}.jsonl").write_text(  # moved into this project
        recorded.replace("/tmp/probe/ct/test_file_and_error_context_an0/app", str(repo)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "CLAUDE"))}
    env.update(CLAUDE_CODE_SESSION_ID=session, CLAUDE_CONFIG_DIR=str(config), CLAUDECODE="1")
    proc = subprocess.run([RECALL, "--add", "LEARNED: the project uses psycopg v3 on purpose"], cwd=repo,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    [got] = knowledge(repo)
    assert got["session_id"] == session
    assert got["errors"] == ["ModuleNotFoundError: No module named 'psycopg2'"]
    assert got["files"] == ["payments/refund_service.py"]
    env["CLAUDE_CODE_SESSION_ID"] = "../../etc/passwd"  # not a session id: nothing looked up
    assert subprocess.run([RECALL, "--add", "LEARNED: second"], cwd=repo, env=env).returncode == 0
    assert "errors" not in knowledge(repo)[1] and "files" not in knowledge(repo)[1]


def test_a_correction_under_the_whole_key_as_listings_print_it_replaces_that_entry(repo):
    """`LEARNED[learned-the-widget-pool-size-is-8-by-default]: …` (the key as recall.sh prints it, as --pin and
    --forget take it) made a second entry `learned-learned-…`, both live (a second walkthrough)."""
    recall(repo, "--add", "LEARNED: the widget pool size is 8 by default")
    proc = recall(repo, "--add", "LEARNED[learned-the-widget-pool-size-is-8-by-default]: the widget pool size is 16")
    assert proc.returncode == 0 and "replaced the earlier entry" in proc.stdout, proc.stdout
    listed = recall(repo, "widget")
    assert "is 16" in listed.stdout and "is 8" not in listed.stdout and "learned-learned-" not in listed.stdout
    other = recall(repo, "--add", "DECISION[learned-pool]: a decision whose name merely starts like another type")
    assert "decision-learned-pool" in other.stdout


def test_an_add_from_a_worktree_shell_names_where_it_went_from_there(repo):
    """The main checkout's recall.sh run in a worktree's shell said `.beads/memory/inbox/`, which the worktree
    has not: the path is relative to the shell's folder when inside it, else absolute."""
    subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(repo)], check=True,
                   capture_output=True)
    git(repo, "worktree", "add", "-q", ".worktrees/bd-7", "-b", "bd-7")
    wt = repo / ".worktrees" / "bd-7"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_HOOKS", "CLAUDE"))}
    proc = subprocess.run([str(repo / ".beads" / "memory" / "recall.sh"), "--add", "LEARNED: worktree adds land in "
                           "main"], cwd=wt, capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and f"into {repo / '.beads' / 'memory' / 'inbox'}/" in proc.stdout, proc.stdout
    assert [e["content"] for e in knowledge(repo)] == ["worktree adds land in main"]
