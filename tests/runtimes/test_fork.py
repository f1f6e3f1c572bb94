"""Finding a Claude Code fork's parent session, from what the real CLI 2.1.330 gives a fork's SessionStart hook
(recorded in tests/fixtures/claude-code/2.1.330/fork/)."""
import json
import shutil
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES, fixture_payload
from memory.runtimes import fork

RECORDED = FIXTURES / "claude-code" / "2.1.330" / "fork"
BRANCH_PARENT = "2904ef9a-90c2-43ff-bec5-f41cf8591c07"  # the session /branch was typed in
FORK_PARENT = "9c972b9f-57ad-4da0-bd97-f957b5bfe28a"  # the session /fork was typed in
RESUMED = "adcbf4b0-f730-4e9c-b43f-ff7e0e1d9172"  # `claude --resume RESUMED --fork-session`


def test_no_fork_payload_names_its_parent():
    """Why the parent is looked for elsewhere: the recorded payloads of all three ways to fork carry only the
    fork's own id (source "fork", also on `--resume ID --fork-session`)."""
    for name, parent in (("SessionStart-branch.json", BRANCH_PARENT), ("SessionStart-fork-command.json", FORK_PARENT),
                         ("SessionStart-resume-fork-session.json", RESUMED)):
        payload = fixture_payload(f"claude-code/2.1.330/fork/{name}")
        assert payload["source"] == "fork" and parent not in json.dumps(payload)


def test_a_branch_names_its_parent_on_the_transcripts_first_line():
    assert fork.parent_session(str(RECORDED / "branch-transcript-head.jsonl"), {}) == BRANCH_PARENT


def test_a_transcript_path_that_is_a_symlink_is_followed(tmp_path):
    """The runtime names the transcript, so a link there is followed, as every other read of a transcript does
    (memory.runtimes.transcript): it was refused (ELOOP), and a fork's parent went unnamed."""
    link = tmp_path / "transcript.jsonl"
    link.symlink_to(RECORDED / "branch-transcript-head.jsonl")
    assert fork.parent_session(str(link), {}) == BRANCH_PARENT


def test_a_resumed_fork_transcript_has_no_forked_from(tmp_path):
    """Written only after the first prompt's hooks, and then with the parent only in `requestSessionId`: the
    command line names it instead."""
    assert fork.parent_session(str(RECORDED / "resume-fork-transcript-head.jsonl"), {}) is None
    assert RESUMED in (RECORDED / "resume-fork-transcript-head.jsonl").read_text()


def test_only_the_transcripts_head_is_read(tmp_path):
    """A `forkedFrom` past HEAD_BYTES is not looked for, and a line cut at that bound is not parsed."""
    line = (RECORDED / "branch-transcript-head.jsonl").read_text().splitlines()[0]
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps({"type": "attachment", "pad": "x" * fork.HEAD_BYTES}) + "\n" + line + "\n")
    assert fork.parent_session(str(late), {}) is None
    cut = tmp_path / "cut.jsonl"
    cut.write_text(line[:200])  # no newline: the head ends mid-line
    assert fork.parent_session(str(cut), {}) is None
    assert fork.parent_session(str(tmp_path / "missing.jsonl"), {}) is None
    assert fork.parent_session(str(tmp_path), {}) is None  # a folder


@pytest.mark.parametrize("first", [b"\xff\xfe not json\n", b'{"forkedFrom": "2904ef9a"}\n', b"[1, 2]\n",
                                   b'{"forkedFrom": {"sessionId": "../../etc"}}\n', b"\n"])
def test_odd_transcript_lines_are_skipped(tmp_path, first):
    line = (RECORDED / "branch-transcript-head.jsonl").read_bytes().splitlines()[0]
    path = tmp_path / "t.jsonl"
    path.write_bytes(first)
    assert fork.parent_session(str(path), {}) is None
    path.write_bytes(first + line + b"\n")
    assert fork.parent_session(str(path), {}) == BRANCH_PARENT


def test_a_fork_command_names_its_parent_in_the_jobs_state(tmp_path):
    job = tmp_path / "jobs" / "dfa29ecf"
    job.mkdir(parents=True)
    shutil.copy(RECORDED / "fork-job-state.json", job / "state.json")
    missing = str(tmp_path / "no-transcript-yet.jsonl")
    assert fork.parent_session(missing, {"CLAUDE_JOB_DIR": str(job)}) == FORK_PARENT
    for text in ("{", "[]", '{"forkParentSessionId": 7}', ""):
        (job / "state.json").write_text(text)
        assert fork.parent_session(missing, {"CLAUDE_JOB_DIR": str(job)}) is None
    assert fork.parent_session(missing, {"CLAUDE_JOB_DIR": str(tmp_path / "gone")}) is None


@pytest.mark.parametrize("argv, parent", [
    (["claude", "-p", "hi", "--resume", RESUMED, "--fork-session"], RESUMED),
    (["claude", "--fork-session", "-r", RESUMED], RESUMED),
    (["claude", f"--resume={RESUMED}", "--fork-session", ""], RESUMED),
    (["claude", "--resume", RESUMED], None),  # a resume, no fork
    (["claude", "--fork-session", "--resume"], None),  # the picker
    (["claude", "--resume", "refund rounding", "--fork-session"], None),  # a title to search for
    (["claude", "--continue", "--fork-session"], None),  # names no session
    (["claude bg-spare", "--bg-spare", "/tmp/cc-daemon-0/x/spare/y.claim.sock", ""], None),  # /fork's process
])
def test_the_command_line_names_the_resumed_session(argv, parent):
    assert fork.resumed_by(argv) == parent


def _claude_like(*args):
    """A real process whose command line is a forking `claude` one's (as /proc or ps shows it)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", *args])
    for _ in range(100):  # until the child has exec'd
        if "--fork-session" in fork.command_line(str(proc.pid)):
            break
        time.sleep(0.02)
    return proc


@pytest.fixture
def claude_like_process():
    proc = _claude_like("-p", "the prompt --resume x", "--resume", RESUMED, "--fork-session")
    yield proc
    proc.kill()
    proc.wait()


def test_the_claude_process_names_the_parent_of_a_resumed_fork(claude_like_process):
    missing = "/nonexistent/transcript.jsonl"  # as at the fork's SessionStart: not written yet
    assert fork.parent_session(missing, {"CLAUDE_PID": str(claude_like_process.pid)}) == RESUMED
    assert fork.parent_session(missing, {"CLAUDE_PID": "not-a-pid"}) is None


def test_without_proc_ps_names_it(claude_like_process, monkeypatch):
    """macOS has no /proc: `ps` gives the arguments joined by spaces."""
    real_head = fork._head
    monkeypatch.setattr(fork, "_head", lambda path, limit: b"" if str(path).startswith("/proc/") else
                        real_head(path, limit))
    real_isdir = fork.os.path.isdir
    monkeypatch.setattr(fork.os.path, "isdir", lambda p: False if p == "/proc/self" else real_isdir(p))
    assert fork.parent_session(None, {"CLAUDE_PID": str(claude_like_process.pid)}) == RESUMED


def test_a_process_that_is_gone_names_nothing():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert fork.parent_session(None, {"CLAUDE_PID": done.stdout.strip()}) is None


def test_the_transcript_comes_before_the_command_line(tmp_path, claude_like_process):
    """`claude --resume A --fork-session`, then /branch in that fork: the branch's transcript names its parent;
    the process's command line still names A."""
    env = {"CLAUDE_PID": str(claude_like_process.pid)}
    assert fork.parent_session(str(RECORDED / "branch-transcript-head.jsonl"), env) == BRANCH_PARENT


def test_a_continued_fork_forks_the_session_written_last(tmp_path):
    """`claude --continue --fork-session` (seen with 2.1.330: it forked the newest transcript of the project's
    folder); the fork's own transcript, a file that is no session's and a link are passed over."""
    import os

    folder = tmp_path / "projects" / "-tmp-app"
    folder.mkdir(parents=True)
    older, newest, own = (f"{n}1111111-2222-4333-8444-555555555555" for n in "abc")
    for i, name in enumerate((older, newest, own, "notes")):
        (folder / f"{name}.jsonl").write_text("{}\n")
        os.utime(folder / f"{name}.jsonl", (1_700_000_000 + i, 1_700_000_000 + i))
    (folder / f"d{older[1:]}.jsonl").symlink_to(folder / f"{older}.jsonl")
    transcript = str(folder / f"{own}.jsonl")
    continued, picker = _claude_like("--continue", "--fork-session"), _claude_like("--resume", "--fork-session")
    try:
        assert fork.parent_session(transcript, {"CLAUDE_PID": str(continued.pid)}) == newest
        assert fork.parent_session(transcript, {"CLAUDE_PID": str(picker.pid)}) is None  # picked by the user
        assert fork.parent_session(str(tmp_path / "gone" / "x.jsonl"), {"CLAUDE_PID": str(continued.pid)}) is None
    finally:
        for proc in (continued, picker):
            proc.kill()
            proc.wait()


def test_an_over_nested_line_names_no_parent_and_raises_nothing(tmp_path):
    """json.loads raises RecursionError, not ValueError, on a line nested thousands deep: the fork's session start
    must not fail on it (it would answer nothing)."""
    parent = "0f0e0d0c-0b0a-4909-8807-060504030201"
    deep = '{"forkedFrom": ' + "[" * 20_000 + "]" * 20_000 + "}"  # within the head that is read
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(deep + "\n" + json.dumps({"forkedFrom": {"sessionId": parent}}) + "\n")
    assert fork._from_transcript(str(transcript)) == parent  # the next line still names it
    job = tmp_path / "job"
    job.mkdir()
    (job / "state.json").write_text('{"forkParentSessionId": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert fork.parent_session(None, {"CLAUDE_JOB_DIR": str(job)}) is None
