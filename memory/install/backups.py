"""Whether an install or an uninstall keeps a backup of a settings file (`<file>.memory-hooks.bak`): the user's
file from before memory-hooks is kept, an earlier install's rewrite or a file of ours alone is not (memory.install.plan
asks; comments aside, as Gemini's settings.json may hold them).
"""
from __future__ import annotations

import json

from memory.core.jsonio import without_comments
from memory.install.change import Change, read
from memory.runtimes import settings_merge

BACKUP_SUFFIX = ".memory-hooks.bak"


def earlier_install_backed_up(target: str, change: Change) -> bool:
    """The settings file already holds our entries and an earlier install's backup sits beside it: that backup
    has the user's file from before memory-hooks (an older install.sh reformatted the file, and may have dropped
    a hook of theirs), so an upgrade keeps it instead of backing up the earlier install's rewrite. A backup that
    holds a setting or a hook the file lacks (an uninstall kept it for the person to compare) is kept too."""
    backup = read(target, change.rel + BACKUP_SUFFIX, strict=False)
    if change.before is None or backup is None:
        return False
    try:
        current = load(change.before)
    except ValueError:
        return False
    return isinstance(current, dict) and (settings_merge.without_ours(current) != current
                                          or says_more(backup, change.before))


def nothing_of_the_users(before: bytes | None) -> bool:
    """A settings file that holds our entries alone (an install made it: `.gemini/settings.json` where the user
    had none): an upgrade's rewrite of it is no reason for a backup, which would pass our file for theirs."""
    try:
        current = load(before) if before is not None else None
    except ValueError:
        return False
    if not isinstance(current, dict):
        return False
    return settings_merge.without_ours(current) in ({}, {"version": 1})  # `"hooks": {}` of theirs is kept


def says_more(backup: bytes, after: bytes | None) -> bool:
    """The backup holds a top-level setting or a hook handler that the file we leave does not (a value the user
    changed since counts as theirs, not as more); unreadable: it may, so True."""
    try:
        old, new = load(backup), load(after)
    except ValueError:
        return True
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return old != new
    old = settings_merge.without_ours(old)  # an older version's own entries are no loss
    return bool(set(old) - set(new)) or bool(_handlers(old) - _handlers(new))


def _handlers(config: dict) -> set[str]:
    """Every hook handler of a settings object, with its event and matcher, as canonical JSON."""
    found = set()
    hooks = config.get("hooks")
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            inner = group.get("hooks") if isinstance(group, dict) else None
            for handler in inner if isinstance(inner, list) else [group]:  # Cursor: the group is the handler
                matcher = group.get("matcher") if isinstance(group, dict) else None
                found.add(json.dumps([event, matcher, handler], sort_keys=True))
    return found


def load(data: bytes | None) -> object:
    """A settings file's value, comments aside (Gemini's settings.json may hold them); ValueError if none."""
    return json.loads(without_comments((data or b"{}").decode()))


def same_json(a: bytes, b: bytes) -> bool:
    """The same settings, comments aside; an empty `hooks` object or event list is no hooks (taking ours out of
    a file whose hooks were all ours leaves none, where the user had written `"hooks": {}` or
    `"SessionStart": []`)."""
    try:
        return _without_empty_hooks(load(a)) == _without_empty_hooks(load(b))
    except ValueError:
        return False


def _without_empty_hooks(value: object) -> object:
    if not isinstance(value, dict) or not isinstance(value.get("hooks"), dict):
        return value
    hooks = {event: groups for event, groups in value["hooks"].items() if groups != []}
    return {k: v for k, v in value.items() if k != "hooks"} | ({"hooks": hooks} if hooks else {})
