"""Shared test helpers: real git repos, hook files run as the runtime runs them, real payload fixtures,
and the one check of what a hook may print."""
from __future__ import annotations

import atexit
import contextlib
import importlib
import io
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FAKE_BD = str(ROOT / "tests" / "fake_bd")
RUNTIME_ENV_PREFIXES = ("CLAUDE", "CURSOR", "GEMINI", "CODEX", "MEMORY_HOOKS")


def clean_env(**extra: str) -> dict:
    """This process's environment without any runtime's or memory-hooks' variables, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(RUNTIME_ENV_PREFIXES)}
    env.update(extra)
    return env


def bd_env(state_dir: Path, **extra: str) -> dict:
    """Environment entries that put the fake bd first on PATH, its state in `state_dir`."""
    return {"PATH": FAKE_BD + os.pathsep + os.environ["PATH"], "FAKE_BD_DIR": str(state_dir), **extra}


@contextlib.contextmanager
def held_lock(lock_path: Path) -> Iterator[subprocess.Popen]:
    """Another process holding `lock_path` (memory.core.locking) for the body of the with-block, then killed:
    a stuck writer, as a hook sees it."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; sys.path.insert(0, sys.argv[1]); from memory.core import locking\n"
        "with locking.exclusive(sys.argv[2]):\n print('held', flush=True); time.sleep(120)"),
        str(ROOT), str(lock_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def git(cwd, *args: str) -> str:
    """Run git quietly with a fixed identity; returns stdout."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()


_REPO_TEMPLATE: list[Path] = []


def make_repo(path: Path) -> Path:
    """A real git repository with one commit on `main` at `path` (files already there stay untracked): a copy
    of one made by git in this process (a copy costs a tenth of `git init` + `git commit`; most tests start
    with a repository). Made from an empty template: no sample hooks, which nothing here runs (half of
    what every copy would copy)."""
    if not _REPO_TEMPLATE:
        template = Path(tempfile.mkdtemp(prefix="memory-hooks-test-repo-")) / "repo"
        atexit.register(shutil.rmtree, template.parent, True)  # the process's own template, gone with it
        template.mkdir()
        git(template, "init", "-q", "-b", "main", "--template=")
        git(template, "commit", "-q", "--allow-empty", "-m", "init")
        _REPO_TEMPLATE.append(template)
    shutil.copytree(_REPO_TEMPLATE[0], path, dirs_exist_ok=True)
    return path


def fixture_payload(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def bash_payload(command: str, cwd: Path, **extra) -> dict:
    """A PostToolUse(Bash) payload shaped like the recorded Claude Code 2.1.330 ones."""
    payload = fixture_payload("claude-code/2.1.330/PostToolUse-8.json")
    payload["cwd"] = str(cwd)
    payload["tool_input"] = {"command": command, "description": "test"}
    payload["tool_use_id"] = "toolu_" + str(abs(hash((command, str(cwd)))))
    payload.update(extra)
    return payload


def run_hook(name: str, stdin, cwd: Path, env: dict | None = None, args=(), python: str = sys.executable,
             timeout: float = 60, python_args=(), root: Path = ROOT) -> subprocess.CompletedProcess:
    """Run <root>/hooks/<name>.py exactly as a runtime does: JSON on stdin, CLAUDE_PROJECT_DIR, cwd = project
    (`root`: this checkout, or a copy such as plugin_copy's)."""
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    # MEMORY_HOOKS_FOREGROUND: detached hooks finish before we look (a test sets "" to detach)
    full_env = clean_env(CLAUDE_PROJECT_DIR=str(cwd), MEMORY_HOOKS_FOREGROUND="1")
    full_env.update(env or {})
    return subprocess.run([python, *python_args, str(root / "hooks" / f"{name}.py"), *args], input=data, cwd=cwd,
                          env=full_env, capture_output=True, timeout=timeout)


@contextlib.contextmanager
def plugin_copy() -> Iterator[Path]:
    """The plugin's files where Claude Code caches a plugin (`~/.claude/plugins/cache/<market>/<name>/<version>`),
    under a short home so the path is as long as a user's, whatever the checkout's or temporary folder's path."""
    with tempfile.TemporaryDirectory(prefix="mh-", dir="/tmp") as home:
        plugin = Path(home) / ".claude" / "plugins" / "cache" / "memory-hooks" / "memory-hooks" / "0.1.0"
        for part in ("hooks", "memory", "bin"):
            shutil.copytree(ROOT / part, plugin / part, ignore=shutil.ignore_patterns("__pycache__"))
        yield plugin


def hook_in_process(name: str, stdin, cwd: Path, monkeypatch, env: dict | None = None) -> bytes:
    """hooks/<name>.py's main() in this process, given what run_hook gives a process (stdin, cwd = project,
    CLAUDE_PROJECT_DIR, MEMORY_HOOKS_FOREGROUND, no runtime's variables, `env`): exit status 0 asserted, its stdout
    returned. For many variants of one path whose real hook file other tests run as a process."""
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    monkeypatch.chdir(cwd)
    for key in [k for k in os.environ if k.startswith(RUNTIME_ENV_PREFIXES)]:
        monkeypatch.delenv(key)
    for key, value in {"CLAUDE_PROJECT_DIR": str(cwd), "MEMORY_HOOKS_FOREGROUND": "1", **(env or {})}.items():
        monkeypatch.setenv(key, value)  # FOREGROUND: never fork the test runner
    module = importlib.import_module(f"hooks.{name}")
    out = io.BytesIO()
    real_stdin, real_stdout = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(data)), io.TextIOWrapper(out, encoding="utf-8")
    try:
        assert module.main([]) == 0
        sys.stdout.flush()
        return out.getvalue()
    finally:
        sys.stdin, sys.stdout = real_stdin, real_stdout


def hook_context(name: str, fixture: str, repo: Path, **fields) -> str:
    """Run hooks/<name>.py on a recorded payload (cwd = repo, `fields` replaced): its additionalContext, or ''."""
    payload = fixture_payload(fixture)
    payload.update(cwd=str(repo), **fields)
    proc = run_hook(name, payload, repo)
    assert proc.returncode == 0
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else ""


def _files_of(repo_path: Path, name: str = "knowledge.jsonl") -> list[Path]:
    """A knowledge file; for knowledge.jsonl the active knowledge: the file, then the inbox's fragments in
    order (memory.store.inbox), where captures go."""
    return _memory_files(repo_path / ".beads" / "memory", name)


def _memory_files(memory: Path, name: str) -> list[Path]:
    """_files_of for a memory folder given as such."""
    paths = [memory / name]
    if name == "knowledge.jsonl" and (memory / "inbox").is_dir():
        paths += sorted(p for p in (memory / "inbox").iterdir() if p.name.endswith(".jsonl"))
    return [p for p in paths if p.exists()]


def active_bytes(repo_path: Path) -> bytes:
    """Every byte of the active knowledge as stored: knowledge.jsonl, then the inbox's fragments in order."""
    return b"".join(p.read_bytes() for p in _files_of(repo_path))


def knowledge(repo_path: Path, name: str = "knowledge.jsonl") -> list:
    """The lines of a knowledge file, parsed. For knowledge.jsonl: the active knowledge, i.e. the file and
    then the inbox's fragments in order (memory.store.inbox), where captures go."""
    # split on "\n" only: str.splitlines() would also split inside content at U+2028 and friends
    return [json.loads(line) for path in _files_of(repo_path, name)
            for line in path.read_bytes().split(b"\n") if line.strip()]


def numbered_insight(i: int, key: str | None = None, ts: float | None = None) -> dict:
    """Entry number `i` ("insight number i", bead BD-i, ts 1000 + i unless given), under `key` when given."""
    from memory.store import entry

    e = entry.build(f"insight number {i}", f"BD-{i}", "orchestrator", ts=ts if ts is not None else 1000 + i)
    if key:
        e["key"] = key
    return e


def memory_lines(path: Path) -> list:
    """The lines of the knowledge file `path` (in any memory folder), parsed; for knowledge.jsonl the active
    knowledge, as `knowledge` reads it."""
    return [json.loads(line) for file in _memory_files(path.parent, path.name)
            for line in file.read_bytes().split(b"\n") if line.strip()]


def error_log(repo_path: Path) -> str:
    path = repo_path / ".beads" / "memory" / "errors.log"
    return path.read_text() if path.exists() else ""


# Every answer a hook of ours may give, by its top-level keys: the runtimes read nothing else.
_ANSWER_SHAPES = {
    frozenset({"hookSpecificOutput"}): {"hookEventName": str, "additionalContext": str},
    frozenset({"additional_context"}): None,
    frozenset({"decision", "reason"}): None,
    frozenset({"followup_message"}): None,
    frozenset({"systemMessage"}): None,
}


def assert_protocol(out: bytes | str) -> None:
    """A hook's stdout is nothing at all, or exactly one JSON object of an answer shape a runtime reads."""
    text = out.decode("utf-8") if isinstance(out, bytes) else out
    if text == "":
        return
    answer = json.loads(text)  # raises on "oops", on two objects, on trailing garbage
    assert isinstance(answer, dict), f"hook answered JSON {type(answer).__name__}: {text[:200]!r}"
    shape = frozenset(answer)
    assert shape in _ANSWER_SHAPES, f"hook answered an unknown shape {sorted(shape)}: {text[:200]!r}"
    inner = _ANSWER_SHAPES[shape]
    if inner is None:
        assert all(isinstance(v, str) and v for v in answer.values()), text[:200]
        if "decision" in answer:
            assert answer["decision"] == "block", text[:200]
    else:
        fields = answer["hookSpecificOutput"]
        assert isinstance(fields, dict) and set(fields) == set(inner), text[:200]
        assert all(isinstance(fields[k], t) and fields[k] for k, t in inner.items()), text[:200]


def source_copy(dest: Path) -> Path:
    """This clone's files at `dest`, without its git folder, virtualenv, caches and build output: what a
    fresh clone holds (pip wheel writes build/ into its source; Claude Code reads a local plugin in place)."""
    import shutil

    ignore = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                    ".mypy_cache", ".ruff_cache", ".hypothesis")
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    return dest


MIGRATION_RULE = "Database migrations must be reversible: every alembic upgrade needs a downgrade."


def seed_rule_among_notes(repo: Path) -> None:
    """A knowledge base of one rule (MIGRATION_RULE, BD-3) among twenty newer unrelated notes."""
    from memory.store import entry, store

    d = str(repo / ".beads" / "memory")
    store.append(d, [entry.build(MIGRATION_RULE, "BD-3", "orchestrator", ts=1_600_000_000)])
    store.append(d, [entry.build(f"Note {i}: the release notes rule number {i} applies here.", f"BD-{100 + i}",
                                 "orchestrator", ts=1_700_000_000 + i) for i in range(20)])


def copy_tree(src: Path, dest: Path) -> Path:
    """Copy a folder of repositories (worktrees, local remotes) made once by git, with the absolute paths git
    wrote (a remote's url, a worktree's gitdir links) moved to `dest`: what git would have made at `dest`."""
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
    old, new = str(src).encode(), str(dest).encode()
    for root, _dirs, files in os.walk(dest):
        for name in files:
            if name in (".git", "config", "gitdir") and ("/.git" in root or name == ".git"):
                file = os.path.join(root, name)
                data = Path(file).read_bytes()
                if old in data:
                    Path(file).write_bytes(data.replace(old, new))
    return dest


INSTALL = str(ROOT / "install.sh")
# The shape of a real-world project settings file (as Claude Code documents it): other tools' hooks,
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


def install(target, *args, env=None, check=True) -> subprocess.CompletedProcess:
    """install.sh run on `target` as a user runs it (a clean environment), asserting exit 0 when `check`."""
    full_env = clean_env()
    full_env.update(env or {})
    proc = subprocess.run([INSTALL, *args, str(target)], capture_output=True, text=True, env=full_env)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def tree(repo: Path, skip=(".git",)) -> dict:
    """Every file below the repo (outside .git, and any other folder named in `skip`) with its bytes."""
    out = {}
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in files:
            path = Path(folder) / name
            out[str(path.relative_to(repo))] = path.read_bytes()
    return out


def clone(remote: Path, path: Path) -> Path:
    """`git clone` of `remote` into `path`, with a committer identity."""
    subprocess.run(["git", "clone", "-q", str(remote), str(path)], check=True, capture_output=True)
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    return path


def installed_clone_of_a_new_remote(path: Path) -> tuple[Path, Path]:
    """A bare remote `path/remote.git` and its clone `path/a`, one commit, memory-hooks installed by install.sh
    (not committed yet): (remote, a)."""
    remote = path / "remote.git"
    git(path, "init", "-q", "--bare", "-b", "main", str(remote))
    a = clone(remote, path / "a")
    git(a, "commit", "-q", "--allow-empty", "-m", "init")
    subprocess.run([INSTALL, "--no-venv", "--no-self-check", str(a)], check=True, capture_output=True,
                   env=clean_env())
    return remote, a


def installed_project(path: Path) -> Path:
    """A real git repository with memory-hooks installed by install.sh (no venv, no self-check)."""
    make_repo(path)
    proc = subprocess.run([str(ROOT / "install.sh"), "--no-venv", "--no-self-check", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return path


DOCTOR = str(ROOT / "bin" / "memory-doctor")


def run_doctor(repo, *args, cwd=None) -> subprocess.CompletedProcess:
    """bin/memory-doctor ARGS in `repo` (or `cwd`), with no user-level settings (HOME is the folder above)."""
    env = clean_env()
    env["HOME"] = str(repo.parent)  # no user-level plugin settings
    return subprocess.run([DOCTOR, *args], cwd=cwd or repo, capture_output=True, text=True, env=env)


def doctor_report(repo, *args, cwd=None) -> tuple:
    """memory-doctor --json: (exit status, the whole report, {check: its finding})."""
    proc = run_doctor(repo, "--json", *args, cwd=cwd)
    data = json.loads(proc.stdout)
    return proc.returncode, data, {c["check"]: c for c in data["checks"]}


def _install_with_a_capture(repo, venv=False):
    flags = ["--no-self-check"] + ([] if venv else ["--no-venv"])
    subprocess.run([str(ROOT / "install.sh"), *flags, str(repo)], check=True, capture_output=True)
    run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: doctor sees this"', repo), repo)
    return repo


_DOCTOR_TEMPLATE: list = []


def installed_with_a_capture(repo, venv=False) -> Path:
    """`repo` installed by install.sh with one memory captured by the hook. Without the virtualenv: a copy of
    one such project made once per test process (the doctor reads it; a copy is what a fresh install makes)."""
    if venv:
        return _install_with_a_capture(repo, venv=True)
    if not _DOCTOR_TEMPLATE:
        template = make_repo(Path(tempfile.mkdtemp(prefix="mh-doctor-tpl-")) / "project")
        _DOCTOR_TEMPLATE.append(_install_with_a_capture(template))
    return copy_tree(_DOCTOR_TEMPLATE[0], repo)


# Cursor's third-party import runs .claude/settings.json hooks too, under its own event and tool names
CURSOR_FOR_CLAUDE_EVENT = {"PreToolUse": "preToolUse", "PostToolUse": "postToolUse",
                           "UserPromptSubmit": "beforeSubmitPrompt", "Stop": "stop", "SubagentStop": "subagentStop",
                           "SessionStart": "sessionStart", "SessionEnd": "sessionEnd", "PreCompact": "preCompact"}
CURSOR_FOR_CLAUDE_TOOL = {"Bash": "Shell", "Edit": "Write", "MultiEdit": "Write"}


def cursor_runs(repo: Path, payload: dict, env: dict | None = None) -> list[tuple[str, subprocess.CompletedProcess]]:
    """Every command the repository registers for the Cursor payload's event, run as Cursor runs it (`sh -c`, cwd the
    project, CURSOR_PROJECT_DIR and CLAUDE_PROJECT_DIR set): .cursor/hooks.json's, then .claude/settings.json's
    (Cursor's third-party import, on by default: Claude events and tool names mapped to Cursor's).
    [("cursor" | "claude", process)]."""
    import re

    event, tool = payload["hook_event_name"], payload.get("tool_name")
    commands = []
    native = json.loads((repo / ".cursor" / "hooks.json").read_text())["hooks"].get(event, [])
    for handler in native:
        if not handler.get("matcher") or tool is None or re.fullmatch(handler["matcher"], tool):
            commands.append(("cursor", handler["command"]))
    claude_settings = repo / ".claude" / "settings.json"
    imported = json.loads(claude_settings.read_text()).get("hooks", {}) if claude_settings.exists() else {}
    for claude_event, groups in imported.items():
        if CURSOR_FOR_CLAUDE_EVENT.get(claude_event) != event:
            continue
        for group in groups:
            matcher = "|".join(CURSOR_FOR_CLAUDE_TOOL.get(n, n) for n in (group.get("matcher") or "").split("|"))
            if matcher and tool is not None and claude_event != "SessionStart" and not re.fullmatch(matcher, tool):
                continue
            commands.extend(("claude", h["command"]) for h in group["hooks"])
    full_env = clean_env(CURSOR_PROJECT_DIR=str(repo), CLAUDE_PROJECT_DIR=str(repo), MEMORY_HOOKS_FOREGROUND="1",
                         CURSOR_VERSION=str(payload.get("cursor_version", "3.9.16")))
    full_env.update(env or {})
    data = json.dumps(payload).encode()
    return [(who, subprocess.run(["sh", "-c", command], input=data, cwd=repo, env=full_env, capture_output=True,
                                 timeout=60)) for who, command in commands]


@contextlib.contextmanager
def fake_model_api(fake: str, script: list, out: Path) -> Iterator[int]:
    """tests/e2e/<fake> serving `script` on 127.0.0.1 for one session, logging to out/requests.jsonl: its port."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "script.json").write_text(json.dumps(script))
    port_file = out / "port"
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "e2e" / fake), str(out / "script.json"),
                               str(out / "requests.jsonl"), str(port_file), "120"])
    try:
        import time

        for _ in range(200):
            if port_file.exists() and port_file.read_text():
                break
            time.sleep(0.05)
        yield int(port_file.read_text())
    finally:
        server.kill()
        server.wait()


# -- the real Claude Code CLI (tests/e2e, tests/install/test_marketplace.py) --------------------------------

# beside the project's checkout (/work/main -> /work/shared), or two up from a worktree (/work/wt/<name>)
HARNESS = next((up / "shared" / "tools" / "claude-real" for up in (ROOT.parent, ROOT.parent.parent)
                if (up / "shared" / "tools" / "claude-real" / "run-scenario.sh").exists()),
               ROOT.parent / "shared" / "tools" / "claude-real")
CLAUDE_HOME = Path(os.environ.get("CLAUDE_REAL_HOME", Path.home() / ".cache" / "claude-real"))
CLAUDE = CLAUDE_HOME / "node_modules" / ".bin" / "claude"


def claude_scenario(path: Path, name: str, prompt: str, turns: list) -> Path:
    """A scripted model for the real Claude Code CLI (../shared/tools/claude-real): its turns for `prompt`."""
    path.write_text(json.dumps({
        "name": name, "prompt": prompt,
        "agents": [{"name": "main", "match": {"first_user_contains": prompt.split(":")[0]}, "turns": turns}],
        "fallback": {"content": [{"type": "text", "text": "OK"}]},
    }))
    return path


def claude_run(scenario_path: Path, project: Path, home: Path | None = None) -> str:
    """The real Claude Code CLI on a scenario in `project`; the requests it sent to the model, as text. `home`:
    the HOME it runs with, kept from one run to the next (the runner gives each run a new one), so a later run
    can --resume an earlier one's session."""
    claude = CLAUDE
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        claude = home.parent / f"{home.name}-claude.sh"
        claude.write_text(f"#!/bin/sh\nHOME={shlex.quote(str(home))} exec {shlex.quote(str(CLAUDE))} \"$@\"\n")
        claude.chmod(0o755)
    env = dict(os.environ, NO_LOGGER_HOOKS="1", CLAUDE_BIN=str(claude),
               PATH=f"{ROOT / 'tests' / 'fake_bd'}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run([str(HARNESS / "run-scenario.sh"), str(scenario_path), str(project)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert "claude exit code: 0" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
    return (project / ".harness-out" / "requests.jsonl").read_text()


# -- random knowledge files (search and recall tests) ------------------------------------------------------

WORDS = ["cache", "Deploy", "deployment", "retry", "ß-straße", "SCHEMA", "ﬁle", "İstanbul", "token", "queue"]


def write_raw(path, lines) -> None:
    """Append lines to a file as they are: a string as written, anything else as one JSON line."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(line if isinstance(line, str) else json.dumps(line) + "\n" for line in lines)


def random_files(memory_dir, rng: random.Random, count: int) -> None:
    """Versions of a few keys, forgets, pins and unpins, malformed lines, spread over the archive and
    the active file (the archive older, as rotation leaves it, but with ties and reversals in ts)."""
    from memory.store import entry, store

    keys = [f"learned-topic-{k}" for k in range(8)]
    for name, start in ((store.ARCHIVE, 0), (store.ACTIVE, count)):
        lines = []
        for i in range(count):
            key, ts = rng.choice(keys), 1_700_000_000 + start + rng.randrange(-3, count)
            roll = rng.random()
            if roll < 0.1:
                lines.append(entry.build_control(rng.choice(["forget", "pin", "unpin"]), key, "BD-1", ts=ts))
            elif roll < 0.13:
                lines.append(rng.choice(["{not json\n", "[1, 2]\n", '{"key": 3}\n']))
            else:
                text = " ".join(rng.sample(WORDS, 3))
                e = entry.build(f"LEARNED: {text} #{i}", f"BD-{rng.randrange(5)}", "orchestrator", ts=ts)
                e["key"] = key
                lines.append(e)
        write_raw(memory_dir / name, lines)


# -- many real processes without an interpreter start each ----------------------------------------------------

_FORK_RUNNER = """
import json, os, sys, traceback
spec = json.load(sys.stdin)
exec(spec["preload"], {"__name__": "__preload__"})
waits, running = [], []
for argv in spec["argvs"]:
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            sys.argv = ["-c", *argv]
            exec(spec["code"], {"__name__": "__main__"})
            status = 0
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    if spec["parallel"]:
        running.append(pid)
    else:
        waits.append(os.waitpid(pid, 0)[1])
waits += [os.waitpid(pid, 0)[1] for pid in running]
print(json.dumps([-os.WTERMSIG(w) if os.WIFSIGNALED(w) else os.WEXITSTATUS(w) for w in waits]))
"""


def forked_processes(code: str, argvs: list, preload: str = "", parallel: bool = True, env: dict | None = None,
                     timeout: float = 180) -> list:
    """Run `code` (Python source reading sys.argv[1:], as `python -c code ARG...` runs it) once per argument list
    in `argvs`, each in a real process of its own, forked from one interpreter that ran `preload` (the imports)
    first: processes all at once (parallel) or one after the other, without an interpreter start each. Their
    exit statuses in order (-9: SIGKILLed)."""
    spec = {"code": code, "argvs": argvs, "preload": preload, "parallel": parallel}
    proc = subprocess.run([sys.executable, "-c", _FORK_RUNNER], input=json.dumps(spec), capture_output=True,
                          text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def run_at_a_terminal(argv, cwd, env=None, timeout=60) -> subprocess.CompletedProcess:
    """argv with its stdin a terminal (a pseudo-terminal), as when a person types it; stdout and stderr piped."""
    import pty

    primary, secondary = pty.openpty()
    try:
        return subprocess.run(argv, cwd=cwd, env=env, stdin=secondary, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        os.close(secondary)
        os.close(primary)
