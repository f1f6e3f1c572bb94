"""recall.sh --import claude / bd (and memory-hooks import), run as a user runs them: a real git repository, a
fake HOME holding an auto memory folder shaped like Claude Code's, and the fake bd."""
from __future__ import annotations

import hashlib
import json
import os
import random
import string
import subprocess
from pathlib import Path

from helpers import FAKE_BD, ROOT, active_bytes, bd_env, clean_env, git, knowledge, make_repo
from memory.commands import console
from memory.runtimes import automemory
from memory.store import entry

RECALL = str(ROOT / "bin" / "recall.sh")
SECRET = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))  # no literal


def claude_folder(home: Path, repo: Path) -> Path:
    folder = home / ".claude" / "projects" / automemory.sanitize(str(repo)) / "memory"
    folder.mkdir(parents=True)
    notes = {
        "MEMORY.md": "- [Build](project_build.md) — tests need Postgres\n- [Links](reference_links.md)\n",
        "project_build.md": "---\nname: Build setup\ndescription: how the tests run\ntype: project\n---\n"
                            "The integration tests need Postgres 16 on port 5433.\n\n"
                            "**Why:** CI runs it there.\n**How to apply:** start it with `make db` first.\n",
        "reference_links.md": "---\nname: Links\ndescription: where things are\ntype: reference\n---\n"
                              "- Bugs are tracked in the Linear project PAY.\n"
                              "- Dashboards live in Grafana under\n  the payments folder.\n",
        "project_deploy.md": f"---\nname: Deploy\ntype: project\n---\nDeploys use the token {SECRET} from vault.\n",
        "user_role.md": "---\nname: Role\ntype: user\n---\nThe user is a senior Go developer, new to React.\n",
        "feedback_style.md": "---\nname: Style\ntype: feedback\n---\nNever summarise at the end of a reply.\n",
        "notes.md": "no frontmatter at all: not a typed note\n",
    }
    for name, text in notes.items():
        (folder / name).write_text(text)
    return folder


def fingerprint(folder: Path) -> dict:
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns, p.stat().st_mode)
            for p in folder.iterdir()}


def recall(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([RECALL, *args], cwd=repo, capture_output=True, text=True, env=clean_env(**(env or {})))


def test_claude_import_takes_project_and_reference_notes_once(tmp_path):
    home, repo = tmp_path / "home", make_repo(tmp_path / "my.project")
    folder = claude_folder(home, repo)
    before = fingerprint(folder)
    dry = recall(repo, "--import", "claude", "--dry-run", env={"HOME": str(home)})
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.count("would add ") == 4 and "nothing written" in dry.stdout
    assert knowledge(repo) == []
    done = recall(repo, "--import", "claude", env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    # they land in inbox/ files (knowledge.jsonl is not touched): the hint names what to commit for that
    assert "git add .beads/memory" in done.stdout and "knowledge.jsonl to share" not in done.stdout
    assert (repo / ".beads" / "memory" / "inbox").is_dir()
    assert "6 note(s), 3 project/reference taken, 3 user/feedback/untyped left alone" in done.stderr
    entries = {e["content"]: e for e in knowledge(repo)}
    assert set(entries) == {
        "The integration tests need Postgres 16 on port 5433. **Why:** CI runs it there. **How to apply:** start it "
        "with `make db` first.",
        "Bugs are tracked in the Linear project PAY.",
        "Dashboards live in Grafana under the payments folder.",
        "Deploys use the token <redacted:github_token> from vault.",
    }
    build = entries[next(c for c in entries if c.startswith("The integration"))]
    assert build["key"] == "learned-claude-project-build" and build["origin"] == "project_build.md"
    assert build["ts"] == int((folder / "project_build.md").stat().st_mtime)
    assert all(e["via"] == "import:claude" for e in entries.values())
    assert entries["Deploys use the token <redacted:github_token> from vault."]["redacted"] == ["github_token"]
    stored = active_bytes(repo)
    assert SECRET.encode() not in stored and b"senior Go developer" not in stored and b"summarise" not in stored
    again = recall(repo, "--import", "claude", env={"HOME": str(home)})
    assert again.returncode == 1 and "nothing new from claude (4 already in the knowledge)" in again.stderr
    assert active_bytes(repo) == stored
    assert fingerprint(folder) == before  # Claude's notes: read, never touched


def test_an_edited_note_replaces_its_entry_and_a_forgotten_one_stays_forgotten(tmp_path):
    home, repo = tmp_path / "home", make_repo(tmp_path / "app")
    folder = claude_folder(home, repo)
    assert recall(repo, "--import", "claude", env={"HOME": str(home)}).returncode == 0
    assert recall(repo, "--forget", "learned-claude-project-deploy").returncode == 0
    (folder / "project_build.md").write_text("---\ntype: project\n---\nThe tests need Postgres 17 now.\n")
    (folder / "project_deploy.md").write_text("---\ntype: project\n---\nDeploys go through the release bot.\n")
    proc = recall(repo, "--import", "claude", env={"HOME": str(home)})
    assert proc.returncode == 0 and "1 forgotten here" in proc.stdout
    latest = {e["key"]: e["content"] for e in knowledge(repo) if "content" in e}
    assert latest["learned-claude-project-build"] == "The tests need Postgres 17 now."
    assert "release bot" not in json.dumps(knowledge(repo))


def test_the_folder_is_found_as_claude_code_finds_it(tmp_path):
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo")
    env = {"HOME": str(home)}
    default = home / ".claude" / "projects" / automemory.sanitize(str(repo)) / "memory"
    assert automemory.folder(str(repo), env) == (str(default), "default location")
    assert automemory.sanitize("/Users/me/my.app") == "-Users-me-my-app"
    # a linked worktree shares its main checkout's folder
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    default.mkdir(parents=True)
    assert automemory.folder(str(tmp_path / "wt"), env)[0] == str(default)
    # CLAUDE_CONFIG_DIR moves the whole config home
    assert automemory.folder(str(repo), {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})[0] == \
           str(tmp_path / "cfg" / "projects" / automemory.sanitize(str(repo)) / "memory")
    # autoMemoryDirectory in the project's committed settings is not trusted; in local or user settings it is
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "evil")}))
    assert automemory.folder(str(repo), env)[0] == str(default)
    (home / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": "~/notes/mem"}))
    assert automemory.folder(str(repo), env) == (str(home / "notes" / "mem"), "autoMemoryDirectory")
    (repo / ".claude" / "settings.local.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "l")}))
    assert automemory.folder(str(repo), env)[0] == str(tmp_path / "l")
    override = dict(env, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE=str(tmp_path / "o"))
    assert automemory.folder(str(repo), override)[0] == str(tmp_path / "o")


def test_a_long_project_path_matches_claude_codes_hashed_name(tmp_path):
    home = tmp_path / "home"
    repo = make_repo(tmp_path / ("x" * 120) / ("y" * 120))
    name = automemory.sanitize(str(repo))
    hashed = home / ".claude" / "projects" / (name[:automemory.MAX_NAME] + "-1a2b3c") / "memory"
    hashed.mkdir(parents=True)
    assert automemory.folder(str(repo), {"HOME": str(home)})[0] == str(hashed)


def test_facts_of_a_note():
    one = automemory.parse("---\ntype: project\n---\n# Title\nA fact.\n\n**Why:** because.\n", "a.md")
    assert one.type == "project" and automemory.facts(one) == ["A fact. **Why:** because."]
    listed = automemory.parse("---\ntype: reference\n---\n- one\n- two\n  more\n", "b.md")
    assert automemory.facts(listed) == ["one", "two more"]
    mixed = automemory.parse("intro line\n- one\n- two\n", "c.md")
    assert mixed.type == "" and automemory.facts(mixed) == ["intro line - one - two"]
    empty = automemory.parse("---\ntype: project\ndescription: only a description\n---\n", "d.md")
    assert automemory.facts(empty) == ["only a description"]


def test_bd_import_keeps_keys_and_adds_nothing_the_second_time(tmp_path):
    repo = make_repo(tmp_path / "repo")
    env = bd_env(tmp_path / "bd-state")
    for args in (["remember", "Always run migrations before the API tests", "--key", "migrations-first"],
                 ["remember", f"The CI token is {SECRET}"]):
        subprocess.run([os.path.join(FAKE_BD, "bd"), *args], env=clean_env(**env), check=True, capture_output=True)
    dry = recall(repo, "--import", "bd", "--dry-run", env=env)
    assert dry.returncode == 0 and dry.stdout.count("would add ") == 2 and knowledge(repo) == []
    done = recall(repo, "--import=bd", env=env)
    assert done.returncode == 0, done.stderr
    by_key = {e["key"]: e for e in knowledge(repo)}
    assert by_key["learned-migrations-first"]["content"] == "Always run migrations before the API tests"
    assert by_key["learned-migrations-first"]["via"] == "import:bd"
    assert by_key["learned-migrations-first"]["origin"] == "bd:migrations-first"
    token = next(e for e in by_key.values() if "CI token" in e["content"])
    assert SECRET not in token["content"] and token["redacted"] == ["github_token"]
    # bd's key is the slug of the text: the token, lowercased, must not become the key or the origin
    assert SECRET[4:16].lower() not in json.dumps(token).lower() and token["origin"].startswith("bd:sha1-")
    assert recall(repo, "--import", "bd", env=env).returncode == 1
    assert len(knowledge(repo)) == 2


def test_bd_imports_are_what_a_captured_bd_remember_would_be(tmp_path):
    """Imported memories carried no `bd_key`: bd prime's own copy was injected beside ours, `bd forget` found no
    entry, and `DECISION: …` came in as `learned-pkgmgr` beside the captured `decision-pkgmgr`."""
    repo = make_repo(tmp_path / "repo")
    env = bd_env(tmp_path / "bd-state")
    bd = os.path.join(FAKE_BD, "bd")
    subprocess.run([bd, "remember", "DECISION: pnpm, never npm", "--key", "pkgmgr"], env=clean_env(**env),
                   check=True, capture_output=True)
    assert recall(repo, "--import", "bd", env=env).returncode == 0
    [imported] = knowledge(repo)
    assert (imported["key"], imported["type"], imported["content"], imported["bd_key"]) == \
        ("decision-pkgmgr", "decision", "pnpm, never npm", "pkgmgr")
    from helpers import bash_payload, run_hook

    run_hook("memory_capture", bash_payload("bd forget pkgmgr", repo), repo, env=env)  # as an agent's shell runs it
    assert recall(repo, "pnpm").returncode == 1  # forgotten: bd's key found the imported entry


def test_an_import_before_the_upgrade_is_not_imported_again(tmp_path):
    """Earlier imports kept bd's marker in the text (`learned-pkgmgr`: "DECISION: pnpm, never npm"): a new import
    of the same memory, now `decision-pkgmgr` "pnpm, never npm", added it a second time."""
    from memory.store import entry as entry_mod

    repo = make_repo(tmp_path / "repo")
    env = bd_env(tmp_path / "bd-state")
    subprocess.run([os.path.join(FAKE_BD, "bd"), "remember", "DECISION: pnpm, never npm", "--key", "pkgmgr"],
                   env=clean_env(**env), check=True, capture_output=True)
    old = entry_mod.build("DECISION: pnpm, never npm", "", "orchestrator", key_name="pkgmgr", via="import:bd",
                          origin="bd:pkgmgr")
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    (memory / "knowledge.jsonl").write_text(json.dumps(old) + "\n")
    again = recall(repo, "--import", "bd", env=env)
    assert again.returncode == 1 and len(knowledge(repo)) == 1, again.stdout


def test_bd_missing_or_broken_is_a_clear_error(tmp_path):
    repo = make_repo(tmp_path / "repo")
    no_bd = recall(repo, "--import", "bd", env={"PATH": "/usr/bin:/bin"})
    assert no_bd.returncode == 2 and "bd is not installed" in no_bd.stderr
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bd").write_text("#!/bin/sh\necho '[1, 2]'\n")
    (fake / "bd").chmod(0o755)
    wrong = recall(repo, "--import", "bd", env={"PATH": f"{fake}:/usr/bin:/bin"})
    assert wrong.returncode == 2 and "{key: text} map" in wrong.stderr
    assert knowledge(repo) == []


def test_memory_hooks_import_is_the_same_command(tmp_path, monkeypatch, capsys):
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo")
    claude_folder(home, repo)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(repo)
    for name in [k for k in os.environ if k.startswith(("CLAUDE", "MEMORY_HOOKS"))]:
        monkeypatch.delenv(name)
    assert console.main(["import", "claude"]) == 0
    assert "imported 4 entries from claude" in capsys.readouterr().out
    assert console.main(["import", "claude", "--dry-run"]) == 1
    assert all(e["key"].startswith("learned-") for e in knowledge(repo))
    assert entry.valid_key_name("claude-project-build")
