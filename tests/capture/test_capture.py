"""bd comment parsing and the capture gate, including every case the bash capture hook got wrong."""
from memory.capture.bdcomment import Insight, insights_in_command, split_insights
from memory.capture.capture_gate import might_capture


def test_readme_example():
    cmd = 'bd comment BD-001 "LEARNED: TaskGroup requires @Sendable closures in strict concurrency mode."'
    insight = "TaskGroup requires @Sendable closures in strict concurrency mode."
    assert insights_in_command(cmd) == [Insight("BD-001", insight)]


def test_repro_chained_command_is_not_part_of_the_content():
    cmd = 'bd comment BD-001 "LEARNED: use pnpm not npm" && bd update BD-002 --status inreview'
    assert insights_in_command(cmd) == [Insight("BD-001", "use pnpm not npm")]


def test_chains_with_semicolon_pipe_and_newline():
    cmd = 'cd repo; bd comment BD-1 "LEARNED: a" | tee log\nbd comment BD-2 \'LEARNED: b\''
    assert insights_in_command(cmd) == [Insight("BD-1", "a"), Insight("BD-2", "b")]


def test_repro_comments_add_form_is_captured():
    assert insights_in_command('bd comments add BD-003 "LEARNED: comments add works"') == \
        [Insight("BD-003", "comments add works")]


def test_repro_file_form_reads_the_file_relative_to_cwd(tmp_path):
    (tmp_path / "notes.txt").write_text("Context first.\nLEARNED: from the file\n")
    assert insights_in_command("bd comment BD-5 --file notes.txt", str(tmp_path)) == [Insight("BD-5", "from the file")]
    assert insights_in_command("bd comments add BD-5 -f notes.txt", str(tmp_path)) == [Insight("BD-5", "from the file")]
    assert insights_in_command("bd comment BD-5 --file=notes.txt", str(tmp_path)) == [Insight("BD-5", "from the file")]
    # comment.go has --file only: bd refuses `bd comment ID -f F` ("unknown shorthand flag"), stores nothing
    assert insights_in_command("bd comment BD-5 -f notes.txt", str(tmp_path)) == []


def test_repro_shell_comment_is_not_a_capture(tmp_path):
    (tmp_path / "notes.txt").write_text("no insight here\n")
    assert insights_in_command("bd comment BD-5 --file notes.txt  # LEARNED: in file", str(tmp_path)) == []


def test_missing_file_is_no_capture(tmp_path):
    assert insights_in_command("bd comment BD-5 --file nope.txt", str(tmp_path)) == []


def test_repro_multi_line_body_keeps_bead_id_clean():
    cmd = 'bd comment BD-004 "LEARNED: first line\nsecond line"'
    assert insights_in_command(cmd) == [Insight("BD-004", "first line\nsecond line")]


def test_heredoc_substitution_body():
    cmd = "bd comment BD-9 \"$(cat <<'EOF'\nLEARNED: heredocs keep $VARS literal\nand \"quotes\"\nEOF\n)\""
    assert insights_in_command(cmd) == [Insight("BD-9", 'heredocs keep $VARS literal\nand "quotes"')]


def test_stdin_forms():
    assert insights_in_command("bd comment BD-2 --stdin <<'EOF'\nLEARNED: via heredoc\nEOF") == \
        [Insight("BD-2", "via heredoc")]
    assert insights_in_command('echo "LEARNED: via pipe" | bd comment BD-3 --stdin') == [Insight("BD-3", "via pipe")]
    assert insights_in_command("bd comment BD-4 --file - <<<'LEARNED: here-string'") == [Insight("BD-4", "here-string")]


def test_learned_in_other_commands_is_not_captured():
    for cmd in ["echo 'LEARNED: TaskGroup requires @Sendable closures'",
                'git commit -m "LEARNED: not a bead comment"',
                'bd create "LEARNED: a title, not a comment"',
                'grep -r "LEARNED:" .beads/memory',
                "bd comment BD-1 'progress note' && echo 'LEARNED: elsewhere'"]:
        assert insights_in_command(cmd) == [], cmd


def test_global_flags_env_prefix_and_paths():
    assert insights_in_command('BD_ACTOR=me bd --actor bot comment BD-1 "LEARNED: x"') == [Insight("BD-1", "x")]
    assert insights_in_command('/usr/local/bin/bd comments add --author me BD-1 "LEARNED: y"') == [Insight("BD-1", "y")]
    assert insights_in_command('bd comment --author me BD-1 "LEARNED: y"') == []  # comment.go has no --author
    assert insights_in_command('bd comment BD-1 LEARNED: unquoted words') == [Insight("BD-1", "unquoted words")]


def test_several_insights_in_one_comment():
    assert split_insights("Done.\nLEARNED: one\nLEARNED: two") == ["one", "two"]
    assert split_insights("NOT_LEARNED: x") == []
    assert split_insights("- LEARNED: one\n- LEARNED: two\n1. LEARNED: three\n2. LEARNED: four") == [
        "one", "two", "three", "four"]  # a list: no piece keeps the next item's bullet or number
    assert split_insights("LEARNED: ranges go 1-\nLEARNED: b") == ["ranges go 1-", "b"]  # text's own dash stays


def test_comment_without_bead_or_text_is_ignored():
    assert insights_in_command("bd comment") == []
    assert insights_in_command("bd comment BD-1") == []


def test_fast_path_filter():
    assert might_capture(b'{"tool_input":{"command":"bd comment X \\"LEARNED: y\\""}}')
    assert might_capture(b'{"tool_input":{"command":"bd comment X --file n.txt"}}')
    for marker in (b"DECISION", b"WARNING", b"PATTERN", b"FORGET"):  # the other types and forget pass too
        assert might_capture(b'{"tool_input":{"command":"bd comment X \\"' + marker + b': y\\""}}')
    assert not might_capture(b'{"tool_input":{"command":"bd comment X \\"Decision made\\""}}')
    assert not might_capture(b'{"tool_input":{"command":"ls -la"}}')
    assert not might_capture(b'{"tool_input":{"command":"echo LEARNED: x"}}')  # no comment, nothing to do
    assert might_capture(b'{"tool_input":{"command":"bd remember \\"use uv\\""}}')  # bd's memory commands
    assert might_capture(b'{"tool_input":{"command":"bd forget use-uv"}}')
    assert not might_capture(b'{"tool_input":{"command":"ls"},"tool_response":{"stdout":"remember to forget"}}')
