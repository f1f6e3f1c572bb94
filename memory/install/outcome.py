"""What install.sh says once the files are written: where everything went (report), and the proof that the
installed hooks answer, run exactly as registered on a scratch copy of the knowledge (self_check)."""
from __future__ import annotations

import json
import os
import shutil
import time

from memory import TYPE_CHECKING
from memory.core import paths
from memory.install import plan
from memory.runtimes import ours, registration
from memory.runtimes.registration import CLAUDE_SETTINGS, CURSOR_HOOKS, INSTALL_DIR

if TYPE_CHECKING:
    from typing import TextIO

    from memory.install.change import Change


def report(out: TextIO, target: str, main_checkout: str | None, in_git: bool, changes: list[Change],
           venv: str, plugin: bool, cursor: bool, claude: bool = True) -> None:
    """What went where: code, recall, knowledge (and whether to commit it), interpreter, each runtime's
    registered events, settings backups; a warning when git ignores the knowledge."""
    changed = [c for c in changes if c.changed]
    out.write(f"memory-hooks installed into {target}" + ("" if changed else " (already up to date)") + "\n")
    if main_checkout:
        out.write(f"  note: this is a worktree; knowledge is stored in the main checkout {main_checkout}\n")
    # the files the plan puts in the code folder (the code and install.json), as the dry run and the uninstall
    # count them; the virtualenv, the bytecode and the .no-venv marker are machine-local, never counted
    code = [c for c in changes if c.rel.startswith(INSTALL_DIR + os.sep) and c.after is not None and c.root is None]
    out.write(f"  code         {INSTALL_DIR}/ ({len(code)} files)\n")
    out.write(f"  recall       {plan.RECALL}\n")
    ignored_knowledge = in_git and bool(paths.git_lines(  # git prints the path when it is ignored
        ["check-ignore", plan.KNOWLEDGE], main_checkout or target, 30.0))
    share = "gitignored here: see the warning below" if ignored_knowledge else "teammates get it through git"
    if main_checkout:
        knowledge = os.path.join(main_checkout, plan.KNOWLEDGE)
        out.write(f"  knowledge    {knowledge} (captures land beside it, in inbox/; commit .beads/memory there: "
                  f"{share})\n")
    elif in_git:
        out.write(f"  knowledge    {plan.KNOWLEDGE} (captures land beside it, in inbox/; commit .beads/memory: "
                  f"{share})\n")
    else:
        out.write(f"  knowledge    {plan.KNOWLEDGE}\n")
    out.write(f"  interpreter  {venv}\n")
    for label, files, _, _ in registration.RUNTIMES:  # every runtime's file install.sh writes
        rel = files[0]
        handlers = ours.our_handlers(registration.read_config(os.path.join(target, rel)))
        if rel == CLAUDE_SETTINGS and plugin:
            out.write(f"  {label:<12} the memory-hooks plugin is enabled: hooks not registered again in "
                      "settings.json\n")
        elif rel == CLAUDE_SETTINGS and not claude and not handlers:
            out.write(f"  {label:<12} {rel}: not registered (--no-claude)\n")
        elif handlers or rel == CLAUDE_SETTINGS or (cursor and rel == CURSOR_HOOKS):
            out.write(f"  {label:<12} {rel}: {ours.describe(handlers)}\n")
            if handlers and rel == registration.CODEX_HOOKS:
                _codex_notes(out, target, any(c.rel == rel for c in changed))
    to_commit = _to_commit(target)
    pending = _uncommitted(target, to_commit) if in_git else []
    if pending:  # committed already (a re-install that changed nothing): no advice
        out.write(f"  commit       {' '.join(pending)} (teammates get working hooks only with the code "
                  "folder and the settings together)\n")
    backups = [c.label + plan.BACKUP_SUFFIX for c in changed
               if c.config and c.backup and c.before not in (None, c.after)]
    if backups:
        out.write(f"  backups      {', '.join(backups)}\n")
    if in_git:
        if ignored_knowledge:
            shown = os.path.join(main_checkout, plan.KNOWLEDGE) if main_checkout else plan.KNOWLEDGE
            out.write(f"  WARNING      {shown} is gitignored here: teammates will not get the knowledge\n")
        ignored = _ignored_code_and_settings(target)
        if ignored:
            verb = "is" if len(ignored) == 1 else "are"
            out.write(f"  WARNING      {', '.join(ignored)} {verb} gitignored here: teammates who clone get no hooks "
                      "(the other runtimes' settings would run code they lack); unignore them in .gitignore (a "
                      "`git add -f` of the folder would take its machine-local files too: the virtualenv, bytecode, "
                      ".no-venv)\n")
    for name in _holding_credentials(target, to_commit):
        out.write(f"  WARNING      {name} holds a credential-shaped value: move it out (e.g. to a .local settings "
                  "file, never committed) before you commit that file\n")


def _codex_notes(out: TextIO, target: str, changed: bool) -> None:
    if changed:  # `codex exec` skips unreviewed project hooks without a word; Codex keeps a hash of what was reviewed
        out.write("  note: Codex CLI runs project hooks only once reviewed: open Codex in this repository "
                  "and approve them (/hooks)\n")
    if _codex_toml_hooks(target):
        out.write("  note: .codex/config.toml has hooks of its own: Codex runs both and warns \"loading hooks "
                  "from both\" at every start (move yours into .codex/hooks.json to quiet it)\n")


def _codex_toml_hooks(target: str) -> bool:
    """Whether the project's .codex/config.toml declares hooks (`[hooks]`, `[[hooks.SessionStart]]`…)."""
    import re

    from memory.core import fsio

    try:
        text = fsio.read_regular(os.path.join(target, ".codex", "config.toml"), fsio.MAX_SETTINGS_BYTES,
                                 follow=True).decode("utf-8")
    except (OSError, ValueError):
        return False
    return re.search(r"^[ \t]*\[\[?[ \t]*\"?hooks\"?[ \t]*[.\]]", text, re.M) is not None


def _to_commit(target: str) -> list[str]:
    """What a teammate's clone needs from this install, as `git add` takes it: the code folder (its virtualenv
    and bytecode are ignored), each runtime's settings file that registers ours, the memory folder, and the
    .gitignore and .gitattributes blocks. Settings committed without the code folder leave every hook
    skipped in the teammate's clone."""
    settings = [files[0] for _, files, _, _ in registration.RUNTIMES  # the file install.sh writes, not a .local one
                if ours.our_handlers(registration.read_config(os.path.join(target, files[0])))]
    rest = [rel for rel in (plan.MEMORY_DIR + "/", ".gitignore", ".gitattributes")
            if os.path.exists(os.path.join(target, rel))]
    return [INSTALL_DIR + "/", *settings, *rest]


def _uncommitted(target: str, names: list[str]) -> list[str]:
    """Which of `names` git shows as new or changed in the work tree at `target` (all of them if git can't say)."""
    status = paths.git_lines(["status", "--porcelain", "--untracked-files=all", "--", *names], target, 30.0)
    if not status and paths.git_lines(["rev-parse", "--is-inside-work-tree"], target, 30.0) != ["true"]:
        return names  # git did not answer: say it all
    changed = [line[3:].strip('"') for line in status if len(line) > 3]
    return [n for n in names if any(c == n.rstrip("/") or c.startswith(n.rstrip("/") + "/") for c in changed)]


def _holding_credentials(target: str, names: list[str]) -> list[str]:
    """Which of the settings files named for commit hold a value the redaction rules take for a credential (an
    `env` block with an API key is common in .claude/settings.json)."""
    from memory.core import fsio
    from memory.store import redact

    found = []
    for name in (n for n in names if n.endswith(".json")):
        try:
            text = fsio.read_regular(os.path.join(target, name)).decode("utf-8", "replace")
        except OSError:
            continue
        if redact.redact(text)[1]:
            found.append(name)
    return found


def _ignored_code_and_settings(target: str) -> list[str]:
    """What the teammates' hooks need that a .gitignore rule keeps out of git (a whole `.claude/` ignored is
    common): the code folder, recall.sh's code, and each runtime's settings file we registered in."""
    code = os.path.join(INSTALL_DIR, "hooks", "session_start.py")
    settings = [files[0] for _, files, _, _ in registration.RUNTIMES if os.path.isfile(os.path.join(target, files[0]))]
    found = paths.git_lines(["check-ignore", "--", code, *settings], target, 30.0)  # prints the ignored ones
    return [INSTALL_DIR + "/" if path == code else path for path in found]


def _run_command(command: str, payload: dict, env: dict, cwd: str) -> tuple[int, str, float]:
    import subprocess

    start = time.perf_counter()
    try:
        proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return -1, "(timed out after 60 s)", (time.perf_counter() - start) * 1000
    return proc.returncode, proc.stdout, (time.perf_counter() - start) * 1000


def self_check(target: str, cursor: bool, gemini: bool = False, codex: bool = False,
               claude: bool = True) -> tuple[bool, list[str]]:
    """Run the installed hooks exactly as registered, on a scratch copy of the knowledge (the capture and
    session start as Claude Code runs them: with `claude` off, as a check of the installed code only)."""
    import tempfile  # only the self-check uses it

    lines, ok = [], True
    scratch = tempfile.mkdtemp(prefix="memory-hooks-selfcheck-")
    try:
        memory = os.path.join(scratch, "memory")
        os.makedirs(memory)
        src = os.path.join(target, plan.KNOWLEDGE)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(memory, "knowledge.jsonl"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CURSOR"))}
        env.update(CLAUDE_PROJECT_DIR=target, MEMORY_HOOKS_DIR=memory)
        marker = f"memory-hooks self-check {os.getpid()} passed"
        bd = {"session_id": "self-check", "cwd": target, "hook_event_name": "PostToolUse", "tool_name": "Bash",
              "tool_input": {"command": f'bd comment SELF-CHECK "LEARNED: {marker}"'},
              "tool_response": {"stdout": "", "stderr": "", "interrupted": False}, "tool_use_id": "self-check"}
        start = {"session_id": "self-check", "cwd": target, "hook_event_name": "SessionStart", "source": "startup"}
        rc, _, capture_ms = _run_command(registration.claude_command("memory_capture"), bd, env, target)
        rc2, out, start_ms = _run_command(registration.claude_command("session_start"), start, env, target)
        try:
            context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            context = ""
        good = rc == 0 and rc2 == 0 and marker in context
        ok &= good
        lines.append(f"{'Claude Code' if claude else 'hooks'}: capture {capture_ms:.0f} ms, session start "
                     f"{start_ms:.0f} ms — "
                     + ("answered" if good else f"FAILED (exit {rc}/{rc2}, output {out[:200]!r})"))
        if cursor:
            env_c = dict(env, CURSOR_PROJECT_DIR=target, CURSOR_VERSION="self-check")
            cstart = {"conversation_id": "self-check", "session_id": "self-check", "hook_event_name": "sessionStart",
                      "cursor_version": "self-check", "workspace_roots": [target]}
            rc3, out3, ms = _run_command(registration.cursor_command("session_start"), cstart, env_c, target)
            try:
                good = rc3 == 0 and marker in json.loads(out3)["additional_context"]
            except (ValueError, KeyError, TypeError):
                good = False
            ok &= good
            lines.append(f"Cursor: session start {ms:.0f} ms — " + ("answered" if good else f"FAILED ({out3[:200]!r})"))
        others = [("Gemini CLI", registration.gemini_command, dict(env, GEMINI_PROJECT_DIR=target), gemini),
                  ("Codex CLI", registration.codex_command, env, codex)]
        for label, command, env_r, wanted in others:  # Claude's payload shape, each as the runtime runs it
            if not wanted:
                continue
            rc4, out4, ms = _run_command(command("session_start"), dict(start, timestamp="2026-01-01T00:00:00Z"),
                                         env_r, target)
            try:
                good = rc4 == 0 and marker in json.loads(out4)["hookSpecificOutput"]["additionalContext"]
            except (ValueError, KeyError, TypeError):
                good = False
            ok &= good
            lines.append(f"{label}: session start {ms:.0f} ms — "
                         + ("answered" if good else f"FAILED ({out4[:200]!r})"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return ok, lines
