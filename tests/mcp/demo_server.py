"""A small MCP server made with the SDK's FastMCP, run over stdio by the MCP tests.

``DEMO_TRANSPORT`` (``stdio``, ``streamable-http``, ``sse``) and ``DEMO_PORT`` choose how it is
reached. ``DEMO_MODE`` changes its behaviour: ``slow`` sleeps before serving, ``mute`` reads requests and
never answers (not even ``initialize``), ``flood`` writes megabytes to stderr first. With
``DEMO_ONCE`` naming a file, only the first start serves: it creates the file, and every later start
counts itself in it, says so on stderr and exits with status 3. ``DEMO_FAIL_ONCE`` (HTTP) names a
JSON-RPC method whose first request is answered with 503. ``DEMO_SLEEPY`` adds the tool ``sleep``,
which notes each call (``started <request id>``) and each one the client cancels (``cancelled <request
id>``) in the file ``DEMO_CANCELLED`` names.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time

MODE = os.environ.get("DEMO_MODE", "")
if MODE == "mute":
    for _line in sys.stdin:
        pass
    sys.exit(0)
ONCE = os.environ.get("DEMO_ONCE")
if ONCE:
    if os.path.exists(ONCE):
        with open(ONCE) as mark:
            starts = int(mark.read() or "0") + 1
        with open(ONCE, "w") as mark:
            mark.write(str(starts))
        sys.stderr.write(f"start {starts} refused: this server serves once\n")
        sys.exit(3)
    with open(ONCE, "w") as mark:
        mark.write("0")
if MODE == "slow":
    time.sleep(float(os.environ.get("DEMO_DELAY", "3")))
if MODE == "flood":
    for _ in range(20000):
        sys.stderr.write("x" * 200 + "\n")
    sys.stderr.flush()

from typing import Any  # noqa: E402

from mcp.server.fastmcp import Context, FastMCP, Image  # noqa: E402
from mcp.types import ToolAnnotations  # noqa: E402

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
server = FastMCP(
    "demo", instructions="Arithmetic and test helpers", port=int(os.environ.get("DEMO_PORT", "0"))
)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def picture() -> Image:
    """Return a one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(reason)


@server.tool()
def die() -> str:
    """The server process exits in the middle of the call."""
    os._exit(3)


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


if os.environ.get("DEMO_SLEEPY"):

    def _note(line: str) -> None:
        """One line in ``DEMO_CANCELLED``'s file; sync, since a cancelled call cannot await."""
        marks = os.environ.get("DEMO_CANCELLED")
        if marks:
            with open(marks, "a") as out:
                out.write(line + "\n")

    @server.tool()
    async def sleep(seconds: float, ctx: Context) -> str:  # type: ignore[type-arg]
        """Answer after ``seconds`` seconds."""
        import anyio

        _note(f"started {ctx.request_id}")
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            _note(f"cancelled {ctx.request_id}")
            raise
        return "slept"


if os.environ.get("DEMO_TRANSPORT") == "streamable-http":

    @server.tool()
    def forget() -> str:
        """The server forgets every session, as a restarted server would."""
        server.session_manager._server_instances.clear()
        return "forgotten"


@server.tool()
def big(size: int) -> str:
    """Return ``size`` characters of text."""
    return "y" * size


for i in range(int(os.environ.get("DEMO_EXTRA", "0"))):

    def extra(text: str, i: int = i) -> str:
        return f"{i}:{text}"

    server.add_tool(
        extra, name=f"extra_{i}", description=f"Extra tool number {i} that echoes its text with a tag"
    )


@server.tool()
def header(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """The value of an HTTP request header the client sent (empty over stdio)."""
    request = ctx.request_context.request
    return "" if request is None else str(request.headers.get(name, ""))


@server.tool()
async def grow(ctx: Context) -> str:  # type: ignore[type-arg]
    """Add the tool ``grown`` and announce the changed tool list."""

    def grown(word: str) -> str:
        return f"grown {word}"

    server.add_tool(grown, name="grown", description="A tool that appeared later")
    await ctx.session.send_tool_list_changed()
    return "grew"


@server.resource("demo://readme", mime_type="text/plain")
def readme() -> str:
    """The demo readme."""
    return "demo readme text"


class FailOnce:
    """Over HTTP: answers the first POST of JSON-RPC method ``method`` with 503, as an overloaded
    server or a proxy in front of it may."""

    def __init__(self, app: Any, method: str) -> None:
        self.app, self.method, self.failed = app, method, False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or self.failed:
            await self.app(scope, receive, send)
            return
        messages = [await receive()]
        while messages[-1].get("more_body"):
            messages.append(await receive())
        body = b"".join(message.get("body", b"") for message in messages)
        try:
            method = json.loads(body).get("method")
        except ValueError:
            method = None
        if method == self.method:
            self.failed = True
            await send({"type": "http.response.start", "status": 503, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def replay() -> Any:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


if __name__ == "__main__":
    transport = os.environ.get("DEMO_TRANSPORT", "stdio")
    fail_once = os.environ.get("DEMO_FAIL_ONCE")
    if transport == "streamable-http" and fail_once:
        import uvicorn

        app = FailOnce(server.streamable_http_app(), fail_once)
        uvicorn.run(app, host="127.0.0.1", port=int(os.environ["DEMO_PORT"]), log_level="info")
    else:
        server.run(transport)  # type: ignore[arg-type]
