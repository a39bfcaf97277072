"""Small helpers every tool shares: the working directory from ``ctx``, OS error texts, aborts."""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from collections.abc import Awaitable
from typing import Any, TypeVar

from pi_core.agent.tools import ToolError
from pi_core.ai.abort import AbortSignal

T = TypeVar("T")

ABORTED = "Operation aborted"


def cwd_of(ctx: Any) -> str:
    """The session working directory; tools never use the process's own cwd."""
    cwd = getattr(ctx, "cwd", None)
    if not isinstance(cwd, str) or not cwd:
        raise ToolError("Tool context has no working directory (ctx.cwd)")
    return cwd


def os_error_text(exc: OSError, action: str, path: str) -> str:
    """A Node-style message such as ``ENOENT: no such file or directory, open '/abs/path'``."""
    code = errno.errorcode.get(exc.errno or 0, "EIO")
    reason = (exc.strerror or str(exc)).lower() if exc.strerror else str(exc)
    if code == "EISDIR":
        return f"EISDIR: illegal operation on a directory, {action}"
    return f"{code}: {reason}, {action} '{path}'"


def error_code(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, "EIO")


def check_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED)


async def abortable(awaitable: Awaitable[T], signal: AbortSignal | None) -> T:
    """Await ``awaitable`` unless ``signal`` fires first; then raise ``Operation aborted``.

    The work itself may finish in its thread, but its result is discarded, as pi does.
    """
    if signal is not None and signal.aborted:
        if asyncio.iscoroutine(awaitable):
            awaitable.close()  # never started; closing avoids a "never awaited" warning
        raise ToolError(ABORTED)
    task = asyncio.ensure_future(awaitable)
    if signal is None:
        return await task
    waiter = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        waiter.cancel()
        raise
    waiter.cancel()
    if task in done and not signal.aborted:
        return task.result()
    task.cancel()
    raise ToolError(ABORTED)


def access(path: str, mode: int, action: str = "access") -> None:
    """``fs.access`` equivalent raising the Node-style error text."""
    if not os.path.exists(path):
        raise ToolError(f"ENOENT: no such file or directory, {action} '{path}'")
    if not os.access(path, mode):
        raise ToolError(f"EACCES: permission denied, {action} '{path}'")


def special_file(path: str) -> str | None:
    """What ``path`` is when it is a named pipe, a socket or a device (following links), else
    ``None``. Opening a pipe waits for a writer, reading a terminal waits for typing and
    ``/dev/zero`` never ends: the file tools refuse them instead of hanging or filling memory."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return None
