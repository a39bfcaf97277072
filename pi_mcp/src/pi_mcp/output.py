"""The size limit of what the model reads from an MCP result, as pi 1.6.0 applies it.

The text blocks of a result (joined by newlines) that come to more than 20 KB of UTF-8 reach the
model as one text block: a two-line header (a token estimate, the line count), the first and the
last 10 KB around a ``…N chars truncated…`` marker, and the path of a temporary file that holds the
whole text. Images follow that block. Nothing here builds a second copy of a large text: sizes are
counted block by block, only the kept ends are sliced out, and the file is written in slices.
"""

from __future__ import annotations

import asyncio
import math
import os
import secrets
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_core.ai.messages import ImageContent, TextContent

#: Model-facing text beyond this many UTF-8 bytes is cut in the middle.
MAX_BYTES = 20 * 1024
_WRITE_SLICE = 1 << 20
_FILE_MODE = 0o600

Content = TextContent | ImageContent


@dataclass
class Limited:
    content: list[Content]
    #: The file with the whole text, when it was cut and could be saved.
    full_output_path: str | None = None


def _utf8_len(text: str) -> int:
    # isascii() is O(1) on CPython's compact strings: no copy for the common case.
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _segments(texts: Sequence[str]) -> list[str]:
    """The joined text as pieces, without joining: the texts with ``"\n"`` between them."""
    pieces: list[str] = []
    for index, text in enumerate(texts):
        if index:
            pieces.append("\n")
        pieces.append(text)
    return pieces


def _head(texts: Sequence[str], limit: int) -> tuple[str, int]:
    """The longest start of the joined text within ``limit`` UTF-8 bytes (whole characters), and
    its length in characters."""
    parts: list[str] = []
    size = 0
    for text in _segments(texts):
        room = limit - size
        if room <= 0:
            break
        piece = text[:room]  # at most ``room`` characters can fit
        encoded = piece.encode("utf-8")
        if len(encoded) > room:
            piece = encoded[:room].decode("utf-8", "ignore")  # drops a character cut in two
            parts.append(piece)
            break
        parts.append(piece)
        size += len(encoded)
    head = "".join(parts)
    return head, len(head)


def _tail(texts: Sequence[str], limit: int) -> tuple[str, int]:
    """The longest end of the joined text within ``limit`` UTF-8 bytes (whole characters), and its
    length in characters."""
    parts: list[str] = []
    size = 0
    for text in reversed(_segments(texts)):
        room = limit - size
        if room <= 0:
            break
        piece = text[-room:]
        encoded = piece.encode("utf-8")
        if len(encoded) > room:
            encoded = encoded[len(encoded) - room :]
            start = 0  # continuation bytes: the character cut in two is left out
            while start < len(encoded) and (encoded[start] & 0xC0) == 0x80:
                start += 1
            parts.append(encoded[start:].decode("utf-8"))
            break
        parts.append(piece)
        size += len(encoded)
    tail = "".join(reversed(parts))
    return tail, len(tail)


def new_output_path(extension: str) -> Path:
    """A fresh ``<temp dir>/pi-mcp-<16 hex digits><extension>``."""
    return Path(tempfile.gettempdir()) / f"pi-mcp-{secrets.token_hex(8)}{extension}"


def write_output_file(chunks: Sequence[str | bytes], extension: str) -> str:
    """Write ``chunks`` to a new output file only the user may read (never through a link placed
    at the path) and return its path. Blocking: call it in a thread."""
    path = new_output_path(extension)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
    with os.fdopen(fd, "wb") as out:
        for chunk in chunks:
            if isinstance(chunk, bytes):
                out.write(chunk)
                continue
            for start in range(0, len(chunk), _WRITE_SLICE):
                out.write(chunk[start : start + _WRITE_SLICE].encode("utf-8"))
    return str(path)


async def limit_content(content: list[Content], *, save: bool = True) -> Limited:
    """``content`` as it is when its text fits :data:`MAX_BYTES`; otherwise the cut text block
    (naming the saved file, or why it could not be saved) followed by the images."""
    texts = [block.text for block in content if isinstance(block, TextContent)]
    if not texts:
        return Limited(content)
    total_bytes = sum(_utf8_len(t) for t in texts) + len(texts) - 1
    if total_bytes <= MAX_BYTES:
        return Limited(content)
    head, head_chars = _head(texts, MAX_BYTES // 2)
    tail, tail_chars = _tail(texts, MAX_BYTES - MAX_BYTES // 2)
    total_chars = sum(len(t) for t in texts) + len(texts) - 1
    removed = max(0, total_chars - head_chars - tail_chars)
    lines = sum(t.count("\n") for t in texts) + len(texts) - (1 if texts[-1].endswith("\n") else 0)
    path: str | None = None
    if save:
        try:
            path = await asyncio.to_thread(write_output_file, _segments(texts), ".txt")
            where = f"\n\n[Full output: {path} (read it with offset/limit)]"
        except OSError as error:
            where = f"\n\n[Could not save the full output: {error.strerror or error}]"
    else:
        where = ""
    tokens = math.ceil(total_bytes / 4)
    text = (
        f"Warning: truncated output (original token count: {tokens})\n"
        f"Total output lines: {lines}\n\n{head}…{removed} chars truncated…{tail}{where}"
    )
    images = [block for block in content if isinstance(block, ImageContent)]
    return Limited([TextContent(text=text), *images], path)
