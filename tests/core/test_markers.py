"""memory.core.markers: marked lines, and a message without its code blocks."""
from memory.core import markers


def test_code_blocks_are_left_out_as_one_line_each_an_unclosed_one_to_the_end():
    text = "Done.\n```sh\nmake\nmake test\n```\nThen:\n~~~\nx = 1"
    assert markers.without_code(text) == "Done.\n[2 lines of code left out]\nThen:\n[1 line of code left out]"
    assert markers.without_code("no code\n> a quote") == "no code\n> a quote"


def test_a_longer_fence_quotes_shorter_ones_and_an_unclosed_block_falls_back_to_any_fence_closing_it():
    quoted = "a\n````\n```\nLEARNED: inside the quoted file\n```\n````\nLEARNED: outside"
    assert markers.marked_lines(quoted) == "LEARNED: outside"
    assert markers.without_code(quoted) == "a\n[3 lines of code left out]\nLEARNED: outside"
    # a Markdown file quoted in ```markdown with ``` inside: read strictly, its last ``` opens a block that
    # never closes and hides the rest of the message (the insight, the next step)
    nested = ("I added the README section:\n```markdown\n## Setup\n```bash\nnpm install\n```\n```\n"
              "LEARNED: npm install needs Node 20 here\nNext: wire the CI job.")
    assert markers.marked_lines(nested) == "LEARNED: npm install needs Node 20 here"
    assert markers.without_code(nested).endswith("LEARNED: npm install needs Node 20 here\nNext: wire the CI job.")
