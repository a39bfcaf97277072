"""Reading lines of any length in bounded memory, for ``grep``.

A minified bundle or a log without newlines can be one line of hundreds of megabytes. ``grep``
shows at most :data:`~pi_core.agent.truncate.GREP_MAX_LINE_LENGTH` characters of a line, so no
line needs to be held whole: ripgrep's JSON event for a match in such a line is read as a stream
(its path, the head of its text and its line number kept), and the pure-Python search looks at a
long line window by window.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import BinaryIO

#: Longest line kept whole; anything longer is read in pieces of this size.
LINE_CAP = 1 << 20
#: How much of a long line's text a match keeps (what is shown is far shorter).
HEAD_CHARS = 4096
#: Windows of a long line overlap by this much, so a match across two windows is still found
#: (unless the match itself is longer).
WINDOW_OVERLAP = 1 << 16

_LINES_KEY = re.compile(rb'"lines":\{"(text|bytes)":"')
_PATH = re.compile(rb'^\{"type":"match","data":\{"path":\{"text":"((?:[^"\\]|\\.)*)"')
_LINE_NUMBER = re.compile(rb'^\},"line_number":(\d+)')


@dataclass(frozen=True)
class LongMatch:
    """A ripgrep match event too long to keep: what ``grep`` shows of it."""

    path: str
    line_number: int | None
    #: The start of the matched line (decoded), or ``None`` when it was not text.
    head: str | None


def _closing_quote(data: bytes, at: int, carry: int = 0) -> int:
    """Index of the first quote from ``at`` that ends a JSON string (an even run of backslashes
    before it, counting ``carry`` backslashes that came before ``data``), else -1."""
    quote = data.find(b'"', at)
    while quote >= 0:
        run, before = 0, quote - 1
        while before >= 0 and data[before] == 0x5C:  # backslash
            run, before = run + 1, before - 1
        if before < 0:  # the run reaches the chunk's start
            run += carry
        if run % 2 == 0:
            return quote
        quote = data.find(b'"', quote + 1)
    return -1


def _string_head(raw: bytes) -> str:
    """The start of a JSON string body (up to its closing quote, or cut anywhere, maybe inside
    an escape), decoded."""
    raw = raw[: HEAD_CHARS * 2]
    end = _closing_quote(raw, 0)
    if end >= 0:
        raw = raw[:end]
    for cut in range(len(raw), max(len(raw) - 12, -1), -1):
        try:
            return str(json.loads(b'"' + raw[:cut] + b'"'))
        except ValueError:
            continue
    return raw.decode("utf-8", "replace")


async def rg_json_lines(
    stdout: asyncio.StreamReader, cap: int = LINE_CAP
) -> AsyncIterator[bytes | LongMatch]:
    """ripgrep's ``--json`` output: each event line, or a :class:`LongMatch` for a match event
    longer than ``cap`` bytes (other long events are dropped). Memory stays near ``cap``."""
    buffer, at = b"", 0
    while True:
        newline = buffer.find(b"\n", at)
        if 0 <= newline <= at + cap:
            yield buffer[at : newline + 1]
            at = newline + 1
            continue
        if len(buffer) - at > cap:
            match, buffer = await _long_event(stdout, buffer[at:])
            at = 0
            if match is not None:
                yield match
            continue
        chunk = await stdout.read(1 << 16)
        if not chunk:
            if at < len(buffer):
                yield buffer[at:]
            return
        buffer, at = buffer[at:] + chunk, 0


async def _long_event(stdout: asyncio.StreamReader, head: bytes) -> tuple[LongMatch | None, bytes]:
    """Consume the rest of a long event line that starts with ``head``; the match it describes
    (``None`` for other events) and what followed its newline."""
    found = _PATH.match(head)
    key = _LINES_KEY.search(head)
    if found is None or key is None:
        return None, await _skip_line(stdout, head)
    path = _string_head(found.group(1))
    start = key.end()
    text = _string_head(head[start:]) if key.group(1) == b"text" else None
    # Find the end of the lines string (a quote after an even run of backslashes), streaming:
    # what follows it holds the line number.
    data, at, carry = head, start, 0  # carry: backslashes that ended the previous chunk
    while True:
        quote = _closing_quote(data, at, carry)
        if quote >= 0:
            tail = data[quote + 1 :]
            while len(tail) < 64 and b"\n" not in tail:
                more = await stdout.read(1 << 16)
                if not more:
                    break
                tail += more
            number = _LINE_NUMBER.match(tail)
            rest = await _skip_line(stdout, tail)
            return LongMatch(path, int(number.group(1)) if number else None, text), rest
        stripped = len(data) - len(data.rstrip(b"\\"))
        carry = carry + stripped if stripped == len(data) else stripped
        data, at = await stdout.read(1 << 16), 0
        if not data:
            return LongMatch(path, None, text), b""


async def _skip_line(stdout: asyncio.StreamReader, data: bytes) -> bytes:
    """Discard through the next newline (``data`` first); what follows it."""
    while True:
        newline = data.find(b"\n")
        if newline >= 0:
            return data[newline + 1 :]
        data = await stdout.read(1 << 16)
        if not data:
            return b""


def iter_line_windows(handle: BinaryIO, cap: int = LINE_CAP) -> Iterator[tuple[int, bytes, bool]]:
    """``(line number, piece, first)`` for a file read in bounded memory: each line of at most
    ``cap`` bytes as one piece (its newline removed), a longer one as overlapping windows of
    ``cap`` bytes, ``first`` true for its first window."""
    number = 0
    carry: bytes | None = None  # the overlap of a long line's last window
    while True:
        piece = handle.readline(cap)
        if not piece:
            return
        if carry is None:
            number += 1
        complete = piece.endswith(b"\n")
        body = piece[:-1] if complete else piece
        yield number, (carry or b"") + body, carry is None
        carry = None if complete else body[-WINDOW_OVERLAP:]


def head_of_line(handle: BinaryIO, cap: int = LINE_CAP) -> bytes | None:
    """The next line (newline removed), or its first ``cap`` bytes when longer; ``None`` at the end."""
    piece = handle.readline(cap)
    if not piece:
        return None
    if piece.endswith(b"\n"):
        return piece[:-1]
    while True:  # the rest of a long line, unkept
        more = handle.readline(cap)
        if not more or more.endswith(b"\n"):
            return piece
