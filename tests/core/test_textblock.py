"""memory.core.textblock: our block in a user's text file, every byte around it kept."""
import pytest

from memory.core import textblock

B, E = "# >>> ours", "# <<< ours"


@pytest.mark.parametrize("theirs", [b"", b"a\n", b"a\r\nb\r\n", b"a\r\nb", b"\xef\xbb\xbfa\n\n", b"caf\xe9\x0c\n",
                                    b"a\nb\r\nc\r\n"])
def test_put_then_take_out_gives_back_the_users_bytes(theirs):
    placed = textblock.put(theirs, B, E, ["x", "y"])
    assert placed.startswith(theirs)
    newline = textblock.line_ending(theirs)
    assert placed.endswith(newline.join([b"# >>> ours", b"x", b"y", b"# <<< ours"]) + newline)
    assert textblock.put(placed, B, E, ["x", "y"]) == placed  # a second run changes nothing
    restored = textblock.take_out(placed, B, E)
    assert restored == (theirs if theirs.endswith(b"\n") or not theirs else theirs + newline)


def test_an_update_is_made_in_place_and_a_file_ending_at_our_marker_still_does():
    data = b"a\r\n# >>> ours\r\nold\r\n# <<< ours\r\nb\r\n"
    assert textblock.put(data, B, E, ["new"]) == b"a\r\n# >>> ours\r\nnew\r\n# <<< ours\r\nb\r\n"
    assert textblock.put(b"# >>> ours\nold\n# <<< ours", B, E, ["new"]) == b"# >>> ours\nnew\n# <<< ours"
    assert textblock.take_out(b"a\n", B, E) == b"a\n" and textblock.count(data, B) == 1


def test_a_begin_marker_without_an_end_is_not_our_block():
    data = b"# >>> ours\nmine\n"
    assert textblock.take_out(data, B, E) == data
    assert textblock.put(data, B, E, ["x"]) == data + b"\n# >>> ours\nx\n# <<< ours\n"


def test_a_stray_begin_marker_never_takes_the_users_lines_into_our_block():
    """A begin marker left without its end (the end line deleted by hand, a merge resolved badly): our block goes
    after it, and every later run updates that block, never the user's lines between the stray marker and it
    (they went: the block ran from the first begin marker to the first end marker after it)."""
    data = b"dist/\n# >>> ours\nmine\n.env\n"
    placed = textblock.put(data, B, E, ["x"])
    for _ in range(2):  # an upgrade, then another
        placed = textblock.put(placed, B, E, ["y"])
        assert placed == data + b"\n# >>> ours\ny\n# <<< ours\n"
    assert textblock.take_out(placed, B, E) == data
    # a begin marker inside a block: that block is still the one updated in place
    nested = b"# >>> ours\n# >>> ours\nold\n# <<< ours\nafter\n"
    assert textblock.put(nested, B, E, ["new"]) == b"# >>> ours\n# >>> ours\nnew\n# <<< ours\nafter\n"
