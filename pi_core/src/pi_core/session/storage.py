"""Durable appends: one ``write`` per batch on an ``O_APPEND`` descriptor under an advisory lock.

Every entry is one line; a batch of lines (the lazy first flush) is a single ``write`` call, so
a reader or a second writer never sees half of it interleaved with other output. The lock
(``flock``, advisory) orders concurrent writers that use it and lets a writer check whether the
file ends in a newline (a crashed writer's fragment) before adding its own line. No fsync by
default: the data is in the kernel once ``write`` returns, which survives a crash of pi but not
of the machine; pass ``fsync=True`` for the latter (docs/sessions.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from pi_core._files import replacing

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory lock, appends stay single writes
    fcntl = None  # type: ignore[assignment]


class SessionWriter:
    """Appends lines to one session file; keeps the descriptor open between appends."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        self.fsync = fsync
        self._fd: int | None = None

    def _descriptor(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        return self._fd

    @contextlib.contextmanager
    def _locked(self, fd: int) -> Iterator[None]:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def append(self, lines: list[str]) -> None:
        """Append ``lines`` (without newlines) as one write; terminate a dangling fragment first."""
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        fd = self._descriptor()
        with self._locked(fd):
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            view = memoryview(data)
            try:
                while view:  # a regular file takes it in one go; loop only for short writes
                    written = os.write(fd, view)
                    view = view[written:]
                if self.fsync:
                    os.fsync(fd)
            except OSError:
                # A full disk can take part of the batch: cut it off again, so the retry starts
                # from a clean line end instead of leaving a broken line in the middle.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
                raise

    def rewrite(self, lines: list[str | bytes]) -> None:
        """Replace the whole file atomically (``replacing``: no temporary file survives a kill);
        used by migrations only."""
        self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(self.path, fsync=self.fsync) as out:
            for line in lines:
                out.write(line if isinstance(line, bytes) else line.encode("utf-8"))
                out.write(b"\n")

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
