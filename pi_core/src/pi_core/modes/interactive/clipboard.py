"""Copy text to the system clipboard from a terminal program (``/copy``).

A clipboard program is used when one is installed and can reach a display (``pbcopy`` on macOS,
``wl-copy`` under Wayland, ``xclip``/``xsel`` under X11, ``clip.exe`` on Windows and WSL); on a
terminal the text is also sent as an OSC 52 sequence, which most terminal emulators and tmux turn
into a clipboard write — so copying works over SSH too.
"""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import sys
from typing import IO

#: (program and arguments, environment variable it needs or None)
_PROGRAMS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("pbcopy",), None),
    (("wl-copy",), "WAYLAND_DISPLAY"),
    (("xclip", "-selection", "clipboard"), "DISPLAY"),
    (("xsel", "--clipboard", "--input"), "DISPLAY"),
    (("clip.exe",), None),
)


def osc52(text: str) -> str:
    """The escape sequence that asks the terminal to put ``text`` on the clipboard."""
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\x07"


async def copy_to_clipboard(text: str, terminal: IO[str] | None) -> list[str]:
    """Copy ``text``; returns how (program names, ``terminal``), empty when nothing could."""
    used: list[str] = []
    for command, needs in _PROGRAMS:
        if (needs is None or os.environ.get(needs)) and shutil.which(command[0]):
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                await asyncio.wait_for(process.communicate(text.encode("utf-8")), 5)
            except TimeoutError:
                process.kill()
                await process.wait()
                continue
            if process.returncode == 0:
                used.append(command[0])
                break
    if terminal is not None and terminal.isatty():
        terminal.write(osc52(text))
        terminal.flush()
        used.append("terminal")
    return used


def terminal_stream() -> IO[str] | None:
    return sys.__stdout__
