"""The stdio transport: a server program in its own process group, newline-delimited JSON-RPC.

The SDK's ``stdio_client`` joins every chunk it reads onto the text received so far, so a message
of N bytes costs time quadratic in N (a 20 MB tool result took minutes). Here the bytes of an
incomplete message are kept as a list of chunks and joined once, when its newline arrives; a
message over :func:`max_message_bytes` is dropped as it streams in (nothing of it is kept but its
first bytes), and when those name the request it answers, that request fails at once with an error
saying so instead of waiting for its timeout. The server starts in a new session (process group);
on exit its stdin is closed, it has 0.5 s to leave, then the group gets SIGTERM and, 2 s later,
SIGKILL (pi 1.6.0's sequence; the SDK waits 2 s before SIGTERM). Its stderr goes on to
``mcp.log``, and its last 2,000 characters are kept for the error of a server that fails.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.lowlevel
from mcp import types
from mcp.shared.message import SessionMessage

#: The default size limit of one message from a server.
MAX_MESSAGE_MB = 64
_READ_SIZE = 1 << 16
_HEAD_BYTES = 512
#: After stdin closes, the server has this long to leave before SIGTERM (pi 1.6.0's figures),
#: and as long again after SIGTERM before SIGKILL.
_GRACE = 0.5
_TERM_WAIT = 2.0
#: Characters of a failed server's stderr shown with its error (pi 1.6.0's figure).
STDERR_TAIL_CHARS = 2000
#: ``"id": 7`` or ``"id": "x"`` near the start of a response.
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def max_message_bytes() -> int:
    """``PI_MCP_MAX_MESSAGE_MB`` megabytes, else :data:`MAX_MESSAGE_MB`."""
    try:
        value = float(os.environ.get("PI_MCP_MAX_MESSAGE_MB", MAX_MESSAGE_MB))
    except ValueError:
        value = MAX_MESSAGE_MB
    return int((value if value > 0 else MAX_MESSAGE_MB) * 1024 * 1024)


class LineReader:
    """Splits stdout bytes into messages; each complete line's bytes are joined once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._chunks: list[bytes] = []
        self._pending = 0
        #: The first bytes of a message being dropped for its size (``None``: not dropping).
        self._dropping: bytes | None = None
        self._dropped = 0

    def feed(self, data: bytes) -> list[bytes | tuple[bytes, int]]:
        """Complete lines, and ``(head, size)`` for each message dropped for its size."""
        out: list[bytes | tuple[bytes, int]] = []
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                self._keep(data[start:])
                return out
            piece = data[start:newline]
            start = newline + 1
            if self._dropping is not None:
                out.append((self._dropping, self._dropped + len(piece)))
                self._dropping, self._dropped = None, 0
                continue
            if self._chunks:
                self._chunks.append(piece)
                piece = b"".join(self._chunks)
                self._chunks, self._pending = [], 0
            if len(piece) > self.limit:
                out.append((piece[:_HEAD_BYTES], len(piece)))
                continue
            out.append(piece)

    def _keep(self, rest: bytes) -> None:
        if not rest:
            return
        if self._dropping is not None:
            self._dropped += len(rest)
            return
        self._chunks.append(rest)
        self._pending += len(rest)
        if self._pending > self.limit:
            head = b""
            for chunk in self._chunks:
                head += chunk[: _HEAD_BYTES - len(head)]
                if len(head) >= _HEAD_BYTES:
                    break
            self._dropping, self._dropped = head, self._pending
            self._chunks, self._pending = [], 0


def too_big_reply(head: bytes, size: int, limit: int) -> types.JSONRPCMessage | None:
    """An error answer to the request a dropped response answered, when its first bytes name it."""
    found = _ID.search(head)
    if found is None or b'"method"' in head[: found.start()]:
        return None
    request_id: Any = json.loads(found.group(1))
    message = f"MCP stdio message of {size} bytes exceeds the {limit // (1024 * 1024)} MB limit"
    error = types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=types.INTERNAL_ERROR, message=message)
    )
    return types.JSONRPCMessage(error)


class StderrTail:
    """The end of what a server wrote to stderr, for its error once it failed."""

    def __init__(self, limit: int = STDERR_TAIL_CHARS) -> None:
        self.limit = limit
        self._text = ""

    def add(self, text: str) -> None:
        self._text = (self._text + text)[-4 * self.limit :]

    @property
    def text(self) -> str:
        return self._text.strip()[-self.limit :]


@contextlib.asynccontextmanager
async def stdio_transport(
    command: str,
    args: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    errlog: IO[str],
    tail: StderrTail | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` of a started server, as the SDK's transports yield them;
    its stderr is copied to ``errlog`` and the end of it kept in ``tail``."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    limit = max_message_bytes()
    reader_send, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, writer_receive = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        process = await anyio.open_process([command, *args], env=env, cwd=cwd, start_new_session=True)
    except OSError:
        for stream in (read_stream, write_stream, reader_send, writer_receive):
            await stream.aclose()
        raise

    async def read_stdout() -> None:
        assert process.stdout is not None
        lines = LineReader(limit)
        try:
            async with reader_send:
                while True:
                    try:
                        data = await process.stdout.receive(_READ_SIZE)
                    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                        break
                    for line in lines.feed(data):
                        if isinstance(line, tuple):
                            reply = too_big_reply(line[0], line[1], limit)
                            if reply is not None:
                                await reader_send.send(SessionMessage(reply))
                            else:
                                await reader_send.send(
                                    ValueError(
                                        f"MCP stdio message of {line[1]} bytes dropped (over the limit)"
                                    )
                                )
                            continue
                        text = line.decode("utf-8", "replace").rstrip("\r")
                        if not text.strip():
                            continue
                        try:
                            message = types.JSONRPCMessage.model_validate_json(text)
                        except Exception as error:
                            await reader_send.send(error)
                            continue
                        await reader_send.send(SessionMessage(message))
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async def copy_stderr() -> None:
        assert process.stderr is not None
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                data = await process.stderr.receive(_READ_SIZE)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
            text = decoder.decode(data)
            if tail is not None:
                tail.add(text)
            with contextlib.suppress(OSError, ValueError):
                errlog.write(text)
                errlog.flush()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with writer_receive:
                async for item in writer_receive:
                    body = item.message.model_dump_json(by_alias=True, exclude_none=True)
                    await process.stdin.send((body + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group, process:
        group.start_soon(read_stdout)
        group.start_soon(copy_stderr)
        group.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            # Shielded: a cancelled connection (pi stopping a server that is still starting) still
            # stops the whole group, within _GRACE + _TERM_WAIT.
            with anyio.CancelScope(shield=True):
                if process.stdin is not None:
                    with contextlib.suppress(Exception):
                        await process.stdin.aclose()
                try:
                    with anyio.fail_after(_GRACE):
                        await process.wait()
                except TimeoutError:
                    await terminate_posix_process_tree(process, _TERM_WAIT)
                except ProcessLookupError:
                    pass
                for stream in (read_stream, write_stream, reader_send, writer_receive):
                    await stream.aclose()


def supported() -> bool:
    """This transport is for POSIX systems; elsewhere the SDK's is used."""
    return sys.platform != "win32"
