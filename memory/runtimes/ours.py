"""Which hook handlers in a settings file are ours: recognised exactly (a command we generate, or one that runs a
file under INSTALL_DIR by path), so a re-run replaces them in place of adding copies, an uninstall removes
exactly them, and the doctor and the installer's report name them."""
from __future__ import annotations

import os

from memory.runtimes.runtimes import (
    CLAUDE_HOOKS,
    CODEX_EVENTS,
    CURSOR_EVENTS,
    GEMINI_EVENTS,
    INSTALL_DIR,
    claude_command,
    codex_command,
    cursor_command,
    gemini_command,
    plugin_command,
)

_SHELL_WORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "exec", "env"}


def is_ours(handler: object) -> bool:
    """True for a command handler we registered: one of the commands we generate, or a command that runs a
    file under our INSTALL_DIR by path (an older version's command). Mentioning "memory-hooks" is not enough."""
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    args = handler.get("args")
    if isinstance(args, list):  # exec form: no shell, `command` is the program
        return _runs_our_file([command] + [a for a in args if isinstance(a, str)])
    if command in _generated_commands():
        return True
    return any(_runs_our_file(words) for words in _with_variables_expanded(_simple_commands(command)))


_generated: list[str] = []


def _generated_commands() -> list[str]:
    if not _generated:
        names = {hook for hook, *_ in CLAUDE_HOOKS + CURSOR_EVENTS + GEMINI_EVENTS + CODEX_EVENTS}
        _generated.extend(make(hook) for hook in sorted(names)
                          for make in (claude_command, cursor_command, gemini_command, codex_command, plugin_command))
    return _generated


def _simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command in a shell string (None of it is run; [] when it does not parse)."""
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token and all(c in lexer.punctuation_chars for c in token):
                commands.append([])  # ; && || | & ( ) separate commands
            else:
                commands[-1].append(token)
    except ValueError:  # unbalanced quotes: not a command we wrote
        return []
    return [words for words in commands if words]


def _with_variables_expanded(commands: list[list[str]]) -> list[list[str]]:
    """Each `$NAME/…` or `${NAME}/…` word with the value an earlier `NAME=value` gave it (Codex's command
    names the install folder once: `d=…/.claude/hooks/memory-hooks; … "$d"/hooks/x.py`)."""
    variables: dict[str, str] = {}
    expanded = []
    for words in commands:
        for name, value in variables.items():
            refs = (f"${name}/", f"${{{name}}}/")
            words = [next((value + "/" + w[len(r):] for r in refs if w.startswith(r)), w) for w in words]
        for word in words:  # assignments before the program
            name, equals, value = word.partition("=")
            if not (equals and name.isidentifier()):
                break
            variables[name] = value
        expanded.append(words)
    return expanded


def _runs_our_file(words: list[str]) -> bool:
    """True when the program, or the script an interpreter is given, is a file under INSTALL_DIR."""
    while words and (words[0] in _SHELL_WORDS or ("=" in words[0] and not words[0].startswith("="))):
        words = words[1:]  # `exec`, `env`, `if`, VAR=value: the program comes after them
    if not words:
        return False
    if _in_install_dir(words[0]):
        return True
    program = os.path.basename(words[0])
    if program.startswith("python") or program in ("sh", "bash", "dash", "zsh"):
        script = next((w for w in words[1:] if not w.startswith("-")), "")
        return _in_install_dir(script)
    return False


def _in_install_dir(word: str) -> bool:
    return ("/" + INSTALL_DIR + "/") in ("/" + word)


def blocks_without_code(handler: dict) -> bool:
    """True for a handler of ours that runs its hook file without first checking the file is there (an
    install.sh before the guard): in a checkout without the code folder python3 exits 2, which every runtime
    reads as BLOCK (each prompt, tool call and stop refused). A re-install replaces it."""
    command = str(handler.get("command", ""))
    return is_ours(handler) and "[ ! -f " not in command and "[ -f " not in command


def all_ours(group: object) -> bool:
    """A group that holds our handlers only (Cursor's flat shape: the handler is the group)."""
    if is_ours(group):
        return True
    inner = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(inner, list) and bool(inner) and all(is_ours(h) for h in inner)


def our_handlers(config: dict) -> list[tuple[str, str | None, dict]]:
    """(event, matcher, handler) of every handler of ours, in the file's order (Cursor's flat shape too)."""
    found = []
    hooks = config.get("hooks")
    for event, groups in (hooks if isinstance(hooks, dict) else {}).items():
        for group in groups if isinstance(groups, list) else []:
            if is_ours(group):
                found.append((event, group.get("matcher"), group))
            elif isinstance(group, dict) and isinstance(group.get("hooks"), list):
                found += [(event, group.get("matcher"), h) for h in group["hooks"] if is_ours(h)]
    return found


def registered_events(config: dict) -> list[tuple[str, str | None]]:
    """(event, matcher) of every handler of ours in a settings or hooks.json object."""
    return [(event, matcher) for event, matcher, _ in our_handlers(config)]


def hook_of(handler: dict) -> str | None:
    """The hook file of ours a registered handler runs (`session_start` for …/hooks/session_start.py)."""
    import re

    ran = re.search(r"/hooks/(\w+)\.py", str(handler.get("command", "")) + " " + " ".join(
        a for a in handler.get("args") or [] if isinstance(a, str)))
    return ran.group(1) if ran else None


def describe(handlers: list[tuple[str, str | None, dict]]) -> str:
    """Our handlers as a person reads them: each event once, `Event[matcher]`, naming the hooks where one event
    runs several (`PostToolUseFailure[Bash] (memory_capture, action_context)`)."""
    by_event: dict[str, list[str]] = {}
    for event, matcher, handler in handlers:
        by_event.setdefault(f"{event}[{matcher}]" if matcher else event, []).append(hook_of(handler) or "?")
    return ", ".join(name if len(hooks) == 1 else f"{name} ({', '.join(hooks)})" for name, hooks in by_event.items())
