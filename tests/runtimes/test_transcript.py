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
