"""How often pi_mcp's :class:`McpServer` tries to connect to an HTTP server that answers with an
error status (pi 1.6.0: three attempts for network errors and transient statuses, one for the
rest), against a real listener on the loopback interface."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pi_mcp.client import McpServer
from pi_mcp.config import validate


class _Refusing(ThreadingHTTPServer):
    status = 503
    posts = 0


class _Handler(BaseHTTPRequestHandler):
    server: _Refusing

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.server.posts += 1
        self.send_response(self.server.status)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.do_POST()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[_Refusing]:
    server = _Refusing(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


async def _connect(url: str, tmp_path: Path) -> McpServer:
    config = validate("web", {"url": url, "timeout": 20}, "user")
    assert not isinstance(config, str)
    with (tmp_path / "mcp.log").open("a") as log:
        server = McpServer(config, cwd=tmp_path, log=log, on_tools=lambda _server: None)
        server.start()
        assert await server.wait_settled(60)
        await server.stop()
    return server


@pytest.mark.parametrize(("status", "attempts"), [(503, 3), (429, 3), (408, 3), (501, 1), (400, 1)])
async def test_transient_statuses_are_tried_three_times_others_once(
    refusing: _Refusing, tmp_path: Path, status: int, attempts: int
) -> None:
    refusing.status = status
    server = await _connect(f"http://127.0.0.1:{refusing.server_port}/mcp", tmp_path)
    assert refusing.posts == attempts
    assert server.last_error is not None and str(status) in server.last_error
    retried = (tmp_path / "mcp.log").read_text().count("connecting failed, again in")
    assert retried == attempts - 1


async def test_a_port_nobody_listens_on_is_tried_three_times(tmp_path: Path) -> None:
    closed = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = closed.server_port
    closed.server_close()
    server = await _connect(f"http://127.0.0.1:{port}/mcp", tmp_path)
    assert server.last_error == "All connection attempts failed"
    log = (tmp_path / "mcp.log").read_text()
    assert "again in 0.25 s" in log and "again in 1 s" in log
