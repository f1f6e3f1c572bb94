"""memory.core.shell: the commands of a command line (the words themselves: test_shell_words.py)."""
import pytest

from memory.core import shell


def words(src):
    return [c.words for c in shell.parse(src)]


def test_operators_split_commands():
    assert words("a 1 && b 2; c 3 | d 4 || e\nf") == [["a", "1"], ["b", "2"], ["c", "3"], ["d", "4"], ["e"], ["f"]]


def test_comment_only_at_word_start():
    assert words("echo a#b # LEARNED: not an argument") == [["echo", "a#b"]]


def test_redirections_are_not_words():
    assert words("bd comment X 'y' 2>&1 >/dev/null </dev/null") == [["bd", "comment", "X", "y"]]


def test_heredoc_body_attached_to_its_command():
    cmds = shell.parse("cat <<'EOF' | bd comment X --stdin\nline 1\n$NOT_EXPANDED\nEOF\necho after")
    assert cmds[0].words == ["cat"] and cmds[0].stdin_text == "line 1\n$NOT_EXPANDED\n"
    assert cmds[1].pipe_from is cmds[0]
    assert cmds[2].words == ["echo", "after"]


def test_heredoc_with_dash_strips_tabs():
    cmds = shell.parse("cat <<-END\n\tindented\n\tEND\n")
    assert cmds[0].stdin_text == "indented\n"


def test_cat_heredoc_substitution_is_evaluated():
    src = 'bd comment BD-7 "$(cat <<\'EOF\'\nLEARNED: body\nwith "quotes"\nEOF\n)"'
    assert ["bd", "comment", "BD-7", 'LEARNED: body\nwith "quotes"'] in words(src)


def test_unknowable_substitution_keeps_source_text():
    assert words('echo "$(date +%s)"') == [["date", "+%s"], ["echo", "$(date +%s)"]]


def test_line_continuation():
    assert words("bd comment \\\n  X y") == [["bd", "comment", "X", "y"]]


def test_unterminated_input_does_not_raise():
    for src in ['echo "open', "echo 'open", "cat <<EOF\nno end", "echo $(unclosed", "`", "(((", "a <", "&&&"]:
        shell.parse(src)


@pytest.mark.parametrize("src, expected", [
    # backticks: the inner command is found, its knowable output is the word
    ("bd comment X `echo LEARNED: from backticks`", [["echo", "LEARNED:", "from", "backticks"],
                                                    ["bd", "comment", "X", "LEARNED: from backticks"]]),
    # subshells and groups separate commands, even right after a quoted word
    ('(cd sub && bd comment X "LEARNED: y")', [["cd", "sub"], ["bd", "comment", "X", "LEARNED: y"]]),
    ("{ a; b; }", [["{", "a"], ["b"], ["}"]]),
])
def test_lexer_features_the_readme_names(src, expected):
    assert words(src) == expected
