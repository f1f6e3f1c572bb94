import pytest

from memory.runtimes import tool_files


def test_added_text_is_what_an_edit_writes_that_was_not_there():
    edit = {"tool_name": "Edit", "tool_input": {"file_path": "/a.py", "old_string": "x = 1\ny = 2\n",
                                                "new_string": "x = 1\nimport dayjs\ny = 2\n"}}
    assert tool_files.added_text(edit) == "import dayjs"
    multi = {"tool_name": "MultiEdit", "tool_input": {"file_path": "/a.py", "edits": [
        {"old_string": "class A:\n", "new_string": "@dataclass\nclass A:\n"}, "junk",
        {"old_string": "b", "new_string": "c"}]}}
    assert tool_files.added_text(multi) == "@dataclass\nc"
    write = {"tool_name": "Write", "tool_input": {"file_path": "/n.rs", "content": "use std::fs;"}}
    assert tool_files.added_text(write) == "use std::fs;"
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    assert tool_files.added_text({"tool_name": "apply_patch", "tool_input": {"input": patch}}) == "x = 2"
    assert tool_files.added_text({"tool_name": "Bash", "tool_input": {"command": "apply_patch <<'EOF'\n" + patch}}) \
        == "x = 2"
    assert tool_files.added_text({"tool_name": "Read", "tool_input": {"file_path": "/a.py"}}) == ""
    assert tool_files.added_text({"tool_name": "Edit", "tool_input": "garbage"}) == ""
    big = {"tool_name": "Write", "tool_input": {"file_path": "/b", "content": "x" * 10 * tool_files.ADDED_CHARS}}
    assert len(tool_files.added_text(big)) == tool_files.ADDED_CHARS


def test_changes_files_is_any_edit_write_or_patch_even_one_that_only_deletes():
    delete = {"tool_name": "Edit", "tool_input": {"file_path": "/a.py", "old_string": "x = 1\n", "new_string": ""}}
    assert tool_files.added_text(delete) == "" and tool_files.changes_files(delete)
    patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.py\n*** End Patch\nEOF"
    for name, args in (("Write", {"file_path": "/a", "content": ""}), ("MultiEdit", {"edits": []}),
                       ("replace", {"file_path": "/a"}), ("write_file", {"file_path": "/a"}),
                       ("apply_patch", {"input": ""}), ("Bash", {"command": patch})):
        assert tool_files.changes_files({"tool_name": name, "tool_input": args}), name
    for name, args in (("Read", {"file_path": "/a"}), ("read_file", {"file_path": "/a"}),
                       ("Bash", {"command": "cat a.py"}), ("Grep", {"pattern": "x"})):
        assert not tool_files.changes_files({"tool_name": name, "tool_input": args}), name


@pytest.mark.parametrize("command, changed, named", [
    ("perl -pi -e 's/foo/bar/' src/app.py", ["src/app.py"], ["src/app.py"]),  # a cluster: no `-i` in the text
    ("sed -Ei 's/a/b/' x.py", ["x.py"], ["x.py"]),
    ("sed -ni 's/a/b/p' y.py", ["y.py"], ["y.py"]),
    ("perl -i.bak -pe 's/a/b/' z.py", ["z.py"], ["z.py"]),
    ("sed --in-place=.bak -e 's/a/b/' w.py", ["w.py"], ["w.py"]),
    ("sed -f fix.sed -i a.py", ["a.py"], ["a.py"]),  # -f's file is the script
    ("sed -i 's|old.name|new.name|' conf.py", ["conf.py"], ["conf.py"]),  # the script is no file
    ("cat a.py && sed -i 's/x/y/' b.py", ["b.py"], ["a.py", "b.py"]),
    ("sed -n 1,80p src/db.py", [], ["src/db.py"]),
    ("perl -Ilib t/patch.t", [], []),  # -I and -M take an argument: no in-place edit, and the program is run
    ("grep -i todo a.py; perl -Mstrict -w scripts/check.pl", [], []),
    ("python -i x.py", [], []),
    ("sort -i a.txt", [], []),
])
def test_in_place_edits_by_sed_and_perl_and_what_they_name(command, changed, named):
    payload = {"tool_name": "Bash", "tool_input": {"command": command}}
    assert tool_files.shell_changed_files(command) == changed
    assert tool_files.changes_files(payload) is bool(changed)
    assert tool_files.shell_read_files(command) == named


@pytest.mark.parametrize("command, named", [
    ("cd src && cat api/routes.py", ["src/api/routes.py"]),
    ("cd src/api; head -5 routes.py && cd ../.. && cat README.md", ["src/api/routes.py", "README.md"]),
    ("cd /srv/app && sed -i 's/a/b/' conf.py", ["/srv/app/conf.py"]),
    ("cd src && cat /etc/hosts.txt", ["/etc/hosts.txt"]),
    ("cat api/routes.py", ["api/routes.py"]),
    ("cd src && cat ../../clients/notes.md", ["../clients/notes.md"]),  # outside: provenance drops it
    ("cd src/ && cat ../README.md", ["README.md"]),
    ("pushd src && cat a.py", ["src/a.py"]),
    ("cd -P src && cat a.py", ["src/a.py"]),
    # a pipeline after the cd runs there; a `|` or `(` elsewhere in the line changes nothing
    ("cd src && cat api/routes.py | head -50", ["src/api/routes.py"]),
    ("cd src && sed -n 1,80p api/routes.py 2>&1 | head -100", ["src/api/routes.py"]),
    ("cd src && nl api/routes.py # see (line 40)", ["src/api/routes.py"]),
    ('cd src && grep -n "a|b" x.py; cat api/routes.py', ["src/api/routes.py"]),
    # a cd in a subshell or a substitution ends with it; one in a pipeline or before || never holds
    ("(cd sub && cat a.py) && cat b.py", ["sub/a.py", "b.py"]),
    ("cd a && (cd b && cat x.py) && cat y.py", ["a/b/x.py", "a/y.py"]),
    ("echo $(cd x && cat a.py) && cat b.py", ["x/a.py", "b.py"]),
    ("cd sub | cat a.py", ["a.py"]),
    ("cd src || cat a.py", ["a.py"]),
    # a cd to where the line does not say: a relative name after it is no file of the project's (an absolute is)
    ("cd src && cat a.py; cd - && cat b.py", ["src/a.py"]),
    ("cd src && cd $HOME && cat notes.md /etc/app.conf", ["/etc/app.conf"]),
    ("cd ~/clients/acme && cat notes.md", []),
])
def test_a_file_read_after_a_cd_of_the_same_line_is_named_from_where_the_cd_went(command, named):
    """`cd src && cat api/routes.py` was taken for the project's `api/routes.py`: the file's knowledge never came."""
    assert tool_files.shell_read_files(command) == named
