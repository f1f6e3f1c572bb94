"""memory.commands.recall_options: the plain keyword form read without argparse means what argparse reads."""
import pytest

from memory.commands import recall_options

PLAIN = [["deploy"], ["deploy", "--all"], ["--all", "deploy"], ["deploy", "cache", "--all"], ["deploy cache"],
         ["deploy", "--all", "--all"], ["ß", "--all"], ["deploy", "--limit", "100000"],
         ["deploy", "--all", "--limit", "7"]]
OTHERS = [["--all"], [], ["--all", "--json", "deploy"], ["deploy", "--al"], ["deploy", "-x"], ["deploy", "--", "-x"],
          ["--limit", "3", "deploy", "cache"], ["deploy", "--recent"], ["deploy", "--limit", "0"],
          ["deploy", "--limit", "-3"], ["--limit", "5"], ["deploy", "--limit"]]


@pytest.mark.parametrize("argv", PLAIN + OTHERS, ids=repr)
def test_the_plain_keyword_form_parses_as_argparse_parses_it(argv):
    """Words and --all are read without argparse; every option argparse knows has its default in Options."""
    parser = recall_options.build_parser()
    try:
        expected = parser.parse_intermixed_args(argv, recall_options.Options())
    except SystemExit:
        assert argv not in PLAIN
        return
    got = recall_options.parse(argv)
    for action in parser._actions:
        if action.dest != "help":
            assert hasattr(recall_options.Options, action.dest), action.dest
            assert getattr(got, action.dest) == getattr(expected, action.dest), (argv, action.dest)
