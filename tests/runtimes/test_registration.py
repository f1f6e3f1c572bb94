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


def test_a_fifo_where_a_settings_file_belongs_never_holds_the_hook(tmp_path):
    """The plugin's copy reads the project's Claude settings to learn whether an install answers instead
    (registration.read_config): a FIFO planted there (or left by a tool) made open() wait for a writer, and session
    start hung until Claude Code killed it, every session. Now it is an unreadable file: nothing registered
    there, so the plugin answers."""
    import os

    from helpers import fixture_payload, make_repo, run_hook
    from memory.store import entry, store

    repo = make_repo(tmp_path / "project")
    store.append(str(repo / ".beads" / "memory"), [entry.build("LEARNED: the plugin still answers.", "BD-1", "o")])
    (repo / ".claude").mkdir()
    os.mkfifo(repo / ".claude" / "settings.local.json")
    payload = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo))
    proc = run_hook("session_start", payload, repo, args=["--plugin"], timeout=20)
    assert proc.returncode == 0 and b"the plugin still answers" in proc.stdout, proc.stderr
