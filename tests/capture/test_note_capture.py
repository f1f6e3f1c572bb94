"""PostToolUse(Write|Edit) -> Claude Code's auto memory notes captured as Claude writes them, only with
`"capture_claude_notes": true`: the hook file run as Claude Code runs it, on the recorded Write payload shape."""
from __future__ import annotations

import json
from pathlib import Path

from helpers import assert_protocol, error_log, fixture_payload, knowledge, make_repo, run_hook
from memory.capture import note_capture
from memory.runtimes import automemory

PROJECT_NOTE = "---\nname: Queue\ntype: project\n---\nThe job queue drains only on the worker host.\n"


def setup(tmp_path: Path, enabled: bool) -> tuple[Path, Path, Path]:
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo")
    folder = home / ".claude" / "projects" / automemory.sanitize(str(repo)) / "memory"
    folder.mkdir(parents=True)
    (repo / ".beads" / "memory").mkdir(parents=True)
    if enabled:
        (repo / ".beads" / "memory" / "config.json").write_text(json.dumps({"capture_claude_notes": True}))
    return home, repo, folder


def write(home: Path, repo: Path, path: Path, text: str, tool: str = "Write"):
    """Claude Code's Write (or Edit) of `path`, then its PostToolUse hook."""
    path.write_text(text)
    payload = fixture_payload("claude-code/2.1.197/PostToolUse-15.json")  # a recorded Write
    payload.update(cwd=str(repo), tool_name=tool, tool_input={"file_path": str(path), "content": text})
    payload["tool_response"] = dict(payload["tool_response"], filePath=str(path), content=text)
    proc = run_hook("claude_note", payload, repo, env={"HOME": str(home)})
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert_protocol(proc.stdout)
    assert proc.stdout == b""
    return proc


def test_off_by_default(tmp_path):
    home, repo, folder = setup(tmp_path, enabled=False)
    write(home, repo, folder / "project_queue.md", PROJECT_NOTE)
    assert knowledge(repo) == []


def test_project_and_reference_notes_are_captured_as_written(tmp_path):
    home, repo, folder = setup(tmp_path, enabled=True)
    write(home, repo, folder / "project_queue.md", PROJECT_NOTE)
    write(home, repo, folder / "user_role.md", "---\ntype: user\n---\nThe user is a data scientist.\n")
    write(home, repo, folder / "MEMORY.md", "- [Queue](project_queue.md)\n")
    write(home, repo, repo / "notes.md", PROJECT_NOTE.replace("job queue", "other queue"))  # not Claude's folder
    [captured] = knowledge(repo)
    assert captured["content"] == "The job queue drains only on the worker host."
    assert captured["key"] == "learned-claude-project-queue" and captured["via"] == "capture:claude"
    write(home, repo, folder / "project_queue.md", PROJECT_NOTE, tool="Edit")  # the same text again: nothing new
    assert len(knowledge(repo)) == 1
    write(home, repo, folder / "project_queue.md", PROJECT_NOTE.replace("worker host", "queue host"), tool="Edit")
    assert [e["content"] for e in knowledge(repo)][-1] == "The job queue drains only on the queue host."
    assert (folder / "project_queue.md").read_text().endswith("queue host.\n")  # the note itself: untouched
    assert error_log(repo) == ""


def test_bad_input_fails_open(tmp_path):
    home, repo, _ = setup(tmp_path, enabled=True)
    for stdin in (b"", b"\xff\xfe.md\x00", b'{"tool_input": "x.md"}', b"[1, 2, \".md\"]"):
        proc = run_hook("claude_note", stdin, repo, env={"HOME": str(home)})
        assert proc.returncode == 0 and proc.stdout == b""
    assert knowledge(repo) == []


def test_the_gate_reads_raw_bytes_only():
    assert not note_capture.might_capture(b'{"tool_name":"Bash","tool_input":{"command":"ls"}}')
    assert note_capture.might_capture(b'{"tool_input":{"file_path":"/h/.claude/projects/x/memory/a.md"}}')


def test_a_fifo_for_claudes_settings_or_a_note_never_holds_the_hook(tmp_path):
    """The hook reads Claude's settings (autoMemoryDirectory) and the note written: a FIFO at either made open()
    wait for a writer (the hook hung on every Write until Claude Code killed it). Now each is unreadable: the
    settings say nothing, the note is skipped."""
    import os

    home, repo, folder = setup(tmp_path, enabled=True)
    os.mkfifo(home / ".claude" / "settings.json")
    os.mkfifo(folder / "project_pipe.md")
    payload = fixture_payload("claude-code/2.1.197/PostToolUse-15.json")
    payload.update(cwd=str(repo), tool_input={"file_path": str(folder / "project_pipe.md"), "content": "x"})
    proc = run_hook("claude_note", payload, repo, env={"HOME": str(home)}, timeout=20)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    write(home, repo, folder / "project_queue.md", PROJECT_NOTE)  # a note beside them: captured as before
    assert [e["content"] for e in knowledge(repo)] == ["The job queue drains only on the worker host."]
