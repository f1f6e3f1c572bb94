"""memory-doctor / recall.sh --doctor on real installs, broken files and held locks."""
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from helpers import ROOT, bash_payload, clean_env, copy_tree, git, held_lock, knowledge, make_repo, run_hook
from memory.store import store

DOCTOR = str(ROOT / "bin" / "memory-doctor")


def doctor(repo, *args, cwd=None):
    env = clean_env()
    env["HOME"] = str(repo.parent)  # no user-level plugin settings
    return subprocess.run([DOCTOR, *args], cwd=cwd or repo, capture_output=True, text=True, env=env)


def report(repo, *args, cwd=None):
    proc = doctor(repo, "--json", *args, cwd=cwd)
    data = json.loads(proc.stdout)
    return proc.returncode, data, {c["check"]: c for c in data["checks"]}


def _install_and_capture(repo, venv=False):
    flags = ["--no-self-check"] + ([] if venv else ["--no-venv"])
    subprocess.run([str(ROOT / "install.sh"), *flags, str(repo)], check=True, capture_output=True)
    run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: doctor sees this"', repo), repo)
    return repo


_INSTALLED: list = []


def installed(repo, venv=False):
    """`repo` installed by install.sh with one memory captured by the hook. Without the virtualenv: a copy of
    one such project made once for this module (the doctor reads it; a copy is what a fresh install makes)."""
    if venv:
        return _install_and_capture(repo, venv=True)
    if not _INSTALLED:
        _INSTALLED.append(_install_and_capture(make_repo(Path(tempfile.mkdtemp(prefix="mh-doctor-tpl-")) / "project")))
    return copy_tree(_INSTALLED[0], repo)


@pytest.mark.slow  # builds a real virtualenv with pip (~10 s)
def test_healthy_install_is_ok(repo):
    code, data, checks = report(installed(repo, venv=True))
    assert code == 0 and data["status"] == "OK", data
    registered = [c["detail"] for c in data["checks"] if c["check"] == "registered"]
    assert registered[0].startswith(".claude/settings.json: SessionStart") and "afterShellExecution" in registered[1]
    assert "project virtualenv; orjson+filelock" in checks["interpreter"]["detail"]
    assert checks["inbox"]["detail"].startswith("1 capture file(s), 1 lines, 0 malformed")
    assert checks["lock"]["detail"] == "free"


def test_without_the_virtualenv_the_interpreter_warns(repo):
    code, _, checks = report(installed(repo))
    interpreter = checks["interpreter"]
    assert code == 1 and interpreter["level"] == "WARN" and "run install.sh" in interpreter["detail"]


def test_nothing_installed_fails(repo):
    code, data, _ = report(repo)
    assert code == 2 and data["status"] == "FAIL"
    assert "FAIL  registered" in doctor(repo).stdout


def test_malformed_and_duplicate_lines_warn_and_repair(repo):
    installed(repo)
    active = repo / ".beads" / "memory" / store.ACTIVE
    [fragment] = (repo / ".beads" / "memory" / "inbox").iterdir()
    line = fragment.read_bytes()
    fragment.unlink()
    active.write_bytes(line + line + b'{"key":"torn\n' + b"not json\n")
    code, _, checks = report(repo)
    knowledge = checks["knowledge.jsonl"]
    assert knowledge["level"] == "WARN" and "2 malformed, 1 duplicate" in knowledge["detail"]
    proc = doctor(repo, "--repair")
    assert "moved 2 malformed line(s) to knowledge.corrupt.jsonl, removed 1 duplicate" in proc.stdout
    assert active.read_bytes() == line
    assert (repo / ".beads" / "memory" / store.CORRUPT).read_bytes() == b'{"key":"torn\nnot json\n'
    code, _, checks = report(repo)
    assert "0 malformed, 0 duplicate" in checks["knowledge.jsonl"]["detail"] and checks["quarantine"]["level"] == "WARN"


def test_repair_finishes_an_interrupted_rotation(repo):
    installed(repo)
    memory = repo / ".beads" / "memory"
    stat = os.stat(memory / store.ACTIVE)
    (memory / store.JOURNAL).write_text(json.dumps({"archive_size": 0, "active_ino": stat.st_ino,
                                                    "active_dev": stat.st_dev}))
    (memory / store.ARCHIVE).write_bytes(b'{"half an archive')
    assert report(repo)[2]["rotation"]["level"] == "WARN"
    doctor(repo, "--repair")
    assert not (memory / store.JOURNAL).exists() and (memory / store.ARCHIVE).read_bytes() == b""
    assert [e["content"] for e in knowledge(repo)] == ["doctor sees this"]


def test_symlinked_knowledge_file_fails(repo, tmp_path):
    installed(repo)
    active = repo / ".beads" / "memory" / store.ACTIVE
    active.unlink()
    os.symlink(tmp_path / "elsewhere", active)
    code, _, checks = report(repo)
    assert code == 2 and "symlink" in checks["knowledge.jsonl"]["detail"]


def test_held_lock_reports_its_live_holder(repo):
    installed(repo)
    memory = repo / ".beads" / "memory"
    with held_lock(memory / store.LOCK) as holder:
        checks = report(repo)[2]
        assert checks["lock"]["detail"] == f"held by pid {holder.pid}" and checks["lock"]["level"] == "OK"
    assert report(repo)[2]["lock"]["detail"] == "free"  # a dead holder's flock is gone with it


def test_duplicate_registrations_warn(repo):
    installed(repo)
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    (repo / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": settings["hooks"]}))
    checks = report(repo)[2]
    assert checks["duplicates"]["level"] == "WARN" and "SessionStart" in checks["duplicates"]["detail"]


def test_from_a_worktree_names_the_main_checkout(repo):
    installed(repo)
    git(repo, "worktree", "add", "-q", ".worktrees/bd-5", "-b", "bd-5")
    wt = repo / ".worktrees" / "bd-5"
    checks = report(repo, cwd=wt)[2]
    assert "main checkout; you are in worktree" in checks["memory root"]["detail"]
    assert str(repo / ".beads" / "memory") in checks["memory root"]["detail"]


def test_recall_doctor_is_the_same_command(repo):
    installed(repo)
    proc = subprocess.run([str(repo / ".beads" / "memory" / "recall.sh"), "--doctor", "--json"], capture_output=True,
                          text=True, env={**os.environ, "HOME": str(repo.parent)})
    data = json.loads(proc.stdout)
    assert data["memory_dir"] == str(repo / ".beads" / "memory")
    assert proc.returncode == {"OK": 0, "WARN": 1}[data["status"]]


def test_recent_errors_warn(repo):
    installed(repo)
    run_hook("memory_capture", b"garbage", repo)
    checks = report(repo)[2]
    assert checks["errors.log"]["level"] == "WARN" and "not a JSON object" in checks["errors.log"]["detail"]


# --- every runtime install.sh registers with is checked ----------------------------------------------------

RUNTIME_FILES = {".claude/settings.json": "Claude Code", ".cursor/hooks.json": "Cursor",
                 ".gemini/settings.json": "Gemini CLI", ".codex/hooks.json": "Codex CLI"}


def _registered(data):
    return [c for c in data["checks"] if c["check"] in ("registered", "duplicates")]


def test_every_runtimes_registration_is_reported(repo):
    installed(repo)
    lines = [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "OK"]
    assert [line.split(":")[0] for line in lines] == list(RUNTIME_FILES)
    assert "AfterTool[run_shell_command]" in lines[2] and "PostToolUse[Bash]" in lines[3]


def test_a_broken_runtime_file_fails(repo):
    """Each broken file is one failure of its own, naming the runtime that runs no hook from it."""
    broken = [".gemini/settings.json", ".codex/hooks.json", ".cursor/hooks.json"]
    installed(repo)
    for rel in broken:
        (repo / rel).write_text('{"hooks": {"SessionStart": [}\n')
    code, data, _ = report(repo)
    failures = [c["detail"] for c in _registered(data) if c["level"] == "FAIL"]
    assert code == 2 and len(failures) == len(broken), failures
    for rel in broken:
        [failure] = [f for f in failures if f.startswith(f"{rel}:")]
        assert "not valid JSON" in failure and f"{RUNTIME_FILES[rel]} runs no hook from it" in failure


def test_a_missing_event_an_old_command_and_a_missing_hook_file_are_reported(repo):
    """In Gemini's and Codex's files at once: each file's lost event, old command and missing hook file."""
    installed(repo)
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
    checks = _registered(report(repo)[1])
    for label, event in lost.items():
        assert any(c["level"] == "WARN" and c["detail"].startswith(f"{label}: not registered for {event}")
                   for c in checks), (label, checks)
        assert any(c["level"] == "WARN" and c["detail"].startswith(f"{label}:") and
                   "registered by another version" in c["detail"] for c in checks), (label, checks)
    (repo / ".claude/hooks/memory-hooks/hooks/capture_reply.py").unlink()
    code, data, _ = report(repo)
    for label in lost:
        assert code == 2 and any(c["level"] == "FAIL" and c["detail"].startswith(f"{label}:") and
                                 "hooks/capture_reply.py, which is not installed" in c["detail"]
                                 for c in _registered(data)), label


def test_a_runtime_left_out_at_install_is_not_reported(repo):
    subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", "--no-gemini", "--no-codex",
                    str(repo)], check=True, capture_output=True)
    details = [c["detail"] for c in _registered(report(repo)[1])]
    assert not [d for d in details if "gemini" in d.lower() or "codex" in d.lower()]


# --- a memory folder or knowledge file that can't be written -----------------------------------------------

def _as_nobody(argv):
    """argv as an unprivileged user (root may write anything)."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", *argv]


needs_setpriv = pytest.mark.skipif(
    os.geteuid() == 0 and not shutil.which("setpriv"), reason="running as root without setpriv: all is writable")


@needs_setpriv
@pytest.mark.parametrize("what", ["knowledge file", "memory folder"])
def test_a_memory_that_cannot_be_written_fails_with_the_fix(what):
    base = Path(tempfile.mkdtemp(prefix="mh-doctor-"))  # outside pytest's 0700 tmp folder: nobody may enter
    try:
        os.chmod(base, 0o755)
        repo = make_repo(base / "project")
        installed(repo)
        memory = repo / ".beads" / "memory"
        if os.geteuid() == 0:  # the user's own project, with one part of it root's
            subprocess.run(["chown", "-R", "65534:65534", str(base)], check=True)
            os.chown(memory / store.ACTIVE if what == "knowledge file" else memory, 0, 0)
        else:
            os.chmod(memory / store.ACTIVE if what == "knowledge file" else memory, 0o555)
        env = clean_env(HOME=str(base))
        proc = subprocess.run(_as_nobody([DOCTOR, "--json"]), cwd=repo, capture_output=True, text=True, env=env)
        data = json.loads(proc.stdout)
        failures = [c["detail"] for c in data["checks"] if c["check"] == "writable"]
        assert proc.returncode == 2 and data["status"] == "FAIL" and "Traceback" not in proc.stderr
        bad = str(memory / store.ACTIVE) if what == "knowledge file" else str(memory)
        assert any(f.startswith(f"{bad} cannot be written (Permission denied)") and ("chown" in f or "chmod" in f)
                   for f in failures), failures
        repair = subprocess.run(_as_nobody([DOCTOR, "--repair"]), cwd=repo, capture_output=True, text=True, env=env)
        assert repair.returncode == 2 and "Traceback" not in repair.stderr and "FAIL  writable" in repair.stdout
    finally:
        subprocess.run(["rm", "-rf", str(base)])


def test_a_writable_memory_is_ok(repo):
    installed(repo)
    checks = report(repo)[2]
    assert checks["writable"]["level"] == "OK"
    assert not [n for n in os.listdir(repo / ".beads" / "memory") if n.startswith(".doctor")]  # the probe is gone


def test_an_ignored_inbox_fails(repo):
    """Captures in an ignored inbox would never be committed (a hand-written `.beads/memory/*` rule)."""
    installed(repo)
    with open(repo / ".gitignore", "a") as fh:
        fh.write(".beads/memory/*\n!.beads/memory/knowledge*.jsonl\n")
    code, _, checks = report(repo)
    assert code == 2 and checks["inbox"]["level"] == "FAIL" and "!.beads/memory/inbox/" in checks["inbox"]["detail"]
    with open(repo / ".gitignore", "a") as fh:
        fh.write("!.beads/memory/inbox/\n")
    assert report(repo)[2]["inbox"]["level"] == "OK"


def test_gemini_hooks_switched_off_in_geminis_own_settings_warn(repo):
    """Gemini CLI skips every hook when `hooksConfig.enabled` is false, and a hook whose name (its `name`, else its
    command) `/hooks disable` put in `hooksConfig.disabled`, in the user's or the project's settings: the
    registration alone is not the truth then."""
    installed(repo)
    project = json.loads((repo / ".gemini/settings.json").read_text())
    assert not [c for c in _registered(report(repo)[1]) if c["level"] != "OK"]
    user = repo.parent / ".gemini" / "settings.json"  # doctor() runs with HOME=repo.parent
    user.parent.mkdir(exist_ok=True)
    user.write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    warned = [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Gemini CLI: hooks are switched off (hooksConfig.enabled is false in {user}): Gemini runs "
                      "none of them"]
    after_agent = project["hooks"]["AfterAgent"][0]["hooks"][0]
    user.write_text(json.dumps({"hooksConfig": {"disabled": [after_agent["command"]]}}))  # not what names it
    assert not [c for c in _registered(report(repo)[1]) if c["level"] != "OK"]
    user.write_text(json.dumps({"hooksConfig": {"disabled": [after_agent["name"]]}}))
    project["hooksConfig"] = {"enabled": True}
    (repo / ".gemini/settings.json").write_text(json.dumps(project))
    warned = [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Gemini CLI: AfterAgent is disabled (hooksConfig.disabled in {user}): Gemini skips it "
                      "(/hooks enable in Gemini)"]
    user.write_text("{ // a comment: Gemini reads its settings with comments\n \"hooksConfig\": {\"enabled\": false}}")
    project["hooksConfig"] = {}
    (repo / ".gemini/settings.json").write_text(json.dumps(project))
    assert [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"][0].startswith(
        "Gemini CLI: hooks are switched off")


def test_claude_hooks_switched_off_in_claudes_own_settings_warn(repo):
    """Claude Code runs no hook when `disableAllHooks` is true in the settings that win (local over project over
    user): the doctor said every check was OK while not one hook ran. The user's own settings.local.json, as a
    repository with history has it (permissions, a hook of theirs), is read, never changed."""
    installed(repo)
    local = repo / ".claude" / "settings.local.json"
    mine = {"permissions": {"allow": ["Bash(make test)"]}, "disableAllHooks": True,
            "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/prompt-log.sh"}]}]}}
    local.write_text(json.dumps(mine, indent=2))
    before = local.read_bytes()
    warned = [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Claude Code: hooks are switched off (disableAllHooks is true in {local}): Claude Code runs "
                      "none of them"]
    assert local.read_bytes() == before
    user = repo.parent / ".claude" / "settings.json"  # doctor() runs with HOME=repo.parent
    user.parent.mkdir(exist_ok=True)
    user.write_text(json.dumps({"disableAllHooks": True}))
    local.write_text(json.dumps(dict(mine, disableAllHooks=False)))  # the local file wins over the user's
    assert not [c for c in _registered(report(repo)[1]) if c["level"] != "OK"]
    local.write_text(json.dumps({"permissions": {}}))
    warned = [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Claude Code: hooks are switched off (disableAllHooks is true in {user}): Claude Code runs "
                      "none of them"]


@pytest.mark.parametrize("where", ["user", "project"])
def test_codex_hooks_switched_off_in_codexs_config_warn(repo, where):
    """`[features] hooks = false` (or the older `codex_hooks`) in Codex's config.toml: codex-cli 0.169 then runs
    no hook at all, without a word (seen against tests/e2e/fake_openai.py)."""
    installed(repo)
    config = (repo.parent / ".codex" if where == "user" else repo / ".codex") / "config.toml"  # HOME=repo.parent
    config.parent.mkdir(exist_ok=True)
    config.write_text('model = "gpt-5"\n\n[features]\nweb_search = true\nhooks = false\n')
    warned = [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"]
    assert warned == [f"Codex CLI: hooks are switched off ([features] hooks = false in {config}): Codex runs none "
                      "of them"]
    config.write_text('features.codex_hooks = false\n')
    assert [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"] == [
        f"Codex CLI: hooks are switched off ([features] codex_hooks = false in {config}): Codex runs none of them"]
    config.write_text('[features]\nhooks = true\n[profiles.x.features]\nhooks = false\n')
    assert not [c for c in _registered(report(repo)[1]) if "switched off" in c["detail"]]


def test_codex_trust_and_review_are_told(repo):
    """Codex CLI 0.169 loads no project hook while the project is untrusted, and runs none nobody reviewed in
    its /hooks, or that /hooks disabled (`[hooks.state."<hooks.json>:<event>:<group>:<handler>"]` in the
    user's config.toml; the keys and their effect checked against the real CLI: `codex app-server` hooks/list,
    then `codex exec` without --dangerously-bypass-hook-trust)."""
    installed(repo)
    codex = repo.parent / ".codex"
    codex.mkdir()

    def warned():
        return [c["detail"] for c in _registered(report(repo)[1]) if c["level"] == "WARN"]

    assert warned() == []  # no config.toml: Codex never ran here, nothing to say
    (codex / "config.toml").write_text('model = "gpt-5"\n')
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
    installed(repo)
    codex = repo.parent / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('[projects."/home/u/caf\\U000000e9"]\ntrust_level = "trusted"\n'
                                       '["\\e"]\nx = 1\n'
                                       f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    status, data, _ = report(repo)
    warned = [c["detail"] for c in _registered(data) if c["level"] == "WARN"]
    assert warned and "not reviewed in Codex" in warned[0] and "not trusted" not in warned[0]


def test_a_misspelt_or_mistyped_setting_is_named_and_the_hooks_use_the_default(repo):
    """The hooks ignore a setting they cannot use (and stay quiet about it): the doctor says which."""
    from memory.core import config
    from memory.orchestration import completion

    repo = installed(repo)
    memory = repo / ".beads" / "memory"
    (memory / "config.json").write_text('{"session_budget_token": 1500, "prompt_max_entries": "3", '
                                        '"prompt_relative_cut": 1, "semantic": false}\n')
    (memory / "completion.json").write_text('{"max_blocks": "2", "supervisor_types": ["supervisor", 7]}\n')
    proc = doctor(repo, "--json")
    found = [c for c in json.loads(proc.stdout)["checks"] if c["check"] == "settings"]
    assert [c["level"] for c in found] == ["WARN", "WARN"] and proc.returncode == 1
    said = " ".join(c["detail"] for c in found)
    assert "`session_budget_token` is no setting (did you mean `session_budget_tokens`?)" in said
    assert '`prompt_max_entries` is "3", not a whole number: the default 5 is used' in said
    assert "`max_blocks`" in said and "`supervisor_types`" in said and "prompt_relative_cut" not in said
    taken = config.load(str(memory))
    assert (taken["prompt_max_entries"], taken["prompt_relative_cut"], taken["semantic"]) == (5, 1.0, False)
    gate = completion.load_config(str(memory))
    assert gate["max_blocks"] == 2 and gate["supervisor_types"] == ["supervisor"]
    (memory / "config.json").write_text('{"prompt_max_entries": 3}\n')
    (memory / "completion.json").write_text("[1, 2]\n")
    found = {c["detail"].split(":")[0]: c["level"] for c in report(repo)[1]["checks"] if c["check"] == "settings"}
    assert found == {"config.json": "OK", "completion.json": "WARN"}


def test_a_fifo_for_the_users_claude_settings_never_hangs_the_doctor(repo):
    """memory-doctor reads ~/.claude/settings.json (disableAllHooks, an enabled plugin): a FIFO there made open()
    wait for a writer forever. Now it is unreadable, as if absent, and the doctor answers."""
    _install_and_capture(repo)
    (repo.parent / ".claude").mkdir()
    os.mkfifo(repo.parent / ".claude" / "settings.json")
    env = dict(clean_env(), HOME=str(repo.parent))
    proc = subprocess.run([DOCTOR, "--json"], cwd=repo, capture_output=True, text=True, env=env, timeout=60)
    assert {c["check"] for c in json.loads(proc.stdout)["checks"]} >= {"registered"}, proc.stderr
