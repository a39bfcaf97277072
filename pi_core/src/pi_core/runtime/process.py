"""Running a helper program to completion: ``ctx.exec``, the REPL's clipboard and ``/share``.

The program runs in a process group of its own with no terminal input (it must never read the
REPL's keys); a timeout kills the whole group, as the bash tools do. The user's ``!command`` and
the bash tool stream their output and have their own runners (``bash_executor``, the bash tool).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signal_module
from dataclasses import dataclass

from pi_core.ai.abort import AbortSignal

#: How long a program may take to leave after SIGTERM before its process group gets SIGKILL.
KILL_GRACE = 5.0


@dataclass(frozen=True)
class ProgramResult:
    #: The exit status; 128 + the signal number when a signal ended the program (as a shell says).
    code: int
    stdout: bytes
    stderr: bytes
    #: pi ended the program: the timeout ran out, ``signal`` aborted or the output went over ``max_buffer``.
    killed: bool
    #: The output went over ``max_buffer``; ``stdout``/``stderr`` hold what came before the cap.
    truncated: bool = False


async def run_program(
    *command: str,
    input: bytes | None = None,
    cwd: str | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 - seconds
    signal: AbortSignal | None = None,
    max_buffer: int | None = None,
) -> ProgramResult:
    """Run ``command`` (no shell), feed it ``input``, collect its output. ``OSError`` when it cannot start.

    The timeout running out, ``signal`` aborting or stdout and stderr together passing ``max_buffer``
    bytes ends the program: SIGTERM to its process group, SIGKILL :data:`KILL_GRACE` seconds later.
    A truncated run never reads as success (code 1 at least).
    """
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    )
    loop = asyncio.get_running_loop()
    killed = truncated = False
    taken = 0
    handles: list[asyncio.TimerHandle] = []

    def send(which: signal_module.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, which)

    def end() -> None:
        nonlocal killed
        if killed:
            return
        killed = True
        send(signal_module.SIGTERM)
        handles.append(loop.call_later(KILL_GRACE, send, signal_module.SIGKILL))

    async def pump(stream: asyncio.StreamReader | None, into: bytearray) -> None:
        nonlocal taken, truncated
        while stream is not None and (chunk := await stream.read(65536)):
            if truncated:
                continue  # drain until the program is gone
            room = chunk if max_buffer is None else chunk[: max(max_buffer - taken, 0)]
            into += room
            taken += len(room)
            if len(room) < len(chunk):
                truncated = True
                end()

    async def feed() -> None:
        if input is None or process.stdin is None:
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            process.stdin.write(input)
            await process.stdin.drain()
        process.stdin.close()

    out, err = bytearray(), bytearray()
    if timeout is not None:
        handles.append(loop.call_later(max(timeout, 0), end))
    undo = signal.add_listener(end) if signal is not None else None
    if signal is not None and signal.aborted:
        end()
    try:
        await asyncio.gather(pump(process.stdout, out), pump(process.stderr, err), feed())
        status = await process.wait()
    finally:
        for handle in handles:
            handle.cancel()
        if undo is not None:
            undo()
        if process.returncode is None:  # cancelled: leave nothing running
            send(signal_module.SIGKILL)
    code = 128 - status if status < 0 else status
    if truncated and code == 0:
        code = 1
    return ProgramResult(code, bytes(out), bytes(err), killed, truncated)
