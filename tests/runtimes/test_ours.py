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
