"""The tables of a TOML file, as far as a settings check needs them (Python 3.9 has no tomllib).

    tables(text)  {("projects", "/repo"): {"trust_level": "trusted"}, ("features",): {"hooks": "false"}, ...}

Headers with quoted parts (`[hooks.state."/repo/.codex/hooks.json:stop:0:0"]`), dotted keys
(`features.hooks = false` is key `hooks` of table `features`) and one-line inline tables (`"k" = { a = 1 }` is a
table of its own) are read; a string value is unquoted, any other value is its text (`false`, `3`). Arrays of
tables and values over several lines are skipped, never an error.
"""
from __future__ import annotations

import json
import re

_PART = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*(\.|$)')
_HEADER = re.compile(r"^\s*\[(?!\[)(.*)\]\s*(?:#.*)?$")
_PAIR = re.compile(r'^\s*((?:(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*\.\s*)*'
                   r'(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+))\s*=\s*(.*?)\s*$')
_VALUE = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^,#]+')


def tables(text: str) -> dict[tuple[str, ...], dict[str, str]]:
    """Each table's keys and values (see the module's docstring); the top level is the table ()."""
    found: dict[tuple[str, ...], dict[str, str]] = {(): {}}
    table: tuple[str, ...] | None = ()
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            table = _path(header.group(1))
            if table is not None:
                found.setdefault(table, {})
            continue
        if line.lstrip().startswith("[["):
            table = None  # an array of tables: not read
            continue
        pair = _PAIR.match(line)
        key = _path(pair.group(1)) if pair and table is not None else None
        if not key or pair is None or table is None:
            continue
        value = pair.group(2)
        if value.startswith("{") and value.rstrip().endswith("}"):
            inner = found.setdefault(table + key, {})
            for item in _items(value.strip()[1:-1]):
                sub = _PAIR.match(item)
                sub_key = _path(sub.group(1)) if sub else None
                if sub and sub_key and len(sub_key) == 1:
                    inner[sub_key[0]] = _scalar(sub.group(2))
            continue
        found.setdefault(table + key[:-1], {})[key[-1]] = _scalar(value)
    return found


def _path(text: str) -> tuple[str, ...] | None:
    """`a."b.c".d` as ("a", "b.c", "d"); None when it is not a key path."""
    parts, pos = [], 0
    text = text.strip()
    while pos < len(text):
        part = _PART.match(text, pos)
        if part is None or part.end() == pos:
            return None
        word = part.group(1)
        parts.append(_basic_string(word) if word[0] == '"' else word.strip("'") if word[0] == "'" else word)
        pos = part.end()
    return tuple(parts) or None


def _items(text: str) -> list[str]:
    """The `k = v` items of an inline table's inside (commas inside strings kept)."""
    items, current = [], ""
    for piece in re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^"\',]+|,', text):
        if piece == ",":
            items.append(current)
            current = ""
        else:
            current += piece
    return [item for item in items + [current] if item.strip()]


def _scalar(text: str) -> str:
    """A value's text: a string unquoted, anything else as written (a comment after it left out)."""
    value = _VALUE.match(text.strip())
    word = value.group(0).strip() if value else ""
    if word.startswith('"'):
        return _basic_string(word)
    return word[1:-1] if word.startswith("'") else word


def _basic_string(word: str) -> str:
    """A TOML basic string ("…") unquoted: JSON's escapes, and TOML's `\\UXXXXXXXX`; with an escape neither
    knows (`\\e`), its text as written."""
    def escape(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) == 9:  # `\\U` and 8 hex digits: the same character as JSON writes it
            return json.dumps(chr(min(int(code[1:], 16), 0x10FFFF)))[1:-1]
        return match.group(0)

    try:
        return str(json.loads(re.sub(r"\\(U[0-9A-Fa-f]{8}|.)", escape, word)))
    except ValueError:
        return word[1:-1]
