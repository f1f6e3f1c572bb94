"""memory.runtimes.transcript: one tolerant pass over a transcript's user and assistant lines (Reader), and the
last assistant text."""
import json

from memory.runtimes import transcript


def line(kind, content):
    message = {"role": kind, "content": content}
    return json.dumps({"type": kind, "timestamp": "2026-11-22T10:00:00Z", "message": message})


def shell(tool_id, command):
    return line("assistant", [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}])


def failed(tool_id, error):
    return line("user", [{"type": "tool_result", "tool_use_id": tool_id, "is_error": True, "content": error}])


def test_prompts_failures_and_the_last_text(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [line("user", "fix the build"), "{torn", shell("t1", "make"), failed("t1", "boom"),
             line("user", "<system-reminder>x</system-reminder>"), shell("t2", "make test"), failed("t2", "FAILED x"),
             line("assistant", [{"type": "text", "text": "Done."}])]
    path.write_text("\n".join(lines) + "\n")
    reader = transcript.read_transcript(str(path))
    assert reader.prompts == ["fix the build"] and reader.started == "2026-11-22T10:00:00Z"
    assert reader.failed_commands() == [("make test", "FAILED x"), ("make", "boom")]
    assert reader.failed_commands(window=1) == [("make test", "FAILED x")]
    assert reader.last_text == "Done." == transcript.last_assistant_text(str(path))


def test_a_tail_read_skips_the_record_it_cut(tmp_path):
    path = tmp_path / "t.jsonl"
    first, last = shell("t1", "make " + "x" * 200), shell("t2", "make test")
    path.write_text(first + "\n" + last + "\n")
    reader = transcript.read_transcript(str(path), tail_bytes=len(last) + 20)
    assert reader.order == ["t2"]


def test_an_unreadable_transcript_is_an_empty_reader(tmp_path):
    for path in (None, str(tmp_path / "missing.jsonl"), str(tmp_path)):
        reader = transcript.read_transcript(path)
        assert reader.prompts == [] and reader.order == [] and reader.last_text == ""


def test_a_transcript_the_runtime_names_through_a_symlink_is_read_whole_or_by_its_tail(tmp_path):
    """The runtime gives the path, so a link there is followed (fsio.open_regular's `follow`), by the whole read a
    handoff makes and the tail read a capture's provenance makes alike: the tail read refused it (ELOOP), and a
    capture in a session whose transcript is a link recorded neither the files nor the failure."""
    from helpers import bash_payload, knowledge, make_repo, run_hook

    repo = make_repo(tmp_path / "app")
    real = tmp_path / "elsewhere" / "session.jsonl"
    real.parent.mkdir()
    read = line("assistant", [{"type": "tool_use", "id": "r1", "name": "Read",
                               "input": {"file_path": str(repo / "db" / "pool.py")}}])
    real.write_text("\n".join([read, shell("t1", "python3 -m app"),
                               failed("t1", "Exit code 1\nModuleNotFoundError: No module named 'psycopg2'")]) + "\n")
    link = tmp_path / "session.jsonl"
    link.symlink_to(real)
    assert transcript.read_transcript(str(link)).failed_commands() == transcript.read_transcript(
        str(link), tail_bytes=1 << 20).failed_commands() != []
    payload = bash_payload('bd comment BD-3 "LEARNED: the pool needs psycopg (v3); psycopg2 is not installed"', repo,
                           transcript_path=str(link))
    assert run_hook("memory_capture", payload, repo).returncode == 0
    [captured] = knowledge(repo)
    assert captured["files"] == ["db/pool.py"]
    assert captured["errors"] == ["ModuleNotFoundError: No module named 'psycopg2'"]
