"""recall.sh --stale and the doctor's count (memory.search.stale), on a real git repository."""
import json
import os
import subprocess
import time

from helpers import ROOT, git
from memory.search import stale

RECALL = str(ROOT / "bin" / "recall.sh")
OLD = int(time.time()) - 200 * 86400


def entry(key, content, ts=OLD):
    return {"key": key, "type": "learned", "content": content, "source": "orchestrator", "tags": [], "ts": ts,
            "bead": "BD-1"}


def setup_repo(repo, entries):
    (repo / "src").mkdir()
    (repo / "src" / "config_loader.py").write_text("def load_config():\n    return SettingsLoader()\n")
    git(repo, "add", "src")
    git(repo, "commit", "-qm", "code")
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "knowledge.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    git(repo, "add", ".beads")
    git(repo, "commit", "-qm", "knowledge")  # the knowledge names everything: it must not count as the code


def run(repo, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_HOOKS")}
    return subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=env)


def test_old_entries_naming_what_is_gone_are_listed_and_nothing_is_removed(repo):
    entries = [entry("learned-ok", "load_config() in src/config_loader.py builds a `SettingsLoader`"),
               entry("learned-gone", "parse_settings() in src/settings.py is the entry point"),
               entry("learned-new", "src/removed.py is gone but this entry is recent", ts=int(time.time())),
               entry("learned-plain", "always run the tests before pushing")]
    setup_repo(repo, entries)
    before = (repo / ".beads" / "memory" / "knowledge.jsonl").read_bytes()
    proc = run(repo, "--stale")
    assert proc.returncode == 0 and "learned-gone" in proc.stdout and "gone: src/settings.py, parse_settings" in \
        proc.stdout
    assert "learned-ok" not in proc.stdout and "learned-new" not in proc.stdout and "learned-plain" not in proc.stdout
    assert run(repo, "--stale", "365").returncode == 1  # 200 days is not stale by a 365-day measure
    assert (repo / ".beads" / "memory" / "knowledge.jsonl").read_bytes() == before
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor")], cwd=repo, capture_output=True, text=True)
    assert "1 entry not re-confirmed for 180 days" in doctor.stdout


def test_a_reconfirmed_entry_is_not_stale(repo):
    setup_repo(repo, [entry("learned-gone", "parse_settings() in src/settings.py"),
                      entry("learned-gone", "parse_settings() in src/settings.py", ts=int(time.time()))])
    assert run(repo, "--stale").returncode == 1


def test_what_an_entry_names():
    paths, symbols = stale.named("Edit `FooBar` and snake_case_fn() in pkg/mod.py or docs/, not https://x.io/a/b")
    assert paths == {"pkg/mod.py", "docs/"} and symbols == {"FooBar", "snake_case_fn"}


def test_no_git_means_no_verdict(tmp_path):
    assert stale.find([entry("k", "src/settings.py is gone")], str(tmp_path)) is None


def test_when_git_cannot_answer_the_user_is_told_nothing_was_checked(tmp_path):
    """Before, a folder git could not answer for (here: not a repository; on a large one, a grep past the
    timeout) got "no entry ... names a file or symbol that is gone" and exit 1: a false all-clear."""
    memory = tmp_path / ".beads" / "memory"
    memory.mkdir(parents=True)
    (memory / "knowledge.jsonl").write_text(json.dumps(entry("learned-gone", "parse_settings() is gone")) + "\n")
    proc = run(tmp_path, "--stale")
    assert proc.returncode == 3 and proc.stdout == ""
    assert "nothing checked: git could not list" in proc.stderr and "names a file or symbol" not in proc.stderr
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor")], cwd=tmp_path, capture_output=True, text=True)
    assert [line.split()[1:4] for line in doctor.stdout.splitlines() if " stale " in line] == \
        [["stale", "not", "checked:"]], doctor.stdout


def test_every_symbol_is_looked_up_in_one_grep_however_many(repo, monkeypatch):
    """2,100 entries, each naming its own symbol, all in the code: none is stale. Before, only the first 500
    symbols were looked up (the rest were called gone), one `-e` each, which took past git's timeout at 325
    symbols on uv's 1,700 files; now they go as one alternation per 2,000 symbols."""
    (repo / "lib").mkdir()
    (repo / "lib" / "names.py").write_text("".join(f"def helper_{i:04d}(): pass\n" for i in range(2100)))
    git(repo, "add", "lib")
    entries = [entry(f"learned-{i}", f"call `helper_{i:04d}` from the loader") for i in range(2100)]
    entries.append(entry("learned-gone", "call `helper_9999` from the loader"))
    setup_repo(repo, entries)
    greps = []
    real_git = stale._git
    monkeypatch.setattr(stale, "_git", lambda root, args: (greps.append(args) if "grep" in args else None)
                        or real_git(root, args))
    found = stale.find(entries, str(repo))
    assert [e["key"] for e, _ in found] == ["learned-gone"] and found[0][1] == ["helper_9999"]
    assert len(greps) == 2  # 2,101 symbols: two alternations


def test_prose_mime_types_refs_and_packages_are_not_paths():
    """#21 item 16: 8 of 9 flagged entries were false."""
    text = ("Handlers return application/json; compare the before/after output with tmp_path and/or "
            "macOS/Ubuntu runners; rebase on origin/main; import @grafana/ui, not Node.js or .rs/.py files; "
            "tests: `yarn test path/to/file.tsx`; a new crate `crates/uv-pep###/`")
    paths, maybe, _ = stale.named_all(text)
    assert paths == set() and maybe == {"before/after", "and/or"}  # plain words: paths only where a folder is
    paths, maybe, _ = stale.named_all("Edit `mocks/server/db`, apps/api/v2, crates/uv-python/*.py and "
                                      "pkg/services/<domain>/ or ./bin/start; CHANGELOG.md, pkg/services/dashboards")
    assert paths == {"mocks/server/db", "apps/api/v2", "crates/uv-python/", "pkg/services/", "./bin/start",
                     "CHANGELOG.md"} and maybe == {"pkg/services/dashboards"}


def test_the_labelled_set_keeps_its_verdicts():
    """bench/stale_paths.jsonl (bench/stale_paths.py measures it): no labelled non-path is a path, and
    every labelled path is a path or a maybe path."""
    rows = [json.loads(line) for line in (ROOT / "bench" / "stale_paths.jsonl").read_text().splitlines()]
    assert len(rows) > 100
    for row in rows:
        paths, maybe, _ = stale.named_all(row["text"])
        assert not paths & set(row["not_paths"]), row
        assert set(row["paths"]) <= paths | maybe, row


def test_a_plain_word_path_counts_only_under_a_folder_of_the_repository(repo):
    setup_repo(repo, [entry("learned-moved", "the parser in src/oldparser moved, see src/config_loader"),
                      entry("learned-prose", "keep data/logic/presentation apart; check before/after")])
    proc = run(repo, "--stale")
    assert proc.returncode == 0 and "gone: src/oldparser" in proc.stdout  # `src/` is a folder here
    assert "config_loader" not in proc.stdout.split("gone:")[1]  # a module path: src/config_loader.py is there
    assert "learned-prose" not in proc.stdout


def test_a_name_the_repository_never_had_is_not_gone(repo):
    """An entry recorded at a commit (capture writes `commit`) can only name as gone what that commit had."""
    (repo / "src").mkdir()
    (repo / "src" / "settings.py").write_text("def parse_settings():\n    pass\n")
    git(repo, "add", "src")
    git(repo, "commit", "-qm", "settings")
    then = git(repo, "rev-parse", "HEAD")
    entries = [dict(entry("learned-advice", "use tmp_path, and create src/planned.py for it"), commit=then),
               dict(entry("learned-gone", "parse_settings() in src/settings.py"), commit=then),
               dict(entry("learned-unknown", "use tmp_path"), commit="0" * 40)]  # a commit git does not know
    git(repo, "rm", "-q", "src/settings.py")
    setup_repo(repo, entries)
    proc = run(repo, "--stale")
    assert "learned-gone" in proc.stdout and "gone: src/settings.py, parse_settings" in proc.stdout
    assert "learned-advice" not in proc.stdout  # never in the repository: not gone
    assert "learned-unknown" in proc.stdout  # judged as before


def test_the_users_git_grep_settings_do_not_make_symbols_gone(repo):
    """grep.lineNumber, grep.column and color.grep=always prefix or colour each word `git grep -o` prints:
    every symbol was then called gone."""
    entries = [entry("learned-ok", "load_config() builds a `SettingsLoader`")]
    setup_repo(repo, entries)
    for name, value in (("grep.lineNumber", "true"), ("grep.column", "true"), ("color.grep", "always"),
                        ("color.ui", "always")):
        git(repo, "config", name, value)
    assert stale.find(entries, str(repo)) == []
    assert stale.named("Edit `config.` and `os.ab` here")[1] == set()  # no empty or short symbol after the split


def test_an_entry_without_a_commit_is_judged_at_the_commit_of_its_day(repo):
    """Imports and hand-written lines record no commit: a GitHub repository's name, an example file or a
    placeholder path in them were called gone. They are judged against HEAD's last commit before their day."""
    (repo / "src").mkdir()
    (repo / "src" / "old_loader.py").write_text("def load_old():\n    pass\n")
    git(repo, "add", "src")
    dated = {**os.environ, "GIT_AUTHOR_DATE": f"@{OLD - 86400}", "GIT_COMMITTER_DATE": f"@{OLD - 86400}"}
    subprocess.run(["git", "commit", "-qm", "old code"], cwd=repo, env=dated, check=True)
    git(repo, "rm", "-q", "src/old_loader.py")
    entries = [entry("learned-imported", "see pypa/build and some/path/pyproject.toml; src/old_loader.py loads it")]
    setup_repo(repo, entries)
    proc = run(repo, "--stale")
    gone = [line for line in proc.stdout.splitlines() if "gone:" in line]
    assert gone == ["    gone: src/old_loader.py"], proc.stdout  # never in the repository: not gone


def test_at_most_the_most_common_recorded_commits_are_asked_about(repo, monkeypatch):
    """One entry per commit over 400 commits asked git about each (0.08 s -> 0.99 s): only the MAX_COMMITS most
    common recorded commits are verified and read; the others are judged by their day."""
    entries = [dict(entry(f"learned-{i}", f"see src/file_{i}.py"), commit=f"{i:040x}") for i in range(60)]
    setup_repo(repo, entries)
    asked = []
    real_git = stale._git
    monkeypatch.setattr(stale, "_git", lambda root, args: (asked.append(args) if "rev-parse" in args else None)
                        or real_git(root, args))
    stale.find(entries, str(repo))
    assert 0 < len(asked) <= stale.MAX_COMMITS
