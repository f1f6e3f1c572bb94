"""What a knowledge line is: the entry and control types, and the checks every reader applies.

Imports nothing: it is on every read path, `recall.sh KEYWORD --all` included (memory.store.entry, which
builds entries, needs `re` and the redactor; a reader needs neither).
"""
from __future__ import annotations

# Entry types (the marker's lowercase word) and the tag each renders with.
TYPE_TAGS = {"learned": "LEARN", "decision": "DECIDE", "warning": "WARN", "pattern": "PATTERN"}
TYPES = tuple(TYPE_TAGS)
# Control lines: no `content`, so readers that show `.content` (the original bash recall.sh) skip them,
# and readers that filter by `type` can. They apply to a key; latest wins, as for entries. An `approve`
# line releases a held entry (memory.store.hold): it names the text it approved by `sha`, so it covers that text only.
FORGET, PIN, UNPIN, APPROVE = "forget", "pin", "unpin", "approve"
CONTROL_TYPES = (FORGET, PIN, UNPIN, APPROVE)
REQUIRED_FIELDS = ("key", "type", "content", "source", "tags", "ts", "bead")


# the largest float: a ts beyond it (a 400-digit integer, 1e400; NaN never compares within it) is no number a
# reader can rank or sort by (float() overflows, NaN breaks every comparison)
MAX_TS = 1.7976931348623157e308


def is_time(value: object) -> bool:
    """True for a ts every reader can use: a number (int or float) a float holds, not NaN."""
    return isinstance(value, (int, float)) and -MAX_TS <= value <= MAX_TS


def is_valid(obj: object) -> bool:
    """True for a dict carrying the fields every reader relies on."""
    return (isinstance(obj, dict) and isinstance(obj.get("key"), str) and isinstance(obj.get("content"), str)
            and is_time(obj.get("ts", 0)))


def is_control(obj: object) -> bool:
    """True for a control line: a forget / pin / unpin / approve of a key, without content."""
    return (isinstance(obj, dict) and obj.get("type") in CONTROL_TYPES and isinstance(obj.get("key"), str)
            and "content" not in obj and is_time(obj.get("ts", 0)))


def is_line(obj: object) -> bool:
    """True for anything the knowledge files hold on purpose: an entry or a control line."""
    return is_valid(obj) or is_control(obj)
