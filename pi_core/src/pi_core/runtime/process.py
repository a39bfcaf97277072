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


@dataclass(frozen=True)
class ProgramResult:
    code: int
    stdout: bytes
    stderr: bytes
    #: The timeout ran out and the program's process group was killed.
    killed: bool


async def run_program(
    *command: str,
    input: bytes | None = None,
    cwd: str | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 - seconds, passed to asyncio.wait_for
    signal: AbortSignal | None = None,
) -> ProgramResult:
    """Run ``command`` (no shell), feed it ``input``, collect its output. ``OSError`` when it cannot start.

    The timeout running out or ``signal`` aborting kills the program's process group (``killed``).
    """
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    )
    killed = False

    def kill() -> None:
        nonlocal killed
        killed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal_module.SIGKILL)

    undo = signal.add_listener(kill) if signal is not None else None
    try:
        out, err = await asyncio.wait_for(process.communicate(input), timeout)
    except TimeoutError:
        kill()
        out, err = await process.communicate()
    finally:
        if undo is not None:
            undo()
    return ProgramResult(process.returncode or 0, out, err, killed)
