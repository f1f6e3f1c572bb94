"""memory.install.backups: which settings file's backup an install or uninstall keeps (the install-level cases,
through install.sh on real files, are in test_install.py: upgrades, uninstall, a user's `"hooks": {}`)."""
import json

from memory.install import backups
from memory.runtimes import registration

OURS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": registration.claude_command("capture_reply")}]}]}}


def dump(value) -> bytes:
    return json.dumps(value).encode()


def test_a_file_of_ours_alone_is_nothing_of_the_users():
    assert backups.nothing_of_the_users(dump(OURS))
    assert backups.nothing_of_the_users(dump({"version": 1}))
    assert not backups.nothing_of_the_users(dump(dict(OURS, model="opus")))
    assert not backups.nothing_of_the_users(b"{not json")  # unreadable: keep the backup


def test_a_backup_says_more_with_a_setting_or_a_hook_the_file_lacks():
    theirs = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}]}}
    assert backups.says_more(dump(dict(theirs, model="opus")), dump(theirs))
    assert backups.says_more(dump(theirs), dump({}))
    assert not backups.says_more(dump({"hooks": {**theirs["hooks"], **OURS["hooks"]}}), dump(theirs))  # ours: no loss
    assert not backups.says_more(dump({"model": "opus"}), dump({"model": "sonnet"}))  # a changed value is theirs
    assert backups.says_more(b"{broken", dump({}))


def test_an_empty_hooks_object_and_comments_are_the_same_settings():
    assert backups.same_json(b'{"hooks": {}, "model": "x"}', b'{"model": "x"}')
    assert backups.same_json(b'{// a comment\n"model": "x"}', b'{"model": "x"}')
    assert not backups.same_json(b'{"model": "x"}', b'{"model": "y"}')
