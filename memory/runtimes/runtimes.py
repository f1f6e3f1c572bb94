"""Each runtime's registration of our hooks: its project file, its events, the command it runs.

One table per runtime (hook file, event, matcher, extra handler fields); only hook files that exist are
registered. memory.runtimes.settings_merge merges them into (and out of) the runtimes' settings files.
"""
from __future__ import annotations

import os

from memory.core.layout import CODE_DIR as INSTALL_DIR  # one home for the path

MANIFEST = os.path.join(INSTALL_DIR, "install.json")
# `install.sh --no-venv` on this machine: the hooks run with python3 by choice, so session start does not suggest
# a virtualenv. Machine-local (the virtualenv is), so gitignored like it: never committed.
NO_VENV_CHOSEN = os.path.join(INSTALL_DIR, ".no-venv")
CLAUDE_SETTINGS = os.path.join(".claude", "settings.json")
CLAUDE_SETTINGS_FILES = (CLAUDE_SETTINGS, os.path.join(".claude", "settings.local.json"))
CURSOR_HOOKS = os.path.join(".cursor", "hooks.json")
GEMINI_SETTINGS = os.path.join(".gemini", "settings.json")
CODEX_HOOKS = os.path.join(".codex", "hooks.json")
PLUGIN_NAME = "memory-hooks"

# hook file -> (Claude event, matcher, extra handler fields); only files that exist are registered.
CLAUDE_HOOKS = [
    ("session_start", "SessionStart", "startup|resume|clear|compact|fork", {"timeout": 10}),
    ("prompt_recall", "UserPromptSubmit", None, {"timeout": 10}),
    ("memory_capture", "PostToolUse", "Bash", {"timeout": 10}),
    ("memory_capture", "PostToolUseFailure", "Bash", {"timeout": 10}),  # a failed command's insights too
    # not "async": `claude -p` kills async hooks still running at its end; the hook detaches its own work
    ("log_dispatch_prompt", "PostToolUse", "Agent|Task", {"timeout": 10}),
    # Claude Code's auto memory notes as Claude writes them; off unless config.json says "capture_claude_notes"
    ("claude_note", "PostToolUse", "Write|Edit|MultiEdit", {"timeout": 10}),
    ("validate_completion", "SubagentStop", None, {"timeout": 30}),
    ("capture_reply", "Stop", None, {"timeout": 10}),
    ("handoff", "PreCompact", None, {"timeout": 30}),
    ("handoff", "SessionEnd", None, {"timeout": 10}),
    ("subagent_start", "SubagentStart", None, {"timeout": 10}),
    # action time: knowledge about the file a tool reads or edits, and about a failed command's error
    ("action_context", "PreToolUse", "Read|Edit|Write|MultiEdit", {"timeout": 10}),
    ("action_context", "PostToolUseFailure", "Bash", {"timeout": 10}),
    # ...and a file the shell printed or changed: in bypass-permissions mode Claude Code 2.1.330 tells the model
    # to "read files with cat, head, or sed -n … instead of the dedicated Read, Edit, or Write tools". After the
    # call, beside the capture hook: no wait before the command runs
    ("action_context", "PostToolUse", "Bash", {"timeout": 10}),
]
CURSOR_EVENTS = [
    ("session_start", "sessionStart", None, {"timeout": 10}),
    ("memory_capture", "afterShellExecution", None, {"timeout": 10}),
    ("validate_completion", "subagentStop", None, {"timeout": 30}),
    ("capture_reply", "afterAgentResponse", None, {"timeout": 10}),
    ("handoff", "preCompact", None, {"timeout": 30}),
    ("handoff", "sessionEnd", None, {"timeout": 10}),
    # after a file read or written, or a shell command: additional_context lands after the tool result
    ("action_context", "postToolUse", "Read|Write|Shell", {"timeout": 10}),
]
# Gemini CLI: Claude's shape, timeouts in milliseconds; no SubagentStop (no subagents to gate)
# `name` (one per handler: `/hooks disable NAME` switches off every hook so named): what Gemini lists when it asks
# to trust the project's hooks, instead of the long command
GEMINI_EVENTS = [
    ("session_start", "SessionStart", None, {"name": "memory-hooks: session start", "timeout": 10000}),
    ("prompt_recall", "BeforeAgent", None, {"name": "memory-hooks: prompt recall", "timeout": 10000}),
    ("memory_capture", "AfterTool", "run_shell_command", {"name": "memory-hooks: capture", "timeout": 10000}),
    ("capture_reply", "AfterAgent", None, {"name": "memory-hooks: capture from the reply", "timeout": 10000}),
    ("handoff", "PreCompress", None, {"name": "memory-hooks: handoff before compressing", "timeout": 30000}),
    ("handoff", "SessionEnd", None, {"name": "memory-hooks: handoff at session end", "timeout": 10000}),
    # AfterTool carries context (BeforeTool does not): the file read or written, a failed shell call
    ("action_context", "AfterTool", "read_file|write_file|replace|run_shell_command",
     {"name": "memory-hooks: file and error context", "timeout": 10000}),
]
# Codex CLI (verified with codex-cli 0.169): Claude's shape and payloads (tool_name "Bash"), timeouts in seconds
# (SessionEnd clamped to 3 s); hooks run in the session's cwd with no project variable. SubagentStop carries
# agent_type "default" / "worker" / "explorer", so the gate applies to a subagent whose report names a bead.
CODEX_EVENTS = [
    ("session_start", "SessionStart", None, {"timeout": 10}),
    ("prompt_recall", "UserPromptSubmit", None, {"timeout": 10}),
    ("memory_capture", "PostToolUse", "Bash", {"timeout": 10}),
    ("validate_completion", "SubagentStop", None, {"timeout": 30}),
    ("capture_reply", "Stop", None, {"timeout": 10}),
    ("handoff", "PreCompact", None, {"timeout": 30}),
    ("handoff", "SessionEnd", None, {"timeout": 3}),
    # action time: Codex reads and patches files through its shell tool, and current models patch through its
    # apply_patch tool (verified: PreToolUse on both and PostToolUse on Bash carry context; its PostToolUse gives
    # the output alone, no exit status)
    ("action_context", "PreToolUse", "Bash|apply_patch", {"timeout": 10}),
    ("action_context", "PostToolUse", "Bash", {"timeout": 10}),
]


def _missing_note(hook: str) -> str:
    """One line on stderr when the hook file is not there (a checkout without the code folder): shown only in
    the runtimes' verbose or debug views, never on stdout, where a runtime would read it as the hook's answer."""
    return (f'echo "memory-hooks: {INSTALL_DIR}/hooks/{hook}.py is missing or unreadable, hook skipped '
            f'(commit {INSTALL_DIR}/ or run install.sh)" >&2 || :')  # a closed stderr: echo fails with 2


def _venv_or_python3(d: str, hook: str, flag: str = "") -> str:
    """POSIX sh (no bash-isms), every path quoted: the project's virtualenv when present, else python3. Fails
    open: with the hook file missing or unreadable it exits 0 with nothing on stdout (python3 on such a file
    exits 2, which every runtime reads as BLOCK: each prompt, tool call and stop refused); python3 itself missing
    exits 127, a non-blocking error everywhere (hook-protocols §0, §2.1, §3)."""
    script = f"{d}/hooks/{hook}.py"
    return (f'if [ ! -f {script} ] || [ ! -r {script} ]; then {_missing_note(hook)}; '
            f'elif [ -x {d}/.venv/bin/python ]; then exec {d}/.venv/bin/python {script}{flag}; '
            f'else exec python3 {script}{flag} --no-venv; fi')


def claude_command(hook: str) -> str:
    """Claude Code sets CLAUDE_PROJECT_DIR for every hook."""
    return _venv_or_python3('"$CLAUDE_PROJECT_DIR"/' + INSTALL_DIR, hook)


def cursor_command(hook: str) -> str:
    """Cursor runs project hooks from the project root and always sets CURSOR_PROJECT_DIR."""
    return _venv_or_python3('"${CURSOR_PROJECT_DIR:-.}"/' + INSTALL_DIR, hook, " --cursor")


def gemini_command(hook: str) -> str:
    """Gemini CLI runs project hooks with GEMINI_PROJECT_DIR set (CLAUDE_PROJECT_DIR too, as an alias)."""
    return _venv_or_python3('"${GEMINI_PROJECT_DIR:-.}"/' + INSTALL_DIR, hook, " --gemini")


def codex_command(hook: str) -> str:
    """Codex CLI runs hooks in the session's cwd and names no project: the work tree's top holds the install."""
    d = '"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/' + INSTALL_DIR
    return f'd={d}; ' + _venv_or_python3('"$d"', hook, " --codex")


def plugin_command(hook: str) -> str:
    """The plugin's copy runs from the plugin folder; `--plugin` lets it stay quiet beside an install. Without
    its hook file (a damaged plugin folder) it exits 0, as an install's command does."""
    script = f'"${{CLAUDE_PLUGIN_ROOT}}"/hooks/{hook}.py'
    return f'if [ -f {script} ] && [ -r {script} ]; then exec python3 {script} --plugin; fi'


# Every runtime install.sh registers with: its name, its project file(s), its table, its command. memory-doctor
# checks each (the files install.sh writes are exactly the ones it checks).
RUNTIMES = (
    ("Claude Code", CLAUDE_SETTINGS_FILES, CLAUDE_HOOKS, claude_command),
    ("Cursor", (CURSOR_HOOKS,), CURSOR_EVENTS, cursor_command),
    ("Gemini CLI", (GEMINI_SETTINGS,), GEMINI_EVENTS, gemini_command),
    ("Codex CLI", (CODEX_HOOKS,), CODEX_EVENTS, codex_command),
)


def plugin_hooks(available: list[str]) -> dict:
    """The plugin's hooks/hooks.json: the same events and matchers as a project install."""
    hooks: dict[str, list] = {}
    for hook, event, matcher, extra in CLAUDE_HOOKS:
        if hook in available:
            group: dict = {"matcher": matcher} if matcher else {}
            group["hooks"] = [dict({"type": "command", "command": plugin_command(hook)}, **extra)]
            hooks.setdefault(event, []).append(group)
    return {"description": "memory-hooks: capture LEARNED insights, surface them at session start", "hooks": hooks}
