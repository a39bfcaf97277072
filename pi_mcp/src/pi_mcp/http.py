"""The streamable HTTP transport, as the SDK's ``streamable_http_client`` sets it up, with one
change: a request whose response stream (SSE) ends before it carried the answer fails at once.

The SDK drops such a stream silently (it resumes only streams whose events have ids), so the
request waited for its whole timeout although the server had gone (pi 1.6.0 fails it at once).
Here the request gets the SDK's own ``Connection closed`` error, which pi_mcp treats as the
connection ending: the call fails, and the next one connects again. Imported only once an HTTP
server connects (it imports the SDK's HTTP client).

The override and :func:`streamable_http` use private parts of the SDK's transport (mcp 1.30 still
has no public way to see a stream end without its answer); ``tests/mcp/test_http.py`` fails,
naming the part, when an SDK release changes one of them.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
from mcp.client.streamable_http import RequestContext, StreamableHTTPTransport
from mcp.shared.message import SessionMessage
from mcp.types import CONNECTION_CLOSED, ErrorData, JSONRPCError, JSONRPCMessage, JSONRPCResponse


class _Answers:
    """The read stream's writer of one request, noting whether its answer went through."""

    def __init__(self, writer: Any, request_id: Any) -> None:
        self._writer = writer
        self._request_id = request_id
        self.answered = False

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        root = getattr(message, "root", None)
        if isinstance(root, JSONRPCResponse | JSONRPCError) and root.id == self._request_id:
            self.answered = True
        await self._writer.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


class Transport(StreamableHTTPTransport):
    async def _handle_sse_response(
        self, response: httpx.Response, ctx: RequestContext, is_initialization: bool = False
    ) -> None:
        request_id = getattr(ctx.session_message.message.root, "id", None)
        answers = _Answers(ctx.read_stream_writer, request_id)
        watched = dataclasses.replace(ctx, read_stream_writer=answers)  # type: ignore[arg-type]
        await super()._handle_sse_response(response, watched, is_initialization)
        if answers.answered or request_id is None:
            return
        error = JSONRPCError(
            jsonrpc="2.0", id=request_id, error=ErrorData(code=CONNECTION_CLOSED, message="Connection closed")
        )
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await ctx.read_stream_writer.send(SessionMessage(JSONRPCMessage(error)))


@contextlib.asynccontextmanager
async def streamable_http(url: str, client: httpx.AsyncClient) -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` of a streamable HTTP connection through ``client`` (which the caller
    opens and closes); the session is ended with a DELETE when the connection closes."""
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    transport = Transport(url)
    try:
        async with anyio.create_task_group() as group:

            def start_get_stream() -> None:
                group.start_soon(transport.handle_get_stream, client, read_writer)

            writer = transport.post_writer
            group.start_soon(writer, client, write_reader, read_writer, write_stream, start_get_stream, group)
            try:
                yield read_stream, write_stream
            finally:
                if transport.session_id:
                    await transport.terminate_session(client)
                group.cancel_scope.cancel()
    finally:
        await read_writer.aclose()
        await write_stream.aclose()
