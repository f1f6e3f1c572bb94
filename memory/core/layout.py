"""Every name memory-hooks gives a file, folder or command flag, defined once.

The store, the hooks, the doctor, the installer's `.gitignore` block and `--purge` all read these, so a
new file cannot be written by one and forgotten by another.
"""
from __future__ import annotations

import os

MEMORY_SUBDIR = os.path.join(".beads", "memory")
CODE_DIR = ".claude/hooks/memory-hooks"  # where install.sh puts the hooks' code in a project (runtimes.INSTALL_DIR)

# committed: the team's knowledge, shared through git
KNOWLEDGE = "knowledge.jsonl"
ARCHIVE = "knowledge.archive.jsonl"
INBOX = "inbox"  # folder: one new file per capture, never changed after (memory.store.inbox: branch switches)
COMPLETION_CONFIG = "completion.json"  # the completion gate's settings (optional)
CONFIG = "config.json"  # budgets and ranking settings (optional; memory.core.config)
REDACTIONS = "redactions.jsonl"  # what `recall.sh --redact` rewrote, for every clone to apply (memory.store.redactions)
MEMORY_ATTRIBUTES = ".gitattributes"  # in the memory folder, where the root's does not name REDACTIONS (redactions.py)

# machine-local: never committed
LOCK = "knowledge.lock"
JOURNAL = "knowledge.rotate.json"  # an unfinished rotation
CORRUPT = "knowledge.corrupt.jsonl"  # torn lines moved aside by recovery
PENDING = "knowledge.pending"  # folder: captures parked while the lock stayed busy
ERRORS = "errors.log"
ERRORS_ROTATED = ERRORS + ".1"
DISPATCH_LOG = "dispatch.jsonl"
COMPLETION_STATE = "completion-state.json"
INDEX = "knowledge.index"  # the derived ranking index of KNOWLEDGE (memory.search.index; rebuildable)
ARCHIVE_INDEX = "knowledge.archive.index"  # ... and of ARCHIVE
INDEX_BUILD_LOCK = "knowledge.index.lock"  # held while a background process builds the index: one at a time
SCREEN_CACHE = "knowledge.screen"  # the screen's verdicts by text digest (memory.store.hold.warm; rebuildable)
START_CACHE = "knowledge.start"  # session start's live entries and map topics (memory.surface.start_cache; rebuildable)
VECTORS = "vectors.bin"  # the semantic option's entry vectors (memory.search.semantic; rebuildable)
INJECTED = "injected.json"  # per session: which entries the agent was already given (memory.surface.injected)
WELCOMED = "welcomed"  # empty flag: this machine's first session after install has had the fuller introduction
STATE_LOCK = "state.lock"  # guards the small machine-local state files (not the knowledge)
PATH_CUES = "knowledge.paths"  # which entries are about which files (memory.search.path_cues; rebuildable)
ACTION_CACHE = "action-cache"  # folder: per session, what a file or error event found (memory.surface.action_context)
REDACTIONS_APPLIED = "redactions.applied"  # the files' stats when REDACTIONS was last applied here
USE = "use.json"  # how the agent used entries: raises them in the map (memory.surface.use); machine-local
HANDOFFS = "handoffs.jsonl"  # where each session stopped (memory.runtimes.handoff); machine-local, newest 200
REPORT = "report.html"  # the HTML report's default place (memory.commands.report): every entry's text, machine-local
TEMP_SUFFIX = ".tmp"  # `.<name>.<pid>.tmp`: an atomic write in progress (memory.core.fsio)

MACHINE_LOCAL_FILES = (LOCK, JOURNAL, CORRUPT, ERRORS, ERRORS_ROTATED, DISPATCH_LOG, COMPLETION_STATE, INJECTED,
                       STATE_LOCK, INDEX, ARCHIVE_INDEX, INDEX_BUILD_LOCK, VECTORS, HANDOFFS, WELCOMED,
                       SCREEN_CACHE, PATH_CUES, START_CACHE, USE, REPORT, REDACTIONS_APPLIED)
MACHINE_LOCAL_DIRS = (PENDING, ACTION_CACHE)
COMMITTED = (KNOWLEDGE, ARCHIVE, REDACTIONS)  # the data files a team shares (the configs are theirs, never purged)
COMMITTED_DIRS = (INBOX,)  # ... and the folder of captures not yet folded into KNOWLEDGE
DATA_FILES = COMMITTED + (MEMORY_ATTRIBUTES,) + MACHINE_LOCAL_FILES  # what `install.sh --uninstall --purge` deletes


# The memory folder's .gitignore: its machine-local files are never committable, in every clone. install.sh
# writes it; the Claude Code plugin's session start writes it when the folder has none (nothing installs there).
MEMORY_IGNORE = ".gitignore"
MEMORY_IGNORE_BEGIN = ("# >>> memory-hooks: this folder's machine-local files, never committed (knowledge*.jsonl "
                       "is); kept while the knowledge is")
MEMORY_IGNORE_END = "# <<< memory-hooks"


def memory_ignore_lines() -> list[str]:
    """The lines of that .gitignore's block: every machine-local file and folder, and an atomic write's temp files."""
    return ([f"/{name}" for name in MACHINE_LOCAL_FILES] + [f"/{name}/" for name in MACHINE_LOCAL_DIRS]
            + [f"/.*{TEMP_SUFFIX}"])


RECALL_SCRIPT = "recall.sh"  # the installer puts it next to the knowledge

# Flags the installer adds to registered hook commands, read by the hooks.
FLAG_NO_VENV = "--no-venv"  # the project's virtualenv is missing: running on the system python3
FLAG_CURSOR = "--cursor"  # registered in .cursor/hooks.json
FLAG_PLUGIN = "--plugin"  # the Claude Code plugin's copy
FLAG_CODEX = "--codex"  # registered in .codex/hooks.json (memory.runtimes.runtimes)
