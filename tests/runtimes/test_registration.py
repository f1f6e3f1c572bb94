from memory.runtimes import registration


def test_each_event_is_named_once_with_its_hooks_where_it_runs_several():
    config = registration.with_claude_hooks({}, ["memory_capture", "action_context", "session_start"])
    handlers = registration.our_handlers(config)
    assert [registration.hook_of(h) for _, _, h in handlers] and all(registration.hook_of(h) for _, _, h in handlers)
    text = registration.describe(handlers)
    assert text.count("PostToolUseFailure[Bash]") == 1  # no event twice
    assert "PostToolUseFailure[Bash] (memory_capture, action_context)" in text
    assert registration.describe([]) == ""
    assert registration.hook_of({"command": "./lint.sh"}) is None
