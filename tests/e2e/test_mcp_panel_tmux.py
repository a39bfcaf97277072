"""``/mcp`` in the real ``pi`` under tmux, both REPL modes: the panel that lists the servers with
their state and acts on the chosen one. Real servers: the tests' FastMCP server over stdio, one
whose program appears only after pi started (failed, then reconnected), and the OAuth-protected
server with its authorization server, signed in through the panel by tests/mcp/fake_browser.py.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core.testing import ToolUse, text_turn, tool_turn

from tests.e2e.loopback_scripts import ScriptServers, free_port
from tests.e2e.tmux_pane import Pane, start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

MCP = Path(__file__).parents[1] / "mcp"
DEMO = str(MCP / "demo_server.py")
#: Seconds a screen may take to change on a loaded two-core machine (servers start Python).
SLOW = 60


@pytest.fixture(autouse=True)
def _patient(pi_env: PiEnv) -> None:
    pi_env.extra_env["PI_MCP_DIRECT_WAIT"] = "60"


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[Callable[[], int]]:
    servers = ScriptServers(tmp_path)

    def start() -> int:
        port = free_port()
        return servers.start(
            MCP / "oauth_server.py", port, {"OAUTH_PORT": str(port)}, log=f"oauth-{port}.log", timeout=30
        )

    yield start
    servers.stop_all()


def write_config(pi_env: PiEnv, servers: dict[str, Any]) -> Path:
    path = pi_env.agent_dir / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=4))
    return path


def open_panel(pane: Pane) -> str:
    pane.wait_for_editor()
    pane.submit("/mcp")
    return shows(pane, " MCP servers")


def row(screen: str, name: str) -> str:
    """The panel's row of server ``name`` (the highlighted one starts with an arrow)."""
    found = [line for line in screen.splitlines() if line[2:].startswith(f"{name} ")]
    assert found, f"no row for {name!r}:\n{screen}"
    return found[-1]


def choose(pane: Pane, label: str, *, then: str) -> str:
    """Move the highlight down to the row starting with ``label``, press Enter, wait for ``then``."""
    for _ in range(12):
        screen = pane.visible()
        if any(line.startswith(f"→ {label}") for line in screen.splitlines()):
            break
        pane.keys("Down")
        pane.wait_for(lambda s, before=screen: s != before or f"→ {label}" in s, 5, poll=0.05)
    else:
        raise AssertionError(f"no row {label!r}:\n{pane.visible()}")
    pane.keys("Enter")
    return shows(pane, then)


def back(pane: Pane, then: str) -> str:
    pane.keys("Escape")
    return shows(pane, then)


def shows(pane: Pane, text: str) -> str:
    """Wait until the screen (not its scrollback) shows ``text``; the screen."""
    pane.wait_for(lambda _s: text in pane.visible(), SLOW)
    return pane.visible()


@pytest.mark.parametrize("mode", ["regular", "fullscreen"])
def test_the_panel_lists_servers_reconnects_one_and_disables_another(
    pi_env: PiEnv, tmp_path: Path, mode: str
) -> None:
    late = tmp_path / "bin" / "late-server"
    config = write_config(
        pi_env,
        {
            "demo": {"command": sys.executable, "args": [DEMO]},
            "late": {"command": str(late), "exposure": "direct"},
        },
    )
    pane = start_pane(pi_env, tui=mode)
    try:
        screen = open_panel(pane)
        screen = shows(pane, "connected · 8 tools")
        # The failed server comes first, its reason in the row; the working one shows its tools.
        lines = [line for line in screen.splitlines() if line[2:].startswith(("late ", "demo "))]
        assert lines[0][2:].startswith("late "), screen  # (the highlight stays where it was)
        assert "failed: command not found: " in row(screen, "late")  # (cut at the screen's edge)
        assert "connected · 8 tools · resources · codemode · global" in row(screen, "demo")
        assert "enter manage • escape/ctrl+c close" in screen

        # The program appears; Reconnect in the server's menu brings the server up in place.
        late.parent.mkdir()
        late.write_text(f"#!{sys.executable}\nimport runpy\nrunpy.run_path({DEMO!r}, run_name='__main__')\n")
        late.chmod(0o755)
        screen = choose(pane, "late", then="MCP server late")
        assert f"global: {pi_env.agent_dir / 'mcp.json'}" in screen
        assert "State: failed" in screen and "command not found" in screen
        choose(pane, "Reconnect", then="State: connected · 8 tools")
        screen = choose(pane, "Tools", then="Tools of late")
        assert "add" in screen and "Add two integers." in screen

        # Disable is saved to mcp.json (its indentation kept) and the server stops; Enable undoes it.
        back(pane, "MCP server late")
        back(pane, " MCP servers")
        choose(pane, "demo", then="MCP server demo")
        choose(pane, "Disable", then="State: disabled")
        saved = json.loads(config.read_text())["mcpServers"]
        assert saved["demo"]["enabled"] is False
        assert saved["late"] == {"command": str(late), "exposure": "direct"}
        assert '\n    "mcpServers"' in config.read_text()
        choose(pane, "Enable", then="State: connected · 8 tools")
        assert "enabled" not in json.loads(config.read_text())["mcpServers"]["demo"]

        back(pane, " MCP servers")
        pane.keys("Escape")
        pane.wait_for(lambda s: " MCP servers" not in pane.visible(), SLOW)
        pane.wait_for_editor()
        assert "Traceback" not in pane.screen()
    finally:
        pane.kill()


def test_signing_in_and_out_through_the_panel(
    pi_env: PiEnv, oauth_server: Callable[[], int], tmp_path: Path
) -> None:
    port = oauth_server()
    log = tmp_path / "browser.log"
    pi_env.extra_env.update(BROWSER=f"{sys.executable} {MCP / 'fake_browser.py'}", FAKE_BROWSER_LOG=str(log))
    write_config(pi_env, {"sec": {"url": f"http://127.0.0.1:{port}/mcp", "exposure": "direct"}})
    pane = start_pane(pi_env, tui="regular")
    try:
        open_panel(pane)
        shows(pane, "needs sign-in · direct · global")
        screen = choose(pane, "sec", then="MCP server sec")
        assert "State: needs sign-in" in screen and "→ Sign in" in screen and "Sign out" not in screen
        # The fake browser approves and follows the redirect to pi's listener: back in the menu, connected.
        choose(pane, "Sign in", then="State: connected · 2 tools")
        assert len(log.read_text().splitlines()) == 1
        stored = json.loads((pi_env.agent_dir / "mcp-auth.json").read_text())
        assert list(stored) == [f"mcp__sec|http://127.0.0.1:{port}/mcp"]
        screen = pane.visible()
        assert "Sign out" in screen and "Sign in " not in screen
        choose(pane, "Sign out", then="State: needs sign-in")
        assert json.loads((pi_env.agent_dir / "mcp-auth.json").read_text()) == {}
        back(pane, " MCP servers")
        pane.keys("Escape")
        pane.wait_for(lambda s: " MCP servers" not in pane.visible(), SLOW)
        assert "Traceback" not in pane.screen()
    finally:
        pane.kill()


@pytest.mark.parametrize("mode", ["regular", "fullscreen"])
def test_the_sign_in_screen_copies_its_address(
    pi_env: PiEnv, oauth_server: Callable[[], int], mode: str
) -> None:
    port = oauth_server()
    pi_env.extra_env["BROWSER"] = "true"  # a browser that opens nothing: the screen stays
    write_config(pi_env, {"sec": {"url": f"http://127.0.0.1:{port}/mcp", "exposure": "direct"}})
    pane = start_pane(pi_env, tui=mode)
    try:
        pane.tmux("set-option", "-s", "set-clipboard", "on")  # OSC 52 from pi fills a tmux buffer
        open_panel(pane)
        shows(pane, "needs sign-in · direct · global")
        choose(pane, "sec", then="MCP server sec")
        screen = choose(pane, "Sign in", then="ctrl+x to copy")
        assert "If it did not open, visit:" in screen
        pane.keys("C-x")
        shows(pane, "Copied URL to clipboard")
        copied = pane.tmux("show-buffer")
        assert copied.startswith(f"http://127.0.0.1:{port}/") and "code_challenge=" in copied
        # Esc cancels the sign-in.
        pane.keys("Escape")
        shows(pane, "State: needs sign-in")
        assert "Traceback" not in pane.screen()
    finally:
        pane.kill()


@pytest.mark.parametrize("mode", ["regular", "fullscreen"])
def test_a_dropped_server_shows_as_disconnected_and_the_next_call_reconnects(
    pi_env: PiEnv, mode: str
) -> None:
    write_config(pi_env, {"demo": {"command": sys.executable, "args": [DEMO], "exposure": "direct"}})
    pi_env.server.add(
        tool_turn(ToolUse("mcp__demo__die", {}, id="c_die")),
        text_turn("DIED-ANSWER"),
        tool_turn(ToolUse("mcp__demo__add", {"a": 2, "b": 3}, id="c_add")),
        text_turn("ADDED-ANSWER"),
    )
    pane = start_pane(pi_env, tui=mode)
    try:
        pane.wait_for_editor()
        pane.submit("end the server")
        shows(pane, "DIED-ANSWER")
        pane.wait_for_editor()
        open_panel(pane)
        screen = shows(pane, "disconnected · direct · global")
        assert "disconnected · direct · global" in row(screen, "demo")
        screen = choose(pane, "demo", then="MCP server demo")
        assert "State: disconnected" in screen and "Connection closed" in screen
        assert any(line[2:].startswith("Reconnect") for line in screen.splitlines())
        back(pane, " MCP servers")
        pane.keys("Escape")
        pane.wait_for(lambda s: " MCP servers" not in pane.visible(), SLOW)
        # The model's next call to the server connects again and is answered.
        pane.wait_for_editor()
        pane.submit("add")
        shows(pane, "ADDED-ANSWER")
        tool_results = [
            message["content"]
            for message in pi_env.server.requests[-1].body["messages"]
            if message["role"] == "tool"
        ]
        assert tool_results[-1] == "5"
        assert "Traceback" not in pane.screen()
    finally:
        pane.kill()
