"""Running ripgrep for ``find`` and ``grep``: one process, read as it streams, stoppable and abortable.

The caller reads stdout and says whether it has seen enough; this module owns the process: it kills
rg when the reader stops early (draining what is left, so ``wait()`` returns), when the signal fires,
or when anything goes wrong, and turns an abort into ``Operation aborted``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi_core.agent.tools import ToolError
from pi_core.ai.abort import AbortSignal

from pi_builtin_tools._common import ABORTED

#: Reads rg's stdout; returns True when it stopped before the end (enough results).
StdoutReader = Callable[[asyncio.StreamReader], Awaitable[bool]]


@dataclass(frozen=True)
class RipgrepRun:
    """How rg ended: its exit code, its stderr, and whether the reader stopped it early."""

    code: int
    stderr: bytes
    stopped: bool

    @property
    def failed(self) -> bool:
        """Exit codes 0 (matches) and 1 (none) are success; anything else is an rg error."""
        return self.code not in (0, 1)

    def error(self) -> ToolError:
        message = self.stderr.decode("utf-8", "replace").strip()
        return ToolError(message or f"ripgrep exited with code {self.code}")


async def run_ripgrep(
    rg: str,
    args: Sequence[str],
    signal: AbortSignal | None,
    read_stdout: StdoutReader,
    *,
    stream_limit: int | None = None,
) -> RipgrepRun:
    """Run ``rg args``, hand its stdout to ``read_stdout`` and wait for it to end.

    ``stream_limit`` raises the stdout reader's line-length limit (for ``readline``). Raises
    ``ToolError("Operation aborted")`` when ``signal`` fired; rg's own failures are left to the
    caller (:attr:`RipgrepRun.failed`, :meth:`RipgrepRun.error`), since when they matter differs.
    """
    extra: dict[str, Any] = {"limit": stream_limit} if stream_limit is not None else {}
    process = await asyncio.create_subprocess_exec(
        rg,
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        **extra,
    )
    remove = signal.add_listener(process.kill) if signal is not None else (lambda: None)
    stderr_task = asyncio.ensure_future(process.stderr.read() if process.stderr else asyncio.sleep(0, b""))
    try:
        assert process.stdout is not None
        stopped = await read_stdout(process.stdout)
        if stopped:
            process.kill()
            await _drain(process.stdout)  # unread output would keep wait() from returning
        code = await process.wait()
        stderr = await stderr_task
    except BaseException:
        if process.returncode is None:
            process.kill()
        stderr_task.cancel()
        raise
    finally:
        remove()
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED)
    return RipgrepRun(code, stderr or b"", stopped)


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(1 << 16):
        pass
