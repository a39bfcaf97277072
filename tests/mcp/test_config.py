"""mcp.json reading: pi 1.6.0's shape, project overrides, line and column of a malformed file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_mcp.config import McpConfigError, load_config, update_entry, validate
from pi_mcp.manager import tool_name


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_user_and_project_entries_merge_as_pi_does(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    write(
        agent / "mcp.json",
        {
            "mcpServers": {
                "internal-tools": {"command": "srv", "env": {"K": "v"}, "exposure": "direct"},
                "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}},
                "bad name!": {"command": "x"},
            }
        },
    )
    write(
        project / ".pi" / "mcp.json",
        {"mcpServers": {"internal-tools": {"enabled": False}, "docs": {"command": "local-docs"}}},
    )
    loaded = load_config(agent, project, project_allowed=True)
    tools = loaded.servers["internal-tools"]
    assert tools.enabled is False and tools.raw["env"] == {"K": "v"} and tools.source == "user"
    assert loaded.servers["docs"].kind == "stdio" and loaded.servers["docs"].source == "project"
    assert any('invalid server name "bad name!"' in e for e in loaded.errors)
    untrusted = load_config(agent, project, project_allowed=False)
    assert untrusted.servers["internal-tools"].enabled is True
    assert untrusted.servers["docs"].kind == "http"


def test_malformed_file_reports_line_and_column(tmp_path: Path) -> None:
    write(tmp_path / "mcp.json", '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n')
    loaded = load_config(tmp_path, tmp_path / "p", project_allowed=False)
    assert loaded.servers == {}
    assert len(loaded.errors) == 1 and f"{tmp_path / 'mcp.json'}:3:" in loaded.errors[0]


def test_entries_are_checked_field_by_field() -> None:
    assert (
        validate("a", {"command": "x", "args": "no"}, "user")
        == 'server "a": args must be an array of strings'
    )
    assert "needs either" in str(validate("a", {"type": "stdio"}, "user"))
    assert "timeout must be" in str(validate("a", {"command": "x", "timeout": 0}, "user"))
    assert "url must be" in str(validate("a", {"url": "ftp://x"}, "user"))
    assert "exposure must be" in str(validate("a", {"command": "x", "exposure": "loud"}, "user"))
    assert validate("old", {"type": "sse", "url": "https://example.com/sse"}, "user") == (
        'server "old": legacy SSE transport is not supported; use the streamable HTTP URL'
    )
    assert validate("t", {"type": "ws", "url": "https://example.com/ws"}, "user") == (
        'server "t": type must be "stdio", "http" or "streamable-http"'
    )
    config = validate(
        "gh",
        {
            "url": "https://x/mcp",
            "exposure": "hidden",
            "toolExposure": {"search_code": "direct", "get_*": "codemode", "*": "hidden"},
        },
        "user",
    )
    assert not isinstance(config, str)
    assert config.exposure_of("search_code") == "direct"
    assert config.exposure_of("get_issue") == "deferred"  # codemode is reached through tool_search here
    assert config.exposure_of("delete_repo") == "hidden"


def test_tool_names_as_pi_names_them() -> None:
    assert tool_name("dev-radius", "get.thing") == "mcp__dev_radius__get_thing"
    long = tool_name("s", "t" * 80)
    assert len(long) == 64 and long.startswith("mcp__s__ttt")
    assert tool_name("s", "a-b", lambda n: n == "mcp__s__a_b") != "mcp__s__a_b"


def test_update_entry_keeps_the_rest_of_the_file_and_its_indentation(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = (
        '{\n\t"other": 1,\n\t"mcpServers": {\n\t\t"a": {"command": "x", "enabled": false},\n'
        '\t\t"b": {"url": "https://e.x/mcp"}\n\t}\n}\n'
    )
    path.write_text(text)
    update_entry(path, "a", {"enabled": None, "exposure": "direct"})
    data = json.loads(path.read_text())
    assert data == {
        "other": 1,
        "mcpServers": {"a": {"command": "x", "exposure": "direct"}, "b": {"url": "https://e.x/mcp"}},
    }
    assert path.read_text().startswith('{\n\t"other": 1,\n\t"mcpServers": {\n\t\t"a": {\n')
    # A project override of a user-level server is a new entry in a file that may not exist yet.
    override = tmp_path / "project" / ".pi" / "mcp.json"
    update_entry(override, "a", {"enabled": False})
    assert json.loads(override.read_text()) == {"mcpServers": {"a": {"enabled": False}}}
    assert override.read_text().startswith('{\n  "mcpServers"')


def test_update_entry_refuses_a_file_it_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": ')
    with pytest.raises(McpConfigError, match="invalid JSON"):
        update_entry(path, "a", {"enabled": False})
    assert path.read_text() == '{"mcpServers": {"a": '
    path.write_text('{"mcpServers": []}')
    with pytest.raises(McpConfigError, match="mcpServers must be an object"):
        update_entry(path, "a", {"enabled": False})


def test_a_project_override_names_its_file(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    write(agent / "mcp.json", {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}})
    write(project / ".pi" / "mcp.json", {"mcpServers": {"a": {"enabled": False}}})
    loaded = load_config(agent, project, project_allowed=True)
    assert loaded.servers["a"].override == project / ".pi" / "mcp.json"
    assert loaded.servers["a"].enabled is False and loaded.servers["a"].source == "user"
    assert loaded.servers["b"].override is None
