"""memory.core.shell_words: quote removal, escapes, and `$((…))` / `${…}` kept whole, as shell.parse reads them."""
import pytest
from test_shell import words


def test_quotes_and_escapes():
    assert words("""echo 'a b' "c \\"d\\" $HOME" e\\ f""") == [["echo", "a b", 'c "d" $HOME', "e f"]]


def test_ansi_c_quoting():
    assert words("printf $'x\\ny\\t\\x41'") == [["printf", "x\ny\tA"]]
    assert words("printf $'\\xZ \\q'") == [["printf", "\\xZ \\q"]]  # no hex digits, an unknown escape: as written


@pytest.mark.parametrize("src, expected", [
    # ${…} stays as written (never expanded), also with operators and quotes inside
    ('echo "${HOME:-/tmp}" ${A//;/ }', [["echo", "${HOME:-/tmp}", "${A//;/ }"]]),
    # $(( )) arithmetic is one word, its operators split nothing
    ("echo $(( 1 + (2 * 3) )) done", [["echo", "$(( 1 + (2 * 3) ))", "done"]]),
    ('echo "$(( 2 * 3 ))"', [["echo", "$(( 2 * 3 ))"]]),
    ("echo a\"b\"'c'$'d'", [["echo", "abcd"]]),  # one word of four parts
])
def test_words_kept_whole(src, expected):
    assert words(src) == expected
