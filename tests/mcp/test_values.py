"""``env``/``headers`` values: variables, ``$$``/``$!`` escapes and ``!command``, resolved at connect."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import pytest
from pi_mcp.client import McpServer
from pi_mcp.config import McpValueError, expand, resolve_value, validate

DEMO = str(Path(__file__).parent / "demo_server.py")


def test_expand_replaces_variables_and_escapes() -> None:
    env = {"A": "1", "B": "two"}
    assert expand("x${A}-$B $$A $!y", env) == "x1-two $A !y"
    assert expand("${NOPE}", env) == ""
    with pytest.raises(McpValueError, match="from environment variables: NOPE, GONE"):
        expand("${NOPE}$GONE$NOPE", env, what='MCP server "s" env "K"')


async def test_command_values_run_in_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TEST_TOKEN", "abc")
    assert await resolve_value("!echo Bearer $PI_TEST_TOKEN", "x") == "Bearer abc"
    assert await resolve_value("literal ${PI_TEST_TOKEN}", "x") == "literal abc"
    with pytest.raises(
        McpValueError, match='Failed to resolve MCP server "s" header "H" from shell command: exit 3'
    ):
        await resolve_value("!exit 3", 'MCP server "s" header "H"')
    with pytest.raises(McpValueError, match="from shell command: true"):
        await resolve_value("!true", "x")  # no output is no value


async def test_command_that_hangs_is_killed_after_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    import pi_mcp.config as config

    monkeypatch.setattr(config, "COMMAND_TIMEOUT", 0.3)
    started = time.monotonic()
    with pytest.raises(McpValueError, match=r"no answer within 0\.3 s"):
        await resolve_value("!sleep 30", "x")
    assert time.monotonic() - started < 5


async def test_a_value_that_cannot_be_resolved_fails_only_its_server(tmp_path: Path) -> None:
    log = io.StringIO()
    bad = validate("bad", {"command": sys.executable, "args": [DEMO], "env": {"K": "!exit 1"}}, "user")
    assert not isinstance(bad, str)
    server = McpServer(bad, cwd=tmp_path, log=log, on_tools=lambda s: None)
    server.start()
    assert await server.wait_settled(10)
    assert server.state == "failed"
    assert server.last_error == 'Failed to resolve MCP server "bad" env "K" from shell command: exit 1'
    await server.stop()
