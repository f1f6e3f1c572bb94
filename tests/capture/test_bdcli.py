"""bd's command line as bd reads it (memory.capture.bdcli), and the capture agreeing with what bd stores.

The agreement test runs each command line through a real shell with the fake bd (tests/fake_bd/bd, modelled
on cmd/bd/comment.go, comments.go and memory.go) and compares what bd stored with what we capture.
"""
import json
import os
import subprocess

import pytest

from conftest import bd_env
from memory.capture import bdcli
from memory.capture.bdcomment import Insight, insights_in_command, marker_hint
from memory.capture.capture_gate import might_capture


def test_bd_comment_joins_every_text_word_and_comments_add_keeps_the_first():
    """Issue 21.5: `bd comments add BD-1 "LEARNED: a" "b"` stores only `LEARNED: a` (comments.go: args[1])."""
    assert insights_in_command('bd comments add BD-1 "LEARNED: a" "b"') == [Insight("BD-1", "a")]
    assert insights_in_command("bd comment BD-1 LEARNED: a b") == [Insight("BD-1", "a b")]
    assert insights_in_command('bd comments add BD-1 "note" "LEARNED: dropped by bd"') == []


@pytest.mark.parametrize("words, command, args, flags, refused", [
    (["bd", "comment", "BD-1", "--stdin"], "comment", ["BD-1"], {"--stdin": "true"}, None),
    (["bd", "comment", "BD-1", "x", "-f", "n"], "comment", ["BD-1", "x", "n"], {}, "unknown shorthand flag: '-f'"),
    (["bd", "comment", "BD-1", "--author", "me", "x"], "comment", ["BD-1", "me", "x"], {}, "unknown flag: --author"),
    (["bd", "comments", "add", "-fnotes", "BD-1"], "comments add", ["BD-1"], {"--file": "notes"}, None),
    (["bd", "comments", "add", "BD-1", "-f=notes"], "comments add", ["BD-1"], {"--file": "notes"}, None),
    (["bd", "comments", "add", "BD-1", "--stdin"], "comments add", ["BD-1"], {}, "unknown flag: --stdin"),
    (["bd", "-C", "/x", "--json", "comments", "add", "-a", "me", "BD-1", "t"], "comments add", ["BD-1", "t"],
     {"--directory": "/x", "--json": "true", "--author": "me"}, None),
    (["bd", "remember", "a", "b"], "remember", ["a", "b"], {}, "accepts 1 arg(s), received 2"),
    (["bd", "remember", "--key=k", "t"], "remember", ["t"], {"--key": "k"}, None),
    (["bd", "--readonly", "remember", "t"], "remember", ["t"], {"--readonly": "true"}, "--readonly blocks writes"),
    (["bd", "forget"], "forget", [], {}, "accepts 1 arg(s), received 0"),
    (["bd", "comment", "BD-1", "--", "--stdin"], "comment", ["BD-1", "--stdin"], {}, None),
    (["bd", "comment", "BD-1", "--stdin", "--file", "f"], "comment", ["BD-1"], {"--stdin": "true", "--file": "f"},
     "--stdin and --file can't be used together"),
    (["bd", "comment", "-h"], "comment", [], {"--help": "true"}, "--help only prints help"),
])
def test_parse_follows_cobra(words, command, args, flags, refused):
    call = bdcli.parse(words)
    assert (call.command, call.args, call.flags) == (command, args, flags)
    assert call.refused == refused or (refused and call.refused.startswith(refused))


@pytest.mark.parametrize("words", [["bd", "comments", "BD-1"], ["bd", "create", "remember this"], ["git", "comment"],
                                   ["bd", "memories"], ["bd", "--db", "comment", "show", "BD-1"], ["bd"]])
def test_other_commands_are_not_recording_calls(words):
    assert bdcli.parse(words) is None


@pytest.mark.parametrize("text, key", [
    ("always run tests with -race flag", "always-run-tests-with-race-flag"),
    ("Dolt phantom DBs hide in three places, and more words after", "dolt-phantom-dbs-hide-in-three-places-and"),
    ("a" * 70 + " b", "a" * 60),
    ("x" * 59 + " yy", "x" * 59),  # cut at 60 ends on a dash: trimmed
    ("日本語", ""),
])
def test_slug_is_bds(text, key):
    assert bdcli.slug(text) == key


# Each: a command line, and what bd stores. Run through sh with the fake bd, then compared with the capture.
AGREEMENT = [
    'bd comment BD-1 LEARNED: all the words joined',
    'bd comment BD-1 "LEARNED: quoted" and more',
    'bd comments add BD-1 "LEARNED: only the first" "LEARNED: dropped"',
    'bd comments add BD-1 -f notes.md "LEARNED: ignored text"',
    'bd comments add -a me BD-1 "LEARNED: with an author"',
    'bd comment BD-1 --file notes.md',
    'bd comment BD-1 --file=notes.md LEARNED: words ignored',
    'bd comment BD-1 -f notes.md',
    'bd comment BD-1 -m "LEARNED: bd has no -m"',
    'bd comments add BD-1 --author=me --file notes.md',
    'bd comment BD-1 --stdin <<EOF\nLEARNED: from stdin\n\nEOF',
    'printf "LEARNED: piped\\n" | bd comment BD-1 --stdin',
    'bd comment BD-1 --file - <<<"LEARNED: file dash is stdin"',
    'bd comments add BD-1 --stdin <<<"LEARNED: no such flag"',
    'bd --readonly comment BD-1 "LEARNED: read-only"',
    'bd comment NOPE-9 "LEARNED: unknown bead"',
    'bd comment BD-1 -- "LEARNED: after dashes" --stdin',
    'bd remember "LEARNED: via remember"',
    'bd remember "plain memory text" --key plain-key',
    'bd remember two words',
]


def _stored_by_fake(command: str, cwd, state) -> list[str]:
    subprocess.run(["bash", "-c", command], cwd=cwd, env={**os.environ, **bd_env(state)}, capture_output=True)
    issues = json.loads((state / "issues.json").read_text())
    memories = json.loads((state / "memories.json").read_text()) if (state / "memories.json").exists() else {}
    return issues["BD-1"].get("comments", []) + list(memories.values())


@pytest.mark.parametrize("command", AGREEMENT)
def test_capture_agrees_with_what_bd_stores(tmp_path, command):
    (tmp_path / "notes.md").write_text("LEARNED: from the file\n")
    state = tmp_path / "bd"
    state.mkdir()
    (state / "issues.json").write_text(json.dumps({"BD-1": {"status": "open"}}))
    stored = _stored_by_fake(command, tmp_path, state)
    captured = insights_in_command(command, str(tmp_path))
    # what we capture is exactly the marked text of what bd stored (an unknown bead: bd stored nothing, and
    # the hook finds that out from the failed call; the parser alone can't know)
    expected = [piece for text in stored for piece in _marked(text)]
    if "NOPE-9" in command:
        assert stored == [] and [c.content for c in captured] == ["unknown bead"]
        return
    assert [c.content for c in captured] == expected, stored


def _marked(text: str) -> list[str]:
    from memory.capture.bdcomment import leading_marker, split_insights

    found = split_insights(text)
    if found:
        return found
    lead = leading_marker(text)
    return [lead[1]] if lead else [text.strip()]


def test_refusals_are_explained_only_where_bd_refuses():
    assert "bd comment` reads a file with --file" in marker_hint("bd comment BD-1 -f notes.md")
    assert "stores only its first text argument" in marker_hint('bd comments add BD-1 "done" "LEARNED: x"')
    assert "Quote it as one argument" in marker_hint("bd remember always use pnpm")
    assert marker_hint('bd comment BD-1 "LEARNED: x"') is None
    assert marker_hint("bd comment BD-1 --help") is None


def test_gate_lets_bd_memory_commands_through_and_keeps_the_rest_fast():
    def raw(command: str) -> bytes:
        return json.dumps({"tool_name": "Bash", "tool_input": {"command": command}}).encode()

    for command in ['bd remember "always use pnpm"', "bd forget always-use-pnpm", "bd --json remember x"]:
        assert might_capture(raw(command)), command
    for command in ["ls -1 && echo two-parallel", 'git commit -m "fix the cache"', "bd ready", "bd show BD-1"]:
        assert not might_capture(raw(command)), command
