"""The system clipboard from a terminal program: copy text (``/copy``), paste an image (Ctrl+V).

A clipboard program is used when one is installed and can reach a display (``pbcopy`` on macOS,
``wl-copy`` under Wayland, ``xclip``/``xsel`` under X11, ``clip.exe`` on Windows and WSL); on a
terminal the text is also sent as an OSC 52 sequence, which most terminal emulators and tmux turn
into a clipboard write — so copying works over SSH too.
"""

from __future__ import annotations

import base64
import os
import shutil
import sys
from typing import IO

from pi_core.runtime.process import ProgramResult, run_program

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
            done = await _run(*command, input=text.encode("utf-8"))
            if done is not None:
                used.append(command[0])
                break
    if terminal is not None and terminal.isatty():
        terminal.write(osc52(text))
        terminal.flush()
        used.append("terminal")
    return used


#: Image types a model can read, in the order a clipboard offer is taken.
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


async def read_clipboard_image() -> tuple[bytes, str] | None:
    """The clipboard's image as (bytes, MIME type), or ``None`` when there is none or no tool.

    ``wl-paste`` under Wayland, ``xclip`` under X11, ``pngpaste`` on macOS — as pi asks them.
    """
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        offered = await _output("wl-paste", "--list-types")
        kind = _first_image_type(offered)
        if kind is not None:
            data = await _output_bytes("wl-paste", "--no-newline", "--type", kind)
            if data:
                return data, kind
    if os.environ.get("DISPLAY") and shutil.which("xclip"):
        offered = await _output("xclip", "-selection", "clipboard", "-t", "TARGETS", "-o")
        kind = _first_image_type(offered)
        if kind is not None:
            data = await _output_bytes("xclip", "-selection", "clipboard", "-t", kind, "-o")
            if data:
                return data, kind
    if sys.platform == "darwin" and shutil.which("pngpaste"):
        data = await _output_bytes("pngpaste", "-")
        if data:
            return data, "image/png"
    return None


def _first_image_type(offered: str | None) -> str | None:
    types = set((offered or "").split())
    return next((kind for kind in IMAGE_TYPES if kind in types), None)


async def _output(*command: str) -> str | None:
    data = await _output_bytes(*command)
    return None if data is None else data.decode("utf-8", "replace")


async def _output_bytes(*command: str) -> bytes | None:
    done = await _run(*command)
    return None if done is None else done.stdout


async def _run(*command: str, input: bytes | None = None) -> ProgramResult | None:
    """The finished program, or ``None`` when it could not start, failed or took over 5 s."""
    try:
        done = await run_program(*command, input=input, timeout=5)
    except OSError:
        return None
    return done if done.code == 0 and not done.killed else None
