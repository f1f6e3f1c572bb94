"""An exclusive inter-process lock on a lock file, with a timeout.

POSIX uses fcntl.flock directly: it is the primitive filelock's UnixFileLock uses (so processes using
either interoperate), and it costs ~0.3 ms to import against ~65 ms for filelock on the reference machine.
filelock is used where fcntl is missing (Windows), then msvcrt.
"""
from __future__ import annotations

import os
import time

from memory import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import AbstractContextManager as ContextManager

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

DEFAULT_TIMEOUT = 8.0  # below the 10 s hook timeout we register: we log rather than get killed


class LockTimeout(Exception):
    """The lock was not acquired within the timeout."""


def _open_lock_file(path: str) -> int:
    """The lock file, created as git creates a work tree's files (the umask decides: a checkout two users share
    through a group gets a group-writable lock). A lock another user made without write for us is opened to
    read: flock needs no write access, and a 0600 lock had refused every capture of the second user."""
    flags = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o666)
    except PermissionError:
        if not os.path.isfile(path):
            raise  # the folder refuses the new lock: that is the problem to report
        return os.open(path, os.O_RDONLY | flags)


TIMEOUT_ENV = "MEMORY_HOOKS_LOCK_TIMEOUT"  # seconds; overrides DEFAULT_TIMEOUT


class exclusive:  # noqa: N801 - used as a function: `with locking.exclusive(path):`
    """Hold an exclusive lock on `path` (created if missing) for the body of the with-block.

    A class rather than a contextlib generator: contextlib costs every capture ~0.35 ms to import."""

    def __init__(self, path: str, timeout: float | None = None) -> None:
        if timeout is None:
            try:
                timeout = float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT)
            except ValueError:
                timeout = DEFAULT_TIMEOUT
        self.path, self.timeout = path, timeout
        self.fd = -1
        self.portable: ContextManager[None] | None = None

    def __enter__(self) -> None:
        if fcntl is None:  # pragma: no cover - Windows
            self.portable = _exclusive_portable(self.path, self.timeout)
            self.portable.__enter__()
            return
        fd = _open_lock_file(self.path)
        try:
            deadline = time.monotonic() + self.timeout
            pause = 0.0005
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(self.path) from None
                    time.sleep(pause)
                    pause = min(pause * 2, 0.02)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        try:  # who holds it, for memory-doctor: a fixed width overwrites in place (truncating the file
            # on every write frees and reallocates its block: ~0.2 ms, and milliseconds when the disk is busy)
            holder = f"{os.getpid():<10}\n".encode()
            os.pwrite(fd, holder, 0)
            if os.fstat(fd).st_size > len(holder):
                os.ftruncate(fd, len(holder))
        except OSError:
            pass

    def __exit__(self, *exc: object) -> None:
        if self.portable is not None:  # pragma: no cover - Windows
            self.portable.__exit__(*exc)  # type: ignore[arg-type]
            return
        os.close(self.fd)  # closing releases the flock


def is_held(path: str) -> bool:
    """True when another process holds the lock right now (a probe that never waits)."""
    if fcntl is None or not os.path.exists(path):  # pragma: no cover - Windows
        return False
    fd = _open_lock_file(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _exclusive_portable(path: str, timeout: float) -> ContextManager[None]:  # pragma: no cover - Windows
    from contextlib import contextmanager

    return contextmanager(_portable_lock)(path, timeout)


def _portable_lock(path: str, timeout: float) -> Iterator[None]:  # pragma: no cover - Windows
    try:
        from filelock import FileLock, Timeout
    except ImportError:
        pass  # msvcrt below
    else:
        try:
            with FileLock(path, timeout=timeout):
                yield
        except Timeout:
            raise LockTimeout(path) from None
        return
    import msvcrt
    fd = _open_lock_file(path)
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # Windows-only names
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(path) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            os.lseek(fd, 0, 0)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]  # Windows-only names
    finally:
        os.close(fd)
