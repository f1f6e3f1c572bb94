"""recall.sh run as a user runs it (the POSIX launcher), over real files."""
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, fixture_payload, run_hook
from helpers import make_repo, random_files, run_at_a_terminal
from memory.commands import recall as recall_module
from memory.core import jsonio, paths
from memory.search import find, index
from memory.store import entry, rotation, store
from memory.surface import use

RECALL = str(ROOT / "bin" / "recall.sh")


def recall(repo, *args):
    """recall.sh as an agent's shell runs it (no terminal: held texts withheld, as whatever runs these tests)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    return subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL)


def at_a_terminal(repo, *args):
    """recall.sh as a person types it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    return run_at_a_terminal([RECALL, *args], repo, env)


def recall_here(repo, monkeypatch, capsys, *args):
    """recall.sh's main() in this process, given what `recall` gives the launcher (cwd = repo, no MEMORY_HOOKS
    variable): (exit status, stdout). For the many cases of one search path whose launcher and process the
    other tests here run (test_folding_does_not_over_match: the same folding through recall.sh)."""
    monkeypatch.chdir(repo)
    for key in [k for k in os.environ if k.startswith("MEMORY_HOOKS")]:
        monkeypatch.delenv(key)
    capsys.readouterr()
    status = recall_module.main(list(args))
    return status, capsys.readouterr().out


def write(repo, entries, name=store.ACTIVE):
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / name, "a") as fh:
        for e in entries:
            fh.write(json.dumps(e) + "\n")


def e(content, bead="BD-1", ts=1, source="orchestrator", **kw):
    return dict(entry.build(content, bead, source, ts=ts), **kw)


def test_keyword_is_case_insensitive_fixed_string(repo):
    write(repo, [e("TaskGroup requires @Sendable closures", ts=1), e("Use pnpm, not npm", ts=2)])
    proc = recall(repo, "SENDABLE")
    assert proc.returncode == 0 and "TaskGroup requires @Sendable closures" in proc.stdout and "pnpm" not in proc.stdout
    assert recall(repo, "s.ndable").returncode == 1  # not a regex


def test_repro_field_names_do_not_match(repo):
    write(repo, [e("alpha"), e("beta", ts=2)])
    assert recall(repo, "source").returncode == 1
    assert recall(repo, "content").returncode == 1
    assert recall(repo, ".").returncode == 1  # neither entry contains a literal dot


def test_searches_key_tags_and_bead(repo):
    write(repo, [e("flaky pytest fixture", bead="bd-77")])
    assert recall(repo, "testing").returncode == 0  # tag
    assert recall(repo, "BD-77").returncode == 0  # bead
    assert recall(repo, "learned-flaky").returncode == 0  # key


def test_repro_one_torn_line_does_not_hide_the_rest(repo):
    write(repo, [e("build cache is per branch", ts=1)])
    with open(repo / ".beads" / "memory" / store.ACTIVE, "a") as fh:
        fh.write('{"key":"learned-build-torn","content":"build\n')
    write(repo, [e("build with -j2 on CI", ts=3)])
    proc = recall(repo, "build")
    assert proc.returncode == 0 and "per branch" in proc.stdout and "-j2" in proc.stdout
    assert "1 malformed" in proc.stderr


def test_repro_recent_is_deduplicated(repo):
    write(repo, [e("same insight", bead="BD-1", ts=1), e("other", ts=2), e("same insight", bead="BD-2", ts=3)])
    lines = recall(repo, "--recent", "3", "--json").stdout.splitlines()
    assert [json.loads(line)["bead"] for line in lines] == ["BD-2", "BD-1"]


def test_type_filter_and_json_output(repo):
    write(repo, [e("a learned thing"), dict(e("a decision", ts=2), type="decision", key="decision-a")])
    out = [json.loads(line) for line in recall(repo, "--type", "decision", "--json").stdout.splitlines()]
    assert [x["key"] for x in out] == ["decision-a"]


def test_limit_cuts_a_listing_to_its_newest_entries(repo):
    """`--type warning --limit 3` printed every warning (98 of them, 32 KB at 1,000 entries): --limit held for a
    ranked search only. A listing now keeps its newest N and says how many it left out; without --limit it is
    whole, and a ranked search keeps its 10."""
    write(repo, [dict(e(f"warning number {i} about deploys", ts=i), type="warning", key=f"warning-{i}")
                 for i in range(1, 8)])
    cut = recall(repo, "--type", "warning", "--limit", "3", "--json")
    assert [json.loads(x)["key"] for x in cut.stdout.splitlines()] == ["warning-7", "warning-6", "warning-5"]
    assert "the newest 3 of 7 shown (--limit)" in cut.stderr
    assert len(recall(repo, "deploys", "--limit", "2", "--json").stdout.splitlines()) == 2  # one keyword: a listing
    assert len(recall(repo, "--type", "warning", "--json").stdout.splitlines()) == 7
    assert "the newest" not in recall(repo, "--type", "warning").stderr


def test_all_includes_archive_and_latest_wins_across_files(repo):
    write(repo, [e("old archived insight", ts=1), e("superseded", bead="BD-OLD", ts=2)], store.ARCHIVE)
    write(repo, [e("superseded", bead="BD-NEW", ts=3)])
    assert recall(repo, "archived").returncode == 1
    assert recall(repo, "archived", "--all").returncode == 0
    out = [json.loads(line) for line in recall(repo, "superseded", "--all", "--json").stdout.splitlines()]
    assert [x["bead"] for x in out] == ["BD-NEW"]


def test_stats(repo):
    write(repo, [e("x one", source="supervisor"), e("x one", ts=2), e("slow cache two", ts=3)])
    write(repo, [e("archived", ts=0)], store.ARCHIVE)
    proc = recall(repo, "--stats")
    assert proc.returncode == 0
    assert "3 lines, 2 unique keys" in proc.stdout and "orchestrator 2" in proc.stdout
    assert "archive:    1 lines" in proc.stdout and "performance 1" in proc.stdout and "malformed:  0" in proc.stdout


def test_usage_errors_and_help(repo):
    assert recall(repo).returncode == 2
    assert recall(repo, "--recent", "x").returncode == 2
    assert recall(repo, "--bogus").returncode == 2
    alone = recall(repo, "--all")  # a widener alone says how to list both files (a first-hour user tried it)
    assert alone.returncode == 2 and "recall.sh --recent 50 --all" in alone.stderr
    help_proc = recall(repo, "--help")
    assert help_proc.returncode == 0 and "--recent" in help_proc.stdout


def test_nothing_found_exit_1(repo):
    assert recall(repo, "anything").returncode == 1


def test_installed_layout_resolves_main_checkout(repo, tmp_path):
    """.beads/memory/recall.sh inside a project finds the code under .claude/hooks/memory-hooks."""
    target = repo / ".claude" / "hooks" / "memory-hooks"
    target.mkdir(parents=True)
    os.symlink(ROOT / "memory", target / "memory")
    write(repo, [e("installed layout works")])
    installed = repo / ".beads" / "memory" / "recall.sh"
    installed.write_bytes((ROOT / "bin" / "recall.sh").read_bytes())
    installed.chmod(0o755)
    proc = subprocess.run([str(installed), "layout"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and "installed layout works" in proc.stdout


def test_newer_version_that_no_longer_matches_hides_the_old_match(repo):
    old = dict(e("Use the blue deploy target", ts=1), key="learned-deploy-target")
    new = dict(e("Use the green deploy target", ts=5), key="learned-deploy-target")
    write(repo, [old, e("unrelated blue note", ts=2), new])
    out = [json.loads(line)["content"] for line in recall(repo, "blue", "--json").stdout.splitlines()]
    assert out == ["unrelated blue note"]


def test_hand_written_lines_in_other_key_order_are_searched(repo):
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True)
    (d / "knowledge.jsonl").write_text(json.dumps({"content": "Hand-edited ZEBRA entry", "ts": 3, "key": "k-hand",
                                                    "type": "learned", "tags": ["learned"], "bead": "B",
                                                    "source": "orchestrator"}) + "\n")
    assert "ZEBRA" in recall(repo, "zebra").stdout


# --- Unicode: what `str.casefold` does to a keyword must not hide text stored verbatim ---------------------------

def write_raw(repo, entries, escaped=False, name=store.ACTIVE):
    """As the store writes (UTF-8 as is) or as a hand-written line (json.dumps: every non-ASCII char as \\uXXXX)."""
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / name, "ab") as fh:
        for item in entries:
            fh.write((json.dumps(item) + "\n").encode() if escaped else jsonio.dumps_line(item))


@pytest.mark.parametrize("escaped", [False, True], ids=["utf8", "escaped"])
def test_repro_sharp_s_keyword_finds_the_verbatim_text(repo, escaped, monkeypatch, capsys):
    write_raw(repo, [e("Das heißt: die Straße ist ab 8 Uhr gesperrt")], escaped)
    for keyword in ("heißt", "Straße", "STRASSE", "strasse"):
        status, out = recall_here(repo, monkeypatch, capsys, keyword)
        assert status == 0 and "Straße ist ab 8 Uhr" in out, keyword


UNICODE_CASES = [  # (stored text, keyword): every one a case mapping that changes length or leaves ASCII
    ("Die STRAẞE ist gesperrt", "straße"),        # capital sharp s
    ("the ﬁle cache is per branch", "file"),      # ligature folds to two ASCII letters
    ("the file cache is per branch", "ﬁle"),
    ("İstanbul office deploys on Fridays", "istanbul"),  # dotted capital I: casefold gives i + U+0307
    ("istanbul office deploys on Fridays", "İSTANBUL"),
    ("KAPI kilitli kalır", "kapı"),                # Turkish dotless i, both directions
    ("kapı kilitli kalır", "KAPI"),
    ("ὁ δρόμος ΚΛΕΙΣΤΌΣ σήμερα", "κλειστός"),       # Greek final sigma
    ("ＡＰＩ ｋｅｙ rotates weekly", "ａｐｉ"),            # full-width letters
    ("sensor reads 300\u212a at night", "300k"),   # KELVIN SIGN folds to ASCII k
    ("cafe\u0301 menu (decomposed, as macOS writes)", "caf\u00e9"),  # NFD text, NFC keyword
    ("Maß ist voll", "MASS"),
    ("ſtate machine (long s)", "state"),
]


@pytest.mark.parametrize("escaped", [False, True], ids=["utf8", "escaped"])
@pytest.mark.parametrize("text,keyword", UNICODE_CASES)
def test_unicode_case_folding_class(repo, text, keyword, escaped, monkeypatch, capsys):
    write_raw(repo, [e(text), e("unrelated ascii note", ts=2)], escaped)
    status, out = recall_here(repo, monkeypatch, capsys, keyword, "--json")
    assert status == 0
    assert [json.loads(line)["content"] for line in out.splitlines()] == [entry.clean_text(text)[0]]


def test_folding_does_not_over_match(repo):
    write_raw(repo, [e("Maß ist voll"), e("mast und segel", ts=2)])
    assert [json.loads(x)["content"] for x in recall(repo, "mass", "--json").stdout.splitlines()] == ["Maß ist voll"]
    assert recall(repo, "maßt").returncode == 1


def test_repro_escaped_key_of_a_newer_version_still_wins(repo):
    """A hand-written newer line spells the key with \\u escapes: it still supersedes the stored one."""
    old = dict(e("Straße: use the blue deploy target", ts=1), key="learned-straße")
    new = dict(e("Straße: use the green deploy target", ts=5), key="learned-straße")
    write_raw(repo, [old])
    write_raw(repo, [new], escaped=True)
    assert recall(repo, "blue").returncode == 1
    assert "green" in recall(repo, "deploy").stdout


# --- knowledge files that are not regular files -------------------------------------------------------------------

def memory_dir(repo):
    d = repo / ".beads" / "memory"
    d.mkdir(parents=True, exist_ok=True)
    return d


def assert_environment_error(proc, *words):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert all(w in proc.stderr for w in words), proc.stderr


@pytest.mark.parametrize("args", [["cache"], ["cache", "--all"], ["--stats"], ["--recent", "3"]])
def test_repro_active_file_is_a_directory(repo, args):
    (memory_dir(repo) / store.ACTIVE).mkdir()
    assert_environment_error(recall(repo, *args), "knowledge.jsonl", "directory")


@pytest.mark.parametrize("args", [["cache"], ["--stats"]])
def test_repro_active_file_is_a_symlink(repo, tmp_path, args):
    real = tmp_path / "elsewhere.jsonl"
    real.write_text(json.dumps(e("cache secret from elsewhere")) + "\n")
    os.symlink(real, memory_dir(repo) / store.ACTIVE)
    proc = recall(repo, *args)
    assert_environment_error(proc, "knowledge.jsonl", "symbolic link")
    assert "secret" not in proc.stderr


@pytest.mark.parametrize("args", [["cache", "--all"], ["--stats"]])
def test_archive_that_is_a_directory_or_symlink(repo, tmp_path, args):
    write(repo, [e("cache one")])
    (memory_dir(repo) / store.ARCHIVE).mkdir()
    assert_environment_error(recall(repo, *args), "knowledge.archive.jsonl", "directory")
    (memory_dir(repo) / store.ARCHIVE).rmdir()
    os.symlink(tmp_path / "missing", memory_dir(repo) / store.ARCHIVE)  # dangling: still a link we refuse
    assert_environment_error(recall(repo, *args), "knowledge.archive.jsonl", "symbolic link")


def test_fifo_does_not_hang(repo):
    os.mkfifo(memory_dir(repo) / store.ACTIVE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    proc = subprocess.run([RECALL, "cache"], cwd=repo, capture_output=True, text=True, env=env, timeout=20)
    assert_environment_error(proc, "knowledge.jsonl", "not a regular file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_unreadable_file(repo):
    write(repo, [e("cache one")])
    (memory_dir(repo) / store.ACTIVE).chmod(0)
    assert_environment_error(recall(repo, "cache"), "knowledge.jsonl", "ermission")


# --- after a rotation: say what the archive holds -----------------------------------------------------------------

def test_repro_archive_only_match_says_how_to_see_it(repo):
    d = str(memory_dir(repo))
    store.append(d, [entry.build("zebra crossing needs the old API", "BD-0", "orchestrator", ts=1)])
    store.append(d, [entry.build(f"filler insight {i}", f"BD-{i}", "orchestrator", ts=10 + i) for i in range(1000)])
    rotation.compact(d)  # memory-doctor --compact: fold the inbox, rotate
    assert os.path.exists(os.path.join(d, store.ARCHIVE))  # the real store rotated the zebra entry out
    proc = recall(repo, "zebra")
    assert proc.returncode == 1 and proc.stdout == ""
    assert "nothing found" in proc.stderr
    assert "1 match in knowledge.archive.jsonl" in proc.stderr and "recall.sh zebra --all" in proc.stderr
    assert "zebra crossing" in recall(repo, "zebra", "--all").stdout
    typed = recall(repo, "--type", "learned", "filler insight 3")  # active matches: no archive hint
    assert typed.returncode == 0 and "archive" not in typed.stderr
    assert "archive" not in recall(repo, "no such").stderr  # nothing anywhere: no hint


def test_session_start_hint_mentions_the_archive(repo):
    store.append(str(memory_dir(repo)), [entry.build("one insight", "BD-1", "orchestrator")])
    payload = fixture_payload("claude-code/2.1.330/SessionStart-6.json")
    payload["cwd"] = str(repo)
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "recall.sh" in text and "--all" in text


# --- several words: all of them, anywhere in the entry -------------------------------------------------------------

def test_repro_several_words_with_exact_match_all_of_them(repo):
    write(repo, [e("pytest runs twice as slow in CI", bead="BD-9", ts=1), e("pytest fixture order", ts=2),
                 e("CI cache is per branch", ts=3)])
    for args in (["pytest", "ci"], ["pytest ci"], ["CI", "PyTest"], ["pytest", "--all", "ci"], ["slow", "bd-9"]):
        proc = recall(repo, *args, "--exact", "--json")
        assert proc.returncode == 0, (args, proc.stderr)
        assert [json.loads(x)["content"] for x in proc.stdout.splitlines()] == ["pytest runs twice as slow in CI"]
    assert recall(repo, "pytest", "zebra", "--exact").returncode == 1
    assert recall(repo, "twice as", "--exact").returncode == 0 and recall(repo, "as twice", "--exact").returncode == 0


def test_several_words_are_ranked_best_first(repo):
    write(repo, [e("pytest runs twice as slow in CI", bead="BD-9", ts=1), e("pytest fixture order", ts=2),
                 e("CI cache is per branch", ts=3), e("unrelated note about fonts", ts=4)])
    for args in (["pytest", "ci"], ["pytest ci"], ["CI", "PyTest"]):
        proc = recall(repo, *args, "--json")
        assert proc.returncode == 0, (args, proc.stderr)
        found = [json.loads(x) for x in proc.stdout.splitlines()]
        assert found[0]["content"] == "pytest runs twice as slow in CI"  # holds both words: first
        assert "unrelated note about fonts" not in [f["content"] for f in found]
        assert [f["score"] for f in found] == sorted((f["score"] for f in found), reverse=True)
    explained = recall(repo, "slow", "pytest", "--explain", "--limit", "1")
    assert explained.returncode == 0 and "1 ranked entry" in explained.stdout
    assert "pytest@content" in explained.stdout and "twice as slow" in explained.stdout
    assert "--explain" not in explained.stderr
    listed = recall(repo, "pytest", "--explain")  # one word lists: no score to explain, and it says so
    assert listed.returncode == 0 and "twice as slow" in listed.stdout
    assert "--explain scores a ranked search (two or more words" in listed.stderr
    assert "this is a listing" in recall(repo, "--recent", "2", "--explain").stderr
    assert recall(repo, "zebra", "giraffe").returncode == 1
    assert recall(repo, "pytest", "ci", "--limit", "0").returncode == 2


def test_an_error_pasted_as_the_words_brings_what_was_learned_right_after_it(repo):
    shell = "Open `make shell` first: the interpreter with the packages lives in the dev container."
    write(repo, [e(shell, ts=1, errors=["ModuleNotFoundError: No module named 'django'"]),
                 e("django settings live in posthog/settings", ts=2), e("unrelated note about fonts", ts=3)])
    pasted = recall(repo, "E   ModuleNotFoundError: No module named 'django'")
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout.startswith("  seen  [LEARN] ")  # first, though it shares no word with the error
    assert f"{shell}\n    recorded after: ModuleNotFoundError: No module named 'django'" in pasted.stdout
    assert "1 recorded right after this error" in pasted.stdout and "django settings" in pasted.stdout
    found = [json.loads(x) for x in recall(repo, "ModuleNotFoundError: No module named 'django'", "--json").stdout
             .splitlines()]
    assert found[0]["content"] == shell and found[0]["seen_before"] is True and "seen_before" not in found[1]
    joined = ("Traceback (most recent call last): File \"manage.py\", line 8, in <module> from django.core import "
              "management ModuleNotFoundError: No module named 'django'")  # a traceback pasted as one line
    assert recall(repo, joined).stdout.startswith("  seen  [LEARN] ")
    other = recall(repo, "ModuleNotFoundError: No module named 'yaml'").stdout  # another failure: ranked only
    assert "  seen  " not in other and "recorded right after this error" not in other


def test_a_lookup_counts_its_answer_as_used_a_filter_or_a_script_does_not(repo):
    shell = "Open `make shell` first: the interpreter with the packages lives in the dev container."
    entries = [e("pytest runs twice as slow in CI", bead="BD-9", ts=1), e("pytest fixture order", ts=2),
               e("CI cache is per branch", ts=3), e(shell, ts=4, errors=["ModuleNotFoundError: No module named 'x'"])]
    write(repo, entries)
    memory = str(repo / ".beads" / "memory")
    assert recall(repo, "pytest runs twice").returncode == 0  # words of a title: the best one only
    assert use.counts(memory) == {entries[0]["key"]: 1}
    assert recall(repo, "pytest").returncode == 0  # one word: a filter
    assert recall(repo, "pytest fixture", "--json").returncode == 0  # a script, not the agent
    assert recall(repo, "cache", "branch", "--exact").returncode == 0
    assert recall(repo, "pytest runs twice").returncode == 0  # the same lookup again at once: one use
    assert use.counts(memory) == {entries[0]["key"]: 1}
    assert recall(repo, "E   ModuleNotFoundError: No module named 'x'").returncode == 0  # seen: first
    assert use.counts(memory) == {entries[0]["key"]: 1, entries[3]["key"]: 1}


def test_single_keyword_is_still_a_substring(repo):
    write(repo, [e("TaskGroup requires @Sendable closures")])
    assert recall(repo, "kGroup req", "--exact").returncode == 0  # two words, --exact: both are substrings
    assert recall(repo, "ndabl").returncode == 0


# --- stored terminal escapes never reach the terminal -------------------------------------------------------------

HOSTILE = "red \x1b[31mALERT\x1b[0m title \x1b]0;pwned\x07 csi \x9b2J bidi \u202egnp.exe\u202c iso \u2066x\u2069 end"


def test_repro_control_characters_are_stripped_on_output(repo):
    stored = e(HOSTILE)
    assert stored["content"] == HOSTILE  # the writer keeps them; only the terminal must not see them
    write_raw(repo, [dict(stored, bead="BD-\x1b[2J", source="orch\x9bestrator", tags=["learned", "t\x1b[5m"])])
    # the bidi controls hold the entry for review: only --held prints its text (review.withhold)
    for args in (["alert"], ["--recent", "1"], ["--stats"], ["--held"]):
        out = (at_a_terminal if args == ["--held"] else recall)(repo, *args).stdout
        assert ("ALERT" in out) == (args == ["--held"])
        assert ("text withheld" in out) == (args[0] in ("alert", "--recent"))
        assert not any(c in out for c in "\x1b\x07\x9b\u202e\u202c\u2066\u2069"), (args, out)
    raw = at_a_terminal(repo, "--held", "--json").stdout
    assert not any(c in raw for c in "\x1b\x07\x9b\u202e\u202c\u2066\u2069")
    assert json.loads(raw)["content"] == HOSTILE and json.loads(raw)["bead"] == "BD-\x1b[2J"  # lossless


def test_session_start_strips_c1_and_bidi_controls(repo):
    from memory.store import hold

    held = entry.build(HOSTILE, "BD-1", "orchestrator")
    store.append(str(memory_dir(repo)), [held])
    assert not run_hook("session_start", dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"),
                                              cwd=str(repo)), repo).stdout.count(b"ALERT")  # held: bidi controls
    approval = entry.build_control(entry.APPROVE, held["key"], "", sha=hold.text_sha(held["content"]), by="t")
    store.append(str(memory_dir(repo)), [approval])  # a person approved it: shown, its controls stripped
    payload = fixture_payload("claude-code/2.1.330/SessionStart-6.json")
    payload["cwd"] = str(repo)
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "ALERT" in text and not any(c in text for c in "\x1b\x07\x9b\u202e\u202c\u2066\u2069")


# --- exit status: 0 found, 1 nothing, 2 usage or environment ------------------------------------------------------

def test_exit_status(repo):
    write(repo, [e("cache one")])
    assert recall(repo, "cache").returncode == 0
    assert recall(repo, "--stats").returncode == 0
    assert recall(repo, "zebra").returncode == 1
    assert recall(repo, "--type", "decision").returncode == 1
    for args in ([], [""], ["  "], ["--recent", "0"], ["--recent", "x"], ["--bogus"], ["cache", "--bogus"]):
        proc = recall(repo, *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, args


def test_recent_without_a_number_is_the_ten_newest(repo):
    """#21 item 21."""
    write(repo, [e(f"insight number {i}", ts=i) for i in range(12)])
    proc = recall(repo, "--recent", "--json")
    assert proc.returncode == 0
    assert [json.loads(line)["content"] for line in proc.stdout.splitlines()] == \
        [f"insight number {i}" for i in range(11, 1, -1)]
    assert recall(repo, "--recent", "3", "--json").stdout.count("\n") == 3


READ_COMMANDS = [["deploy"], ["deploy", "--all"], ["deploy", "queue"], ["deploy", "queue", "--exact"], ["--recent"],
                 ["--type", "learned"], ["--all", "--recent", "5"], ["--pinned"], ["deploy", "--history"],
                 ["--stale"], ["--stats"], ["nomatch"], ["nomatch", "--all"]]


@pytest.fixture(scope="module")
def malformed_repo(tmp_path_factory):
    """Knowledge with three malformed lines, a pin, and the index built; the read commands below only read it."""
    repo = make_repo(tmp_path_factory.mktemp("malformed") / "project")
    write(repo, [dict(e("deploy queue drains first", ts=1), pinned=True)])
    write(repo, [e("old deploy queue note", ts=0)], store.ARCHIVE)
    memory = repo / ".beads" / "memory"
    with open(memory / store.ACTIVE, "a") as fh:
        fh.write('{"key": "learned-torn", "content": "deploy\n')  # torn, and holding the keyword
        fh.write("<<<<<<< HEAD\n")  # a conflict marker: not holding it
        fh.write('{"just": "json"}\n')  # an object that is not an entry
    recall(repo, "--pin", "learned-deploy-queue-drains-first")
    recall(repo, "deploy", "--all")  # the index built: the keyword path answers `deploy --all` from it
    return repo


@pytest.mark.parametrize("args", READ_COMMANDS, ids=" ".join)
def test_every_read_command_reports_malformed_lines(malformed_repo, args):
    """#21 item 17: the same count on stderr whatever the command (keyword path and ranked included)."""
    memory = malformed_repo / ".beads" / "memory"
    knowledge_before = [(memory / name).read_bytes() for name in (store.ACTIVE, store.ARCHIVE)]
    proc = recall(malformed_repo, *args)
    counts = {"--stats": "3 line(s) skipped"}
    assert (counts.get(args[0]) or "3 malformed line(s) skipped") in proc.stderr + proc.stdout, proc.stderr
    assert "Traceback" not in proc.stderr
    assert [(memory / name).read_bytes() for name in (store.ACTIVE, store.ARCHIVE)] == knowledge_before


WRITE_COMMANDS = [["--add", "LEARNED: an insight to keep"], ["--forget", "learned-x"], ["--pin", "learned-x"],
                  ["--unpin", "learned-x"], ["--redact", "learned-x"], ["--redact", "learned-x", "secret"]]


DAMAGES = ["directory", "symlink", "fifo"]


@pytest.mark.parametrize("args,damage",
                         [(args, DAMAGES[at % 3]) for at, args in enumerate(READ_COMMANDS + WRITE_COMMANDS)],
                         ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_every_command_fails_in_one_line_never_a_traceback(repo, args, damage):
    """#21 item 9, the class: a knowledge file that cannot be used is exit 2 (cannot read) or 3 (cannot
    write), with one line naming the file and why, from every command."""
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    target = memory / store.ACTIVE
    if damage == "directory":
        target.mkdir()
    elif damage == "symlink":
        (repo / "elsewhere.jsonl").write_text(json.dumps(e("x")) + "\n")
        target.symlink_to(repo / "elsewhere.jsonl")
    else:
        os.mkfifo(target)
    proc = recall(repo, *args)
    assert proc.returncode in (2, 3) and "Traceback" not in proc.stderr, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith("recall.sh: ") and store.ACTIVE in first, proc.stderr
    if damage == "symlink":
        assert (repo / "elsewhere.jsonl").read_text().count("\n") == 1  # nothing written through the link


def test_an_unexpected_failure_is_one_line_and_logged(repo, tmp_path):
    """A bug (here: a broken module on the path) is exit 3 with one line, details in errors.log."""
    fake = tmp_path / "home"
    shutil.copytree(ROOT / "memory", fake / "memory")
    shutil.copytree(ROOT / "bin", fake / "bin")
    (fake / "memory" / "search" / "stale.py").write_text("raise RuntimeError('boom')\n")
    write(repo, [e("something old", ts=1)])
    proc = subprocess.run([str(fake / "bin" / "recall.sh"), "--stale"], cwd=repo, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")})
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("recall.sh: unexpected failure: RuntimeError: boom") and proc.stderr.count("\n") == 1
    assert "RuntimeError: boom" in (repo / ".beads" / "memory" / "errors.log").read_text()


def test_an_unexpected_failure_logs_the_options_never_the_text(repo, tmp_path):
    """`recall.sh --redact KEY TEXT` failing on a bug: errors.log (a file on disk, committable where the memory
    folder's .gitignore is missing) must not get the secret the person was removing."""
    fake = tmp_path / "home"
    shutil.copytree(ROOT / "memory", fake / "memory")
    shutil.copytree(ROOT / "bin", fake / "bin")
    (fake / "memory" / "commands" / "rewrite.py").write_text("raise RuntimeError('boom')\n")
    write(repo, [e("the db password Zq8!rT2vLp9x", ts=1)])
    (fake / "memory" / "capture" / "edit.py").write_text("raise RuntimeError('boom')\n")  # what --add runs
    for argv in (["--redact", "learned-x", "Zq8!rT2vLp9x"],
                 ["--add=LEARNED: the db password is Zq8!rT2vLp9x"]):  # an option's value after `=` too
        (repo / ".beads" / "memory" / "errors.log").unlink(missing_ok=True)
        proc = subprocess.run([str(fake / "bin" / "recall.sh"), *argv], cwd=repo, capture_output=True, text=True,
                              env={k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")})
        assert proc.returncode == 3, (argv, proc.stderr)
        logged = (repo / ".beads" / "memory" / "errors.log").read_text()
        assert "RuntimeError: boom" in logged and argv[0][:5] in logged and "Zq8!rT2vLp9x" not in logged, argv


# --- the keyword path: `recall.sh KEYWORD [--all]`, what a person waits for ----------------------------------------

def test_the_keyword_path_imports_no_argparse_re_or_json(repo):
    """What keeps `recall.sh KEYWORD [--all]` under `grep | jq` (docs/performance.md): none of the three."""
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    write(repo, [e(f"LEARNED: deploy topic {i}", ts=i) for i in range(20)], name=store.ARCHIVE)  # rotated: older
    write(repo, [e(f"LEARNED: deploy step {i}", ts=100 + i) for i in range(20)] + [e("topic", ts=200)])
    index.load(str(mem))
    probe = ("import sys; sys.path[0] = sys.argv.pop(1); from memory.commands import recall; status = recall.main();"
             " sys.stdout.flush(); print(status, sorted({'argparse', 're', 'json'} & set(sys.modules)),"
             " file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    for argv in (["deploy", "--all"], ["topic", "--all"], ["zzz", "--all"], ["deploy"], ["topic"]):
        proc = subprocess.run([sys.executable, "-S", "-c", probe, str(ROOT), *argv], cwd=repo, env=env,
                              capture_output=True, text=True)
        assert proc.stderr.splitlines()[-1] in ("0 []", "1 []"), (argv, proc.stderr)


def test_keyword_all_after_a_capture_answers_with_it_and_brings_the_index_up(repo):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    random_files(mem, random.Random(4), 30)
    index.load(str(mem))
    write(repo, [entry.build("LEARNED: deploy freshly captured", "BD-9", "orchestrator", ts=2e9)])
    assert find.current(str(mem)) is None  # the index is one capture behind
    proc = recall(repo, "deploy", "--all")
    assert proc.returncode == 0 and "deploy freshly captured" in proc.stdout.split("\n\n")[0]  # the newest
    assert find.current(str(mem)) is not None


def test_the_memory_folder_is_the_one_git_names(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("MEMORY_HOOKS_DIR", raising=False)
    monkeypatch.delenv("GIT_CEILING_DIRECTORIES", raising=False)
    (repo / "src" / "deep").mkdir(parents=True)
    monkeypatch.setenv("MEMORY_HOOKS_ANCHOR", str(repo / "src" / "deep"))
    assert recall_module._memory_dir() == str(repo / ".beads" / "memory")
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, check=True)
    monkeypatch.setenv("MEMORY_HOOKS_ANCHOR", str(tmp_path / "wt"))
    assert recall_module._memory_dir() == str(repo / ".beads" / "memory")  # a worktree: git names the main checkout
    monkeypatch.setenv("MEMORY_HOOKS_ANCHOR", str(tmp_path))
    assert recall_module._memory_dir() == paths.memory_dir(str(tmp_path))  # no repository
    monkeypatch.setenv("MEMORY_HOOKS_DIR", str(tmp_path / "elsewhere"))
    assert recall_module._memory_dir() == str(tmp_path / "elsewhere")


def test_from_a_worktree_keyword_all_reads_the_main_checkouts_memory(repo, tmp_path):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    write(repo, [entry.build("LEARNED: deploy from main", "BD-1", "orchestrator", ts=1)])
    index.load(str(mem))
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, check=True)
    proc = recall(tmp_path / "wt", "deploy", "--all")
    assert proc.returncode == 0 and "deploy from main" in proc.stdout


def test_a_closed_pipe_is_not_an_error(repo):
    mem = repo / ".beads" / "memory"
    mem.mkdir(parents=True)
    write(repo, [entry.build(f"LEARNED: deploy number {i}", "BD-1", "orchestrator", ts=i) for i in range(3000)])
    index.load(str(mem))
    proc = subprocess.run(f"'{RECALL}' deploy --all --limit 3000 | head -1", shell=True, cwd=repo, capture_output=True,
                          text=True)
    assert proc.stdout.startswith("[LEARN]") and proc.stderr == ""


@pytest.mark.parametrize("field, value", [("held", 5), ("held", True), ("held", ["a stray reason"]), ("tags", 5),
                                          ("redacted", 5)])
def test_a_stray_field_of_another_shape_is_shown_as_nothing_not_a_crash(repo, field, value):
    """A line carrying `held` (this tool's own verdict, never stored), or `tags` / `redacted` of another shape
    (a hand edit, a teammate's tool): every recall.sh command and the report still answer, instead of one line
    failing them all with "unexpected failure"; a stored `held` does not put a clean entry on the --held list."""
    memory = repo / ".beads" / "memory"
    line = dict(entry.build("LEARNED: the database pool must be closed before fork.", "BD-1", "orchestrator"),
                **{field: value})
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "knowledge.jsonl").write_text(json.dumps(line) + "\n")
    for args in (["database", "pool"], ["--all", "pool"], ["--history", line["key"]], ["--stats"], ["--json", "pool"]):
        proc = recall(repo, *args)
        assert proc.returncode == 0 and "unexpected failure" not in proc.stderr, (args, proc.stderr)
    held = recall(repo, "--held")
    assert held.returncode == 1 and "no entry is held" in held.stderr
    report = subprocess.run([str(ROOT / "bin" / "memory-doctor"), "--report", str(repo / "r.html")], cwd=repo,
                            capture_output=True, text=True)
    assert "unexpected failure" not in report.stdout + report.stderr and (repo / "r.html").exists()


def map_titles(repo) -> list[str]:
    """The titles session start's map shows (a session after the introduction), as the map writes them."""
    (repo / ".beads" / "memory" / "welcomed").touch()
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    return [line[4:].split("] ", 1)[-1] for line in text.splitlines() if line.startswith("  - ")]


def test_the_words_of_every_title_the_map_shows_bring_that_entry_first(repo, monkeypatch, capsys):
    """The map's promise, `recall.sh "<words of a title>"`, for every title session start shows at 1,000 entries:
    the titled entry comes first (the best answer is what a lookup credits in use.json). A walkthrough found 7 of
    84 titles ranked behind an entry sharing more of their words (one 6th), e.g. "When installing Python
    executables, uv will…" behind "uv installs Python executables into your `PATH`…"."""
    sys.path.insert(0, str(ROOT / "bench" / "relevance"))
    from scale import padded

    write(repo, padded(1000))
    titles = map_titles(repo)
    assert len(titles) > 50
    behind = []
    for title in titles:
        words = title.rstrip("…")
        status, out = recall_here(repo, monkeypatch, capsys, title, "--json")
        first = json.loads(out.splitlines()[0]) if status == 0 else {}
        if not " ".join(str(first.get("content", "")).split()).startswith(" ".join(words.split())):
            behind.append(title)
    assert behind == []


def test_the_words_of_a_title_print_that_entry_alone(repo):
    """The map says "read one in full": each lookup printed 10 ranked entries (3 KB on average at 300 entries)."""
    write(repo, [e("the deploy queue retries three times before paging", ts=1),
                 e("the deploy queue drains before every release", ts=2),
                 e("retries of the deploy queue are logged to the audit table", ts=3)])
    proc = recall(repo, "the deploy queue retries three…")
    assert proc.returncode == 0 and proc.stdout.count("[LEARN]") == 1 and "retries three times" in proc.stdout
    assert "the entry this title opens (2 more rank below it: --limit 10)" in proc.stdout
    assert recall(repo, "the deploy queue retries three…", "--limit", "10").stdout.count("[LEARN]") == 3
    assert len(recall(repo, "the deploy queue retries three…", "--json").stdout.splitlines()) == 3  # machines: all
    assert recall(repo, "deploy queue retries").stdout.count("[LEARN]") == 3  # a search, not a title: ranked
    assert recall(repo, "the deploy queue", "--exact").stdout.count("[LEARN]") == 3


def test_every_topic_of_the_map_lists_its_count_general_too(repo, monkeypatch, capsys):
    """The map's `List a topic:` at 1,000 entries. `recall.sh general` printed 6 of `general (68, 63 more)`
    (the entries sharing no topic word: no word lists them), and `recall.sh package` printed 182 entries in
    full, 64 KB in the agent's context. `recall.sh --topic NAME` lists a topic as the map placed it, a title
    a line, and the words of each bring that entry in full."""
    import re

    sys.path.insert(0, str(ROOT / "bench" / "relevance"))
    from scale import padded

    write(repo, padded(1000))
    (repo / ".beads" / "memory" / "welcomed").touch()
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    text = json.loads(run_hook("session_start", payload, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"(?m)^  (\S[^(\n]*?) \((\d+)(?:, \d+ more)?\):$", text)}
    only_counted = text.split("Not listed:")[1]
    counts.update((m.group(1), int(m.group(2))) for m in re.finditer(r"([\w.-]+) \((\d+)\)", only_counted))
    assert counts["general"] > 20 and 'List a topic: .beads/memory/recall.sh --topic "<topic>"' in text
    titled = text.split("  general (", 1)[1].split("\n  Not listed:")[0]
    general = recall(repo, "--topic", "general", "--json")
    listed = [json.loads(line) for line in general.stdout.splitlines()]
    assert general.returncode == 0 and counts["general"] <= len(listed) <= counts["general"] + 5  # + the newest
    flat = " ".join(" ".join(e["content"].split()) for e in listed)
    assert all(line[4:].split("] ", 1)[-1].rstrip("…") in flat
               for line in titled.splitlines() if line.startswith("  - "))
    for topic in sorted(counts, key=lambda t: -counts[t])[:6]:
        out = recall(repo, "--topic", topic)
        lines = out.stdout.splitlines()[:-1]
        assert counts[topic] <= len(lines) <= counts[topic] + 5, topic
        assert all(len(line) <= 120 for line in lines) and "read one in full" in out.stdout.splitlines()[-1]
        for line in lines[::10]:
            status, found = recall_here(repo, monkeypatch, capsys, line.split("] ", 1)[1], "--json")
            first = json.loads(found.splitlines()[0])["content"]
            assert " ".join(first.split()).startswith(line.split("] ", 1)[1].rstrip("…"))
    assert recall(repo, "--topic", "no-such-topic").returncode == 1


STAGING = "the staging database is shared with QA; never run destructive migrations against it"
STAGING_AGAIN = "the staging database is shared with QA, so never run destructive migrations against it"


def test_recall_similar_lists_the_pair_and_says_what_to_do(repo):
    """Two teammates' copies of one insight in other words: session start and the prompt block showed both."""
    d = repo / ".beads" / "memory"
    store.append(str(d), [e(STAGING, ts=1_700_000_000), e(STAGING_AGAIN, ts=1_700_000_100),
                          e("deploys go through the release train on Tuesdays", ts=1_700_000_200)])
    out = recall(repo, "--similar")
    assert out.returncode == 0
    assert STAGING in out.stdout and STAGING_AGAIN in out.stdout and "release train" not in out.stdout
    assert "1 pair" in out.stdout and "--forget" in out.stdout
    store.append(str(d), [{"key": entry.make_key("learned", STAGING), "type": "forget", "ts": 1_700_000_300}])
    again = recall(repo, "--similar")
    assert again.returncode == 1 and again.stdout == ""


def test_similar_and_topic_take_json_and_limit(repo):
    """--similar ignored --json (text for a script) and both ignored --limit without a word."""
    d = repo / ".beads" / "memory"
    other = "deploys go through the release train on Tuesdays after the freeze"
    store.append(str(d), [e(STAGING, ts=1_700_000_000), e(STAGING_AGAIN, ts=1_700_000_100),
                          e(other, ts=1_700_000_200), e(other.replace("Tuesdays", "Tuesday"), ts=1_700_000_300)])
    pairs = [json.loads(line) for line in recall(repo, "--similar", "--json").stdout.splitlines()]
    assert len(pairs) == 2 and all(set(p) == {"score", "newer", "older"} for p in pairs)
    assert {p["newer"]["content"] for p in pairs} == {STAGING_AGAIN, other.replace("Tuesdays", "Tuesday")}
    assert len(recall(repo, "--similar", "--json", "--limit", "1").stdout.splitlines()) == 1
    (d / "welcomed").touch()
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    run_hook("session_start", payload, repo)
    topic = recall(repo, "--topic", "general", "--limit", "1")
    assert topic.returncode == 0 and len(topic.stdout.splitlines()) == 2 and "the newest 1 of" in topic.stdout


def test_a_listing_for_an_agent_shows_the_newest_few_and_says_how_many(repo):
    """One word matched 214 entries (66 KB) in a month-old store, and Claude Code kept a 2 KB preview of it. Not
    at a terminal, a listing without --limit shows the newest AGENT_LIST_LIMIT; a person sees all."""
    from memory.commands.recall_options import AGENT_LIST_LIMIT

    total = AGENT_LIST_LIMIT + 15
    write(repo, [e(f"widget fact number {i} about caches", ts=i + 1) for i in range(total)])
    proc = recall(repo, "widget")
    assert proc.returncode == 0 and proc.stdout.count("widget fact number") == AGENT_LIST_LIMIT
    assert f"widget fact number {total - 1} " in proc.stdout  # the newest
    assert f"the newest {AGENT_LIST_LIMIT} of {total} shown" in proc.stderr and "--limit N" in proc.stderr
    assert recall(repo, "widget", "--limit", str(total)).stdout.count("widget fact number") == total
    assert len(recall(repo, "widget", "--json").stdout.splitlines()) == total  # for machines: all
    assert at_a_terminal(repo, "widget").stdout.count("widget fact number") == total
    assert recall(repo, "--recent", str(total)).stdout.count("widget fact number") == total  # a count asked for
    bad = recall(repo, "widget", "--limit", "\u00b2")  # a digit to isdigit(), not to int()
    assert bad.returncode == 2 and "unexpected failure" not in bad.stderr


@pytest.mark.parametrize("given", ["WARN", "warnings", "Warning", "warn"])
def test_type_takes_the_maps_labels_and_any_case(repo, given):
    write(repo, [e("the queue drains first"), dict(entry.build("never run migrations by hand", "BD-1", "x",
                                                               entry_type="warning", ts=2))])
    proc = recall(repo, "--type", given)
    assert proc.returncode == 0 and "never run migrations" in proc.stdout and "queue drains" not in proc.stdout


def test_an_unknown_type_is_told_the_types(repo):
    write(repo, [e("the queue drains first")])
    proc = recall(repo, "--type", "bogus")
    assert proc.returncode == 1 and "the types are learned, decision, warning, pattern" in proc.stderr


def test_a_found_listing_says_the_archive_was_not_searched(repo):
    """After a rotation live entries stand in the archive too: a listing of the active file alone is not all."""
    write(repo, [e("cache keys include the tenant", ts=1)], name=store.ARCHIVE)
    write(repo, [e("cache warms at boot", ts=2)])
    proc = recall(repo, "cache")
    assert "cache warms" in proc.stdout and "tenant" not in proc.stdout
    assert "were not searched: add --all" in proc.stderr
    assert "not searched" not in recall(repo, "cache", "--all").stderr


def test_add_says_when_an_insight_was_cut_to_the_most_it_keeps(repo):
    """`--add` of 10,010 characters said "captured 1 insight" and stored 2,048, cut mid-word, without a word."""
    from memory.store import entry as entry_mod

    long = recall(repo, "--add", "LEARNED: " + "the deploy queue drains slowly " * 330)
    assert long.returncode == 0 and f"holds {entry_mod.MAX_CONTENT_CHARS:,} characters, the most an insight keeps" \
        in long.stdout + long.stderr
    short = recall(repo, "--add", "LEARNED: the deploy queue drains before every release")
    assert short.returncode == 0 and "the most an insight keeps" not in short.stdout + short.stderr
    edge = recall(repo, "--add", "LEARNED: " + "y" * (entry_mod.MAX_CONTENT_CHARS - 2) + "z")  # 2,047: all kept
    assert edge.returncode == 0 and "the most an insight keeps" not in edge.stdout + edge.stderr


def test_a_title_whose_words_differ_only_by_words_the_ranker_leaves_out_finds_its_entry(repo):
    """150 real insights opening "When running the integration tests on CI": 11 of the map's titles (`… on CI if
    you…`, `… on CI even…`) brought up another entry first: the words that tell them apart are stop words, and
    the titled entry ranked past the look-ahead. Now the entries opening with a title's words come first."""
    texts = []
    for project in ("uv", "calcom"):
        with open(ROOT / "bench" / "relevance" / project / "knowledge.jsonl", encoding="utf-8") as fh:
            texts += [json.loads(line)["content"] for line in fh]
    opening = "When running the integration tests on CI "
    write(repo, [e(opening + t, ts=1_700_000_000 + i) for i, t in enumerate(texts[:150])])
    titles = map_titles(repo)
    assert len(titles) > 60
    wrong = []
    for title in titles:
        out = recall(repo, title, "--json")
        first = json.loads(out.stdout.splitlines()[0])["content"] if out.returncode == 0 else ""
        if not " ".join(first.split()).startswith(" ".join(title.rstrip("…").split())):
            wrong.append(title)
    assert wrong == []
