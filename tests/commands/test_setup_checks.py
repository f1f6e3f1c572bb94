"""memory-doctor's checks of the installation (memory.commands.setup_checks), on real installs: every
runtime's registration, what each runtime's own settings say of it, the interpreter."""
import json
import os
import re
import subprocess

import pytest

from helpers import FAKE_BD, ROOT, doctor_report, git, installed_with_a_capture
from memory.runtimes import runtimes


def test_without_the_virtualenv_the_interpreter_warns_unless_no_venv_was_chosen(repo):
    """install.sh --no-venv on this machine: python3 is the user's choice (OK, said so); a clone without the
    virtualenv and without that choice (a teammate's) is told to run install.sh."""
    code, _, checks = doctor_report(installed_with_a_capture(repo))
    interpreter = checks["interpreter"]
    assert interpreter["level"] == "OK" and "install.sh --no-venv on this machine" in interpreter["detail"]
    (repo / runtimes.NO_VENV_CHOSEN).unlink()
    code, _, checks = doctor_report(repo)
    interpreter = checks["interpreter"]
    assert code == 1 and interpreter["level"] == "WARN" and "run install.sh" in interpreter["detail"]


def test_a_worktree_of_a_no_venv_install_is_not_told_to_install(repo):
    """The marker is machine-local (ignored), so a linked worktree has none of its own: the main checkout's
    choice holds there too, as session start reads it."""
    installed_with_a_capture(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "install")
    git(repo, "worktree", "add", "-q", ".worktrees/bd-5", "-b", "bd-5")
    interpreter = doctor_report(repo, cwd=repo / ".worktrees" / "bd-5")[2]["interpreter"]
    assert interpreter["level"] == "OK" and "install.sh --no-venv on this machine" in interpreter["detail"]


def test_duplicate_registrations_warn(repo):
    installed_with_a_capture(repo)
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    (repo / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": settings["hooks"]}))
    checks = doctor_report(repo)[2]
    assert checks["duplicates"]["level"] == "WARN" and "SessionStart" in checks["duplicates"]["detail"]


# --- every runtime install.sh registers with is checked ----------------------------------------------------

RUNTIME_FILES = {".claude/settings.json": "Claude Code", ".cursor/hooks.json": "Cursor",
                 ".gemini/settings.json": "Gemini CLI", ".codex/hooks.json": "Codex CLI"}


def _registered(data):
    return [c for c in data["checks"] if c["check"] in ("registered", "duplicates")]


def test_every_runtimes_registration_is_reported(repo):
    installed_with_a_capture(repo)
    lines = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "OK"
             and "has not run on this machine" not in c["detail"]]  # the first-run note, as Codex never ran here
    assert [line.split(":")[0] for line in lines] == list(RUNTIME_FILES)
    assert "AfterTool[run_shell_command]" in lines[2] and "PostToolUse[Bash]" in lines[3]


def test_a_broken_runtime_file_fails(repo):
    """Each broken file is one failure of its own, naming the runtime that runs no hook from it."""
    broken = [".gemini/settings.json", ".codex/hooks.json", ".cursor/hooks.json"]
    installed_with_a_capture(repo)
    for rel in broken:
        (repo / rel).write_text('{"hooks": {"SessionStart": [}\n')
    code, data, _ = doctor_report(repo)
    failures = [c["detail"] for c in _registered(data) if c["level"] == "FAIL"]
    assert code == 2 and len(failures) == len(broken), failures
    for rel in broken:
        [failure] = [f for f in failures if f.startswith(f"{rel}:")]
        assert "not valid JSON" in failure and f"{RUNTIME_FILES[rel]} runs no hook from it" in failure


def test_one_of_two_hooks_on_an_event_missing_is_reported(repo):
    """An install from before the shell reads' knowledge has the capture on PostToolUse[Bash] and not the action
    hook: checked by event and matcher alone, the doctor found nothing to re-install."""
    installed_with_a_capture(repo)
    config = json.loads((repo / ".claude/settings.json").read_text())
    config["hooks"]["PostToolUse"] = [group for group in config["hooks"]["PostToolUse"]
                                      if "action_context" not in json.dumps(group)]
    (repo / ".claude/settings.json").write_text(json.dumps(config))
    checks = _registered(doctor_report(repo)[1])
    assert any(c["level"] == "WARN" and "not registered for PostToolUse[Bash] (action_context)" in c["detail"]
               for c in checks), checks


def test_a_missing_event_an_old_command_and_a_missing_hook_file_are_reported(repo):
    """In Gemini's and Codex's files at once: each file's lost event, old command and missing hook file."""
    installed_with_a_capture(repo)
    lost = {}
    for rel in (".gemini/settings.json", ".codex/hooks.json"):
        config = json.loads((repo / rel).read_text())
        event = next(iter(config["hooks"]))
        del config["hooks"][event]  # one event lost
        handler = next(iter(config["hooks"].values()))[0]["hooks"][0]
        hook = re.search(r"hooks/(\w+)\.py", handler["command"]).group(1)
        handler["command"] = f"python3 .claude/hooks/memory-hooks/hooks/{hook}.py"  # an older install.sh's
        (repo / rel).write_text(json.dumps(config))
        lost[RUNTIME_FILES[rel]] = event
    checks = _registered(doctor_report(repo)[1])
    for label, event in lost.items():
        assert any(c["level"] == "WARN" and c["detail"].startswith(f"{label}: not registered for {event}")
                   for c in checks), (label, checks)
        assert any(c["level"] == "WARN" and c["detail"].startswith(f"{label}:") and  # no file check: exit 2
                   "registered by an older install.sh whose command blocks the agent when the hook code is missing"
                   in c["detail"] for c in checks), (label, checks)
    (repo / ".claude/hooks/memory-hooks/hooks/capture_reply.py").unlink()
    code, data, _ = doctor_report(repo)
    for label in lost:
        assert code == 2 and any(c["level"] == "FAIL" and c["detail"].startswith(f"{label}:") and
                                 "hooks/capture_reply.py, which is not installed" in c["detail"]
                                 for c in _registered(data)), label


def test_a_runtime_left_out_at_install_is_no_problem_but_said_as_a_choice(repo):
    subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", "--no-gemini", "--no-codex",
                    str(repo)], check=True, capture_output=True)
    checks = _registered(doctor_report(repo)[1])
    named = [c for c in checks if "gemini" in c["detail"].lower() or "codex" in c["detail"].lower()]
    assert [(c["level"], c["detail"]) for c in named] == [
        ("OK", "left out at install: gemini, codex (--no-gemini --no-codex)")]


def test_gemini_hooks_switched_off_in_geminis_own_settings_warn(repo):
    """Gemini CLI skips every hook when `hooksConfig.enabled` is false, and a hook whose name (its `name`, else its
    command) `/hooks disable` put in `hooksConfig.disabled`, in the user's or the project's settings: the
    registration alone is not the truth then."""
    installed_with_a_capture(repo)
    project = json.loads((repo / ".gemini/settings.json").read_text())
    assert not [c for c in _registered(doctor_report(repo)[1]) if c["level"] != "OK"]
    user = repo.parent / ".gemini" / "settings.json"  # run_doctor() runs with HOME=repo.parent
    user.parent.mkdir(exist_ok=True)
    user.write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    warned = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Gemini CLI: hooks are switched off (hooksConfig.enabled is false in {user}): Gemini runs "
                      "none of them"]
    after_agent = project["hooks"]["AfterAgent"][0]["hooks"][0]
    user.write_text(json.dumps({"hooksConfig": {"disabled": [after_agent["command"]]}}))  # not what names it
    assert not [c for c in _registered(doctor_report(repo)[1]) if c["level"] != "OK"]
    user.write_text(json.dumps({"hooksConfig": {"disabled": [after_agent["name"]]}}))
    project["hooksConfig"] = {"enabled": True}
    (repo / ".gemini/settings.json").write_text(json.dumps(project))
    warned = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Gemini CLI: AfterAgent is disabled (hooksConfig.disabled in {user}): Gemini skips it "
                      "(/hooks enable in Gemini)"]
    user.write_text("{ // a comment: Gemini reads its settings with comments\n \"hooksConfig\": {\"enabled\": false}}")
    project["hooksConfig"] = {}
    (repo / ".gemini/settings.json").write_text(json.dumps(project))
    assert [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"][0].startswith(
        "Gemini CLI: hooks are switched off")


def test_claude_hooks_switched_off_in_claudes_own_settings_warn(repo):
    """Claude Code runs no hook when `disableAllHooks` is true in the settings that win (local over project over
    user): the doctor said every check was OK while not one hook ran. The user's own settings.local.json, as a
    repository with history has it (permissions, a hook of theirs), is read, never changed."""
    installed_with_a_capture(repo)
    local = repo / ".claude" / "settings.local.json"
    mine = {"permissions": {"allow": ["Bash(make test)"]}, "disableAllHooks": True,
            "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/prompt-log.sh"}]}]}}
    local.write_text(json.dumps(mine, indent=2))
    before = local.read_bytes()
    warned = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Claude Code: hooks are switched off (disableAllHooks is true in {local}): Claude Code runs "
                      "none of them"]
    assert local.read_bytes() == before
    user = repo.parent / ".claude" / "settings.json"  # run_doctor() runs with HOME=repo.parent
    user.parent.mkdir(exist_ok=True)
    user.write_text(json.dumps({"disableAllHooks": True}))
    local.write_text(json.dumps(dict(mine, disableAllHooks=False)))  # the local file wins over the user's
    assert not [c for c in _registered(doctor_report(repo)[1]) if c["level"] != "OK"]
    local.write_text(json.dumps({"permissions": {}}))
    warned = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Claude Code: hooks are switched off (disableAllHooks is true in {user}): Claude Code runs "
                      "none of them"]


@pytest.mark.parametrize("where", ["user", "project"])
def test_codex_hooks_switched_off_in_codexs_config_warn(repo, where):
    """`[features] hooks = false` (or the older `codex_hooks`) in Codex's config.toml: codex-cli 0.169 then runs
    no hook at all, without a word (seen against tests/e2e/fake_openai.py)."""
    installed_with_a_capture(repo)
    config = (repo.parent / ".codex" if where == "user" else repo / ".codex") / "config.toml"  # HOME=repo.parent
    config.parent.mkdir(exist_ok=True)
    config.write_text('model = "gpt-5"\n\n[features]\nweb_search = true\nhooks = false\n')
    warned = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Codex CLI: hooks are switched off ([features] hooks = false in {config}): Codex runs none "
                      "of them"]
    config.write_text('features.codex_hooks = false\n')
    assert [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"] == [
        f"Codex CLI: hooks are switched off ([features] codex_hooks = false in {config}): Codex runs none of them"]
    config.write_text('[features]\nhooks = true\n[profiles.x.features]\nhooks = false\n')
    assert not [c for c in _registered(doctor_report(repo)[1]) if "switched off" in c["detail"]]


def test_codex_trust_and_review_are_told(repo):
    """Codex CLI 0.169 loads no project hook while the project is untrusted, and runs none nobody reviewed in
    its /hooks, or that /hooks disabled (`[hooks.state."<hooks.json>:<event>:<group>:<handler>"]` in the
    user's config.toml; the keys and their effect checked against the real CLI: `codex app-server` hooks/list,
    then `codex exec` without --dangerously-bypass-hook-trust)."""
    installed_with_a_capture(repo)
    codex = repo.parent / ".codex"
    codex.mkdir()

    def warned():
        return [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "WARN"]

    assert warned() == []  # no config.toml: Codex never ran here, nothing to warn about; a first run is told
    told = [c["detail"] for c in _registered(doctor_report(repo)[1]) if c["level"] == "OK"]
    assert "Codex CLI: Codex has not run on this machine yet: at its first run here, trust this folder and approve " \
           "the hooks in its /hooks, or it skips them without a word" in told
    (codex / "config.toml").write_text('model = "gpt-5"\n')
    assert not any("has not run" in c["detail"] for c in _registered(doctor_report(repo)[1]))
    assert warned() == [f"Codex CLI: this project is not trusted in Codex ({codex / 'config.toml'} has no "
                        f"[projects.\"{repo}\"] trust_level = \"trusted\"): Codex loads none of its hooks (trust it "
                        "when Codex asks, or `codex exec --trust`)"]
    trusted = f'[projects."{repo}"]\ntrust_level = "trusted"\n'
    (codex / "config.toml").write_text(trusted)
    [line] = warned()
    assert line == ("Codex CLI: SessionStart, UserPromptSubmit, PostToolUse, SubagentStop, Stop, PreCompact, "
                    "SessionEnd, PreToolUse not reviewed in Codex: skipped until approved in its /hooks")
    hooks = json.loads((repo / ".codex/hooks.json").read_text())["hooks"]
    keys = [f"{repo}/.codex/hooks.json:{re.sub(r'(?<!^)(?=[A-Z])', '_', event).lower()}:{g}:0"
            for event, groups in hooks.items() for g in range(len(groups))]
    state = "".join(f'[hooks.state."{key}"]\ntrusted_hash = "sha256:00"\n' + ("enabled = false\n" if ":stop:" in key
                                                                              else "") for key in keys)
    (codex / "config.toml").write_text(trusted + state)
    assert warned() == ["Codex CLI: Stop disabled in Codex's /hooks: skipped"]


def test_a_toml_escape_json_does_not_know_is_read_not_a_crash(repo):
    """A config.toml key with a TOML escape JSON lacks (`\\U0001F600`, 8 hex digits; `\\e`): Codex writes the
    project's path as a quoted key, and the doctor read it with json.loads, failing whole ("unexpected failure")
    instead of reporting the project trusted."""
    installed_with_a_capture(repo)
    codex = repo.parent / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('[projects."/home/u/caf\\U000000e9"]\ntrust_level = "trusted"\n'
                                       '["\\e"]\nx = 1\n'
                                       f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    status, data, _ = doctor_report(repo)
    warned = [c["detail"] for c in _registered(data) if c["level"] == "WARN"]
    assert warned and "not reviewed in Codex" in warned[0] and "not trusted" not in warned[0]


def test_a_review_status_bd_would_refuse_is_named_with_the_declaration(repo, tmp_path, monkeypatch):
    installed_with_a_capture(repo)
    monkeypatch.setenv("PATH", FAKE_BD + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("FAKE_BD_DIR", str(tmp_path / "bd-state"))
    finding = doctor_report(repo)[2]["review status"]
    assert finding["level"] == "WARN" and "bd config set status.custom inreview" in finding["detail"]
    subprocess.run(["bd", "config", "set", "status.custom", "inreview"], check=True, capture_output=True)
    assert "review status" not in doctor_report(repo)[2]  # declared: nothing to say
    (repo / ".beads" / "memory" / "completion.json").write_text(json.dumps({"checks": {"bead-status": False}}))
    subprocess.run(["bd", "config", "set", "status.custom", ""], check=True, capture_output=True)
    assert "review status" not in doctor_report(repo)[2]  # the gate does not ask for a status
