"""install.sh into real temporary git repositories, run as a user runs it."""
import json
import os
import subprocess
from pathlib import Path


from conftest import ROOT, bash_payload, git, knowledge, make_repo

from memory import registration

INSTALL = str(ROOT / "install.sh")

# The shape of a real-world project settings file (hook-protocols.md §1.2, S20): other tools' hooks,
# permissions, env, a status line, plugins, in the user's own key order.
USER_SETTINGS = {
    "model": "sonnet",
    "permissions": {"allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"], "deny": ["Read(./.env)", "Bash(curl:*)"]},
    "env": {"NODE_ENV": "development", "FOO": "bar"},
    "hooks": {
        "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --check"}]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 tools/audit.py",
                                                       "timeout": 5}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "python3 tools/save_agent_output.py"}]}],
    },
    "statusLine": {"type": "command", "command": "~/.claude/statusline.sh", "padding": 0},
    "enabledPlugins": {"formatter@acme-tools": True},
}


def install(target, *args, env=None, check=True):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CURSOR", "MEMORY_HOOKS"))}
    full_env.update(env or {})
    proc = subprocess.run([INSTALL, *args, str(target)], capture_output=True, text=True, env=full_env)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def settings(repo):
    return json.loads((repo / ".claude" / "settings.json").read_text())


def tree(repo):
    """Every file below the repo (outside .git) with its bytes."""
    out = {}
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(folder) / name
            out[str(path.relative_to(repo))] = path.read_bytes()
    return out


def run_registered(repo, hook, payload, command_for=registration.claude_command):
    """Run a registered command exactly as Claude Code does: sh -c, CLAUDE_PROJECT_DIR, cwd = project."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CURSOR", "MEMORY_HOOKS"))}
    env["CLAUDE_PROJECT_DIR"] = str(repo)
    return subprocess.run(["/bin/sh", "-c", command_for(hook)], input=json.dumps(payload), cwd=repo, env=env,
                          capture_output=True, text=True)


def test_fresh_repo(repo):
    out = install(repo, "--no-venv").stdout
    assert "self-check" in out and "FAILED" not in out
    config = settings(repo)
    assert registration.schema_problems(config) == []
    assert registration.registered_events(config) == [("SessionStart", "startup|resume|clear|compact"),
                                                      ("PostToolUse", "Bash"), ("PostToolUse", "Agent|Task"),
                                                      ("SubagentStop", None)]
    # synchronous: `claude -p` kills async hooks still running at its end (the dispatch log detaches its work)
    assert not any(h.get("async") for group in config["hooks"]["PostToolUse"] for h in group["hooks"])
    assert (repo / ".beads" / "memory" / "recall.sh").stat().st_mode & 0o111
    assert (repo / ".beads" / "memory" / "knowledge.jsonl").exists()
    assert "/.beads/memory/knowledge.lock" in (repo / ".gitignore").read_text()
    cursor = json.loads((repo / ".cursor" / "hooks.json").read_text())
    assert cursor["version"] == 1 and registration.schema_problems(cursor, cursor=True) == []
    # knowledge is meant to be committed, machine-local files are not
    git(repo, "add", "-A")
    tracked = git(repo, "ls-files").splitlines()
    assert ".beads/memory/knowledge.jsonl" in tracked and ".claude/settings.json" in tracked
    assert not any(".venv" in t or "__pycache__" in t for t in tracked)


def test_registered_commands_capture_and_surface(repo):
    install(repo, "--no-venv", "--no-self-check")
    proc = run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: installed hooks work"', repo))
    assert proc.returncode == 0
    assert [e["content"] for e in knowledge(repo)] == ["installed hooks work"]
    start = run_registered(repo, "session_start", {"session_id": "s", "hook_event_name": "SessionStart",
                                                   "source": "startup", "cwd": str(repo)})
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "installed hooks work" in context and "without its virtualenv" in context  # --no-venv: the hint


def test_existing_settings_are_merged_not_replaced(repo):
    (repo / ".claude").mkdir()
    original = json.dumps(USER_SETTINGS, indent=4) + "\n"
    (repo / ".claude" / "settings.json").write_text(original)
    install(repo, "--no-venv", "--no-self-check")
    merged = settings(repo)
    assert list(merged) == list(USER_SETTINGS)  # key order kept
    for key in ("model", "permissions", "env", "statusLine", "enabledPlugins"):
        assert merged[key] == USER_SETTINGS[key]
    assert merged["hooks"]["PreToolUse"] == USER_SETTINGS["hooks"]["PreToolUse"]
    assert merged["hooks"]["PostToolUse"][0] == USER_SETTINGS["hooks"]["PostToolUse"][0]  # theirs first, ours after
    assert len(merged["hooks"]["PostToolUse"]) == 3  # theirs, capture, dispatch log
    assert (repo / ".claude" / "settings.json").read_text().startswith('{\n    "model"')  # their indentation
    assert (repo / ".claude" / "settings.json.memory-hooks.bak").read_text() == original
    assert registration.without_ours(merged) == USER_SETTINGS


def test_second_run_changes_nothing(repo):
    install(repo, "--no-venv", "--no-self-check")
    before = tree(repo)
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "already up to date" in out and tree(repo) == before
    assert "nothing to change" in install(repo, "--dry-run").stdout


def test_uninstall_takes_out_exactly_what_was_put_in(repo):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=4) + "\n")
    (repo / ".gitignore").write_text("node_modules/\n*.log\n")
    before = tree(repo)
    install(repo, "--no-self-check")  # with the virtualenv
    assert (repo / ".claude" / "hooks" / "memory-hooks" / ".venv").is_dir()
    run_registered(repo, "memory_capture", bash_payload('bd comment BD-1 "LEARNED: kept after uninstall"', repo))
    install(repo, "--uninstall")
    after = tree(repo)
    knowledge_file = ".beads/memory/knowledge.jsonl"
    assert b"kept after uninstall" in after.pop(knowledge_file)
    after = {k: v for k, v in after.items() if not k.startswith(".beads/memory/knowledge.lock")}
    assert after == before  # byte for byte, the user's formatting included
    install(repo, "--uninstall", "--purge")
    assert not (repo / ".beads").exists()


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
    assert registration.without_ours(merged) == theirs
    install(repo, "--uninstall")
    assert json.loads((repo / ".cursor" / "hooks.json").read_text()) == theirs


def test_no_cursor_flag(repo):
    install(repo, "--no-venv", "--no-cursor", "--no-self-check")
    assert not (repo / ".cursor").exists()


def test_path_with_spaces_and_self_check(tmp_path):
    repo = make_repo(tmp_path / "my projects" / "app (v2)")
    out = install(repo, "--no-venv").stdout
    assert "Claude Code: capture" in out and "FAILED" not in out and "Cursor: session start" in out


def test_install_from_inside_a_worktree(repo):
    git(repo, "worktree", "add", "-q", ".worktrees/bd-3", "-b", "bd-3")
    wt = repo / ".worktrees" / "bd-3"
    proc = subprocess.run([INSTALL, "--no-venv", "--no-self-check"], cwd=wt, capture_output=True, text=True)
    assert proc.returncode == 0 and "worktree" in proc.stdout
    assert (wt / ".claude" / "settings.json").exists()
    run_registered(wt, "memory_capture", bash_payload('bd comment bd-3 "LEARNED: from the worktree"', wt))
    assert [e["content"] for e in knowledge(repo)] == ["from the worktree"]  # main checkout's memory


def test_dry_run_touches_nothing(repo):
    before = tree(repo)
    out = install(repo, "--dry-run").stdout
    assert "+++ b/.claude/settings.json" in out and '"SessionStart"' in out
    assert tree(repo) == before


def test_enabled_plugin_is_not_registered_twice(repo, tmp_path):
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"memory-hooks@local": True}}))
    out = install(repo, "--no-venv", "--no-self-check", env={"HOME": str(tmp_path)}).stdout
    assert "plugin is enabled" in out
    assert registration.registered_events(settings(repo)) == []


def test_plugin_manifest_and_hooks_json_are_valid():
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "memory-hooks"
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    assert registration.schema_problems(hooks) == []
    commands = [h["command"] for groups in hooks["hooks"].values() for g in groups for h in g["hooks"]]
    assert all("${CLAUDE_PLUGIN_ROOT}" in c and "--plugin" in c for c in commands)
    for c in commands:
        script = c.split('"${CLAUDE_PLUGIN_ROOT}"/')[1].split()[0]
        assert (ROOT / script).exists(), script


def test_knowledge_gitignored_by_an_old_installer_is_warned_about(repo):
    (repo / ".gitignore").write_text(".beads/\n")
    out = install(repo, "--no-venv", "--no-self-check").stdout
    assert "WARNING" in out and "gitignored" in out


def test_usage_errors(repo):
    assert install(repo, "--purge", check=False).returncode == 2
    assert install(repo, "--bogus", check=False).returncode == 2
    assert "--uninstall" in install(repo, "--help").stdout


def test_plugin_hooks_json_is_generated_from_the_registration_table():
    available = [p.stem for p in (ROOT / "hooks").glob("*.py")]
    assert json.loads((ROOT / "hooks" / "hooks.json").read_text()) == registration.plugin_hooks(available)


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


def test_uninstall_keeps_files_the_user_added(repo):
    install(repo, "--no-venv", "--no-self-check")
    mine = repo / ".claude" / "hooks" / "memory-hooks" / "hooks" / "my_local_tweak.py"
    mine.write_text("# mine\n")
    install(repo, "--uninstall")
    assert mine.read_text() == "# mine\n"
    assert not (repo / ".claude" / "hooks" / "memory-hooks" / "memory").exists()


def test_reinstall_keeps_files_the_user_added_and_drops_ones_we_no_longer_ship(repo):
    install(repo, "--no-venv", "--no-self-check")
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
    assert text.startswith(b"node_modules/\r\n*.log\r\n\r\n# >>> memory-hooks") and b"\n" not in text.replace(b"\r\n", b"")
    install(repo, "--uninstall")
    assert (repo / ".gitignore").read_bytes() == b"node_modules/\r\n*.log\r\n"
