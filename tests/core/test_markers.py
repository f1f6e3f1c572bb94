"""memory.core.markers: marked lines, and a message without its code blocks."""
from memory.core import markers


def test_code_blocks_are_left_out_as_one_line_each_an_unclosed_one_to_the_end():
    text = "Done.\n```sh\nmake\nmake test\n```\nThen:\n~~~\nx = 1"
    assert markers.without_code(text) == "Done.\n[2 lines of code left out]\nThen:\n[1 line of code left out]"
    assert markers.without_code("no code\n> a quote") == "no code\n> a quote"
