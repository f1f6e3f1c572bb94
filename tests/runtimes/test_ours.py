"""memory.runtimes.ours: which handlers in a settings file are ours, named as a person reads them."""
from memory.runtimes import ours, settings_merge


def test_each_event_is_named_once_with_its_hooks_where_it_runs_several():
    config = settings_merge.with_claude_hooks({}, ["memory_capture", "action_context", "session_start"])
    handlers = ours.our_handlers(config)
    assert [ours.hook_of(h) for _, _, h in handlers] and all(ours.hook_of(h) for _, _, h in handlers)
    text = ours.describe(handlers)
    assert text.count("PostToolUseFailure[Bash]") == 1  # no event twice
    assert "PostToolUseFailure[Bash] (memory_capture, action_context)" in text
    assert ours.describe([]) == ""
    assert ours.hook_of({"command": "./lint.sh"}) is None


def test_ours_are_recognised_by_the_file_they_run_not_by_a_mention():
    assert ours.is_ours({"type": "command", "command": "python3 .claude/hooks/memory-hooks/hooks/session_start.py"})
    assert ours.is_ours({"type": "command", "command": "sh", "args": [".claude/hooks/memory-hooks/hooks/x.py"]})
    assert not ours.is_ours({"type": "command", "command": "echo memory-hooks"})
    assert not ours.is_ours({"type": "prompt", "prompt": ".claude/hooks/memory-hooks/hooks/x.py"})


def test_an_older_codex_command_naming_the_folder_once_is_still_ours():
    """Codex's command sets `d` to the install folder and runs "$d"/hooks/x.py: recognised through the variable
    (it was recognised only as a generated string, so a changed command left the old one beside the new)."""
    older = ('d="$(git rev-parse --show-toplevel 2>/dev/null || pwd)"/.claude/hooks/memory-hooks; if [ -x "$d"/.venv/'
             'bin/python ]; then exec "$d"/.venv/bin/python "$d"/hooks/session_start.py --codex; else exec python3 '
             '"$d"/hooks/session_start.py --codex --no-venv; fi')
    assert ours.is_ours({"type": "command", "command": older})
    assert ours.blocks_without_code({"type": "command", "command": older})
    assert not ours.is_ours({"type": "command", "command": 'd=./tools; python3 "$d"/hooks/session_start.py'})
    guarded = settings_merge.with_codex_hooks({}, ["session_start"])["hooks"]["SessionStart"][0]["hooks"][0]
    assert ours.is_ours(guarded) and not ours.blocks_without_code(guarded)
