"""Running a helper program to completion: ``ctx.exec``, the REPL's clipboard and ``/share``.

The program runs in a process group of its own with no terminal input (it must never read the
REPL's keys); a timeout kills the whole group, as the bash tools do. The user's ``!command`` and
the bash tool stream their output and have their own runners (``bash_executor``, the bash tool).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass


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
) -> ProgramResult:
    """Run ``command`` (no shell), feed it ``input``, collect its output. ``OSError`` when it cannot start."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    )
    killed = False
    try:
        out, err = await asyncio.wait_for(process.communicate(input), timeout)
    except TimeoutError:
        killed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        out, err = await process.communicate()
    return ProgramResult(process.returncode or 0, out, err, killed)
