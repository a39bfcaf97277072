"""``/mcp`` argument completion: sub-commands, then the servers each one applies to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pi_mcp.client import McpServer
from pi_mcp.config import ServerConfig, validate
from pi_mcp.manager import McpManager

from pi_mcp import plugin


@pytest.fixture
def manager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[McpManager]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    made = McpManager(None, cwd=tmp_path)
    entries = {
        "files": {"command": "srv"},
        "sentry": {"url": "https://mcp.example.com/mcp"},
        "keyed": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}},
        "off": {"command": "srv", "enabled": False},
    }
    with (tmp_path / "log").open("a") as log:
        for name, raw in entries.items():
            config = validate(name, raw, "user")
            assert isinstance(config, ServerConfig)
            made.configs[name] = config
            made.servers[name] = McpServer(
                config, cwd=tmp_path, log=log, on_tools=lambda _s: None, credentials=made.credentials
            )
        plugin._state["manager"] = made
        yield made
    plugin._state.pop("manager", None)


def values(prefix: str) -> list[str] | None:
    found = plugin._mcp_completions(prefix)
    return None if found is None else [item["value"] for item in found]


def test_sub_commands_then_the_servers_they_apply_to(manager: McpManager) -> None:
    assert values("") == ["login ", "logout ", "reconnect "]
    assert values("lo") == ["login ", "logout "]
    assert values("x") is None
    assert values("login ") == ["login sentry"]  # OAuth: HTTP without an Authorization header
    assert values("logout s") == ["logout sentry"]
    assert values("reconnect ") == ["reconnect files", "reconnect sentry", "reconnect keyed"]
    assert values("reconnect f") == ["reconnect files"]
    assert values("reconnect files more") is None
    assert values("status ") is None
    described = plugin._mcp_completions("reconnect ")
    assert described is not None and described[0]["description"] == "connecting…"
