"""pi_mcp's :class:`McpServer` against the real demo server (stdio and streamable HTTP): a call
that is aborted or runs out of time is cancelled on the server with ``notifications/cancelled``
naming its request, as the MCP spec asks and pi 1.6.0 does."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_core.ai.abort import AbortController
from pi_mcp.client import McpCallError, McpServer
from pi_mcp.config import validate

from tests.e2e.loopback_scripts import ScriptServers, free_port

DEMO = str(Path(__file__).with_name("demo_server.py"))


@pytest.fixture
def http_demo(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], int]]:
    servers = ScriptServers(tmp_path)

    def start(env: dict[str, str]) -> int:
        port = free_port()
        env = {"DEMO_TRANSPORT": "streamable-http", "DEMO_PORT": str(port), **env}
        return servers.start(DEMO, port, env, log="http.log", timeout=20)

    yield start
    servers.stop_all()


@pytest.fixture(params=["stdio", "http"])
async def sleepy(
    request: pytest.FixtureRequest, tmp_path: Path, http_demo: Callable[[dict[str, str]], int]
) -> AsyncIterator[tuple[McpServer, Path]]:
    """A connected demo server with the ``sleep`` tool (timeout 3 s) and the file its calls are
    noted in."""
    marks = tmp_path / "calls.txt"
    env = {"DEMO_SLEEPY": "1", "DEMO_CANCELLED": str(marks)}
    entry: dict[str, Any]
    if request.param == "stdio":
        entry = {"command": sys.executable, "args": [DEMO], "env": env}
    else:
        entry = {"url": f"http://127.0.0.1:{http_demo(env)}/mcp"}
    config = validate("demo", {**entry, "timeout": 3}, "user")
    assert not isinstance(config, str)
    with (tmp_path / "mcp.log").open("a") as log:
        server = McpServer(config, cwd=tmp_path, log=log, on_tools=lambda _server: None)
        server.start()
        try:
            assert await server.wait_settled(60) and server.state == "connected", server.last_error
            yield server, marks
        finally:
            await server.stop()


def _read(marks: Path) -> list[str]:
    return marks.read_text().splitlines() if marks.exists() else []


async def _lines_of(marks: Path, count: int) -> list[str]:
    """The first ``count`` lines the server noted, once it has (within 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = await asyncio.to_thread(_read, marks)
        if len(lines) >= count:
            return lines
        await asyncio.sleep(0.02)
    raise AssertionError(f"the server noted only {await asyncio.to_thread(_read, marks)}")


async def test_an_aborted_call_is_cancelled_on_the_server(sleepy: tuple[McpServer, Path]) -> None:
    server, marks = sleepy
    controller = AbortController()
    call = asyncio.ensure_future(server.call_tool("sleep", {"seconds": 30}, controller.signal))
    (started,) = await _lines_of(marks, 1)
    request_id = re.fullmatch(r"started (\d+)", started)
    assert request_id is not None
    controller.abort()
    with pytest.raises(McpCallError, match=r'MCP server "demo": tools/call sleep aborted'):
        await call
    # The server stopped that very request (it looks the id up among the requests it runs).
    assert await _lines_of(marks, 2) == [started, f"cancelled {request_id[1]}"]
    # The connection goes on: the server's late "Request cancelled" answer harms nothing.
    result = await server.call_tool("add", {"a": 2, "b": 3})
    assert result.content[0].text == "5" and server.state == "connected"


async def test_a_call_that_times_out_is_cancelled_on_the_server(sleepy: tuple[McpServer, Path]) -> None:
    server, marks = sleepy
    with pytest.raises(McpCallError, match="Timed out"):
        await server.call_tool("sleep", {"seconds": 30})
    started, cancelled = await _lines_of(marks, 2)
    assert cancelled == started.replace("started", "cancelled")
