import json
import os
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES, ROOT, bash_payload, clean_env, fixture_payload, git, knowledge, run_hook
from helpers import plugin_copy as plugin_files
from memory.core import config, render
from memory.store import dedupe, entry, store


def seed(repo, n, welcomed=True, **kw):
    """n entries; `welcomed`: this machine's first session (the fuller introduction) is behind us."""
    d = str(repo / ".beads" / "memory")
    if welcomed:
        welcome_done(repo)
    store.append(d, [entry.build(f"insight {i} about caching", f"BD-{i}", "supervisor" if i % 2 else "orchestrator",
                                 ts=1_700_000_000 + i, **kw) for i in range(n)])


def start(repo, name="claude-code/2.1.330/SessionStart-6.json", session_id=None, source=None, **kw):
    payload = fixture_payload(name)
    payload["cwd"] = str(repo)
    payload.update({k: v for k, v in (("session_id", session_id), ("source", source)) if v})
    return run_hook("session_start", payload, repo, **kw)


def context(proc):
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def welcome_done(repo):
    (repo / ".beads" / "memory").mkdir(parents=True, exist_ok=True)
    (repo / ".beads" / "memory" / "welcomed").touch()


def test_empty_memory_says_once_what_it_is_then_how_to_record(repo):
    first = context(start(repo))
    assert first.startswith("## Project Memory\nThis project keeps a shared memory")
    assert 'recall.sh --add "LEARNED: …"' in first and 'recall.sh "keyword"' in first
    then = context(start(repo))
    assert then.splitlines()[:2] == ["## Project Memory", "This project's shared memory is empty so far."]
    assert 'recall.sh --add "LEARNED: …"' in then and len(then) < 400


def test_first_session_after_install_gets_the_introduction_after_the_knowledge(repo):
    seed(repo, 2, welcomed=False)
    first = context(start(repo))
    assert first.startswith("## Recent Knowledge (2 entries)") and "## Project Memory" in first
    assert first.index("## Recent Knowledge") < first.index("## Project Memory")
    assert "## Project Memory" not in context(start(repo))  # once per machine
    assert (repo / ".beads" / "memory" / "welcomed").exists()


@pytest.mark.parametrize("entries", [0, 2])
def test_the_introduction_points_at_the_record_line_where_it_is(repo, entries):
    """With knowledge the introduction comes after the block that ends with the Record: line; it said "the record
    command below", and nothing was below it."""
    seed(repo, entries, welcomed=False)
    text = context(start(repo))
    intro = text.index("## Project Memory")
    record = text.index("Record: ")
    if "record command below" in text or "Record: line below" in text:
        assert record > intro
    if "Record: line above" in text:
        assert record < intro
    assert "Record: line" in text[intro:]  # the introduction names the line it means


@pytest.mark.parametrize("name", ["claude-code/2.1.197/SessionStart-6.json", "claude-code/2.1.330/SessionStart-8.json",
                                  "public/claude-SessionStart-1.json", "public/claude-SessionStart-2.json"])
def test_block_format_for_every_source(repo, name):
    seed(repo, 12)
    out = json.loads(start(repo, name).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    lines = out["hookSpecificOutput"]["additionalContext"].splitlines()
    assert lines[0] == "## Recent Knowledge (12 entries)" and lines[1] == render.FRAMING and lines[2] == ""
    assert lines[3:8] == [f"  [LEARN] insight {i} about caching" for i in (11, 10, 9, 8, 7)]
    assert lines[9].startswith("  Map of the other 7 entries by topic")
    assert [line for line in lines if line.startswith("  - ")] == [
        f"  - insight {i} about caching" for i in (6, 5, 4, 3, 2, 1, 0)]
    assert lines[-2] == '  Search: .beads/memory/recall.sh "keyword" (add --all to search the archive too)'
    assert lines[-1].startswith('  Record: .beads/memory/recall.sh --add "LEARNED: …"')  # no bd on this PATH


def test_record_hint_names_bd_when_bd_is_on_path(repo, tmp_path):
    from conftest import bd_env
    seed(repo, 1)
    text = context(start(repo, env=bd_env(tmp_path)))
    assert text.splitlines()[-1].startswith('  Record: bd remember "…" or bd comment <ID> "LEARNED: …"')
    assert "recall.sh --add" not in text


def test_count_is_unique_keys_and_latest_wins(repo):
    d = str(repo / ".beads" / "memory")
    store.append(d, [entry.build("same insight", "BD-1", "orchestrator", ts=1)])
    later = 1 + dedupe.REPEAT_AFTER + 1  # the same text within REPEAT_AFTER is not written again (test_dedupe)
    store.append(d, [dict(entry.build("same insight", "BD-2", "supervisor", ts=later))])
    welcome_done(repo)
    text = context(start(repo))
    assert text.startswith("## Recent Knowledge (1 entry)\n")
    assert text.count("same insight") == 1


def test_cursor_payload_gets_flat_answer(repo):
    seed(repo, 3)
    payload = {"conversation_id": "c", "generation_id": "", "session_id": "c", "hook_event_name": "sessionStart",
               "cursor_version": "3.9.16", "workspace_roots": [str(repo)], "is_background_agent": False,
               "composer_mode": "agent"}
    out = json.loads(run_hook("session_start", payload, repo, args=["--cursor"]).stdout)
    assert list(out) == ["additional_context"] and "Recent Knowledge (3 entries)" in out["additional_context"]


def test_long_and_hostile_content_stays_small_and_single_line(repo):
    d = str(repo / ".beads" / "memory")
    welcome_done(repo)
    store.append(d, [entry.build(f"{i} " + "\u202e\x00\n{\"x\":1}" * 600, f"B{i}", "orchestrator") for i in range(5)])
    text = context(start(repo))
    assert len(text) < 10_000
    assert all(len(line) < config.DEFAULTS["entry_chars"] + 60 for line in text.splitlines())


def test_malformed_lines_are_skipped_and_mentioned(repo):
    seed(repo, 2)
    with open(repo / ".beads" / "memory" / "knowledge.jsonl", "ab") as fh:
        fh.write(b'{"key":"torn\n')
    out = json.loads(start(repo).stdout)
    assert "(2 entries)" in out["hookSpecificOutput"]["additionalContext"]
    assert "malformed" not in out["hookSpecificOutput"]["additionalContext"]  # a hint for the person, not the model
    assert "1 malformed line(s)" in out["systemMessage"]


def test_archive_is_not_read(repo):
    seed(repo, 3)
    (repo / ".beads" / "memory" / "knowledge.archive.jsonl").write_text("garbage\n" * 1000)
    assert "malformed" not in context(start(repo))


def test_fallback_interpreter_hint(repo):
    seed(repo, 1)
    out = json.loads(start(repo, args=["--no-venv"]).stdout)
    assert "install.sh" in out["systemMessage"] and "install.sh" not in context(start(repo, args=["--no-venv"]))
    assert "systemMessage" not in json.loads(start(repo).stdout)


def test_fallback_interpreter_hint_in_a_linked_worktree_names_the_worktree(repo, tmp_path):
    """A worktree never has the main checkout's virtualenv (it is gitignored): installing into "this repo" again
    changes nothing there, so the hint names the worktree, the install target that gives it one."""
    seed(repo, 1)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    note = json.loads(start(tmp_path / "wt", args=["--no-venv"]).stdout)["systemMessage"]
    assert "install.sh" in note and f" on {tmp_path / 'wt'} " in note and "worktree" in note, note


def test_no_fallback_hint_in_a_worktree_when_the_main_checkout_chose_no_venv(repo, tmp_path):
    """install.sh --no-venv in the main checkout (its machine-local marker): this machine runs the hooks with
    python3 by choice, so its worktrees are not told to set up a virtualenv either."""
    from memory.runtimes import runtimes

    seed(repo, 1)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    (repo / runtimes.NO_VENV_CHOSEN).parent.mkdir(parents=True)
    (repo / runtimes.NO_VENV_CHOSEN).write_text("")
    assert "systemMessage" not in json.loads(start(tmp_path / "wt", args=["--no-venv"]).stdout)


def test_captured_then_surfaced(repo):
    run_hook("memory_capture", bash_payload('bd comment BD-9 "LEARNED: full loop works"', repo), repo)
    assert "  [LEARN] full loop works\n" in context(start(repo))
    assert len(knowledge(repo)) == 1


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1,2]", b'{"hook_event_name":"SessionStart","cwd":[1]}'])
def test_bad_stdin_fails_open(repo, stdin):
    seed(repo, 1)
    proc = run_hook("session_start", stdin, repo)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert proc.stdout == b"" or json.loads(proc.stdout)


def test_answer_is_utf8_whatever_the_locale(repo):
    d = str(repo / ".beads" / "memory")
    store.append(d, [entry.build("emoji 🙂 and ümlauts survive", "BD-1", "orchestrator")])
    proc = start(repo, env={"PYTHONIOENCODING": "latin-1", "LANG": "en_US.ISO-8859-1", "LC_ALL": "C"})
    context = json.loads(proc.stdout.decode("utf-8"))["hookSpecificOutput"]["additionalContext"]
    assert "emoji 🙂 and ümlauts survive" in context


def _register(repo, rel, config):
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))


def test_one_answer_when_cursor_runs_both_hook_files(repo):
    from memory.runtimes import settings_merge
    seed(repo, 2)
    cursor_payload = {"conversation_id": "c", "session_id": "c", "hook_event_name": "sessionStart",
                      "cursor_version": "3.9.16", "workspace_roots": [str(repo)]}
    via_claude = run_hook("session_start", cursor_payload, repo)  # Cursor running .claude/settings.json
    assert "additional_context" in json.loads(via_claude.stdout)  # no native Cursor entry: this copy answers
    _register(repo, ".cursor/hooks.json", settings_merge.with_cursor_hooks({}, ["session_start"]))
    assert run_hook("session_start", cursor_payload, repo).stdout == b""  # the native entry answers instead
    assert b"additional_context" in run_hook("session_start", cursor_payload, repo, args=["--cursor"]).stdout


def test_plugin_copy_is_quiet_beside_an_install(repo):
    from memory.runtimes import settings_merge
    seed(repo, 2)
    assert b"Recent Knowledge" in start(repo, args=["--plugin"]).stdout  # the plugin alone answers
    _register(repo, ".claude/settings.json", settings_merge.with_claude_hooks({}, ["session_start"]))
    assert start(repo, args=["--plugin"]).stdout == b""
    assert b"Recent Knowledge" in start(repo).stdout


def test_the_plugin_answers_a_source_the_installs_older_matcher_does_not_run_on(repo):
    """An install from before `fork` was registered runs session start on startup|resume|clear|compact: the plugin
    stepped aside for it on a fork too, and the forked session got nothing."""
    from memory.runtimes import settings_merge
    seed(repo, 2)
    config = settings_merge.with_claude_hooks({}, ["session_start"])
    for group in config["hooks"]["SessionStart"]:
        group["matcher"] = "startup|resume|clear|compact"
    _register(repo, ".claude/settings.json", config)
    assert start(repo, args=["--plugin"], source="startup").stdout == b""  # the install answers
    assert b"Recent Knowledge" in start(repo, args=["--plugin"], source="fork").stdout


def test_the_plugin_keeps_the_memorys_machine_local_files_out_of_git(repo):
    """The plugin installs nothing into the repository, so nothing wrote .beads/memory/.gitignore: its session
    start does, and `git add .beads/memory` (the README's advice) then commits the knowledge, not the handoffs,
    locks and caches the hooks keep there. An existing .gitignore is the user's (or install.sh's): left alone."""
    from memory.install import plan

    run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: the plugin alone records"', repo), repo,
             args=["--plugin"])
    assert b"Project Memory" in start(repo, args=["--plugin"]).stdout
    run_hook("handoff", dict(fixture_payload("claude-code/2.1.330/SessionEnd-1.json"), cwd=str(repo),
                             transcript_path=str(FIXTURES / "claude-code/2.1.330/transcript-sample.jsonl")),
             repo, args=["--plugin"])
    ignore = repo / ".beads" / "memory" / ".gitignore"
    assert (ignore.parent / "handoffs.jsonl").exists() and (ignore.parent / "welcomed").exists()
    assert ignore.read_text().splitlines()[1:-1] == plan.memory_ignore_lines()
    git(repo, "add", ".beads/memory")
    staged = git(repo, "diff", "--cached", "--name-only").split()
    assert ".beads/memory/.gitignore" in staged and any(n.startswith(".beads/memory/inbox/") for n in staged)
    assert not [n for n in staged if n.rsplit("/", 1)[-1] in ("handoffs.jsonl", "welcomed", "state.lock",
                                                                "injected.json", "knowledge.lock")], staged
    ignore.write_text("# mine\n")
    start(repo, args=["--plugin"])
    assert ignore.read_text() == "# mine\n"


def test_the_plugin_brings_an_older_ignore_block_up_to_date(repo):
    """A plugin user whose .gitignore block was written by an older version: files the hooks added since
    (redactions.applied, which every session start with recorded redactions now writes; report.html, every entry's
    text) were not ignored, so `git add .beads/memory` committed them. The block between our markers is brought up
    to date; the user's lines around it stay as they are."""
    from memory.core import layout
    from memory.install import plan

    ignore = repo / ".beads" / "memory" / ".gitignore"
    ignore.parent.mkdir(parents=True, exist_ok=True)
    old = [n for n in plan.memory_ignore_lines() if n not in ("/redactions.applied", "/report.html")]
    ignore.write_text("\n".join(["# mine", layout.MEMORY_IGNORE_BEGIN, *old, layout.MEMORY_IGNORE_END, "/scratch/"])
                      + "\n")
    start(repo, args=["--plugin"])
    lines = ignore.read_text().splitlines()
    assert lines == ["# mine", layout.MEMORY_IGNORE_BEGIN, *plan.memory_ignore_lines(), layout.MEMORY_IGNORE_END,
                     "/scratch/"]
    (ignore.parent / "redactions.applied").write_text("{}")
    assert git(repo, "check-ignore", ".beads/memory/redactions.applied") == ".beads/memory/redactions.applied"


# -- the budgeted digest --------------------------------------------------------------------------------------

def old_and_new(repo, old: list, n_new: int = 20):
    """`old` entries (content, bead) written long ago, then `n_new` newer unrelated ones."""
    d = str(repo / ".beads" / "memory")
    welcome_done(repo)
    store.append(d, [entry.build(text, bead, "supervisor", ts=1_600_000_000 + i) for i, (text, bead) in enumerate(old)])
    store.append(d, [entry.build(f"newer note {i} about logging", f"BD-{100 + i}", "orchestrator",
                                 ts=1_700_000_000 + i) for i in range(n_new)])


def test_digest_puts_the_bead_in_progress_first(repo):
    old_and_new(repo, [("refunds need the ledger lock", "BD-7"), ("unrelated old thing", "BD-3")])
    git(repo, "checkout", "-q", "-b", "bd-BD-7")
    text = context(start(repo))
    assert text.startswith("## Recent Knowledge (22 entries)")
    bead_part, _, rest = text.partition("Newest:")
    assert "For the bead in progress:" in bead_part and "refunds need the ledger lock" in bead_part
    assert "[LEARN] unrelated old thing" not in text and "  - unrelated old thing\n" in rest  # on the map
    assert rest.count("[LEARN]") == 5


def test_digest_from_a_bead_worktree(repo):
    old_and_new(repo, [("the bead worktree finds me", "bd-12")])
    git(repo, "worktree", "add", "-q", ".worktrees/bd-12", "-b", "feature-x")
    wt = repo / ".worktrees" / "bd-12"
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(wt))
    text = context(run_hook("session_start", payload, wt))
    assert "For the bead in progress:" in text and "the bead worktree finds me" in text


def test_digest_names_entries_about_files_changed_on_the_branch(repo):
    (repo / "src" / "billing").mkdir(parents=True)
    (repo / "src" / "billing" / "refund_policy.py").write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    old_and_new(repo, [("refund_policy.py rounds half-even, never half-up", "BD-1"), ("other file x.py", "BD-2")])
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "src" / "billing" / "refund_policy.py").write_text("x = 2\n")
    git(repo, "commit", "-qam", "change")
    text = context(start(repo))
    assert "About files changed on this branch:" in text and "rounds half-even" in text
    assert "[LEARN] other file x.py" not in text and "  - other file x.py\n" in text  # on the map only


def test_digest_respects_its_budget(repo):
    old_and_new(repo, [(f"bead insight {i} " + "word " * 80, "BD-7") for i in range(40)])
    git(repo, "checkout", "-q", "-b", "bd-BD-7")
    memory = repo / ".beads" / "memory"
    (memory / "config.json").write_text(json.dumps({"session_budget_tokens": 300}))
    text = context(start(repo))
    assert len(text) <= 1200 and "bead insight" in text and render.SEARCH_HINT.strip() in text \
        and text.rstrip().splitlines()[-1].startswith("  Record:")
    (memory / "config.json").write_text(json.dumps({"session_budget_tokens": "lots"}))  # wrong type: default
    assert 1200 < len(context(start(repo))) <= config.budget_chars(config.DEFAULTS["session_budget_tokens"])


def test_compaction_resurfaces_what_the_session_had_been_given(repo):
    old_and_new(repo, [("given by a prompt before the compaction", "BD-1")])
    key = knowledge(repo)[0]["key"]
    payload = fixture_payload("claude-code/2.1.330/SessionStart-5.json")  # source: compact
    assert payload["source"] == "compact"
    payload["cwd"] = str(repo)
    from memory.surface import injected
    injected.remember(str(repo / ".beads" / "memory"), payload["session_id"], [key])
    text = context(run_hook("session_start", payload, repo))
    assert "Given before the compaction:" in text and "given by a prompt before the compaction" in text
    other_session = dict(payload, session_id="another")
    assert "Given before the compaction" not in context(run_hook("session_start", other_session, repo))


def test_cursor_digest_carries_more(repo):
    seed(repo, 30)
    cursor = {"conversation_id": "c1", "generation_id": "g", "cursor_version": "3.9.16", "hook_event_name":
              "sessionStart", "session_id": "c1", "workspace_roots": [str(repo)], "is_background_agent": False,
              "composer_mode": "agent"}
    env = {"CURSOR_PROJECT_DIR": str(repo), "CLAUDE_PROJECT_DIR": ""}
    text = json.loads(run_hook("session_start", cursor, repo, env=env, args=["--cursor"]).stdout)["additional_context"]
    assert text.count("[LEARN]") == 10 and context(start(repo)).count("[LEARN]") == 5


def test_an_entry_the_agent_looked_up_gets_a_title_in_the_next_sessions_map(repo):
    """The loop of issue #20 item 4 through the real processes: a big knowledge base whose map can't title
    everything; recall.sh looks an old entry up; the next session start titles it."""
    welcome_done(repo)
    memory = repo / ".beads" / "memory"
    store.append(str(memory), [entry.build(f"Entry about the zq{i}k module: keep its cache warm between runs",
                                           f"BD-{i}", "orchestrator", ts=1_700_000_000 + i) for i in range(600)])
    before = context(start(repo))
    assert "Not listed:" in before and "zq599k" in before and "zq3k" not in before
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    looked_up = subprocess.run([str(ROOT / "bin" / "recall.sh"), "zq3k module"], cwd=repo, capture_output=True,
                               text=True, env=env)
    assert looked_up.returncode == 0 and "zq3k" in looked_up.stdout.split("\n\n")[0]
    after = context(start(repo))
    assert "Entry about the zq3k module" in after and len(after) <= len(before) + 100
    assert "zq4k" not in after  # only what was used


def test_a_use_count_past_what_a_float_holds_leaves_the_knowledge_shown(repo):
    seed(repo, 3)
    memory = repo / ".beads" / "memory"
    (memory / "use.json").write_text(json.dumps({"k": {"n": 1, "ts": time.time()}}).replace("1,", "1e400,"))
    proc = start(repo)
    assert proc.returncode == 0 and "insight 2 about caching" in context(proc)
    assert not (memory / "errors.log").exists() or "Overflow" not in (memory / "errors.log").read_text()


def test_the_plugins_hints_name_its_own_recall_sh(repo):
    """The plugin puts no recall.sh into the repository: every command its session start names must run."""
    seed(repo, 3)
    payload = json.loads(start(repo, args=["--plugin"]).stdout)
    text = payload["hookSpecificOutput"]["additionalContext"]
    assert ".beads/memory/recall.sh" not in text
    recall = str(ROOT / "bin" / "recall.sh")
    assert f"Search: {recall} " in text
    found = subprocess.run([recall, "insight 2 about caching"], cwd=repo, capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")})
    assert found.returncode == 0 and "insight 2 about caching" in found.stdout  # it searches this project
    (repo / ".beads" / "memory" / "recall.sh").write_text("#!/bin/sh\n")  # an install beside it: its own
    assert ".beads/memory/recall.sh" in start(repo, args=["--plugin"]).stdout.decode()


def test_codex_resume_is_quiet_where_the_replayed_start_holds_the_block(repo):
    """`codex exec resume` replays the session's first messages, our session start's block among them, and
    sends SessionStart source=resume with the same id: answering again would put the block in twice."""
    seed(repo, 3)
    first = start(repo, args=["--codex"], session_id="codex-1", source="startup")
    assert b"Recent Knowledge" in first.stdout
    assert start(repo, args=["--codex"], session_id="codex-1", source="resume").stdout == b""
    assert b"Recent Knowledge" in start(repo, args=["--codex"], session_id="codex-2", source="resume").stdout
    assert b"Recent Knowledge" in start(repo, session_id="codex-1", source="resume").stdout  # Claude Code re-runs


@pytest.mark.parametrize("handoff_first", [True, False])
def test_codex_resume_is_quiet_after_a_start_that_gave_no_entry(repo, handoff_first):
    """The block Codex replays may hold no entry: only a Last Session (an empty memory after a session that
    ended), or only what the memory is. Its resume repeats neither."""
    welcome_done(repo)
    codex = "codex/0.169.0/SessionStart-1.json"
    if handoff_first:
        ended = fixture_payload("codex/0.169.0/SessionEnd-1.json")
        ended.update(cwd=str(repo), session_id="codex-0",
                     transcript_path=str(ROOT / "tests" / "fixtures" / "codex" / "0.169.0" / "rollout-1.jsonl"))
        assert run_hook("handoff", ended, repo, args=["--codex"]).returncode == 0
    first = context(start(repo, codex, args=["--codex"], session_id="codex-1", source="startup"))
    assert first.startswith("## Last Session" if handoff_first else "## Project Memory")
    assert start(repo, codex, args=["--codex"], session_id="codex-1", source="resume").stdout == b""
    other = context(start(repo, codex, args=["--codex"], session_id="codex-2", source="resume"))
    assert other  # a session whose start said nothing (here: none we know of) gets the block on resume


@pytest.fixture
def plugin_copy():
    with plugin_files() as plugin:
        yield plugin


@pytest.mark.parametrize("budget_tokens", [300, 700])
def test_the_plugins_longer_recall_path_stays_within_the_budget(repo, plugin_copy, budget_tokens):
    """The plugin's copy lives where Claude Code caches plugins (a long path): each hint it rewrites grows by
    the difference. Filled to the budget's edge, the answer the model reads still holds the budget."""
    from memory.runtimes import handoff
    old_and_new(repo, [(f"bead insight {i} " + "word " * 30, "BD-7") for i in range(60)], n_new=60)
    handoff.save(str(repo / ".beads" / "memory"), {"id": "h1", "event": "SessionEnd", "tree": str(repo),
                                                   "branch": "main", "ended": time.time() - 60,
                                                   "task": {"first": "port the CLI"}})
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"session_budget_tokens": budget_tokens}))
    budget = config.budget_chars(budget_tokens)
    payload = json.dumps(dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))).encode()

    def answer(*args):
        proc = subprocess.run([sys.executable, str(plugin_copy / "hooks" / "session_start.py"), *args],
                              input=payload, cwd=repo, capture_output=True, env=clean_env(CLAUDE_PROJECT_DIR=str(repo)))
        return context(proc)

    plain, rewritten = answer(), answer("--plugin")
    recall = str(plugin_copy / "bin" / "recall.sh")
    growth = len(recall) - len(".beads/memory/recall.sh")
    assert plain.startswith("## Last Session") and "Map of the other" in plain
    assert len(plain) + plain.count(".beads/memory/recall.sh") * growth > budget  # a plain rewrite would pass it
    assert ".beads/memory/recall.sh" not in rewritten and rewritten.count(recall) >= 4
    # within the budget, and no more taken from the knowledge than the paths add
    assert budget - plain.count(".beads/memory/recall.sh") * growth <= len(rewritten) <= budget


FORKED = "claude-code/2.1.330/fork"
MIGRATIONS = "Database migrations must be reversible: every alembic upgrade needs a working downgrade."


def _fork_payload(repo, tmp_path, how, parent, claude_process):
    """The recorded SessionStart of a fork made `how`, forked from `parent`, with what names the parent there
    (memory.runtimes.fork): the transcript's first line, the job's state.json, Claude Code's command line."""
    name = {"branch": "SessionStart-branch.json", "fork": "SessionStart-fork-command.json",
            "resume": "SessionStart-resume-fork-session.json"}[how]
    payload = fixture_payload(f"{FORKED}/{name}")
    transcript = tmp_path / "transcripts" / f"{payload['session_id']}.jsonl"
    payload.update(cwd=str(repo), transcript_path=str(transcript))
    env = {}
    if how == "branch":
        transcript.parent.mkdir(exist_ok=True)
        recorded = (ROOT / "tests" / "fixtures" / FORKED / "branch-transcript-head.jsonl").read_text()
        transcript.write_text(recorded.replace("2904ef9a-90c2-43ff-bec5-f41cf8591c07", parent))
    elif how == "fork":
        job = tmp_path / "job"
        job.mkdir()
        state = json.loads((ROOT / "tests" / "fixtures" / FORKED / "fork-job-state.json").read_text())
        (job / "state.json").write_text(json.dumps(dict(state, forkParentSessionId=parent)))
        env["CLAUDE_JOB_DIR"] = str(job)
    else:
        env["CLAUDE_PID"] = str(claude_process(parent).pid)
    return payload, env


@pytest.fixture
def claude_process():
    """A real process whose command line is `claude -p PROMPT --resume PARENT --fork-session`'s."""
    started = []

    def spawn(parent):
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "-p", "go on",
                                         "--resume", parent, "--fork-session"]))
        time.sleep(0.2)
        return started[-1]

    yield spawn
    for proc in started:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("how", ["branch", "fork", "resume"])
def test_a_fork_is_not_given_again_what_its_parents_conversation_holds(repo, tmp_path, how, claude_process):
    """The parent session got the digest at its start and an old entry at a prompt; a fork of it (`/branch`,
    `/fork`, `--resume ID --fork-session`) carries that conversation on: its session start says nothing and the
    same prompt brings nothing, while a fresh session still gets both."""
    welcome_done(repo)
    memory = str(repo / ".beads" / "memory")
    store.append(memory, [entry.build(MIGRATIONS, "BD-3", "orchestrator", ts=1_600_000_000)])
    store.append(memory, [entry.build(f"Note {i}: the release notes rule number {i} applies here.", f"BD-{100 + i}",
                                      "orchestrator", ts=1_700_000_000 + i) for i in range(120)])
    parent = "11111111-2222-4333-8444-555555555555"

    def ask(session):
        payload = fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json")
        payload.update(cwd=str(repo), prompt="add an alembic migration for the invoices", session_id=session)
        proc = run_hook("prompt_recall", payload, repo)
        assert proc.returncode == 0
        return proc.stdout.decode()

    assert "## Recent Knowledge" in context(start(repo, session_id=parent, source="startup"))
    assert "every alembic upgrade needs a working downgrade" in ask(parent)
    payload, env = _fork_payload(repo, tmp_path, how, parent, claude_process)
    forked = run_hook("session_start", payload, repo, env=env)
    assert forked.returncode == 0 and forked.stdout == b""
    assert "alembic" not in ask(payload["session_id"])
    fresh = "99999999-2222-4333-8444-555555555555"
    assert "## Recent Knowledge" in context(start(repo, session_id=fresh, source="startup"))
    assert "every alembic upgrade needs a working downgrade" in ask(fresh)
    assert not (repo / ".beads" / "memory" / "errors.log").exists()


def test_a_fork_of_a_session_not_known_here_gets_the_block(repo, tmp_path, claude_process):
    """No record of the parent (another machine, older than a day, started before the install): the fork is
    treated as a new session, the block given and recorded."""
    seed(repo, 3)
    payload, env = _fork_payload(repo, tmp_path, "resume", "11111111-2222-4333-8444-555555555555", claude_process)
    assert "insight 2 about caching" in context(run_hook("session_start", payload, repo, env=env))
    from memory.surface import injected
    assert injected.start_answered(str(repo / ".beads" / "memory"), payload["session_id"])


def test_the_plugin_updates_its_ignore_block_in_the_files_own_line_endings(repo):
    """The plugin brings an older .beads/memory/.gitignore block up to date at session start: it rewrote the whole
    file with LF endings (a CRLF file, as Windows checkouts keep it, showed every line changed in git). The user's
    bytes around the block stay as they were; the block takes their line ending."""
    from memory.core import layout

    memory = repo / ".beads" / "memory"
    store.append(str(memory), [entry.build("LEARNED: line endings are the user's.", "BD-1", "o")])
    older = [layout.MEMORY_IGNORE_BEGIN, "/handoffs.jsonl", layout.MEMORY_IGNORE_END]
    theirs_above, theirs_below = b"# mine\r\n/scratch/\r\n\r\n", b"/notes.tmp"
    (memory / ".gitignore").write_bytes(theirs_above + "\r\n".join(older).encode() + b"\r\n" + theirs_below)
    assert b"line endings are the user's" in start(repo, args=["--plugin"]).stdout
    current = [layout.MEMORY_IGNORE_BEGIN, *layout.memory_ignore_lines(), layout.MEMORY_IGNORE_END]
    assert (memory / ".gitignore").read_bytes() == (theirs_above + "\r\n".join(current).encode() + b"\r\n"
                                                    + theirs_below)


def test_session_start_removes_the_temp_files_of_killed_writers(repo):
    """A state writer killed between its temp file and the rename (fsio.atomic_write) left `.<name>.<pid>.tmp` in
    .beads/memory for good (the store's own are removed under its lock; the state files', the caches' and the
    parked captures' were not). Session start removes those whose process is gone and that are an hour old: a
    live writer's (or one of another machine sharing the folder: its pid means nothing here) is never touched."""
    memory = repo / ".beads" / "memory"
    store.append(str(memory), [entry.build("LEARNED: temp files of the dead are swept.", "BD-1", "o")])
    (memory / "action-cache").mkdir(exist_ok=True)
    (memory / "knowledge.pending").mkdir(exist_ok=True)
    killed = []
    targets = (memory / "injected.json", memory / "action-cache" / "s1.json", memory / "knowledge.pending" / "p.jsonl")
    for target in targets:
        writer = subprocess.Popen([sys.executable, "-c", (
            "import os, sys, time; sys.path.insert(0, sys.argv[1]); from memory.core import fsio\n"
            "os.replace = lambda *a: (print('written', flush=True), time.sleep(60))\n"
            "fsio.atomic_write(sys.argv[2], b'{}')"), str(ROOT), str(target)], stdout=subprocess.PIPE, text=True)
        assert writer.stdout is not None and writer.stdout.readline().strip() == "written"
        writer.kill()
        writer.wait()
        killed.append(target.parent / f".{target.name}.{writer.pid}.tmp")
    hour_ago = time.time() - 3700
    for temp in killed[:2]:
        os.utime(temp, (hour_ago, hour_ago))
    live = memory / f".use.json.{os.getpid()}.tmp"  # this test's process: alive
    live.write_bytes(b"{}")
    os.utime(live, (hour_ago, hour_ago))
    assert all(t.exists() for t in killed)
    assert b"temp files of the dead are swept" in start(repo).stdout
    assert not killed[0].exists() and not killed[1].exists()
    assert killed[2].exists() and live.exists()  # too new to judge; alive


def test_every_recall_command_runs_from_where_the_session_started(tmp_path):
    """Codex starts anywhere in the repository and runs its shell there: the block's `recall.sh` commands name
    the path from the session's cwd (a `.beads/memory/recall.sh --add` run in a subfolder failed, and the insight
    was lost), and the command as given works there. At the top they stay as they are; outside it, absolute."""
    from helpers import installed_project

    repo = installed_project(tmp_path / "project")
    sub = repo / "app" / "payments"
    sub.mkdir(parents=True)
    subprocess.run([str(repo / ".beads/memory/recall.sh"), "--add", "LEARNED: refunds are rounded half up"],
                   cwd=repo, check=True, capture_output=True, env=clean_env())
    ci = "WARNING: in CI call /opt/ci/.beads/memory/recall.sh by its absolute path"  # an entry's own path: as written
    subprocess.run([str(repo / ".beads/memory/recall.sh"), "--add", ci], cwd=repo, check=True, capture_output=True,
                   env=clean_env())
    welcome_done(repo)

    def block(cwd):
        payload = dict(fixture_payload("codex/0.169.0/SessionStart-1.json"), cwd=str(cwd), session_id=str(cwd))
        return context(run_hook("session_start", payload, repo, args=["--codex"]))

    top, inside, outside = block(repo), block(sub), block(tmp_path)
    assert all("/opt/ci/.beads/memory/recall.sh by its" in b for b in (top, inside, outside))
    top = top.replace("/opt/ci/.beads/memory/recall.sh", "")
    inside, outside = (b.replace("/opt/ci/.beads/memory/recall.sh", "") for b in (inside, outside))
    assert "./recall.sh " in block(repo / ".beads" / "memory")  # a bare name would be looked up in PATH
    assert ".beads/memory/recall.sh" in top and "../" not in top
    assert inside.count("../../.beads/memory/recall.sh") == top.count(".beads/memory/recall.sh") >= 2
    assert outside.count(str(repo / ".beads/memory/recall.sh")) == top.count(".beads/memory/recall.sh")
    search = next(line for line in inside.splitlines() if "Search: " in line)
    command = search[search.index("../../.beads"):].split(" (")[0].replace('"keyword"', '"refunds rounded"')
    found = subprocess.run(["bash", "-c", command], cwd=sub, capture_output=True, text=True, env=clean_env())
    assert found.returncode == 0 and "refunds are rounded half up" in found.stdout, (command, found)
