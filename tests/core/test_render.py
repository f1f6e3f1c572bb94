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


def test_a_cut_falls_between_words_never_inside_a_path_or_an_accent():
    text = "Refunds round half-even in src/payments/refunds/handlers.py since the 2024 audit of every ledger"
    for limit in range(40, len(text)):
        got = render.one_line(text, limit)
        assert got.endswith("…") and len(got) <= limit + 1 and text.startswith(got[:-1])
        assert got[:-1].split()[-1] in text.split()  # the last word shown is a whole word of the text
    one_word = "x" * 50 + "e\u0301" * 20  # one long word: cut inside it, but never between e and its accent
    got = render.one_line(one_word, 60)
    assert got[-2] != "e" and not got[-2].isspace() and len(got) <= 61


def test_an_entry_longer_than_any_capture_is_printed_cut_and_says_so():
    """A hand edit or a merge can hold megabytes in one line; recall.sh's output lands in the agent's context."""
    long = "the frobnicator " + "lorem ipsum " * 100_000
    shown = render.format_entry({"key": "learned-x", "type": "learned", "content": long, "ts": 1})
    assert len(shown) < render.SHOWN_CHARS + 300 and f"the entry has {len(long):,} characters" in shown
    usual = "a" * 2048 + " end"  # what a capture may write, and more, is printed whole
    assert render.format_entry({"key": "learned-y", "type": "learned", "content": usual, "ts": 1}).endswith(usual)
