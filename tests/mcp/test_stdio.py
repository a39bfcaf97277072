"""pi_mcp's stdio transport against the demo server (tests/mcp/demo_server.py): large messages in
linear time, messages over the limit failing their request at once, the server's group stopped."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import IO

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from pi_mcp.stdio import LineReader, stdio_transport, too_big_reply

DEMO = str(Path(__file__).with_name("demo_server.py"))


def test_line_reader_joins_chunks_once_and_drops_what_is_too_big() -> None:
    lines = LineReader(limit=10)
    assert lines.feed(b'{"a"') == []
    assert lines.feed(b":1}\n\n{") == [b'{"a":1}', b""]
    assert lines.feed(b'"id":3,"result":"xxxxxxxx') == []  # over 10 bytes: dropped from here on
    assert lines.feed(b"yyyy") == []
    assert lines.feed(b'"}\n{"b":2}\n') == [(b'{"id":3,"result":"xxxxxxxx', 32), b'{"b":2}']
    assert lines.feed(b'{"id":"q","result":1}\n') == [(b'{"id":"q","result":1}', 21)]


def test_too_big_reply_answers_the_request_it_names() -> None:
    reply = too_big_reply(b'{"jsonrpc":"2.0","id":7,"result":{"content"', 80 * 1024 * 1024, 64 * 1024 * 1024)
    assert reply is not None
    error = reply.root
    assert error.id == 7  # type: ignore[union-attr]
    assert error.error.message == "MCP stdio message of 83886080 bytes exceeds the 64 MB limit"  # type: ignore[union-attr]
    assert too_big_reply(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"id":1', 99, 1) is None
    assert too_big_reply(b'{"jsonrpc":"2.0","result":', 99, 1) is None


async def test_twenty_megabytes_arrive_and_oversized_answers_fail_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_MCP_MAX_MESSAGE_MB", "48")
    env = {**os.environ, "DEMO_MODE": ""}
    with (tmp_path / "err.log").open("w") as log:
        pid = await _calls(tmp_path, env, log)
    with pytest.raises(ProcessLookupError):  # the server is gone with the transport
        os.kill(pid, 0)


async def _calls(tmp_path: Path, env: dict[str, str], log: IO[str]) -> int:
    async with (
        stdio_transport(sys.executable, [DEMO], env=env, cwd=tmp_path, errlog=log) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        started = time.monotonic()
        result = await session.call_tool("big", {"size": 20_000_000})  # text and structured: 40 MB
        assert len(result.content[0].text) == 20_000_000  # type: ignore[union-attr]
        assert time.monotonic() - started < 20
        started = time.monotonic()
        with pytest.raises(McpError, match=r"MCP stdio message of 5200012\d bytes exceeds the 48 MB limit"):
            await session.call_tool("big", {"size": 26_000_000})
        assert time.monotonic() - started < 20  # not the 60 s of the request's timeout
        assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5"  # type: ignore[union-attr]
        return int((await session.call_tool("pid", {})).content[0].text)  # type: ignore[union-attr]
