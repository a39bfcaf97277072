"""Replacing a file whole: settings.json, auth.json, the trust store, the flag cache, a migrated
session file.

Standard library only (the CLI's fast paths use it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read descriptor of ``path`` if it is a regular file; ``OSError`` otherwise.

    A named pipe would make ``open`` wait for a writer (a project with a FIFO called
    ``AGENTS.md`` hung pi at start-up), a device could be read without end: the file is opened
    without waiting and anything but a regular file is refused (``IsADirectoryError`` for a
    folder, as ``open`` raises it; ``not a regular file`` for the rest)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of ``path`` (see :func:`open_regular`)."""
    fd = open_regular(path)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


#: Linux: a file with no name until it is linked, so a process killed while writing leaves nothing.
_O_TMPFILE: int | None = getattr(os, "O_TMPFILE", None)


def replace_file(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (see :func:`replacing`)."""
    with replacing(path, mode=mode) as out:
        out.write(text.encode("utf-8"))


@contextlib.contextmanager
def replacing(path: Path, *, mode: int | None = None, fsync: bool = False) -> Iterator[BinaryIO]:
    """A binary file whose content replaces ``path`` once the block ends without an error.

    A full disk or a crash half-way leaves the old file whole instead of a truncated one, and a
    reader never sees half a file. The new content is written to a file without a name where the
    system has them (Linux ``O_TMPFILE``), named only for the final rename, so even a kill -9
    while writing leaves no temporary file; elsewhere the temporary file's name carries the
    writer's process id and a later replacement of the same file removes those of dead writers.
    A symlinked file (a dotfiles checkout) is written where the link points, so the link stays.
    ``mode`` is the new file's permission bits; without it the old file's are kept (``0o644``
    for a new file).
    """
    path = path.resolve() if path.is_symlink() else path
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
    _sweep(path)
    directory = path.parent
    fd = _unnamed(directory)
    temp: str | None = None
    if fd is None:
        fd, temp = _named(path)
    try:
        with os.fdopen(fd, "wb", closefd=False) as out:
            yield out
            out.flush()
            if fsync:
                os.fsync(fd)
        os.fchmod(fd, mode)
        if temp is None:
            name = f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
            if _link(fd, str(directory / name)):
                temp = str(directory / name)
            else:  # this system cannot name it after all: copy it into a named one
                _UNLINKABLE.add(os.fstat(fd).st_dev)
                source, (fd, temp) = fd, _named(path)
                try:
                    _copy(source, fd)
                finally:
                    os.close(source)
                if fsync:
                    os.fsync(fd)
                os.fchmod(fd, mode)
        os.replace(temp, path)
        temp = None
    finally:
        with contextlib.suppress(OSError):  # already closed by a failing writer
            os.close(fd)
        if temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)


#: Devices where an unnamed file could not be linked: named temporary files there.
_UNLINKABLE: set[int] = set()


def _named(path: Path) -> tuple[int, str]:
    return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")


def _link(fd: int, target: str) -> bool:
    """Give the unnamed file ``fd`` the name ``target``."""
    try:
        os.link(f"/proc/self/fd/{fd}", target, follow_symlinks=True)
        return True
    except OSError:
        pass
    try:  # linkat(fd, "", AT_FDCWD, target, AT_EMPTY_PATH): where /proc links are refused
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.linkat(fd, b"", -100, os.fsencode(target), 0x1000) == 0)
    except (OSError, AttributeError):
        return False


def _copy(source: int, target: int) -> None:
    os.lseek(source, 0, os.SEEK_SET)
    while chunk := os.read(source, 1 << 20):
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view) :]


def _unnamed(directory: Path) -> int | None:
    """A write descriptor of a new unnamed file in ``directory``, if the system can link it later."""
    if _O_TMPFILE is None:
        return None
    try:
        fd = os.open(directory, _O_TMPFILE | os.O_RDWR, 0o600)
    except OSError:  # a file system without O_TMPFILE (EOPNOTSUPP, EISDIR on old kernels)
        return None
    if os.fstat(fd).st_dev in _UNLINKABLE:
        os.close(fd)
        return None
    return fd


def _sweep(path: Path) -> None:
    """Remove temporary files of ``path`` left by writers that no longer run."""
    prefix = f".{path.name}."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid_text = name[len(prefix) :].split(".", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(path.parent / name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process
        return True
    return True
