"""memory.core.fsio: a FIFO planted where a knowledge file belongs is an error at once, never a hang."""
from __future__ import annotations

import errno
import os
import struct
import time

import pytest

from helpers import bash_payload, error_log, run_hook
from memory.core import fsio


@pytest.mark.parametrize("call", [
    lambda p: fsio.read_bytes(p),
    lambda p: fsio.read_tail(p, 10),
    lambda p: fsio.read_head(p, 10),
    lambda p: fsio.append(p, b"x\n"),
])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, call):
    fifo = tmp_path / "knowledge.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as raised:
        call(str(fifo))  # before: open() waited for a writer forever (append: wrote into the pipe)
    assert raised.value.errno in (errno.EINVAL, errno.ENXIO)


def test_regular_files_read_and_append_as_before(tmp_path):
    path = tmp_path / "f"
    fsio.append(str(path), b"one\n")
    fsio.append(str(path), b"two\n")
    assert fsio.read_bytes(str(path)) == b"one\ntwo\n" and fsio.read_tail(str(path), 4) == b"two\n"
    assert fsio.read_head(str(path), 4) == b"one\n" and fsio.read_head(str(tmp_path / "missing"), 4) == b""
    assert fsio.read_bytes(str(tmp_path / "missing")) is None


def test_the_capture_hook_fails_open_at_once_on_a_fifo_knowledge_file(repo):
    memory = repo / ".beads" / "memory"
    memory.mkdir(parents=True)
    os.mkfifo(memory / "knowledge.jsonl")
    result = run_hook("memory_capture", bash_payload('bd comment BD-1 "LEARNED: a fifo must not hang us"', repo),
                      repo, timeout=20)
    assert result.returncode == 0
    assert "not a regular file" in error_log(repo) or "not a regular file" in result.stdout


# marshal data whose first count says 2**31 - 1 items: marshal trusts it and allocates gigabytes before it finds
# the data ends (seconds of page faults, then maybe an out-of-memory kill): what one flipped bit can make of a count
MARSHAL_BOMB = b"(" + (2 ** 31 - 1).to_bytes(4, "little")


@pytest.mark.parametrize("damaged", ["knowledge.index", "knowledge.start", "knowledge.screen", "knowledge.paths"])
def test_a_derived_file_damaged_into_a_huge_marshal_count_is_rebuilt_not_a_hang(tmp_path, damaged):
    """A derived, machine-local file read back with marshal (the index's meta, session start's cache, the screen's
    verdicts, the cue map) damaged on disk into a huge count: the hooks check it (fsio.seal) and rebuild it,
    instead of hanging until the runtime kills them, on every prompt, session start and file read."""
    from helpers import fixture_payload, make_repo
    from memory.search import segfile
    from memory.store import entry, store
    from memory.surface import start_cache

    repo = make_repo(tmp_path / "app")
    memory = repo / ".beads" / "memory"
    (repo / "src").mkdir()
    (repo / "src" / "db.py").write_text("x = 1\n")
    store.append(str(memory), [entry.build("LEARNED: src/db.py must close the database pool before fork.", "BD-1",
                                           "orchestrator")])
    start = dict(fixture_payload("claude-code/2.1.330/SessionStart-6.json"), cwd=str(repo), session_id="s0")
    prompt = dict(fixture_payload("claude-code/2.1.330/UserPromptSubmit-1.json"), cwd=str(repo), session_id="s1",
                  prompt="why must the database pool be closed before fork?")
    read = dict(fixture_payload("claude-code/2.1.330/PreToolUse-15.json"), cwd=str(repo), session_id="s2")
    read["tool_input"]["file_path"] = str(repo / "src" / "db.py")
    time.sleep(2 * start_cache.RACY_NS / 1e9)  # session start caches only knowledge older than that
    for hook, payload in (("session_start", start), ("prompt_recall", prompt), ("action_context", read)):
        run_hook(hook, dict(payload, session_id="warm-" + hook), repo)  # every derived file written once
    path = memory / damaged
    assert path.exists()
    st = path.stat()
    if damaged == "knowledge.index":
        bomb = segfile.MAGIC + struct.pack(segfile.HEAD, len(MARSHAL_BOMB), 0, 0, 0, 0) + MARSHAL_BOMB
    elif damaged == "knowledge.paths":
        bomb = len(MARSHAL_BOMB).to_bytes(8, "little") + MARSHAL_BOMB
    else:
        bomb = MARSHAL_BOMB
    path.write_bytes(bomb)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    for hook, payload in (("session_start", start), ("prompt_recall", prompt), ("action_context", read)):
        proc = run_hook(hook, payload, repo, timeout=8)
        assert proc.returncode == 0 and b"close the database pool before fork" in proc.stdout, (hook, proc.stderr)


def test_read_regular_refuses_a_fifo_or_a_device_and_reads_at_most_what_it_was_asked(tmp_path):
    """fsio.read_regular: the one read for a file a user or another tool controls (settings, .gitattributes,
    `bd comment --file`): a FIFO or /dev/zero is an OSError at once, a big file is read only up to its bound."""
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        with pytest.raises(OSError):
            fsio.read_regular(path, 10, follow=True)
    with pytest.raises(FileNotFoundError):
        fsio.read_regular(str(tmp_path / "missing"))
    big = tmp_path / "big"
    big.write_bytes(b"x" * 5000)
    assert fsio.read_regular(str(big), 100) == b"x" * 100 and len(fsio.read_regular(str(big))) == 5000
    link = tmp_path / "link"
    link.symlink_to(big)
    assert fsio.read_regular(str(link), 3, follow=True) == b"xxx"
    with pytest.raises(OSError):
        fsio.read_regular(str(link), 3)


def test_sections_give_back_each_blob_and_refuse_a_cut_file():
    """The derived files' layout (knowledge.start, knowledge.paths): a part is read without parsing the others."""
    data = fsio.sections(b"first", b"", b"third part")
    assert [fsio.section(data, n) for n in range(3)] == [b"first", b"", b"third part"]
    for cut in (data[:-1], data[:3], b""):
        with pytest.raises(ValueError):
            fsio.section(cut, 2)
    with pytest.raises(ValueError):
        fsio.section(data, 3)  # no such part
