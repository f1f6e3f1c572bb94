"""Provenance `files`: the files a session had read or edited, from the tail of its real transcript, recorded on
the entry the capture hook writes, and used by action time."""
import json
import shutil

from helpers import FIXTURES, bash_payload, fixture_payload, knowledge, make_repo, run_hook
from memory.capture import provenance

TRANSCRIPT = FIXTURES / "claude-code" / "2.1.330" / "transcript-edit.jsonl"  # recorded: one Edit of this file
RECORDED_ROOT = "/tmp/probe/ct/test_file_and_error_context_an0/app"  # the project it was recorded in


def test_files_from_a_real_transcript():
    assert provenance.session_files(str(TRANSCRIPT), RECORDED_ROOT) == ["payments/refund_service.py"]
    assert provenance.session_files(str(TRANSCRIPT), "/elsewhere") == [
        RECORDED_ROOT + "/payments/refund_service.py"]  # outside the project: kept absolute
    assert provenance.session_files(None, RECORDED_ROOT) is None
    assert provenance.session_files("/nonexistent.jsonl", RECORDED_ROOT) is None


def test_newest_first_distinct_and_bounded(tmp_path):
    lines = []
    for i in range(12):
        tool = {"type": "tool_use", "id": f"t{i}", "name": "Read" if i % 2 else "Edit",
                "input": {"file_path": f"/p/src/f{i % 10}.py"}}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [tool]}})
    lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "cat /p/x.py"}}]}})
    path = tmp_path / "t.jsonl"
    path.write_text("x" * 600_000 + "\n" + "\n".join(json.dumps(r) for r in lines) + "\n")  # a long head
    assert provenance.session_files(str(path), "/p") == [f"src/f{i}.py" for i in (1, 0, 9, 8, 7, 6, 5, 4)]


def test_the_capture_hook_records_the_sessions_files(tmp_path):
    repo = make_repo(tmp_path / "app")
    transcript = tmp_path / "session.jsonl"
    shutil.copy(TRANSCRIPT, transcript)
    text = transcript.read_text().replace(RECORDED_ROOT, str(repo))
    transcript.write_text(text)
    payload = bash_payload('bd comment BD-9 "LEARNED: refunds are rounded in the service, not in the view."', repo,
                           transcript_path=str(transcript))
    assert run_hook("memory_capture", payload, repo).returncode == 0
    [captured] = knowledge(repo)
    assert captured["files"] == ["payments/refund_service.py"]
    # action time: an entry captured while the session worked on a file is about that file
    read = fixture_payload("claude-code/2.1.330/PreToolUse-15.json")
    read.update(cwd=str(repo), session_id="next", tool_input={"file_path": str(repo / "payments/refund_service.py")})
    answer = json.loads(run_hook("action_context", read, repo).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "refunds are rounded in the service" in answer
    forget = bash_payload("bd comment BD-9 \"FORGET: " + captured["key"] + '"', repo, transcript_path=str(transcript))
    run_hook("memory_capture", forget, repo)
    assert "files" not in knowledge(repo)[-1]  # a control line carries no files
