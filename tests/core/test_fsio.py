"""memory.core.fsio: a FIFO planted where a knowledge file belongs is an error at once, never a hang."""
from __future__ import annotations

import errno
import os

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
