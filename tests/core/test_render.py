"""memory.core.render: control characters never reach a terminal, with or without the regex."""
import re
import sys

from memory.core import render


def test_strip_control_without_the_regex_is_the_regex():
    pattern = re.compile(render.CONTROL_CHARS)
    for code in range(sys.maxunicode + 1):
        text = f"a{chr(code)}{chr(code)}b"
        assert render.strip_control(text) == pattern.sub(" ", text), hex(code)


def test_format_entry_shows_every_field_and_strips_controls():
    entry = {"key": "learned-x", "type": "learned", "content": "line one\nline \x1b[31mtwo", "source": "orchestrator",
             "tags": ["learned", "build", 3], "ts": 0, "bead": "BD-1", "pinned": True, "session_id": "s1"}
    head, one, two = render.format_entry(entry).split("\n")
    assert head.startswith("[LEARN] learned-x  BD-1 · orchestrator · ") and "session s1" in head
    assert head.endswith("(pinned)  #build") and one == "    line one" and two == "    line  [31mtwo"
    assert render.format_entry({"key": "k", "type": "forget", "ts": "x"}) == "[FORGET] k  ?"
