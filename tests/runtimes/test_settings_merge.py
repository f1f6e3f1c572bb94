"""memory.runtimes.settings_merge: ours merged into someone's settings and taken out again, theirs untouched."""
from helpers import USER_SETTINGS
from memory.runtimes import ours, settings_merge


def test_merging_ours_in_and_out_gives_back_their_settings():
    merged = settings_merge.with_claude_hooks(USER_SETTINGS, ["session_start", "memory_capture"])
    assert ours.registered_events(merged) and settings_merge.schema_problems(merged) == []
    assert settings_merge.with_claude_hooks(merged, ["session_start", "memory_capture"]) == merged  # no copies
    assert settings_merge.without_ours(merged) == USER_SETTINGS
    assert settings_merge.ours_kept_in_place(USER_SETTINGS, merged)["hooks"]["PreToolUse"] == \
        USER_SETTINGS["hooks"]["PreToolUse"]
