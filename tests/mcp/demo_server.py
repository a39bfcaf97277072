"""A small MCP server made with the SDK's FastMCP, run over stdio by the MCP tests.

``DEMO_TRANSPORT`` (``stdio``, ``streamable-http``, ``sse``) and ``DEMO_PORT`` choose how it is
reached. ``DEMO_MODE`` changes its behaviour: ``slow`` sleeps before serving, ``mute`` reads requests and
never answers (not even ``initialize``), ``flood`` writes megabytes to stderr first. With
``DEMO_ONCE`` naming a file, only the first start serves: it creates the file, and every later start
counts itself in it, says so on stderr and exits with status 3.
"""

from __future__ import annotations

import base64
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


if __name__ == "__main__":
    server.run(os.environ.get("DEMO_TRANSPORT", "stdio"))  # type: ignore[arg-type]
