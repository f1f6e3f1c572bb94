"""memory-doctor's checks of the installation in this clone: each runtime's registration of our hooks (and what
its own settings say of them: memory.commands.runtime_checks), the interpreter the hooks run with, the
knowledge files' merge driver."""
from __future__ import annotations

import os
import subprocess

from memory import TYPE_CHECKING
from memory.commands.memory_checks import FAIL, OK, WARN, Finding
from memory.core import fsio, layout, paths
from memory.runtimes import ours, registration, settings_merge

if TYPE_CHECKING:
    from collections.abc import Callable


def registration_checks(tree: str) -> list[Finding]:
    """Each runtime's project file(s) that install.sh writes (memory.runtimes.runtimes.RUNTIMES): readable, our
    events all there, each running a hook file that is installed, in this version's command."""
    found: list[Finding] = []
    hooks_dir = os.path.join(tree, registration.INSTALL_DIR, "hooks")
    available = {n[:-3] for n in (os.listdir(hooks_dir) if os.path.isdir(hooks_dir) else []) if n.endswith(".py")}
    claude: list[tuple[str, str | None, dict]] = []
    for label, files, table, command in registration.RUNTIMES:
        handlers = []
        for rel in files:
            config, problem = _read_settings(tree, rel)
            if problem:
                found.append((FAIL, "registered", f"{problem}: {label} runs no hook from it (fix the file, then "
                                                  "re-run memory-hooks' install.sh)"))
            mine = ours.our_handlers(config)
            if mine:
                found.append((OK, "registered", f"{rel}: {ours.describe(mine)}"))
            handlers += mine
        if label == "Claude Code":
            claude = handlers
        if handlers:
            found += _handler_problems(label, handlers, table, command, available)
        if handlers:  # what the runtime's own settings say
            from memory.commands import runtime_checks

            why = runtime_checks.gemini_findings(tree, handlers) if label == "Gemini CLI" \
                else runtime_checks.codex_findings(tree, config) if label == "Codex CLI" \
                else runtime_checks.claude_findings(tree) if label == "Claude Code" else []
            found += [(WARN, "registered", f"{label}: {line}") for line in why]
            note = runtime_checks.codex_first_run_note(tree) if label == "Codex CLI" and not why else None
            found += [(OK, "registered", f"{label}: {note}")] if note else []
    plugin = registration.plugin_enabled(tree)
    if plugin:
        found.append((OK, "registered", "the memory-hooks Claude Code plugin is enabled"))
        if claude:
            found.append((WARN, "duplicates", "plugin and settings both register the hooks (harmless: the plugin "
                                              "copy stays quiet, but remove one)"))
    left_out = registration.read_config(os.path.join(tree, registration.MANIFEST)).get("left_out", [])
    if not any(e == "SessionStart" for e, _, _ in claude) and not plugin and "claude" in left_out:
        found.append((OK, "registered", "Claude Code left out at install (--no-claude)"))
    elif not any(e == "SessionStart" for e, _, _ in claude) and not plugin:
        found.append((FAIL, "registered", "no SessionStart/PostToolUse hooks of ours in .claude/settings*.json "
                                          "(run memory-hooks' install.sh)"))
    others = [name for name in ("cursor", "gemini", "codex") if name in left_out]
    if others:  # a choice, said as one: install.json remembers it until --<runtime> asks it back
        found.append((OK, "registered", f"left out at install: {', '.join(others)} (--no-{' --no-'.join(others)})"))
    return found


def _read_settings(tree: str, rel: str) -> tuple[dict, str | None]:
    """A runtime's settings object ({} when absent), or the reason the runtime can't read it."""
    try:
        data = fsio.read_regular(os.path.join(tree, rel), fsio.MAX_SETTINGS_BYTES, follow=True)  # a FIFO: no hang
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, f"{rel}: cannot be read ({exc.strerror or exc})"
    try:
        config = settings_merge.parse_json_file(rel, data.decode("utf-8"))
    except UnicodeDecodeError:
        return {}, f"{rel}: not UTF-8 text"
    except settings_merge.SettingsError as exc:
        return {}, str(exc).split("; ")[0]
    ours_in_codex = rel == registration.CODEX_HOOKS and bool(ours.registered_events(config))  # --no-codex: theirs
    problems = settings_merge.schema_problems(config, cursor=rel == registration.CURSOR_HOOKS, strict=False,
                                            gemini=rel == registration.GEMINI_SETTINGS, codex=ours_in_codex)
    return config, (f"{rel}: not of the documented hooks shape ({'; '.join(problems[:3])})" if problems else None)


def _handler_problems(label: str, handlers: list[tuple[str, str | None, dict]], table: list,
                      command: Callable[[str], str], available: set[str]) -> list[Finding]:
    found: list[Finding] = []
    # by hook too: an event and matcher can run two of ours (PostToolUse[Bash]: the capture, and since a later
    # version the shell reads' knowledge), and an install from before the second still has the first
    registered = [(event, matcher, ours.hook_of(handler)) for event, matcher, handler in handlers]
    shared = {(e, m) for _, e, m, _ in table if sum((e, m) == (te, tm) for _, te, tm, _ in table) > 1}
    missing = [(f"{e}[{m}]" if m else e) + (f" ({hook})" if (e, m) in shared else "")
               for hook, e, m, _ in table if hook in available and (e, m, hook) not in registered]
    if missing:
        found.append((WARN, "registered", f"{label}: not registered for {', '.join(missing)} (re-run memory-hooks' "
                                          "install.sh)"))
    runs = [(event, matcher, ours.hook_of(handler)) for event, matcher, handler in handlers]
    doubled = sorted({f"{e}[{m}]" if m else e for e, m, hook in runs if runs.count((e, m, hook)) > 1})
    if doubled:  # the same hook twice on one event (two of ours on one event is by design)
        found.append((WARN, "duplicates", f"{label}: registered more than once: {', '.join(doubled)}"))
    for event, _, handler in handlers:
        hook = ours.hook_of(handler)
        if hook is None or hook not in available:
            found.append((FAIL, "registered", f"{label}: {event} runs {f'hooks/{hook}.py' if hook else 'a hook'}, "
                                              "which is not installed (re-run memory-hooks' install.sh)"))
        elif handler.get("command") != command(hook) and ours.blocks_without_code(handler):
            found.append((WARN, "registered", f"{label}: {event} is registered by an older install.sh whose command "
                                              "blocks the agent when the hook code is missing (re-run "
                                              "memory-hooks' install.sh)"))
        elif handler.get("command") != command(hook):
            found.append((WARN, "registered", f"{label}: {event} is registered by another version of install.sh "
                                              "(re-run memory-hooks' install.sh)"))
    return found


def interpreter_check(tree: str) -> Finding:
    venv = os.path.join(tree, registration.INSTALL_DIR, ".venv", "bin", "python")
    python = venv if os.path.exists(venv) else "python3"
    try:
        proc = subprocess.run([python, "-c", "import sys\ntry:\n import orjson, filelock; m='orjson+filelock'\n"
                               "except ImportError: m='stdlib fallbacks'\nprint(m); print(sys.executable)"],
                              capture_output=True, text=True, timeout=10)
        mods, _, exe = proc.stdout.strip().partition("\n")
    except (OSError, subprocess.SubprocessError) as exc:
        return FAIL, "interpreter", f"{python} does not run ({exc})"
    if python == venv:
        return (OK if mods == "orjson+filelock" else WARN), "interpreter", f"{exe} (project virtualenv; {mods})"
    info = paths.git_info(tree)
    main = info.main_checkout if info is not None and info.is_linked_worktree else tree
    # the user's choice, not a gap: the marker here, or in the main checkout (as session start reads it)
    if any(os.path.exists(os.path.join(place, registration.NO_VENV_CHOSEN)) for place in (tree, main)):
        return OK, "interpreter", f"{exe or python} (no virtualenv: install.sh --no-venv on this machine; {mods})"
    return WARN, "interpreter", f"{exe or python} (no project virtualenv: run install.sh; {mods})"


def merge_check(tree: str) -> list[Finding]:
    """In a repository whose .gitattributes names our merge driver: is it set in this clone's git config
    (git never clones config), and did a merge stop on the knowledge files as text?"""
    from memory.store import gitmerge

    if not gitmerge.has_attributes(tree):
        return []
    fix = ".beads/memory/recall.sh --setup-git"
    stuck = gitmerge.unresolved(tree)
    if stuck:
        return [(FAIL, "merge", f"{', '.join(stuck)}: a merge stopped on them unmerged (this clone had no merge "
                 f"driver, or it failed); run: {fix} (it merges them again as data and stages them)")]
    if not gitmerge.configured(tree):
        return [(WARN, "merge driver", f"not set in this clone (git never clones config): the knowledge files "
                 f"merge as text, with conflicts; run once: {fix}")]
    other = gitmerge.overridden(tree)
    if other:
        named = ", ".join(f"{rel} (merge={value})" for rel, value in other)
        return [(FAIL, "merge driver", f"{named}: a later line of .gitattributes overrides ours, so git never runs "
                 "the driver on them (a redaction merged as text brings the secret back); drop that line or put "
                 "memory-hooks' block after it")]
    return [(OK, "merge driver", f"git config merge.{gitmerge.DRIVER}.driver is set")]


def review_status_check(tree: str, memory_dir: str) -> list[Finding]:
    """With bd here and the completion gate's bead-status check on: can an agent set the status that hands a
    bead over? Stock bd refuses one its project has not declared (`status.custom`), and the gate would ask for
    it on every finished bead."""
    from memory.orchestration import completion, completion_checks

    config = completion.load_config(memory_dir)
    if not completion.enabled(config, "bead-status") or not config["review_statuses"] \
            or not os.path.isdir(os.path.join(tree, ".beads")) or not paths.on_path("bd"):
        return []
    status = str(config["review_statuses"][0])
    declared = completion_checks.undeclared_status(tree, status, float(config["timeout"]))
    if declared is None:
        return []
    return [(WARN, "review status", f"bd does not know the status {status!r} (the completion gate asks agents "
             f"to set it when a bead is done); declare it once: bd config set status.custom "
             f"{completion_checks.declare(declared, status)} (or name another in "
             f"{layout.COMPLETION_CONFIG}'s review_statuses)")]
