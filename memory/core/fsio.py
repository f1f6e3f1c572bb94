"""File writes that cannot leave a half-written file behind, and that never follow a planted symlink."""
from __future__ import annotations

import os

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
# the most read of a small text file a user keeps (settings, .gitattributes, .gitignore): a bigger one is none
MAX_SETTINGS_BYTES = 4 << 20


def identity(path: str) -> tuple[int, int, int, int] | None:
    """(inode, device, size, mtime_ns) of the file at `path`, None when there is none: what a derived
    index records of its source, so any change to the source (append, replace, pull) shows."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns)


def stamp(path: str) -> tuple[int, int, int, int, int] | None:
    """(device, inode, size, mtime_ns, ctime_ns) of the file at `path`, None when there is none: any write,
    rename or time setting changes it (a derived cache's key)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def stamps(folder: str, names: tuple[str, ...]) -> tuple:
    """The stamp of each of `names` in `folder`: the identity of the modules whose rules shape a derived file."""
    return tuple(stamp(os.path.join(folder, name)) for name in names)


def sections(*blobs: bytes) -> bytes:
    """`blobs` one after another, each behind its length: a derived file whose parts are parsed only when needed."""
    return b"".join(len(blob).to_bytes(8, "little") + blob for blob in blobs)


def section(data: bytes, index: int) -> bytes:
    """Blob number `index` of what `sections` made; ValueError when `data` is cut short or holds fewer."""
    at = 0
    for _ in range(index):
        at += 8 + int.from_bytes(data[at:at + 8], "little")
    size = int.from_bytes(data[at:at + 8], "little")
    if len(data) < at + 8 + size or len(data) < at + 8:
        raise ValueError("cut short")
    return data[at + 8:at + 8 + size]


def open_regular(path: str, flags: int, mode: int = 0o666, follow: bool = False) -> int:
    """os.open that never follows a symlink (with `follow`, it does: a path a runtime gave us, not one of
    ours) and never waits: a FIFO (or a device) planted where a file belongs would block an open or a read
    until someone writes to it, so it is an OSError instead."""
    import errno
    import stat

    fd = os.open(path, flags | (0 if follow else _NOFOLLOW) | _CLOEXEC | _NONBLOCK, mode)
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if not stat.S_ISREG(kind):
            raise OSError(errno.EINVAL, "not a regular file", path)
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def seal(data: bytes) -> bytes:
    """`data` behind its CRC-32, for a derived file read back with marshal: marshal trusts its input, and one
    damaged count in it allocates gigabytes (a hook hangs until its runtime kills it, on every call)."""
    import zlib

    return zlib.crc32(data).to_bytes(4, "little") + data


def unseal(blob: bytes) -> bytes:
    """The data `seal` wrapped; ValueError when it is not exactly that (damaged, cut, another format)."""
    import zlib

    if len(blob) < 4 or zlib.crc32(blob[4:]) != int.from_bytes(blob[:4], "little"):
        raise ValueError("damaged: its checksum does not match")
    return blob[4:]


def fsync_dir(path: str) -> None:
    """Make a rename or a new file in `path` durable (a no-op where directories can't be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str, data: bytes, durable: bool = True) -> None:
    """Replace `path` with `data`: temp file in the same folder, fsync, os.replace, fsync the folder.
    `durable=False` skips the fsyncs (derived state that may be lost in a crash, never be torn)."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | _CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        unlink_quietly(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        unlink_quietly(tmp)
        raise
    if durable:
        fsync_dir(folder)


def append(path: str, data: bytes, fsync: bool = False) -> None:
    """Append `data` in one write, starting on a fresh line if a torn record left the file without one.

    Refuses to follow a symlink at `path` (O_NOFOLLOW), so a planted link can't redirect our writes.
    """
    fd = open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            os.ftruncate(fd, size)  # e.g. a full disk or RLIMIT_FSIZE mid-write: leave no torn record
            raise
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def read_bytes(path: str) -> bytes | None:
    """The whole file, or None when it does not exist. A symlink is refused (OSError ELOOP): a planted
    link must not feed another file (a key, a secret) into the agent's context; a FIFO too (EINVAL)."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def read_regular(path: str, max_bytes: int = -1, follow: bool = False) -> bytes:
    """The first `max_bytes` of a regular file (all of it with -1): for a file a user or another tool
    controls (a settings file, .gitattributes, a transcript, `bd comment --file`), where a plain open() of a
    FIFO waits for a writer forever and a read of /dev/zero never ends. Anything but a regular file, or a
    missing one (FileNotFoundError), is an OSError; `follow`: a symlink is followed (users link dotfiles)."""
    with os.fdopen(open_regular(path, os.O_RDONLY, follow=follow), "rb") as fh:
        return fh.read(max_bytes)


def read_tail(path: str, max_bytes: int, follow: bool = False) -> bytes:
    """The last `max_bytes` of a file (b"" when missing)."""
    return _read_window(path, max_bytes, from_end=True, follow=follow)


def read_head(path: str, max_bytes: int, follow: bool = False) -> bytes:
    """The first `max_bytes` of a file (b"" when missing)."""
    return _read_window(path, max_bytes, from_end=False, follow=follow)


def _read_window(path: str, max_bytes: int, from_end: bool, follow: bool = False) -> bytes:
    try:
        fd = open_regular(path, os.O_RDONLY, follow=follow)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as fh:
        if from_end:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - max_bytes))
        return fh.read(max_bytes)


STALE_TEMP_SECONDS = 3600  # no atomic_write takes this long between its temp file and the rename


def remove_stale_temps(folder: str, now: float | None = None) -> int:
    """Remove the `.<name>.<pid>.tmp` files atomic_write left in `folder` when its process was killed between
    the temp file and the rename: only a regular file an hour old whose pid is no process here (a live
    writer's is kept; so is a new one, which may be another machine's sharing the folder: its pid means
    nothing here). One listdir; how many were removed."""
    import stat
    import time

    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    removed, now = 0, time.time() if now is None else now
    for name in names:
        parts = name.rsplit(".", 2)
        if not (name.startswith(".") and len(parts) == 3 and parts[2] == "tmp" and parts[1].isdigit()):
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_TEMP_SECONDS and not alive(int(parts[1])):
            unlink_quietly(path)
            removed += 1
    return removed


def alive(pid: int) -> bool:
    """True when `pid` is a process here (or may be: another user's)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError: another user's process, alive
        return True
    return True


def unlink_quietly(path: str) -> None:
    """Remove `path`; gone already, or not removable, is no error."""
    try:
        os.unlink(path)
    except OSError:
        pass


def read_file(file_path: str) -> bytes:
    """A knowledge file's bytes (b"" when missing). Anything but a regular file is an OSError saying what
    it is: a directory would fail obscurely, a FIFO would block the reader forever, and a symlink is
    refused on purpose (fsio.read_bytes: a planted link must not feed another file to the agent)."""
    import errno
    import stat

    try:
        mode = os.lstat(file_path).st_mode
    except FileNotFoundError:
        return b""
    if stat.S_ISLNK(mode):
        raise OSError(errno.ELOOP, "it is a symbolic link, and memory-hooks does not read knowledge through "
                                   "links (put the file itself there)", file_path)
    if stat.S_ISDIR(mode):
        raise OSError(errno.EISDIR, "it is a directory, not a file", file_path)
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "it is not a regular file", file_path)
    return read_bytes(file_path) or b""
