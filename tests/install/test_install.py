"""install.sh into real temporary git repositories, run as a user runs it."""
import difflib
import functools
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import (
    FIXTURES,
    INSTALL,
    ROOT,
    USER_SETTINGS,
    bash_payload,
    clean_env,
    copy_tree,
    fixture_payload,
    git,
    install,
    knowledge,
    make_repo,
    tree,
)
from memory.core import jsonio, layout
from memory.install import plan
from memory.runtimes import ours, registration, runtimes, settings_merge
from memory.store import entry, rotation, store

_INSTALLED: list = []


def installed_copy(repo):
    """`repo` as `install.sh --no-venv --no-self-check` leaves a fresh repository: a copy of one this module
    installed once (what install.sh writes names no absolute path), for the tests whose subject comes after."""
    if not _INSTALLED:
        template = make_repo(Path(tempfile.mkdtemp(prefix="mh-install-tpl-")) / "project")
        install(template, "--no-venv", "--no-self-check")
        _INSTALLED.append(template)
    return copy_tree(_INSTALLED[0], repo)


def settings(repo):
    return json.loads((repo / ".claude" / "settings.json").read_text())


def run_registered(repo, hook, payload, command_for=registration.claude_command, env=None):
    """Run a registered command exactly as Claude Code does: sh -c, CLAUDE_PROJECT_DIR, cwd = project."""
    env = dict(clean_env(),
               **(env or {}))
    env["CLAUDE_PROJECT_DIR"] = str(repo)
    if not isinstance(payload, (str, bytes)):
        payload = json.dumps(payload)
    return subprocess.run(["/bin/sh", "-c", command_for(hook)], input=payload, cwd=repo, env=env,
                          capture_output=True, text=isinstance(payload, str))


def test_fresh_repo(tmp_path):
    """A first install with its self-check, into a repository whose path has spaces and parentheses."""
    repo = make_repo(tmp_path / "my projects" / "app (v2)")
    out = install(repo, "--no-venv").stdout
    assert "self-check" in out and "FAILED" not in out
    assert "Claude Code: capture" in out and "Cursor: session start" in out
    assert "Gemini CLI: session start" in out and "Codex CLI: session start" in out  # each runtime as registered
    config = settings(repo)
    assert settings_merge.schema_problems(config) == []
    assert ours.registered_events(config) == [("SessionStart", "startup|resume|clear|compact|fork"),
                                                      ("UserPromptSubmit", None), ("PostToolUse", "Bash"),
                                                      ("PostToolUse", "Agent|Task"),
                                                      ("PostToolUse", "Write|Edit|MultiEdit"),
                                                      ("PostToolUse", "Bash"),
                                                      ("PostToolUseFailure", "Bash"),
                                                      ("PostToolUseFailure", "Bash"),
                                                      ("SubagentStop", None), ("Stop", None),
                                                      ("PreCompact", None), ("SessionEnd", None),
                                                      ("SubagentStart", None),
                                                      ("PreToolUse", "Read|Edit|Write|MultiEdit")]
    failure, action = config["hooks"]["PostToolUseFailure"]
    assert failure["hooks"] == [{"type": "command", "command": registration.claude_command("memory_capture"),
                                 "timeout": 10}]
    assert action["hooks"] == [{"type": "command", "command": registration.claude_command("action_context"),
                                "timeout": 10}]
    # synchronous: `claude -p` kills async hooks still running at its end (the dispatch log detaches its work)
    assert not any(h.get("async") for group in config["hooks"]["PostToolUse"] for h in group["hooks"])
    assert (repo / ".beads" / "memory" / "recall.sh").stat().st_mode & 0o111
    assert (repo / ".beads" / "memory" / "knowledge.jsonl").exists()
    assert "/knowledge.lock" in (repo / ".beads" / "memory" / ".gitignore").read_text()
    cursor = json.loads((repo / ".cursor" / "hooks.json").read_text())
    assert cursor["version"] == 1 and settings_merge.schema_problems(cursor, cursor=True) == []
    # knowledge is meant to be committed, machine-local files are not
    git(repo, "add", "-A")
    tracked = git(repo, "ls-files").splitlines()
    assert ".beads/memory/knowledge.jsonl" in tracked and ".claude/settings.json" in tracked
    assert not any(".venv" in t or "__pycache__" in t for t in tracked)


def test_registered_commands_capture_and_surface(repo):
    installed_copy(repo)
    proc = run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: installed hooks work"', repo))
    assert proc.returncode == 0
    assert [e["content"] for e in knowledge(repo)] == ["installed hooks work"]
    start = run_registered(repo, "session_start", {"session_id": "s", "hook_event_name": "SessionStart",
                                                   "source": "startup", "cwd": str(repo)})
    answer = json.loads(start.stdout)
    assert "installed hooks work" in answer["hookSpecificOutput"]["additionalContext"]
    assert "systemMessage" not in answer  # --no-venv was this machine's choice: no note suggesting a virtualenv


def test_no_venv_is_a_choice_on_this_machine_and_a_gap_in_a_teammates_clone(repo, tmp_path):
    """`install.sh --no-venv` is recorded in a machine-local marker, gitignored as the virtualenv is: its
    sessions start without the note (it was at every start, naming the installer's own checkout), a teammate's
    clone (no virtualenv, no marker) gets the note, naming no path of this machine, and how to silence it."""
    out = install(repo, "--no-venv", "--no-self-check").stdout
    marker = repo / runtimes.NO_VENV_CHOSEN
    assert marker.is_file() and "interpreter  skipped (--no-venv)" in out
    start = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo)}
    assert "systemMessage" not in json.loads(run_registered(repo, "session_start", start).stdout)
    git(repo, "add", "-A")
    assert runtimes.NO_VENV_CHOSEN not in git(repo, "ls-files")  # never committed
    git(repo, "commit", "-q", "-m", "memory-hooks")
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(teammate))
    note = json.loads(run_registered(teammate, "session_start", dict(start, cwd=str(teammate))).stdout)[
        "systemMessage"]
    assert "without its virtualenv" in note and "--no-venv and this note stops" in note
    assert str(tmp_path) not in note and str(ROOT) not in note
    install(teammate, "--no-venv", "--no-self-check")  # the teammate's choice too: the note stops
    assert "systemMessage" not in json.loads(run_registered(teammate, "session_start",
                                                            dict(start, cwd=str(teammate))).stdout)
    install(repo, "--uninstall")
    assert not marker.exists() and not (repo / ".claude" / "hooks").exists()


def test_existing_settings_are_merged_not_replaced(repo):
    (repo / ".claude").mkdir()
    original = json.dumps(USER_SETTINGS, indent=4) + "\n"
    (repo / ".claude" / "settings.json").write_text(original)
    install(repo, "--no-venv", "--no-self-check")
    merged = settings(repo)
    assert list(merged) == list(USER_SETTINGS)  # key order kept
    for key in ("model", "permissions", "env", "statusLine", "enabledPlugins"):
        assert merged[key] == USER_SETTINGS[key]
    theirs = USER_SETTINGS["hooks"]["PreToolUse"]
    assert merged["hooks"]["PreToolUse"][:len(theirs)] == theirs  # theirs first, ours (action time) after
    assert [g["matcher"] for g in merged["hooks"]["PreToolUse"][len(theirs):]] == ["Read|Edit|Write|MultiEdit"]
    assert merged["hooks"]["PostToolUse"][0] == USER_SETTINGS["hooks"]["PostToolUse"][0]  # theirs first, ours after
    assert len(merged["hooks"]["PostToolUse"]) == 5  # theirs, capture, dispatch log, Claude notes, shell reads
    assert (repo / ".claude" / "settings.json").read_text().startswith('{\n    "model"')  # their indentation
    assert (repo / ".claude" / "settings.json.memory-hooks.bak").read_text() == original
    assert settings_merge.without_ours(merged) == USER_SETTINGS


def test_the_install_says_which_file_to_commit_holds_a_credential_and_never_advises_add_f(repo):
    """The summary names the settings files to commit; one holding an API key in its `env` block is named as
    such (before: listed for commit like any other). With `.claude/` gitignored, the advice is to unignore, not
    `git add -f` of the folder, which took its machine-local files too (a first-hour review's `.no-venv`)."""
    (repo / ".claude").mkdir()
    key = "sk-proj-" + "Ab3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY"
    (repo / ".claude" / "settings.json").write_text(json.dumps({"env": {"OPENAI_API_KEY": key}}, indent=2) + "\n")
    (repo / ".gitignore").write_text(".claude/\n")
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert ".claude/settings.json holds a credential-shaped value" in out and key not in out
    assert "git add -f of" not in out.replace("`", "") or "would take its machine-local files" in out
    assert "unignore them in .gitignore" in out
    clean = install(repo, "--no-venv", "--no-self-check", "--uninstall")
    assert clean.returncode == 0


def test_a_clone_with_autocrlf_gets_working_scripts(tmp_path):
    """Git for Windows' core.autocrlf=true checked recall.sh and bin/memory-merge out with CRLF: "required file
    not found", and a merge of the knowledge then conflicted. install.sh's .gitattributes block keeps the code
    folder and recall.sh as committed."""
    from helpers import installed_clone_of_a_new_remote

    remote, a = installed_clone_of_a_new_remote(tmp_path)
    git(a, "add", "-A")
    git(a, "commit", "-qm", "installed")
    git(a, "push", "-q", "origin", "main")
    w = tmp_path / "w"
    subprocess.run(["git", "clone", "-q", "-c", "core.autocrlf=true", str(remote), str(w)], check=True)
    for rel in (".beads/memory/recall.sh", f"{runtimes.INSTALL_DIR}/bin/memory-merge",
                f"{runtimes.INSTALL_DIR}/hooks/session_start.py"):
        assert b"\r\n" not in (w / rel).read_bytes(), rel
    proc = subprocess.run([str(w / ".beads/memory/recall.sh"), "--setup-git"], cwd=w, capture_output=True,
                          text=True, env=clean_env())
    assert proc.returncode == 0, proc.stderr


def test_a_reinstall_keeps_a_timeout_the_user_raised(repo):
    """A user raised our Stop hook's timeout to 20 on a slow machine; a re-install (an upgrade) put it back to 10
    (a second walkthrough). Raised timeouts stay; a lower one goes back to ours (the hooks' budgets assume it)."""
    install(repo, "--no-venv", "--no-self-check")
    path = repo / ".claude" / "settings.json"
    config = json.loads(path.read_text())
    stop = config["hooks"]["Stop"][-1]["hooks"][0]
    pre = config["hooks"]["PreCompact"][-1]["hooks"][0]
    ours_stop, ours_pre = stop["timeout"], pre["timeout"]
    stop["timeout"], pre["timeout"] = ours_stop + 10, 1
    path.write_text(json.dumps(config, indent=2) + "\n")
    install(repo, "--no-venv", "--no-self-check")
    after = json.loads(path.read_text())["hooks"]
    assert after["Stop"][-1]["hooks"][0]["timeout"] == ours_stop + 10
    assert after["PreCompact"][-1]["hooks"][0]["timeout"] == ours_pre


def test_second_run_changes_nothing(repo):
    installed_copy(repo)
    before = tree(repo)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "already up to date" in out and tree(repo) == before
    assert "nothing to change" in install(repo, "--dry-run").stdout


def _command_before_the_guard(rel: str, hook: str) -> str:
    """What install.sh registered before the hook-file guard (Claude Code's as recorded in
    tests/fixtures/claude-code/2.1.330/transcript-edit.jsonl): python3 on a missing file, exit 2, BLOCK."""
    d = {".claude/settings.json": '"$CLAUDE_PROJECT_DIR"', ".cursor/hooks.json": '"${CURSOR_PROJECT_DIR:-.}"',
         ".gemini/settings.json": '"${GEMINI_PROJECT_DIR:-.}"', ".codex/hooks.json": '"$d"'}[rel]
    d += "" if rel == ".codex/hooks.json" else "/.claude/hooks/memory-hooks"
    flag = {".cursor/hooks.json": " --cursor", ".gemini/settings.json": " --gemini", ".codex/hooks.json": " --codex"}
    flag_ = flag.get(rel, "")
    command = (f"if [ -x {d}/.venv/bin/python ]; then exec {d}/.venv/bin/python {d}/hooks/{hook}.py{flag_}; "
               f"else exec python3 {d}/hooks/{hook}.py{flag_} --no-venv; fi")
    if rel == ".codex/hooks.json":
        return 'd="$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.claude/hooks/memory-hooks; ' + command
    return command


def test_a_reinstall_replaces_the_commands_that_blocked_without_the_code(repo):
    """An install made before the guard, in all four runtimes' files: re-running install.sh replaces each of our
    commands in place (one handler per event, never a second), the doctor calls the old ones out, and
    --uninstall still takes them out."""
    installed_copy(repo)
    current = {}
    for _, files, _, command in registration.RUNTIMES:
        path = repo / files[0]
        config = json.loads(path.read_text())
        current[files[0]] = ours.our_handlers(json.loads(path.read_text()))
        for _, _, handler in ours.our_handlers(config):
            hook = ours.hook_of(handler)
            assert handler["command"] == command(hook)
            handler["command"] = _command_before_the_guard(files[0], hook)
            assert ours.is_ours(handler) and ours.blocks_without_code(handler)
        path.write_text(json.dumps(config, indent=2) + "\n")
    doctor = subprocess.run([str(ROOT / "bin" / "memory-doctor")], cwd=repo, capture_output=True, text=True,
                            env=clean_env(HOME=str(repo.parent)))
    assert doctor.stdout.count("blocks the agent when the hook code is missing") >= 4, doctor.stdout
    install(repo, "--no-venv", "--no-self-check")
    for rel, handlers in current.items():
        assert ours.our_handlers(json.loads((repo / rel).read_text())) == handlers, rel  # each replaced, none added
    install(repo, "--uninstall")
    assert not (repo / ".claude" / "hooks").exists() and not (repo / ".codex").exists()


def test_a_hook_the_user_added_after_ours_stays_where_and_as_they_wrote_it(repo):
    """A user adds a SessionStart hook of their own below ours, on one line; running install.sh again (a
    teammate's, or the same version) moved ours below theirs and spread their entry over six lines. With our
    entries current, nothing is rewritten; an upgrade that does change ours moves theirs as written."""
    installed_copy(repo)
    path = repo / ".claude" / "settings.json"
    text = path.read_text()
    data = json.loads(text)
    ours = data["hooks"]["SessionStart"][-1]
    mine = '{ "matcher": "startup", "hooks": [ { "type": "command", "command": "echo mine-after-yours" } ] }'
    at = text.index("\n", text.index('"SessionStart"'))
    block_end = text.index("\n    ]", at)  # the end of SessionStart's list
    edited = text[:block_end] + ",\n      " + mine + text[block_end:]
    assert json.loads(edited)["hooks"]["SessionStart"][-1]["hooks"][0]["command"] == "echo mine-after-yours"
    path.write_text(edited)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert path.read_text() == edited and "already up to date" in out
    # an upgrade: our command changed, so ours is written again; their line stays as they wrote it
    older = 'python3 \\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/memory-hooks/hooks/session_start.py'  # as JSON text
    old = edited.replace(ours["hooks"][0]["command"].replace('"', '\\"'), older)
    assert old != edited
    path.write_text(old)
    install(repo, "--no-venv", "--no-self-check")
    assert mine in path.read_text() and json.loads(path.read_text())["hooks"]["SessionStart"][-1] == ours
    # ours changed in SessionStart only: SessionStart's list is rewritten, the order the user chose in Stop stays
    text = path.read_text()
    stop_at = text.index("\n", text.index('"Stop"'))
    stop_end = text.index("\n    ]", stop_at)
    theirs = '{ "hooks": [ { "type": "command", "command": "notify-send done" } ] }'
    path.write_text((text[:stop_end] + ",\n      " + theirs + text[stop_end:]).replace(
        ours["hooks"][0]["command"].replace('"', '\\"'), older))
    install(repo, "--no-venv", "--no-self-check")
    after = json.loads(path.read_text())["hooks"]
    assert after["Stop"][-1]["hooks"][0]["command"] == "notify-send done" and theirs in path.read_text()
    assert after["SessionStart"][-2:] == [json.loads(mine), ours]


def test_an_upgrade_backs_up_no_file_that_holds_nothing_of_the_users(repo):
    """install.sh made .gemini/settings.json (the user had none); an upgrade that changed our entries in it wrote
    .gemini/settings.json.memory-hooks.bak and reported it among the backups: a copy of our own file, as if it
    were the user's. A file with a setting of theirs is still backed up."""
    installed_copy(repo)
    gemini = repo / ".gemini" / "settings.json"
    text = gemini.read_text()
    gemini.write_text(text.replace('"name": "memory-hooks: session start",', ""))  # as an older version wrote it
    assert json.loads(gemini.read_text()) != json.loads(text)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert json.loads(gemini.read_text()) == json.loads(text)
    assert not (repo / ".gemini" / "settings.json.memory-hooks.bak").exists() and ".gemini" not in "".join(
        line for line in out.splitlines() if "backups" in line)
    mine = json.loads(text)
    mine["general"] = {"vimMode": True}
    gemini.write_text(json.dumps(mine, indent=2).replace('"name": "memory-hooks: session start",', ""))
    install(repo, "--no-venv", "--no-self-check")
    assert json.loads((repo / ".gemini" / "settings.json.memory-hooks.bak").read_text())["general"] == {"vimMode": True}


@pytest.mark.slow  # builds a real virtualenv with pip (~10 s)
def test_uninstall_takes_out_exactly_what_was_put_in(repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=4) + "\n")
    (repo / ".gitignore").write_text("node_modules/\n*.log\n")
    before = tree(repo)
    install(repo, "--no-self-check")  # with the virtualenv
    assert (repo / ".claude" / "hooks" / "memory-hooks" / ".venv").is_dir()
    run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: kept after uninstall"', repo))
    said = install(repo, "--uninstall").stdout.splitlines()
    assert said[1].startswith("  deleted .claude/hooks/memory-hooks/ (") and "  updated .claude/settings.json" in said
    assert not [line for line in said[2:] if "memory-hooks/" in line]  # the code folder is one line
    after = tree(repo)
    knowledge_file = ".beads/memory/knowledge.jsonl"
    kept = after.pop(knowledge_file, b"") + b"".join(after.pop(k) for k in sorted(after)
                                                    if k.startswith(".beads/memory/inbox/"))
    assert b"kept after uninstall" in kept
    assert b"\n/knowledge.lock\n" in after.pop(".beads/memory/.gitignore")  # ignored while the knowledge stays
    after = {k: v for k, v in after.items() if not k.startswith(".beads/memory/knowledge.lock")}
    assert after == before  # byte for byte, the user's formatting included
    install(repo, "--uninstall", "--purge")
    assert not (repo / ".beads").exists()


@pytest.mark.parametrize("rel, text", [(".claude/settings.json", '{\n  "model": "opus",\n  "hooks": {}\n}\n'),
                                       (".cursor/hooks.json", '{"version": 1, "hooks": {}}')])
def test_an_empty_hooks_object_of_the_users_comes_back_after_uninstall(repo, rel, text):
    """A settings file whose hooks the user had all removed (`"hooks": {}`) came back from an uninstall without
    its `hooks` member: the backup was not used, its meaning differing by that empty object."""
    (repo / rel).parent.mkdir()
    (repo / rel).write_text(text)
    install(repo, "--no-venv", "--no-self-check")
    assert ours.our_handlers(json.loads((repo / rel).read_text()))
    install(repo, "--uninstall")
    assert (repo / rel).read_text() == text


def test_invalid_json_settings_is_refused_and_nothing_written(repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{\n  "model": "sonnet",\n  "hooks": {,}\n}\n')
    before = tree(repo)
    proc = install(repo, "--no-venv", check=False)
    assert proc.returncode == 2
    assert ".claude/settings.json:3:" in proc.stderr and "not valid JSON" in proc.stderr
    assert tree(repo) == before


def test_existing_cursor_hooks_are_kept(repo):
    (repo / ".cursor").mkdir()
    theirs = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}],
                                      "afterShellExecution": [{"command": "./audit.sh", "matcher": "npm"}]}}
    (repo / ".cursor" / "hooks.json").write_text(json.dumps(theirs, indent=2))
    install(repo, "--no-venv", "--no-self-check")
    merged = json.loads((repo / ".cursor" / "hooks.json").read_text())
    assert merged["hooks"]["afterFileEdit"] == theirs["hooks"]["afterFileEdit"]
    assert merged["hooks"]["afterShellExecution"][0] == theirs["hooks"]["afterShellExecution"][0]
    assert settings_merge.without_ours(merged) == theirs
    install(repo, "--uninstall")
    assert json.loads((repo / ".cursor" / "hooks.json").read_text()) == theirs


def test_no_cursor_flag(repo):
    install(repo, "--no-venv", "--no-cursor", "--no-self-check")
    assert not (repo / ".cursor").exists()


def test_no_claude_flag_registers_cursor_alone_and_takes_ours_out_of_claude_settings(repo):
    """A team without Claude Code: nothing of ours in .claude/settings.json (Cursor would run it too), the user's
    own settings there kept; Cursor's session start answers once, from .cursor/hooks.json."""
    from helpers import cursor_runs

    first = install(repo, "--no-venv", "--no-self-check").stdout
    assert "Claude Code  .claude/settings.json: SessionStart" in first
    settings_file = repo / ".claude" / "settings.json"
    mine = dict(settings(repo), permissions={"allow": ["Bash(ls:*)"]})
    settings_file.write_text(json.dumps(mine))
    out = install(repo, "--no-venv", "--no-claude", "--no-gemini", "--no-codex").stdout
    assert settings(repo) == {"permissions": {"allow": ["Bash(ls:*)"]}}
    assert "Claude Code  .claude/settings.json: not registered (--no-claude)" in out
    assert "hooks: capture" in out and "Cursor: session start" in out and "FAILED" not in out
    start = {"conversation_id": "c1", "generation_id": "g1", "cursor_version": "3.9.16",
             "hook_event_name": "sessionStart", "workspace_roots": [str(repo)], "session_id": "c1"}
    runs = cursor_runs(repo, start)
    assert [who for who, _ in runs] == ["cursor"] and "Project Memory" in json.loads(runs[0][1].stdout)[
        "additional_context"]
    settings_file.unlink()
    install(repo, "--no-venv", "--no-self-check", "--no-claude", "--no-codex", "--gemini")  # gemini asked back
    assert not settings_file.exists()
    doctor = subprocess.run([str(repo / ".beads" / "memory" / "recall.sh"), "--doctor"], cwd=repo,
                            capture_output=True, text=True, env=clean_env())
    assert "Claude Code left out at install (--no-claude)" in doctor.stdout and "FAIL" not in doctor.stdout
    assert "left out at install: codex (--no-codex)" in doctor.stdout
    install(repo, "--no-venv", "--no-self-check")  # a later install without a flag keeps the choice
    assert not settings_file.exists()
    install(repo, "--no-venv", "--no-self-check", "--claude", "--codex")  # until the runtimes are asked back
    assert "SessionStart" in settings(repo)["hooks"]
    assert "left out" not in subprocess.run([str(repo / ".beads" / "memory" / "recall.sh"), "--doctor"],
                                            cwd=repo, capture_output=True, text=True, env=clean_env()).stdout


def test_every_runtime_left_out_is_a_usage_error(repo):
    proc = subprocess.run([INSTALL, "--no-venv", "--no-claude", "--no-cursor", "--no-gemini", "--no-codex",
                           str(repo)], capture_output=True, text=True)
    assert proc.returncode == 2 and "no runtime" in proc.stderr and not (repo / ".beads").exists()


def test_install_from_inside_a_worktree(repo):
    git(repo, "worktree", "add", "-q", ".worktrees/bd-3", "-b", "bd-3")
    wt = repo / ".worktrees" / "bd-3"
    proc = subprocess.run([INSTALL, "--no-venv", "--no-self-check"], cwd=wt, capture_output=True, text=True)
    assert proc.returncode == 0 and "worktree" in proc.stdout
    assert (wt / ".claude" / "settings.json").exists()
    run_registered(wt, "memory_capture", bash_payload('bd comment bd-3 "LEARNED: from the worktree"', wt))
    assert [e["content"] for e in knowledge(repo)] == ["from the worktree"]  # main checkout's memory


def test_enabled_plugin_is_not_registered_twice(repo, tmp_path):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"memory-hooks@local": True}}))
    out = install(repo, "--no-venv", "--no-self-check", env={"HOME": str(tmp_path)}).stdout
    assert "plugin is enabled" in out
    assert ours.registered_events(settings(repo)) == []


def test_plugin_manifest_and_hooks_json_are_valid():
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "memory-hooks"
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    assert settings_merge.schema_problems(hooks) == []
    commands = [h["command"] for groups in hooks["hooks"].values() for g in groups for h in g["hooks"]]
    assert all("${CLAUDE_PLUGIN_ROOT}" in c and "--plugin" in c for c in commands)
    for c in commands:
        script = c.split('"${CLAUDE_PLUGIN_ROOT}"/')[1].split()[0]
        assert (ROOT / script).exists(), script


def test_usage_errors(repo):
    assert install(repo, "--purge", check=False).returncode == 2
    assert install(repo, "--bogus", check=False).returncode == 2
    assert "--uninstall" in install(repo, "--help").stdout


def test_plugin_hooks_json_is_generated_from_the_registration_table():
    generated = subprocess.run([sys.executable, "-m", "memory.runtimes.registration", "--plugin-json"], cwd=ROOT,
                               capture_output=True, check=True).stdout
    assert (ROOT / "hooks" / "hooks.json").read_bytes() == generated  # regenerate: see the command above
    hooks = json.loads(generated)["hooks"]
    assert hooks["PostToolUseFailure"] == [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": registration.plugin_command("memory_capture"), "timeout": 10}]},
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": registration.plugin_command("action_context"), "timeout": 10}]}]
    # action time reads files only: never before every Bash or Agent call
    assert hooks["PreToolUse"] == [{"matcher": "Read|Edit|Write|MultiEdit", "hooks": [
        {"type": "command", "command": registration.plugin_command("action_context"), "timeout": 10}]}]


def test_settings_of_the_wrong_shape_are_refused(repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PostToolUse": "not a list"}}))
    before = tree(repo)
    proc = install(repo, "--no-venv", check=False)
    assert proc.returncode == 2 and "not of the documented hooks shape" in proc.stderr
    assert tree(repo) == before


def test_events_unknown_to_us_are_kept(repo):
    (repo / ".claude").mkdir()
    theirs = {"hooks": {"PostModelSwitchV9": [{"hooks": [{"type": "command", "command": "echo future"}]}]}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(theirs))
    install(repo, "--no-venv", "--no-self-check")
    assert settings(repo)["hooks"]["PostModelSwitchV9"] == theirs["hooks"]["PostModelSwitchV9"]


def test_uninstall_keeps_files_the_user_added_and_takes_a_gemini_file_it_made(repo):
    installed_copy(repo)
    mine = repo / ".claude" / "hooks" / "memory-hooks" / "hooks" / "my_local_tweak.py"
    mine.write_text("# mine\n")
    assert ours.registered_events(json.loads((repo / ".gemini" / "settings.json").read_text()))
    install(repo, "--uninstall")
    assert mine.read_text() == "# mine\n"
    assert not (repo / ".claude" / "hooks" / "memory-hooks" / "memory").exists()
    assert not (repo / ".gemini").exists()  # the install made the file: it goes


def test_reinstall_keeps_files_the_user_added_and_drops_ones_we_no_longer_ship(repo):
    installed_copy(repo)
    base = repo / ".claude" / "hooks" / "memory-hooks"
    mine = base / "hooks" / "my_local_tweak.py"
    mine.write_text("# mine\n")
    manifest = json.loads((base / "install.json").read_text())
    manifest["files"].append(".claude/hooks/memory-hooks/memory/retired_module.py")
    (base / "install.json").write_text(json.dumps(manifest))
    (base / "memory" / "retired_module.py").write_text("# from an older version\n")
    install(repo, "--no-venv", "--no-self-check")
    assert mine.exists() and not (base / "memory" / "retired_module.py").exists()


def test_gitignore_line_endings_are_kept(repo):
    (repo / ".gitignore").write_bytes(b"node_modules/\r\n*.log\r\n")
    install(repo, "--no-venv", "--no-self-check")
    text = (repo / ".gitignore").read_bytes()
    assert text.startswith(b"node_modules/\r\n*.log\r\n\r\n# >>> memory-hooks")
    assert b"\n" not in text.replace(b"\r\n", b"")
    install(repo, "--uninstall")
    assert (repo / ".gitignore").read_bytes() == b"node_modules/\r\n*.log\r\n"


# --- handlers of every documented type are other people's: kept through install and uninstall -------------

NON_COMMAND_SETTINGS = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "http", "url": "http://localhost:8080/hooks/pre", "headers": {"Authorization": "Bearer $T"},
             "allowedEnvVars": ["T"], "timeout": 5},
            {"type": "mcp_tool", "server": "guard", "tool": "check", "input": {"cmd": "${tool_input.command}"}}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Did the agent finish? $ARGUMENTS", "model": "haiku"}]}],
        "SubagentStop": [{"hooks": [{"type": "agent", "prompt": "Verify the tests pass. $ARGUMENTS"}]}],
    },
}
CURSOR_NON_COMMAND = {"version": 1, "hooks": {
    "stop": [{"type": "prompt", "prompt": "Is the task complete? $ARGUMENTS", "model": "fast"}],
    "afterShellExecution": [{"type": "command", "command": "./audit.sh"}]}}


def test_non_command_handlers_are_kept_through_install_and_uninstall(repo):
    (repo / ".claude").mkdir()
    (repo / ".cursor").mkdir()
    claude_text = json.dumps(NON_COMMAND_SETTINGS, indent=2) + "\n"
    cursor_text = json.dumps(CURSOR_NON_COMMAND, indent=2) + "\n"
    (repo / ".claude" / "settings.json").write_text(claude_text)
    (repo / ".cursor" / "hooks.json").write_text(cursor_text)
    install(repo, "--no-venv", "--no-self-check")
    merged = settings(repo)
    for event, groups in NON_COMMAND_SETTINGS["hooks"].items():
        assert merged["hooks"][event][:len(groups)] == groups  # theirs untouched, first
    assert settings_merge.without_ours(merged) == NON_COMMAND_SETTINGS
    assert settings_merge.without_ours(json.loads((repo / ".cursor" / "hooks.json").read_text())) == CURSOR_NON_COMMAND
    install(repo, "--uninstall")
    assert (repo / ".claude" / "settings.json").read_text() == claude_text
    assert (repo / ".cursor" / "hooks.json").read_text() == cursor_text


@pytest.mark.parametrize("handler", [{"type": "prompt"}, {"type": "http", "url": 7}, {"command": "x"},
                                     {"type": "command"}, {"type": "command", "command": "x", "args": "y"}])
def test_handlers_missing_their_documented_fields_are_still_refused(repo, handler):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [handler]}]}}))
    proc = install(repo, "--no-venv", check=False)
    assert proc.returncode == 2 and "not of the documented hooks shape" in proc.stderr


# --- ours is what we generate or what runs a file of ours, not any mention of our name ----------------------

MENTIONS = ['~/bin/notify.sh "memory-hooks finished"', "echo memory-hooks >> ~/log",
            "python3 ~/tools/memory-hooks-report.py", "grep -r memory-hooks .claude/hooks/README"]


def test_user_hooks_that_mention_memory_hooks_are_not_ours(repo):
    (repo / ".claude").mkdir()
    (repo / ".cursor").mkdir()
    theirs = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": c}
                                                                      for c in MENTIONS]}],
                        "Stop": [{"hooks": [{"type": "command", "command": "python3", "args": ["memory-hooks.py"]}]}]}}
    cursor = {"version": 1, "hooks": {"afterShellExecution": [{"command": c} for c in MENTIONS]}}
    text, cursor_text = json.dumps(theirs, indent=2) + "\n", json.dumps(cursor, indent=2) + "\n"
    (repo / ".claude" / "settings.json").write_text(text)
    (repo / ".cursor" / "hooks.json").write_text(cursor_text)
    install(repo, "--no-venv", "--no-self-check")
    merged = settings(repo)
    assert merged["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]
    assert merged["hooks"]["Stop"][0] == theirs["hooks"]["Stop"][0]  # theirs first, then ours
    assert "capture_reply.py" in merged["hooks"]["Stop"][1]["hooks"][0]["command"]
    assert json.loads((repo / ".cursor" / "hooks.json").read_text())["hooks"]["afterShellExecution"][:4] == \
        cursor["hooks"]["afterShellExecution"]
    install(repo, "--uninstall")
    assert (repo / ".claude" / "settings.json").read_text() == text
    assert (repo / ".cursor" / "hooks.json").read_text() == cursor_text


def test_an_older_versions_registration_is_replaced_not_doubled(repo):
    (repo / ".claude").mkdir()
    folder = "/.claude/hooks/memory-hooks/hooks/"
    old = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": f'python3 "$CLAUDE_PROJECT_DIR"{folder}memory_capture.py'},
        {"type": "command", "command": "python3", "args": [f"${{CLAUDE_PROJECT_DIR}}{folder}old.py"]}]}]}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(old))
    install(repo, "--no-venv", "--no-self-check")
    events = ours.registered_events(settings(repo))
    fresh = ours.registered_events(settings_merge.with_claude_hooks({}, [h for h, *_ in runtimes.CLAUDE_HOOKS]))
    assert events.count(("PostToolUse", "Bash")) == fresh.count(("PostToolUse", "Bash")) == 2  # capture, action
    assert sorted(events) == sorted(fresh)


# --- odd targets: the documented exit code and one line, never a traceback -----------------------------------

def _odd(kind, repo, tmp_path):
    """Make the odd target `kind`; returns the path to pass to install.sh."""
    if kind == "missing":
        return tmp_path / "no-such-folder"
    if kind == "a file":
        (tmp_path / "file.txt").write_text("x\n")
        return tmp_path / "file.txt"
    if kind == "dangling symlink":
        os.symlink(tmp_path / "gone", tmp_path / "link")
        return tmp_path / "link"
    if kind == "bare repository":
        git(tmp_path, "init", "-q", "--bare", "bare.git")
        return tmp_path / "bare.git"
    if kind == ".git folder":
        return repo / ".git"
    _break_repo(kind, repo, tmp_path)
    return repo


def _break_repo(kind, repo, tmp_path):
    """Make the odd file `kind` inside `repo`."""
    claude, cursor = repo / ".claude", repo / ".cursor"
    if kind == ".claude a file":
        claude.write_text("x\n")
    elif kind == "settings.json a folder":
        (claude / "settings.json").mkdir(parents=True)
    elif kind == "settings.json dangling symlink":
        claude.mkdir()
        os.symlink(tmp_path / "dotfiles" / "settings.json", claude / "settings.json")
    elif kind == "settings.json symlink loop":
        claude.mkdir()
        os.symlink("settings.json", claude / "settings.json")
    elif kind == ".claude dangling symlink":
        os.symlink(tmp_path / "dotfiles" / "claude", claude)
    elif kind == ".cursor a file":
        cursor.write_text("x\n")
    elif kind == "hooks.json a folder":
        (cursor / "hooks.json").mkdir(parents=True)
    elif kind == ".gitignore a folder":
        (repo / ".gitignore").mkdir()
    elif kind == ".beads a file":
        (repo / ".beads").write_text("x\n")
    elif kind == "recall.sh a folder":
        (repo / ".beads" / "memory" / "recall.sh").mkdir(parents=True)
    else:
        raise AssertionError(kind)


def snapshot(path):
    """Every path below `path` (all of it: .git too) with its bytes, or the link it is."""
    out = {}
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            full = Path(folder) / name
            out[str(full)] = os.readlink(full) if full.is_symlink() else None if full.is_dir() else full.read_bytes()
    return out


ODD = ["missing", "a file", "dangling symlink", "bare repository", ".git folder", ".claude a file",
       "settings.json a folder", "settings.json dangling symlink", "settings.json symlink loop",
       ".claude dangling symlink", ".cursor a file", "hooks.json a folder", ".gitignore a folder", ".beads a file",
       "recall.sh a folder"]


@pytest.mark.parametrize("kind", ODD)
def test_odd_targets_are_refused_with_exit_2_and_nothing_written(repo, tmp_path, kind):
    target = _odd(kind, repo, tmp_path)
    before = snapshot(tmp_path)
    proc = install(target, "--no-venv", check=False)
    assert (proc.returncode, "Traceback" in proc.stderr) == (2, False), proc.stderr
    assert proc.stderr.startswith("install.sh: ") and proc.stderr.count("\n") == 1
    assert snapshot(tmp_path) == before  # nothing written, no link followed out of the tree
    uninstall = install(target, "--uninstall", check=False)
    assert uninstall.returncode in (0, 2) and "Traceback" not in uninstall.stderr, uninstall.stderr


def test_cursor_in_the_way_is_no_problem_with_no_cursor(repo):
    (repo / ".cursor").write_text("x\n")
    install(repo, "--no-venv", "--no-cursor")
    assert (repo / ".cursor").read_text() == "x\n"


def _unprivileged(argv):
    """argv run as a user who may not write the target (root may write anything)."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", *argv]


@pytest.mark.skipif(os.geteuid() == 0 and not any(os.access(os.path.join(p, "setpriv"), os.X_OK)
                                                   for p in os.environ["PATH"].split(os.pathsep)),
                    reason="running as root without setpriv: nothing is read-only")
def test_target_without_write_permission_exits_3(tmp_path):
    base = Path(tempfile.mkdtemp(prefix="mh-readonly-"))  # outside pytest's 0700 tmp folder: others may enter
    try:
        os.chmod(base, 0o755)
        repo = make_repo(base / "project")
        (repo / ".claude").mkdir()
        (repo / ".claude" / "settings.json").write_text('{"model": "sonnet"}\n')
        for folder, dirs, files in os.walk(base):
            for name in dirs + files + ["."]:
                os.chmod(os.path.join(folder, name), 0o755 if name in dirs + ["."] else 0o644)
        before = snapshot(base)
        env = clean_env()
        env["HOME"] = str(base)
        proc = subprocess.run(_unprivileged(["/bin/sh", INSTALL, "--no-venv", str(repo)]), capture_output=True,
                              text=True, env=env, cwd=base)
        assert (proc.returncode, "Traceback" in proc.stderr) == (3, False), proc.stderr
        assert "Permission denied" in proc.stderr and proc.stderr.count("\n") == 1
        assert snapshot(base) == before
    finally:
        subprocess.run(["rm", "-rf", str(base)])


# --- modes: only what is run by path is executable --------------------------------------------------------

def _modes(repo):
    base = repo / ".claude" / "hooks" / "memory-hooks"
    found = {str(p.relative_to(base)): stat.S_IMODE(p.stat().st_mode) for p in base.rglob("*")
             if p.is_file() and ".venv" not in p.parts and "__pycache__" not in p.parts}
    found["recall.sh"] = stat.S_IMODE((repo / ".beads" / "memory" / "recall.sh").stat().st_mode)
    return found


def _expected_mode(rel):
    runnable = rel == "recall.sh" or rel.startswith("bin/") or (rel.startswith("hooks/") and rel.endswith(".py"))
    return 0o755 if runnable else 0o644


def test_only_hooks_bin_and_recall_are_executable(repo):
    installed_copy(repo)
    modes = _modes(repo)
    assert any(rel.startswith("memory/") for rel in modes) and any(rel.startswith("hooks/") for rel in modes)
    assert {rel: oct(m) for rel, m in modes.items()} == {rel: oct(_expected_mode(rel)) for rel in modes}
    # an install by an older version made the library executable: a re-run fixes the modes, content unchanged
    for path in (repo / ".claude" / "hooks" / "memory-hooks" / "memory").glob("*.py"):
        path.chmod(0o755)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "already up to date" not in out
    assert all(m == _expected_mode(rel) for rel, m in _modes(repo).items())


# --- purge: everything the hooks write, named by the modules that write it ---------------------------------

def test_purge_leaves_nothing_the_hooks_wrote(repo, monkeypatch):
    import time

    from memory.core import errorlog
    from memory.search import index
    from memory.surface import start_cache

    installed_copy(repo)
    memory = repo / ".beads" / "memory"
    foreground = {"MEMORY_HOOKS_FOREGROUND": "1"}
    # 1,001 lines and a torn last line: the next capture rotates (archive) and moves the fragment aside
    lines = [json.dumps({"key": f"k{i}", "type": "learned", "content": f"fact {i}", "source": "test",
                         "ts": 1700000000 + i, "bead": "BD-1", "tags": []}) for i in range(1001)]
    (memory / store.ACTIVE).write_text("\n".join(lines) + '\n{"key": "torn')
    assert run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: purge me"', repo),
                          env=foreground).returncode == 0
    rotation.compact(str(memory))  # memory-doctor --compact: the inbox folded in, the file rotated
    attributes = repo / ".gitattributes"  # an older install's block, without redactions.jsonl: --redact then
    attributes.write_text("".join(line for line in attributes.read_text().splitlines(keepends=True)  # writes
                                  if "redactions" not in line))  # the memory folder's .gitattributes too
    redact = subprocess.run([str(memory / layout.RECALL_SCRIPT), "--redact", "k1000", "fact"], cwd=repo,
                            capture_output=True, text=True)  # the records other clones apply, and their marker
    assert redact.returncode == 0, redact.stderr
    rotation.compact(str(memory))
    dispatch_payload = fixture_payload("claude-code/2.1.330/PostToolUse-20.json")
    dispatch_payload.update(cwd=str(repo), tool_name="Agent")
    dispatch_payload["tool_input"].update(prompt="BEAD_ID: BD-1\n\nwork", subagent_type="x-supervisor")
    run_registered(repo, "log_dispatch_prompt", dispatch_payload, env=dict(foreground, PATH="/usr/bin:/bin"))
    stop = fixture_payload("claude-code/2.1.330/SubagentStop-4.json")
    stop.update(cwd=str(repo), agent_type="swift-supervisor", agent_id="a1", stop_hook_active=False,
                last_assistant_message="I think I am done.")
    assert json.loads(run_registered(repo, "validate_completion", stop, env=foreground).stdout)["decision"] == "block"
    ended = dict(fixture_payload("claude-code/2.1.330/SessionEnd-1.json"), cwd=str(repo),
                 transcript_path=str(FIXTURES / "claude-code/2.1.330/transcript-sample.jsonl"))
    assert run_registered(repo, "handoff", ended, env=foreground).returncode == 0  # handoffs.jsonl
    start = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    time.sleep(start_cache.RACY_NS / 1e9)  # session start keeps its answer only for knowledge that has settled
    assert "purge me" in run_registered(repo, "session_start", start, env=foreground).stdout  # what it gave
    prompt = dict(fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json"), cwd=str(repo), prompt="purge me now")
    assert run_registered(repo, "prompt_recall", prompt, env=foreground).returncode == 0  # the ranking index
    looked_up = subprocess.run([str(memory / layout.RECALL_SCRIPT), "purge me"], cwd=repo, capture_output=True)
    assert looked_up.returncode == 0 and (memory / layout.USE).exists()  # what the agent used
    read = dict(fixture_payload("claude-code/2.1.330/PreToolUse-15.json"), cwd=str(repo))
    read["tool_input"] = {"file_path": str(repo / "notes.md")}
    assert run_registered(repo, "action_context", read, env=foreground).returncode == 0  # cue map, cache
    (memory / layout.ERRORS).write_text("x" * (errorlog.MAX_LOG_BYTES + 1))  # the next error rotates it
    run_registered(repo, "memory_capture", "not json", env=foreground)
    run_registered(repo, "memory_capture", "not json", env=foreground)
    from memory.core import locking
    with locking.exclusive(str(memory / store.LOCK)):  # a capture that cannot get the lock is parked
        run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: parked"', repo),
                       env=dict(foreground, MEMORY_HOOKS_LOCK_TIMEOUT="0.2"))
    (memory / layout.VECTORS).write_bytes(b"")  # the semantic option's cache (needs numpy and the model)
    assert subprocess.run([str(memory / layout.RECALL_SCRIPT), "--doctor", "--report"], cwd=repo,
                          capture_output=True).returncode == 0  # the HTML report's default place
    monkeypatch.setenv("MEMORY_HOOKS_FOREGROUND", "1")
    index.build_in_background(str(memory))  # as for an archive too large to index inline: its lock file
    # what only a crash leaves: a rotation journal and atomic-write temp files
    (memory / store.JOURNAL).write_text("{}\n")
    (memory / f".{store.ACTIVE}.4242.tmp").write_text("half")
    (memory / f".{layout.COMPLETION_STATE}.4242.tmp").write_text("half")
    (memory / layout.COMPLETION_CONFIG).write_text('{"max_blocks": 2}\n')  # the team's config, not ours
    written = {p.name for p in memory.iterdir()}
    assert {n.rstrip("/") for n in plan.data_files()} <= written  # the scenario made every one of them
    assert (memory / store.SPOOL).is_dir() and any((memory / store.SPOOL).iterdir())
    assert layout.DISPATCH_LOG in written and layout.ERRORS_ROTATED in written
    install(repo, "--uninstall", "--purge")
    assert sorted(p.name for p in (repo / ".beads").rglob("*")) == ["completion.json", "memory"]
    (memory / layout.COMPLETION_CONFIG).unlink()
    install(repo, "--uninstall", "--purge")  # again: nothing left to do, no error
    git(repo, "status")  # still a repository
    assert not (repo / ".claude").exists()


def _write_every_machine_local_file(memory):
    """Every file the hooks write in the memory folder but the knowledge, and a crash's temp file."""
    for name in plan.data_files():
        if name in layout.COMMITTED + (layout.MEMORY_ATTRIBUTES,) or name.rstrip("/") in layout.COMMITTED_DIRS:
            continue
        path = memory / name.rstrip("/")
        if name.endswith("/"):
            path.mkdir(exist_ok=True)
            path = path / "1-2.jsonl"
        path.write_text("x\n")
    (memory / f".{store.ACTIVE}.99.tmp").write_text("x")


def test_gitignore_block_names_every_machine_local_file(repo):
    installed_copy(repo)
    memory = repo / ".beads" / "memory"
    _write_every_machine_local_file(memory)
    (memory / store.ARCHIVE).write_text("x\n")
    (memory / layout.INBOX).mkdir()
    (memory / layout.INBOX / "1-2.jsonl").write_text("x\n")  # a capture (memory.store.inbox): committed
    git(repo, "add", "-A")
    tracked = {t for t in git(repo, "ls-files", ".beads").splitlines()}
    shared = {store.ACTIVE, store.ARCHIVE, "recall.sh", ".gitignore", f"{layout.INBOX}/1-2.jsonl"}  # inbox: committed
    assert tracked == {f".beads/memory/{name}" for name in shared}


# --- launchers through symlinks; teammates; worktrees; non-git folders ------------------------------------

def _links(tmp_path, target):
    """A symlink to `target` in one folder, and a relative symlink to that symlink in another."""
    (tmp_path / "bin").mkdir(parents=True, exist_ok=True)
    (tmp_path / "other").mkdir(parents=True, exist_ok=True)
    first = tmp_path / "bin" / ("link-" + target.name)
    first.symlink_to(target)
    second = tmp_path / "other" / ("link2-" + target.name)
    second.symlink_to(os.path.relpath(first, second.parent))
    return [first, second]


def test_a_symlinked_settings_file_keeps_its_backup_where_the_report_says_and_git_ignores_it(repo):
    """`.gemini/settings.json -> ../config/gemini.json` (dotfiles kept in the repository): the report said
    `.gemini/settings.json.memory-hooks.bak`, the backup went to `config/gemini.json.memory-hooks.bak`, and that
    name was not ignored: `git add -A` committed it."""
    (repo / "config").mkdir()
    theirs = json.dumps({"model": {"name": "gemini-2.5-pro"}}, indent=2) + "\n"
    (repo / "config" / "gemini.json").write_text(theirs)
    (repo / ".gemini").mkdir()
    os.symlink("../config/gemini.json", repo / ".gemini" / "settings.json")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "dotfiles")
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert ".gemini/settings.json.memory-hooks.bak" in out
    assert (repo / ".gemini" / "settings.json.memory-hooks.bak").read_text() == theirs
    assert not (repo / "config" / "gemini.json.memory-hooks.bak").exists()
    assert (repo / ".gemini" / "settings.json").is_symlink()
    assert "hooks" in (repo / "config" / "gemini.json").read_text()
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert ".bak" not in status, status
    install(repo, "--uninstall")
    assert (repo / "config" / "gemini.json").read_text() == theirs and (repo / ".gemini" / "settings.json").is_symlink()
    assert not (repo / ".gemini" / "settings.json.memory-hooks.bak").exists()


def test_launchers_work_through_symlinks(repo, tmp_path):
    for link in _links(tmp_path, ROOT / "install.sh"):
        proc = subprocess.run([str(link), "--no-venv", "--no-self-check", str(repo)], capture_output=True, text=True)
        assert proc.returncode == 0 and "memory-hooks installed" in proc.stdout, proc.stderr
    run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: found through a link"', repo))
    for place, target in (("installed", repo / ".beads" / "memory" / "recall.sh"),
                          ("clone", ROOT / "bin" / "recall.sh")):
        for link in _links(tmp_path / place, target):
            proc = subprocess.run([str(link), "link"], capture_output=True, text=True, cwd=repo)
            assert proc.returncode == 0 and "found through a link" in proc.stdout, (link, proc.stderr)
    for link in _links(tmp_path / "doctor", ROOT / "bin" / "memory-doctor"):
        proc = subprocess.run([str(link)], capture_output=True, text=True, cwd=repo)
        assert "not found" not in proc.stderr and "errors.log" in proc.stdout, proc.stderr


@pytest.mark.parametrize("python3, python, chosen", [
    ("3.8.10", "3.12.1", "python"),  # python3 too old: the next name
    ("3.10.4", "2.7.18", "python3"),  # a two-digit minor version is new enough
    ("3.9", None, "python3"),
    (None, "3.13.0rc1", "python"),  # no python3 at all
    ("3.8", "2.7.18", None),  # nothing new enough: exit 3 and one line
])
def test_install_sh_runs_the_first_python_new_enough(tmp_path, python3, python, chosen):
    """install.sh reads each interpreter's version from `-V` (Python 2 prints it on stderr) and runs the
    installer with the first one of 3.9 or newer, in the order python3, python."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for name, version in (("python3", python3), ("python", python)):
        if version:
            stream = " >&2" if version.startswith("2.") else ""
            (fakes / name).write_text(f'#!/bin/sh\nif [ "$1" = -V ]; then echo "Python {version}"{stream}; exit 0; fi\n'
                                      f'echo "{name} ran: $1 $3 $4"\n')
            (fakes / name).chmod(0o755)
    proc = subprocess.run([INSTALL, "--no-venv"], env=dict(clean_env(), PATH=str(fakes)), capture_output=True,
                          text=True)
    if chosen:
        assert (proc.returncode, proc.stdout) == (0, f"{chosen} ran: -c {INSTALL} --no-venv\n"), proc.stderr
    else:
        assert (proc.returncode, proc.stderr) == (3, "install.sh: needs Python 3.9 or newer (python3)\n")


def test_the_resolver_is_the_same_in_every_launcher():
    """The sh launchers that must find their folder before any Python runs share one symlink resolver
    (install.sh leaves it to Python's realpath)."""
    texts = [(ROOT / name).read_text() for name in ("bin/recall.sh", "bin/memory-doctor", "bin/memory-merge")]
    blocks = [t[t.index("self=$0"):t.index("done\n", t.index("self=$0"))] for t in texts]
    assert blocks[0] == blocks[1] == blocks[2]


def test_install_sh_runs_through_a_chain_of_symlinks_and_a_dry_run_touches_nothing(repo, tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "one").symlink_to(ROOT / "install.sh")
    (tmp_path / "bin" / "two").symlink_to(tmp_path / "bin" / "one")
    before = tree(repo)
    proc = subprocess.run([str(tmp_path / "bin" / "two"), "--dry-run", str(repo)], capture_output=True, text=True,
                          env=clean_env())
    assert proc.returncode == 0, proc.stderr
    assert "+++ b/.claude/settings.json" in proc.stdout and '"SessionStart"' in proc.stdout
    assert tree(repo) == before  # the virtualenv too: a dry run makes none


def test_a_gitignored_claude_folder_is_named_at_install(repo):
    """Many repositories ignore `.claude/` whole. The install then said nothing, and a teammate who cloned got
    `.cursor/hooks.json`, `.gemini/settings.json` and `.codex/hooks.json` running `.claude/hooks/memory-hooks/…`
    files that were never committed (an error on every event), and a recall.sh that finds no code."""
    (repo / ".gitignore").write_text("node_modules/\n.claude/\n")
    out = install(repo, "--no-venv", "--no-self-check").stdout
    [warning] = [line for line in out.splitlines() if "WARNING" in line]
    assert ".claude/hooks/memory-hooks/" in warning and ".claude/settings.json" in warning
    assert "teammates" in warning and "git add -f" in warning
    assert install(repo, "--no-venv", "--no-self-check").stdout.count("WARNING") == 1  # each run says it
    # settings.local.json ignored (as Claude Code itself sets it up) is no concern
    (repo / ".gitignore").write_text("node_modules/\n.claude/settings.local.json\n")
    assert "WARNING" not in install(repo, "--no-venv", "--no-self-check").stdout


def test_a_dry_run_shows_the_users_files_first_and_our_code_in_a_line(repo):
    """On a repository with settings of its own, `--dry-run` printed 117 `create .claude/hooks/memory-hooks/…`
    lines and the whole recall.sh launcher before the first line of the user's settings diff. Now the diffs of
    the files that are the user's (settings, .gitignore, .gitattributes) come first; our code folder is one line
    per verb, recall.sh one line; the knowledge and ignore files we create stay diffs."""
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2) + "\n")
    (repo / ".gitignore").write_text("node_modules/\n")
    out = install(repo, "--dry-run").stdout
    lines = out.splitlines()
    assert lines[0] == "--- a/.gitignore" and lines.index("--- a/.claude/settings.json") < min(
        n for n, line in enumerate(lines) if line.startswith(("create", "--- /dev/null")))
    code = [line for line in lines if ".claude/hooks/memory-hooks/" in line and not line.startswith((" ", "+", "-"))]
    assert len(code) == 1 and re.fullmatch(r"create \.claude/hooks/memory-hooks/ \(\d+ files\)", code[0]), code
    assert "create .beads/memory/recall.sh" in lines and "+#!/bin/sh" not in lines
    assert "+++ b/.gitignore" in lines and "+++ b/.beads/memory/.gitignore" in lines
    assert lines.index("+++ b/.gitignore") < lines.index(code[0])
    installed = install(repo, "--no-venv", "--no-self-check")
    assert installed.returncode == 0 and "nothing to change" in install(repo, "--dry-run").stdout


def test_a_dry_run_says_a_file_has_no_line_break_at_its_end_as_git_does(repo):
    """`.env` without a final line break printed `-.env+.env` on one line."""
    (repo / ".gitignore").write_text("node_modules/\n.env")
    lines = install(repo, "--dry-run").stdout.splitlines()
    at = lines.index("-.env")
    assert lines[at:at + 3] == ["-.env", "\\ No newline at end of file", "+.env"]
    assert not any(line.startswith("-.env+") for line in lines)


def _copy_of_memory_hooks(tmp_path, remote, bytecode=False):
    """A clone of this memory-hooks checkout (its current files) whose origin is `remote`; with `bytecode`, as
    a clone that has run: its bytecode caches too (copied with the sources' times, so they stay current), and
    an install from it copies them where one from a fresh clone compiles every module (tests/install/
    test_bytecode.py installs from one)."""
    import shutil
    src = tmp_path / "src" / "memory-hooks"
    for name in ("install.sh", "requirements.txt"):
        src.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    for folder in ("hooks", "memory", "bin"):
        shutil.copytree(ROOT / folder, src / folder, ignore=None if bytecode else shutil.ignore_patterns("__pycache__"))
    make_repo(src)
    git(src, "remote", "add", "origin", remote)
    return src


_BUNDLE: list = []
SECRET_REMOTE = "https://alice:ghp_secret123@git.example.com/team/memory-hooks.git"


def _shared_bundle():
    """One _copy_of_memory_hooks for this module's tests that only run its install.sh (each test that checks
    the bundle is left alone checks it on this copy)."""
    if not _BUNDLE:
        _BUNDLE.append(_copy_of_memory_hooks(Path(tempfile.mkdtemp(prefix="mh-bundle-")), SECRET_REMOTE,
                                             bytecode=True))
    return _BUNDLE[0]


def _session_start_context(repo):
    """What session start tells the person (systemMessage) in a teammate's clone (no virtualenv, and no marker
    of a --no-venv chosen there): the reinstall hint is theirs, not the model's."""
    (repo / runtimes.NO_VENV_CHOSEN).unlink(missing_ok=True)
    run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: something to surface"', repo))
    start = run_registered(repo, "session_start", {"session_id": "s", "hook_event_name": "SessionStart",
                                                   "source": "startup", "cwd": str(repo)})
    answer = json.loads(start.stdout)
    assert "install.sh" not in answer["hookSpecificOutput"]["additionalContext"]
    return answer.get("systemMessage", "")


def test_teammate_hint_names_the_repository_installed_from(repo):
    src = _shared_bundle()  # a clone of SECRET_REMOTE
    proc = subprocess.run([str(src / "install.sh"), "--no-venv", "--no-self-check", str(repo)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    manifest = (repo / ".claude" / "hooks" / "memory-hooks" / "install.json").read_text()
    assert json.loads(manifest)["source"] == "https://git.example.com/team/memory-hooks.git"
    assert "secret" not in manifest and "alice" not in manifest
    context = _session_start_context(repo)
    assert "run install.sh from a clone of https://git.example.com/team/memory-hooks.git on this repo" in context


def test_teammate_hint_without_a_known_source_says_where_to_look(repo, tmp_path):
    installed_copy(repo)
    manifest_path = repo / ".claude" / "hooks" / "memory-hooks" / "install.json"
    manifest = json.loads(manifest_path.read_text())
    manifest.pop("source", None)
    manifest_path.write_text(json.dumps(manifest))
    context = _session_start_context(repo)
    assert "run install.sh from a memory-hooks checkout on this repo (or `memory-hooks install`" in context


def test_a_local_path_is_never_recorded_as_the_source(repo, tmp_path):
    """A clone of a local folder has a path as its origin: one machine's folder, which was written into the
    committed install.json and quoted to every teammate. Not recorded, and an older install's is dropped."""
    src = _copy_of_memory_hooks(tmp_path / "mh", "/work/main")
    manifest_path = repo / ".claude" / "hooks" / "memory-hooks" / "install.json"
    for origin in ("/work/main", "file:///srv/git/memory-hooks", "../memory-hooks", "C:/src/mh"):
        git(src, "remote", "set-url", "origin", origin)
        proc = subprocess.run([str(src / "install.sh"), "--no-venv", "--no-self-check", str(repo)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "source" not in json.loads(manifest_path.read_text()), origin
        manifest = json.loads(manifest_path.read_text())
        manifest["source"] = origin  # as an older install.sh recorded it
        manifest_path.write_text(json.dumps(manifest))
        context = _session_start_context(repo)
        assert origin not in context and "from a memory-hooks checkout on this repo" in context
        install(repo, "--no-venv", "--no-self-check")
        assert "source" not in json.loads(manifest_path.read_text()), origin


def test_worktree_install_covers_the_main_checkout(repo):
    (repo / ".gitignore").write_text("node_modules/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    git(repo, "worktree", "add", "-q", ".worktrees/bd-3", "-b", "bd-3")
    wt = repo / ".worktrees" / "bd-3"
    out = install(wt, "--no-venv", "--no-self-check").stdout
    main_knowledge = repo / ".beads" / "memory" / "knowledge.jsonl"
    assert f"knowledge    {main_knowledge} (captures land beside it, in inbox/" in out
    assert not (wt / ".beads" / "memory" / "knowledge.jsonl").exists()
    run_registered(wt, "memory_capture", bash_payload('bd comment bd-3 "LEARNED: from the worktree"', wt))
    run_registered(wt, "memory_capture", "not json")  # an errors.log line
    assert [e["content"] for e in knowledge(repo)] == ["from the worktree"]
    memory = repo / ".beads" / "memory"
    assert (memory / "knowledge.lock").exists() and (memory / "errors.log").exists()
    status = [line.strip() for line in git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()]
    assert "?? .beads/memory/.gitignore" in status and any(s.startswith("?? .beads/memory/inbox/") for s in status)
    assert not [s for s in status if "knowledge.lock" in s or "errors.log" in s]  # main's memory folder too
    install(wt, "--uninstall")
    assert (repo / ".gitignore").read_text() == "node_modules/\n"
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert "knowledge.lock" not in status and "errors.log" not in status  # the knowledge stays: so does that


def test_an_uninstall_in_a_worktree_leaves_the_driver_to_the_main_checkout(repo):
    """git config is shared by every worktree: `install.sh --uninstall` in a linked worktree removed the merge
    driver for the main checkout too, whose .gitattributes still names it (it then merged the knowledge as text)."""
    install(repo, "--no-venv", "--no-self-check")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory-hooks")
    git(repo, "worktree", "add", "-q", "../wt", "-b", "wt")
    wt = repo.parent / "wt"
    out = install(wt, "--uninstall").stdout
    assert f"kept the merge driver in git config: the worktree {repo} of this repository still uses it" in out
    assert git(repo, "config", "--get", "merge.memory-hooks.driver").strip()
    install(repo, "--uninstall")  # the last one: removed
    assert subprocess.run(["git", "config", "--get", "merge.memory-hooks.driver"], cwd=repo,
                          capture_output=True).returncode == 1


def test_launchers_ignore_a_memory_package_in_the_current_folder(repo):
    (repo / "memory").mkdir()  # the project's own Python package of the same name
    (repo / "memory" / "__init__.py").write_text("raise ImportError('the project package, not memory-hooks')\n")
    proc = subprocess.run([INSTALL, "--no-venv", "--no-self-check"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0 and "memory-hooks installed" in proc.stdout, proc.stderr
    run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: not shadowed"', repo))
    for recall in (repo / ".beads" / "memory" / "recall.sh", ROOT / "bin" / "recall.sh"):
        proc = subprocess.run([str(recall), "shadowed"], cwd=repo, capture_output=True, text=True)
        assert proc.returncode == 0 and "not shadowed" in proc.stdout, proc.stderr


# --- the semantic option ---------------------------------------------------------------------------------

def test_semantic_needs_the_virtualenv(repo):
    proc = install(repo, "--no-venv", "--no-self-check", "--semantic", check=False)
    assert proc.returncode == 1 and "needs the hooks' virtualenv" in proc.stdout
    assert (repo / ".claude" / "settings.json").exists()  # the rest of the install is done


@pytest.mark.slow  # a real virtualenv, then numpy and the model from the package index (~90 MB)
def test_semantic_option_end_to_end(repo):
    memory = repo / ".beads" / "memory"
    store.append(str(memory), [entry.build(f"Note {i}: the release notes rule number {i} applies here.", "BD-9",
                                           "orchestrator") for i in range(12)])
    proc = install(repo, "--no-self-check", "--semantic")
    assert "semantic     installed and checked" in proc.stdout
    assert "semantic: 12 vectors computed in" in proc.stdout  # the knowledge there is ready for the first prompt
    venv_python = repo / ".claude" / "hooks" / "memory-hooks" / ".venv" / "bin" / "python"
    assert subprocess.run([str(venv_python), "-c", "import torch"], capture_output=True).returncode != 0  # never
    store.append(str(memory), [entry.build("Database migrations must be reversible: every alembic upgrade needs a "
                                           "working downgrade.", "BD-3", "orchestrator")])
    prompt = dict(fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json"), cwd=str(repo),
                  prompt="add an alembic migration for refunds")
    answer = run_registered(repo, "prompt_recall", prompt, env={"MEMORY_HOOKS_FOREGROUND": "1"})
    assert "every alembic upgrade" in json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
    assert (memory / layout.VECTORS).stat().st_size > 0  # the semantic path ran: the entry has a vector
    assert not (memory / layout.ERRORS).exists()


# --- Gemini CLI: .gemini/settings.json ---------------------------------------------------------------------

def test_gemini_settings_merged_idempotent_and_restored(repo):
    theirs = {"model": {"name": "gemini-pro"}, "hooks": {"enabled": True, "BeforeTool": [
        {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh", "timeout": 5000}]}]}}
    (repo / ".gemini").mkdir()
    text = json.dumps(theirs, indent=4) + "\n"
    (repo / ".gemini" / "settings.json").write_text(text)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "Gemini CLI   .gemini/settings.json: SessionStart, BeforeAgent, AfterTool" in out
    merged = json.loads((repo / ".gemini" / "settings.json").read_text())
    assert merged["model"] == theirs["model"] and merged["hooks"]["enabled"] is True
    assert merged["hooks"]["BeforeTool"] == theirs["hooks"]["BeforeTool"]
    after_tool, action = merged["hooks"]["AfterTool"]
    assert after_tool["matcher"] == "run_shell_command" and after_tool["hooks"][0]["timeout"] == 10000  # ms
    assert after_tool["hooks"][0]["command"] == registration.gemini_command("memory_capture")
    assert action["matcher"] == "read_file|write_file|replace|run_shell_command"  # action time (BeforeTool can't)
    assert action["hooks"][0]["command"] == registration.gemini_command("action_context")
    assert "SubagentStop" not in merged["hooks"]  # Gemini CLI has no subagents to gate
    first = (repo / ".gemini" / "settings.json").read_bytes()
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / ".gemini" / "settings.json").read_bytes() == first
    install(repo, "--uninstall")
    assert (repo / ".gemini" / "settings.json").read_text() == text


def test_no_gemini_leaves_it_alone_and_a_broken_file_is_refused(repo):
    install(repo, "--no-venv", "--no-self-check", "--no-gemini")
    assert not (repo / ".gemini").exists()
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").write_text('{"hooks": {\n  "AfterTool": [,]\n}}\n')
    proc = install(repo, "--no-venv", "--no-self-check", check=False)
    assert proc.returncode == 2 and ".gemini/settings.json:2:" in proc.stderr and "--no-gemini" not in proc.stdout
    assert (repo / ".gemini" / "settings.json").read_text() == '{"hooks": {\n  "AfterTool": [,]\n}}\n'


def test_codex_hooks_merged_idempotent_restored_and_optional(repo):
    theirs = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}
    (repo / ".codex").mkdir()
    text = json.dumps(theirs, indent=2) + "\n"
    (repo / ".codex" / "hooks.json").write_text(text)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "Codex CLI    .codex/hooks.json: PreToolUse[Bash|apply_patch], SessionStart, UserPromptSubmit, " \
           "PostToolUse[Bash] (memory_capture, action_context), SubagentStop, Stop, PreCompact" in out  # each once
    merged = json.loads((repo / ".codex" / "hooks.json").read_text())
    theirs_pre = theirs["hooks"]["PreToolUse"]
    assert merged["hooks"]["PreToolUse"][:1] == theirs_pre and len(merged["hooks"]["PreToolUse"]) == 2
    assert merged["hooks"]["PostToolUse"][0]["matcher"] == "Bash"
    assert merged["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] == 3  # Codex clamps SessionEnd hooks to 3 s
    assert set(merged["hooks"]) <= {"PreToolUse", "SessionStart", "UserPromptSubmit", "PostToolUse", "SubagentStop",
                                    "Stop", "PreCompact", "SessionEnd"}  # only events codex-cli 0.169 accepts
    first = (repo / ".codex" / "hooks.json").read_bytes()
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / ".codex" / "hooks.json").read_bytes() == first
    install(repo, "--uninstall")
    assert (repo / ".codex" / "hooks.json").read_text() == text
    install(repo, "--no-venv", "--no-self-check", "--no-codex")
    assert (repo / ".codex" / "hooks.json").read_text() == text


def test_hooks_in_codex_config_toml_are_named_beside_ours(repo):
    """Codex 0.169 runs both and warns at every start ("loading hooks from both …hooks.json and …config.toml"):
    install said nothing of it."""
    (repo / ".codex").mkdir()
    (repo / ".codex" / "config.toml").write_text('model = "gpt-5"\n\n[[hooks.SessionStart]]\nmatcher = "startup"\n')
    assert "config.toml has hooks of its own" in install(repo, "--no-venv", "--no-self-check").stdout
    (repo / ".codex" / "config.toml").write_text('model = "gpt-5"\n')
    assert "config.toml has hooks" not in install(repo, "--no-venv", "--no-self-check").stdout


def test_a_codex_hooks_file_codex_refuses_is_refused_and_named_by_the_doctor(repo):
    """Codex 0.169 reads only `description` and `hooks` in .codex/hooks.json and refuses the whole file for any
    other field ("unknown field `$schema`"): install added our hooks there, its self-check passed (it runs the
    commands itself) and the doctor said OK, while Codex ran none of them, the user's nor ours."""
    (repo / ".codex").mkdir()
    theirs = {"$schema": "https://www.schemastore.org/codex-hooks.json",
              "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./banner.sh"}]}]}}
    (repo / ".codex" / "hooks.json").write_text(json.dumps(theirs))
    before = tree(repo)
    proc = install(repo, "--no-venv", "--no-self-check", check=False)
    assert proc.returncode == 2 and "unknown field '$schema': Codex reads only description and hooks" in proc.stderr
    assert "(or install with --no-codex)" in proc.stderr and tree(repo) == before
    from helpers import doctor_report

    install(repo, "--no-venv", "--no-self-check", "--no-codex")
    assert "unknown field" not in json.dumps(doctor_report(repo)[1])  # left to them: not ours to judge
    del theirs["$schema"]
    (repo / ".codex" / "hooks.json").write_text(json.dumps(theirs))
    install(repo, "--no-venv", "--no-self-check", "--codex")  # asked back: install.json remembered --no-codex
    assert doctor_report(repo)[0] != 2
    installed = json.loads((repo / ".codex" / "hooks.json").read_text())
    (repo / ".codex" / "hooks.json").write_text(json.dumps({"$schema": "https://example.com/s.json", **installed}))
    status, report, _ = doctor_report(repo)
    assert status == 2 and "unknown field '$schema'" in json.dumps(report), report


# --- the target: never the bundle itself, never a guess outside git ---------------------------------------

def _run_install(src, *args, cwd):
    return subprocess.run([str(src / "install.sh"), *args], cwd=cwd, capture_output=True, text=True,
                          env=clean_env(HOME=str(cwd)))


@pytest.mark.parametrize("args", [(), ("--dry-run",), (".",), ("hooks",), ("--uninstall",)])
def test_the_bundle_itself_is_refused(tmp_path, args):
    src = _shared_bundle()
    bundle = functools.partial(tree, skip=(".git", "__pycache__"))  # the installer's own run caches its bytecode
    before = bundle(src)
    proc = _run_install(src, *args, cwd=src)
    assert proc.returncode == 2 and "is the memory-hooks bundle itself" in proc.stderr, proc.stdout + proc.stderr
    assert proc.stdout == "" and bundle(src) == before


def test_a_worktree_of_the_bundle_is_refused(tmp_path):
    src = _copy_of_memory_hooks(tmp_path, "https://example.com/memory-hooks.git")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "bundle")
    git(src, "worktree", "add", "-q", str(tmp_path / "bundle-wt"))
    proc = _run_install(src, cwd=tmp_path / "bundle-wt")
    assert proc.returncode == 2 and "bundle itself" in proc.stderr
    assert not (tmp_path / "bundle-wt" / ".claude").exists() and not (src / ".beads").exists()


@pytest.mark.parametrize("args", [(), ("--dry-run",)])
def test_outside_git_without_a_path_asks_for_one(tmp_path, args):
    src = _shared_bundle()
    home = tmp_path / "home"
    home.mkdir()
    proc = _run_install(src, *args, cwd=home)
    assert proc.returncode == 2 and "not in a git repository; name the folder" in proc.stderr
    assert proc.stdout == "" and os.listdir(home) == []
    named = _run_install(src, "--no-venv", "--no-self-check", str(home), cwd=tmp_path)  # named: installed
    assert named.returncode == 0 and (home / ".beads" / "memory" / "knowledge.jsonl").exists()


def test_without_a_path_the_current_repository_is_the_target(repo, tmp_path):
    src = _shared_bundle()
    (repo / "src").mkdir()
    proc = _run_install(src, "--no-venv", "--no-self-check", cwd=repo / "src")
    assert proc.returncode == 0 and f"memory-hooks installed into {repo}\n" in proc.stdout


# --- the user's settings files keep their formatting -------------------------------------------------------

RUNTIME_FILES = {  # each runtime's file with hooks and settings of the user's own
    ".claude/settings.json": USER_SETTINGS,
    ".cursor/hooks.json": {"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh", "timeout": 5}]}},
    ".gemini/settings.json": {"ui": {"theme": "GitHub"}, "hooks": {"BeforeTool": [
        {"matcher": "write_file", "hooks": [{"type": "command", "command": "lint", "timeout": 3000}]}]}},
    ".codex/hooks.json": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                                                  "command": "guard"}]}]}},
}
UNICODE = {"description": "café – 日本語 🚀 C:\\Users\\zoë"}  # the one field every runtime's file may hold
STYLES = {
    "compact arrays": lambda v: "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(x)}" for k, x in v.items())
    + "\n}\n",
    "3-space indent, no final newline": lambda v: json.dumps(v, indent=3),
    "tabs and CRLF": lambda v: json.dumps(v, indent="\t").replace("\n", "\r\n") + "\r\n",
    "one line": lambda v: json.dumps(v, separators=(",", ":")),
    "unicode": lambda v: json.dumps(dict(UNICODE, **v), indent=2, ensure_ascii=False) + "\n",
    "escaped unicode": lambda v: json.dumps(dict(UNICODE, **v), indent=4) + "\n",
}


def _only_added(before: str, after: str) -> bool:
    """`after` is `before` with lines added; an existing line only gets text inserted (a comma at its end,
    or our entries inside a compact array or object on it), nothing of it removed or changed."""
    old, new = before.splitlines(), after.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "delete":
            return False
        if tag == "replace":
            was, now = "\n".join(old[i1:i2]), "\n".join(new[j1:j2])
            ops = difflib.SequenceMatcher(None, was, now, autojunk=False).get_opcodes()
            if any(op != "equal" and (op != "insert" or not now[k1:k2].strip()) for op, _, _, k1, k2 in ops):
                return False  # something removed or changed, or only whitespace added (a line broken up)
    return True


@pytest.mark.parametrize("style", STYLES)
def test_settings_files_keep_their_formatting(repo, style):
    originals = {}
    for rel, value in RUNTIME_FILES.items():
        originals[rel] = STYLES[style](value).encode()
        (repo / rel).parent.mkdir(exist_ok=True)
        (repo / rel).write_bytes(originals[rel])
    install(repo, "--no-venv", "--no-self-check")
    installed = {rel: (repo / rel).read_bytes() for rel in RUNTIME_FILES}
    for rel, data in installed.items():
        text = data.decode("utf-8")
        config = json.loads(text)
        assert ours.registered_events(config), rel
        assert settings_merge.without_ours(config) == json.loads(originals[rel]), rel
        if "\n" in originals[rel].decode():
            assert _only_added(originals[rel].decode(), text), (rel, text)
        else:
            assert "\n" not in text, rel  # a one-line file stays one line
        assert ("\r\n" in text) == (style == "tabs and CRLF") and (b"\r\n" not in data or b"\n" not in
                                                                   data.replace(b"\r\n", b"")), rel
        assert text.endswith("\n") == originals[rel].decode().endswith("\n"), rel
        assert ("\\u00e9" in text) == (style == "escaped unicode") and ("zoë" in text) == (style == "unicode"), rel
    install(repo, "--no-venv", "--no-self-check")
    assert {rel: (repo / rel).read_bytes() for rel in RUNTIME_FILES} == installed  # again: byte for byte
    install(repo, "--uninstall")
    assert {rel: (repo / rel).read_bytes() for rel in RUNTIME_FILES} == originals


@pytest.mark.parametrize("rel", [".claude/settings.json", ".gemini/settings.json", ".codex/hooks.json"])
def test_an_empty_event_list_of_the_users_comes_back_at_uninstall(repo, rel):
    """`{"hooks": {"SessionStart": []}}`: install put ours in that list, and uninstall left `{}`."""
    (repo / rel).parent.mkdir(exist_ok=True)
    original = b'{\n  "hooks": {\n    "SessionStart": []\n  }\n}\n'
    (repo / rel).write_bytes(original)
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / rel).read_bytes() != original
    install(repo, "--uninstall")
    assert (repo / rel).read_bytes() == original


def test_an_upgrade_changes_only_our_entries(repo):
    """A registration an older version wrote (another command) is replaced in place; the rest stays."""
    text = STYLES["compact arrays"](RUNTIME_FILES[".claude/settings.json"])
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(text)
    install(repo, "--no-venv", "--no-self-check")
    current = (repo / ".claude" / "settings.json").read_text()
    old_command = registration.claude_command("session_start").replace("exec python3", "exec python3 -E")
    older = current.replace(json.dumps(registration.claude_command("session_start"))[1:-1],
                            json.dumps(old_command)[1:-1])
    assert older != current
    (repo / ".claude" / "settings.json").write_text(older)
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / ".claude" / "settings.json").read_text() == current



# --- after an uninstall, no machine-local file can be committed --------------------------------------------

def _committable(repo):
    """The files `git add -A` would add to the repository (new ones)."""
    git(repo, "add", "-A")
    return sorted(git(repo, "diff", "--cached", "--name-only", "--diff-filter=A").splitlines())


def test_uninstall_keeps_the_machine_local_files_out_of_git(repo):
    installed_copy(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "install")
    run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: kept after uninstall"', repo))
    memory = repo / ".beads" / "memory"
    _write_every_machine_local_file(memory)
    (memory / store.SPOOL / "1-2.jsonl").unlink()  # (a parked capture: see the next test)
    install(repo, "--uninstall")
    assert (memory / layout.INJECTED).exists() and (memory / layout.ERRORS).exists()  # still here, but:
    assert [p for p in _committable(repo) if not p.startswith(".beads/memory/inbox/")] == []  # only the knowledge:
    assert "kept after uninstall" in git(repo, "diff", "--cached", ".beads/memory/inbox")  # the knowledge is
    install(repo, "--uninstall", "--purge")
    assert not (repo / ".beads").exists()


def test_a_teammates_clone_keeps_ignoring_its_machine_local_files_after_an_uninstall(repo, tmp_path):
    installed_copy(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "install")
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(teammate))
    _write_every_machine_local_file(teammate / ".beads" / "memory")  # their hooks ran
    install(repo, "--uninstall")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "uninstall memory-hooks")
    git(teammate, "pull", "-q", "--no-rebase")
    assert not (teammate / ".claude" / "hooks" / "memory-hooks").exists()
    assert _committable(teammate) == []  # nothing of theirs can be committed


def test_committing_what_the_summary_names_gives_a_teammate_working_hooks(repo, tmp_path):
    """The summary said to commit `.beads/memory` only: a teammate who did got the settings of nobody's commit
    (or, committing `.claude/settings.json` alone, hooks whose code never arrived). Committing exactly the
    paths its `commit` line names gives a clone whose registered hooks capture and surface."""
    out = install(repo, "--no-venv", "--no-self-check").stdout
    [line] = [line for line in out.splitlines() if line.startswith("  commit ")]
    paths = line.split(None, 1)[1].split(" (")[0].split()
    assert {".claude/hooks/memory-hooks/", ".claude/settings.json", ".cursor/hooks.json", ".gemini/settings.json",
            ".codex/hooks.json", ".beads/memory/", ".gitignore", ".gitattributes"} == set(paths)
    git(repo, "add", "--", *paths)
    git(repo, "commit", "-q", "-m", "memory-hooks")
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""  # nothing of the install left out
    again = install(repo, "--no-venv", "--no-self-check").stdout  # all committed: no advice to commit
    assert not [line for line in again.splitlines() if line.startswith("  commit ")], again
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(teammate))
    run_registered(teammate, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: arrives by git"', teammate))
    start = run_registered(teammate, "session_start", {"session_id": "s", "hook_event_name": "SessionStart",
                                                       "source": "startup", "cwd": str(teammate)})
    assert "arrives by git" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]


def test_uninstall_settles_parked_captures_into_the_knowledge(repo):
    from memory.core import locking

    installed_copy(repo)
    memory = repo / ".beads" / "memory"
    with locking.exclusive(str(memory / store.LOCK)):  # the lock stayed busy: the capture is parked
        run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: parked then kept"', repo),
                       env={"MEMORY_HOOKS_FOREGROUND": "1", "MEMORY_HOOKS_LOCK_TIMEOUT": "0.2"})
    assert store.parked(str(memory))
    dry = install(repo, "--uninstall", "--dry-run")
    assert store.parked(str(memory)) and "parked" not in dry.stdout  # a dry run changes nothing
    install(repo, "--uninstall")
    assert [e["content"] for e in knowledge(repo)] == ["parked then kept"] and not store.parked(str(memory))


CODEX_REVIEW = "note: Codex CLI runs project hooks only once reviewed"


def test_codex_review_is_named_when_the_codex_hooks_change(repo):
    """`codex exec` skips project hooks nobody reviewed in Codex (/hooks) without a word (seen with codex-cli
    0.169 against tests/e2e/fake_openai.py): the install says so whenever it writes Codex's hooks, not otherwise."""
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert f"  {CODEX_REVIEW}: open Codex in this repository and approve them (/hooks)" in out
    assert CODEX_REVIEW not in install(repo, "--no-venv", "--no-self-check").stdout  # nothing new to review
    assert CODEX_REVIEW not in install(make_repo(repo.parent / "other"), "--no-venv", "--no-self-check",
                                       "--no-codex").stdout


GEMINI_WITH_COMMENTS = """{
  // Gemini CLI reads its settings.json with comments (strip-json-comments)
  "model": {"name": "gemini-2.5-pro"}, /* mine */
  "hooks": {
    // my guard
    "BeforeTool": [
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "echo mine", "timeout": 5000}]}
    ]
  },
  "ui": {"theme": "GitHub"} // trailing
}
"""


def test_gemini_settings_with_comments_are_merged_keeping_them(repo):
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").write_text(GEMINI_WITH_COMMENTS)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "Gemini CLI   .gemini/settings.json: SessionStart, BeforeAgent" in out
    text = (repo / ".gemini" / "settings.json").read_text()
    for comment in ("// Gemini CLI reads", "/* mine */", "// my guard", "// trailing"):
        assert text.count(comment) == 1, comment
    merged = json.loads(jsonio.without_comments(text))
    assert merged["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "echo mine"
    assert merged["hooks"]["AfterAgent"][0]["hooks"][0]["command"] == registration.gemini_command("capture_reply")
    assert merged["ui"] == {"theme": "GitHub"}
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / ".gemini" / "settings.json").read_text() == text
    out = install(repo, "--uninstall").stdout
    assert (repo / ".gemini" / "settings.json").read_text() == GEMINI_WITH_COMMENTS
    assert not (repo / ".gemini" / ("settings.json" + plan.BACKUP_SUFFIX)).exists() and "kept    " not in out


def test_an_upgrade_keeps_the_backup_of_the_users_own_bytes(repo):
    """An older install.sh reformatted the settings and kept the user's bytes in the backup; installing the
    current version over it must not replace that backup with the older install's rewrite, or the
    uninstall after the upgrade can no longer give the user their own bytes back."""
    text = STYLES["compact arrays"](RUNTIME_FILES[".claude/settings.json"])
    (repo / ".claude").mkdir()
    settings_file = repo / ".claude" / "settings.json"
    old_command = registration.claude_command("session_start").replace("exec python3", "exec python3 -E")
    older = json.loads(text)
    older["hooks"].setdefault("SessionStart", []).append(
        {"matcher": "startup", "hooks": [{"type": "command", "command": old_command}]})
    settings_file.write_text(json.dumps(older, indent=2) + "\n")  # as the older installer wrote it
    (repo / ".claude" / ("settings.json" + plan.BACKUP_SUFFIX)).write_text(text)  # and its backup
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / ".claude" / ("settings.json" + plan.BACKUP_SUFFIX)).read_text() == text
    install(repo, "--uninstall")
    assert settings_file.read_text() == text


def test_a_hook_an_older_install_dropped_survives_the_upgrade_and_the_uninstall_in_the_backup(repo):
    """An older install.sh took a user's hook that mentioned memory-hooks for its own; only its backup still
    held it. The upgrade keeps that backup, and the uninstall leaves it (and says so) instead of deleting the
    user's last copy of their hook."""
    user = {"model": "sonnet", "hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "~/bin/notify.sh memory-hooks finished"}]}]}}
    original = json.dumps(user, indent=2) + "\n"
    (repo / ".claude").mkdir()
    backup = repo / ".claude" / ("settings.json" + plan.BACKUP_SUFFIX)
    backup.write_text(original)
    old_command = registration.claude_command("capture_reply").replace("exec python3", "exec python3 -E")
    older = {"model": "sonnet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": old_command}]}]}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(older, indent=2) + "\n")
    install(repo, "--no-venv", "--no-self-check")
    assert backup.read_text() == original
    out = install(repo, "--uninstall").stdout
    assert backup.read_text() == original and f"kept    .claude/settings.json{plan.BACKUP_SUFFIX}" in out
    assert settings(repo) == {"model": "sonnet"}


def test_a_backup_the_uninstall_kept_survives_a_reinstall(repo):
    """The uninstall kept the backup for the person to compare (it holds a hook the file lacks); installing again
    before they did must not back the settings up over it: it is the last copy of their hook."""
    test_a_hook_an_older_install_dropped_survives_the_upgrade_and_the_uninstall_in_the_backup(repo)
    backup = repo / ".claude" / ("settings.json" + plan.BACKUP_SUFFIX)
    original = backup.read_text()
    install(repo, "--no-venv", "--no-self-check")
    assert backup.read_text() == original
    install(repo, "--uninstall")
    assert backup.read_text() == original and settings(repo) == {"model": "sonnet"}


def test_an_uninstall_after_the_users_own_edit_deletes_the_backup(repo):
    """A value the user changed after installing is theirs, in the file: the backup says nothing more."""
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"model": "sonnet"}, indent=2) + "\n")
    install(repo, "--no-venv", "--no-self-check")
    path = repo / ".claude" / "settings.json"
    path.write_text(path.read_text().replace('"sonnet"', '"opus"'))
    out = install(repo, "--uninstall").stdout
    assert not (repo / ".claude" / ("settings.json" + plan.BACKUP_SUFFIX)).exists() and "kept    " not in out
    assert settings(repo) == {"model": "opus"}


@pytest.mark.parametrize("rel", [".claude/settings.json", ".gitignore"])
def test_a_fifo_where_install_reads_a_file_is_refused_not_a_hang(repo, rel):
    """install.sh reads each file it merges into (settings, .gitignore): a FIFO there made open() wait for a
    writer forever. Now it is refused like a folder there: exit 2, a message naming it, nothing written."""
    (repo / rel).parent.mkdir(exist_ok=True)
    os.mkfifo(repo / rel)
    proc = subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(repo)], capture_output=True, text=True,
                          env=clean_env(), timeout=60)
    assert proc.returncode == 2 and f"{rel} is not a regular file" in proc.stderr, proc.stdout + proc.stderr
    assert not (repo / ".beads").exists()


@pytest.mark.parametrize("rel", [".gitignore", ".gitattributes"])
def test_a_block_in_a_users_text_file_keeps_every_byte_around_it(repo, rel):
    """install.sh's block in .gitignore / .gitattributes: the user's bytes around it stay as they were — CRLF
    endings, a byte order mark, a byte that is not UTF-8 (it was replaced by U+FFFD), a form feed (it split a line),
    the user's lines after our block (an update moved them above it) — and our block takes the file's line ending.
    A last line without a line break gets one (our block starts on a line of its own), kept after an uninstall."""
    theirs = b"\xef\xbb\xbfnode_modules/\r\ncaf\xe9/\r\n# page\x0cbreak\r\n*.log"
    (repo / rel).write_bytes(theirs)
    install(repo, "--no-venv", "--no-self-check")
    data = (repo / rel).read_bytes()
    assert data.startswith(theirs + b"\r\n\r\n# >>> memory-hooks") and data.endswith(b"# <<< memory-hooks\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")
    begin = data.index(b"\r\n\r\n# >>> memory-hooks") + 4
    # the user adds a line below our block, and an older version's block is one line short: an update
    ours = data[begin:].split(b"\r\n")
    (repo / rel).write_bytes(data[:begin] + b"\r\n".join(ours[:1] + ours[2:]) + b"dist/\r\n")
    install(repo, "--no-venv", "--no-self-check")
    assert (repo / rel).read_bytes() == data + b"dist/\r\n"
    install(repo, "--uninstall")
    assert (repo / rel).read_bytes() == theirs + b"\r\n\r\ndist/\r\n"


def test_a_stray_begin_marker_in_gitignore_never_costs_the_users_lines_on_a_reinstall(tmp_path):
    """Our .gitignore block's end line deleted by hand: install.sh adds a whole block after the stray begin line,
    and a reinstall (an upgrade) updates that block; the user's lines between them (here `.env`) stay. They went:
    the block was taken from the first begin line to the first end line after it."""
    repo = make_repo(tmp_path / "repo")
    theirs = f"dist/\n{plan.GITIGNORE_BEGIN}\n.env\nsecrets/\n".encode()
    (repo / ".gitignore").write_bytes(theirs)
    for _ in range(2):
        install(repo, "--no-venv", "--no-self-check")
        ignored = (repo / ".gitignore").read_bytes()
        assert ignored.startswith(theirs) and ignored.count(b"\n.env\n") == 1
    install(repo, "--uninstall")
    assert (repo / ".gitignore").read_bytes() == theirs


def test_a_token_in_the_origins_query_never_reaches_install_json(repo, tmp_path):
    """install.json is committed: a GitLab-style `?private_token=` on the clone's origin was written into it."""
    src = _copy_of_memory_hooks(tmp_path / "mh", "/work/main")
    git(src, "remote", "set-url", "origin",
        "https://git.example.com/team/memory-hooks.git?private_token=glpat-abcdefghij1234567890#main")
    proc = subprocess.run([str(src / "install.sh"), "--no-venv", "--no-self-check", str(repo)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    manifest = (repo / ".claude" / "hooks" / "memory-hooks" / "install.json").read_text()
    assert json.loads(manifest)["source"] == "https://git.example.com/team/memory-hooks.git"
    assert "glpat" not in manifest
