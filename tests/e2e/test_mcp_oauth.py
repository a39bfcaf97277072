"""OAuth for HTTP MCP servers through the real ``pi``: an OAuth-protected FastMCP server with the
SDK's authorization server (tests/mcp/oauth_server.py), and tests/mcp/fake_browser.py as
``BROWSER``, which opens the authorization URL pi prints and follows the redirect to pi's loopback
callback, as a browser whose user approves would.
"""

from __future__ import annotations

import json
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core.testing import ToolUse, text_turn, tool_turn

from tests.e2e.loopback_scripts import ScriptServers, free_port

if TYPE_CHECKING:
    from conftest import PiEnv

HERE = Path(__file__).parents[1] / "mcp"
SERVER = str(HERE / "oauth_server.py")
BROWSER = f"{sys.executable} {HERE / 'fake_browser.py'}"


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[Callable[..., int]]:
    servers = ScriptServers(tmp_path)

    def start(**env: str) -> int:
        port = free_port()
        return servers.start(
            SERVER, port, {"OAUTH_PORT": str(port), **env}, log=f"oauth-{port}.log", timeout=30
        )

    yield start
    servers.stop_all()


@pytest.fixture
def browser_log(pi_env: PiEnv, tmp_path: Path) -> Path:
    log = tmp_path / "browser.log"
    pi_env.extra_env.update(BROWSER=BROWSER, FAKE_BROWSER_LOG=str(log), PI_MCP_DIRECT_WAIT="60")
    return log


def write_config(pi_env: PiEnv, servers: dict[str, Any]) -> None:
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


def credentials(pi_env: PiEnv) -> dict[str, Any]:
    return json.loads((pi_env.agent_dir / "mcp-auth.json").read_text())


def tool_messages(body: dict[str, Any]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


def call_tools(pi_env: PiEnv, *uses: ToolUse) -> dict[str, str]:
    pi_env.server.add(tool_turn(*uses), text_turn("done"))
    result = pi_env.run("-p", "go", timeout=90)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return tool_messages(pi_env.server.requests[-1].body)


def test_sign_in_stores_tokens_tools_work_and_sign_out_forgets_them(
    pi_env: PiEnv, oauth_server: Callable[..., int], browser_log: Path
) -> None:
    port = oauth_server()
    url = f"http://127.0.0.1:{port}/mcp"
    write_config(pi_env, {"sec": {"url": url, "exposure": "direct"}})

    listed = pi_env.run("mcp", "list", model=None, timeout=60)
    assert listed.returncode == 1
    assert "sec  needs sign-in" in listed.stdout
    assert "sign in with: pi mcp login sec" in listed.stdout
    assert "Traceback" not in listed.stdout + listed.stderr

    # Without a sign-in a session goes on without the server's tools and says once what to do.
    pi_env.server.add(text_turn("no tools"))
    plain = pi_env.run("-p", "hi", timeout=90)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == "no tools\n"
    assert plain.stderr.count('MCP server "sec" requires sign-in') == 1, plain.stderr
    assert "Traceback" not in plain.stderr
    offered = [t["function"]["name"] for t in pi_env.server.requests[-1].body.get("tools", [])]
    assert not [n for n in offered if n.startswith("mcp__sec")]

    login = pi_env.run("mcp", "login", "sec", model=None, timeout=90)
    assert login.returncode == 0, login.stderr
    assert f"http://127.0.0.1:{port}/authorize?" in login.stdout
    assert login.stdout.strip().endswith('Signed in to MCP server "sec" (2 tools).')
    visits = browser_log.read_text().splitlines()
    assert len(visits) == 1, visits
    assert visits[0].startswith("200 http://127.0.0.1:") and "/callback?code=" in visits[0]

    path = pi_env.agent_dir / "mcp-auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = credentials(pi_env)
    assert list(stored) == [f"mcp__sec|{url}"]
    state = stored[f"mcp__sec|{url}"]
    assert state["serverUrl"] == url
    assert state["clientInformation"]["client_id"]
    assert state["clientInformation"]["redirect_uris"][0].startswith("http://127.0.0.1:")
    assert state["tokens"]["access_token"].startswith("at-")
    assert state["tokens"]["refresh_token"].startswith("rt-")
    assert state["tokens"]["token_type"] == "Bearer"
    assert state["tokensExpireAt"] > time.time() * 1000
    assert (
        state["discovery"]["authorizationServerMetadata"]["token_endpoint"]
        == f"http://127.0.0.1:{port}/token"
    )

    again = pi_env.run("mcp", "login", "sec", model=None, timeout=90)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == 'Already signed in to MCP server "sec" (2 tools).'
    assert len(browser_log.read_text().splitlines()) == 1  # no second trip to the browser

    seen = call_tools(
        pi_env, ToolUse("mcp__sec__add", {"a": 2, "b": 3}, id="c1"), ToolUse("mcp__sec__grants", {}, id="c2")
    )
    assert seen == {"c1": "5", "c2": "codes=1 refreshes=0 registrations=1"}

    logout = pi_env.run("mcp", "logout", "sec", model=None)
    assert logout.returncode == 0, logout.stderr
    assert logout.stdout.strip() == 'Signed out of MCP server "sec".'
    assert credentials(pi_env) == {}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    twice = pi_env.run("mcp", "logout", "sec", model=None)
    assert twice.stdout.strip() == 'MCP server "sec" had no stored credentials.'
    assert "needs sign-in" in pi_env.run("mcp", "list", model=None, timeout=60).stdout


def test_expired_or_rejected_tokens_are_refreshed_and_a_dead_refresh_needs_sign_in(
    pi_env: PiEnv, oauth_server: Callable[..., int], browser_log: Path
) -> None:
    port = oauth_server()
    url = f"http://127.0.0.1:{port}/mcp"
    key = f"mcp__sec|{url}"
    write_config(pi_env, {"sec": {"url": url, "exposure": "direct"}})
    assert pi_env.run("mcp", "login", "sec", model=None, timeout=90).returncode == 0
    # The stored expiry passed: the next connection refreshes before it sends the token.
    data = credentials(pi_env)
    first = data[key]["tokens"]
    data[key]["tokensExpireAt"] = int(time.time() * 1000) - 1000
    (pi_env.agent_dir / "mcp-auth.json").write_text(json.dumps(data))
    seen = call_tools(pi_env, ToolUse("mcp__sec__grants", {}, id="g"))
    assert seen == {"g": "codes=1 refreshes=1 registrations=1"}
    second = credentials(pi_env)[key]
    assert second["tokens"]["access_token"] != first["access_token"]
    assert second["tokens"]["refresh_token"] != first["refresh_token"]
    assert second["tokensExpireAt"] > time.time() * 1000

    # A token the server no longer accepts although it has not expired: 401, then a refresh.
    data = credentials(pi_env)
    data[key]["tokens"]["access_token"] = "revoked"
    data[key]["tokensExpireAt"] = int(time.time() * 1000) + 3_600_000
    (pi_env.agent_dir / "mcp-auth.json").write_text(json.dumps(data))
    seen = call_tools(pi_env, ToolUse("mcp__sec__grants", {}, id="g2"))
    assert seen == {"g2": "codes=1 refreshes=2 registrations=1"}

    # Neither the token nor the refresh works: the server needs a sign-in again.
    data = credentials(pi_env)
    data[key]["tokens"].update(access_token="revoked", refresh_token="gone")
    (pi_env.agent_dir / "mcp-auth.json").write_text(json.dumps(data))
    listed = pi_env.run("mcp", "list", model=None, timeout=60)
    assert listed.returncode == 1
    assert "sec  needs sign-in" in listed.stdout
    assert "Traceback" not in listed.stdout + listed.stderr
    assert len(browser_log.read_text().splitlines()) == 1


def test_a_pre_registered_client_with_a_fixed_callback_port(
    pi_env: PiEnv, oauth_server: Callable[..., int], browser_log: Path
) -> None:
    callback = free_port()
    redirect = f"http://127.0.0.1:{callback}/callback"
    port = oauth_server(OAUTH_CLIENT="pi-test:s3cret", OAUTH_CLIENT_REDIRECT=redirect)
    pi_env.extra_env["SEC_SECRET"] = "s3cret"
    added = pi_env.run(
        "mcp", "add", "sec", "--url", f"http://127.0.0.1:{port}/mcp", "--exposure", "direct",
        "--oauth-client-id", "pi-test", "--oauth-client-secret", "${SEC_SECRET}",
        "--oauth-callback-port", str(callback), model=None,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    entry = json.loads((pi_env.agent_dir / "mcp.json").read_text())["mcpServers"]["sec"]
    expected = {"clientId": "pi-test", "clientSecret": "${SEC_SECRET}", "callbackPort": callback}
    assert entry["oauth"] == expected
    login = pi_env.run("mcp", "login", "sec", model=None, timeout=90)
    assert login.returncode == 0, login.stderr
    assert f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{callback}%2Fcallback" in login.stdout
    assert "client_id=pi-test" in login.stdout
    state = credentials(pi_env)[f"mcp__sec|http://127.0.0.1:{port}/mcp"]
    assert "clientInformation" not in state  # the configured client is not copied into the file
    seen = call_tools(pi_env, ToolUse("mcp__sec__grants", {}, id="g"))
    assert seen == {"g": "codes=1 refreshes=0 registrations=0"}


def test_bad_oauth_settings_and_servers_that_cannot_sign_in(pi_env: PiEnv) -> None:
    write_config(
        pi_env,
        {
            "a": {"url": "http://127.0.0.1:9/mcp", "oauth": {"callbackPort": 70000}},
            "b": {"url": "http://127.0.0.1:9/mcp", "oauth": {"clientRegistration": "cimd"}},
            "tok": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer x"}},
        },
    )
    listed = pi_env.run("mcp", "list", model=None, timeout=60)
    assert listed.returncode == 1
    assert 'server "a": oauth.callbackPort must be a port number' in listed.stdout
    assert 'server "b": oauth.clientRegistration "cimd" is not supported' in listed.stdout
    login = pi_env.run("mcp", "login", "tok", model=None)
    assert login.returncode == 1
    assert "cannot sign in: OAuth is for HTTP servers whose entry sets no Authorization" in login.stderr
    unknown = pi_env.run("mcp", "logout", "tko", model=None)
    assert unknown.returncode == 1
    assert 'no MCP server named "tko". Did you mean "tok"? Configured: tok.' in unknown.stderr
    # Print mode has nobody to open the page or paste an address: /mcp login says so and stops.
    write_config(pi_env, {"sec": {"url": "http://127.0.0.1:9/mcp"}})
    printed = pi_env.run("-p", "/mcp login sec", timeout=60)
    assert 'Signing in to MCP server "sec" requires interactive mode.' in printed.stderr
    for result in (listed, login, unknown, printed):
        assert "Traceback" not in result.stdout + result.stderr


def test_mcp_login_and_logout_inside_a_session(
    pi_env: PiEnv, oauth_server: Callable[..., int], browser_log: Path
) -> None:
    port = oauth_server()
    write_config(pi_env, {"sec": {"url": f"http://127.0.0.1:{port}/mcp", "exposure": "direct"}})
    pi_env.server.add(tool_turn(ToolUse("mcp__sec__add", {"a": 20, "b": 22}, id="c1")), text_turn("done"))
    rpc = pi_env.rpc()

    def notice(text: str) -> dict[str, Any]:
        return rpc.wait_for(lambda r: r.get("method") == "notify" and text in r.get("message", ""), 60)

    try:
        assert rpc.call({"type": "prompt", "message": "/mcp"}, 90)["success"] is True
        shown = notice("sec:")
        assert shown["message"] == "sec: needs sign-in, run /mcp login sec (direct)"
        assert rpc.call({"type": "prompt", "message": "/mcp login"}, 90)["success"] is True
        assert f"http://127.0.0.1:{port}/authorize?" in notice("Open this page")["message"]
        assert notice("Signed in")["message"] == 'Signed in to MCP server "sec" (2 tools).'
        # The same session calls the server's tools from its next turn on.
        assert rpc.call({"type": "prompt", "message": "add"}, 30)["success"] is True
        rpc.events_until("agent_end", timeout=60)
        assert tool_messages(pi_env.server.requests[-1].body) == {"c1": "42"}
        assert rpc.call({"type": "prompt", "message": "/mcp logout sec"}, 30)["success"] is True
        assert notice("Signed out")["message"] == 'Signed out of MCP server "sec".'
        assert credentials(pi_env) == {}
        # A sign-in from a shell (the agent's bash, another terminal) reaches the session's next turn.
        assert pi_env.run("mcp", "login", "sec", model=None, timeout=90).returncode == 0
        pi_env.server.add(tool_turn(ToolUse("mcp__sec__add", {"a": 1, "b": 2}, id="c2")), text_turn("ok"))
        assert rpc.call({"type": "prompt", "message": "again"}, 30)["success"] is True
        rpc.events_until("agent_end", timeout=60)
        assert tool_messages(pi_env.server.requests[-1].body)["c2"] == "3"
        assert rpc.call({"type": "prompt", "message": "/mcp login nope"}, 30)["success"] is True
        assert notice("nope")["message"] == 'No MCP server named "nope" (configured: sec)'
    finally:
        assert rpc.close() == 0, rpc.stderr
    assert "Traceback" not in rpc.stderr


def test_mcp_login_takes_the_address_pasted_from_a_browser_elsewhere(
    pi_env: PiEnv, oauth_server: Callable[..., int], browser_log: Path
) -> None:
    import httpx

    port = oauth_server()
    write_config(pi_env, {"sec": {"url": f"http://127.0.0.1:{port}/mcp", "exposure": "direct"}})
    pi_env.extra_env.update(BROWSER="true", DISPLAY="")  # the browser is on "another machine"
    rpc = pi_env.rpc()

    def request(method: str, text: str) -> dict[str, Any]:
        return rpc.wait_for(lambda r: r.get("method") == method and text in json.dumps(r), 60)

    def answered(request_id: str) -> None:
        # The command's prompt is answered once the command ends.
        response = rpc.wait_for(lambda r: r.get("type") == "response" and r.get("id") == request_id, 60)
        assert response["success"] is True, response

    try:
        first = rpc.send({"type": "prompt", "message": "/mcp login sec"})
        page = request("notify", "Open this page")["message"].splitlines()[-1]
        # What the remote browser's address bar shows after the approval: the redirect to pi's listener.
        landed = httpx.get(page, follow_redirects=False).headers["location"]
        assert "/callback?code=" in landed
        ask = request("input", "paste the address")
        rpc.send_raw(json.dumps({"type": "extension_ui_response", "id": ask["id"], "value": "http://x/y"}))
        assert "not the URL of this sign-in's redirect" in request("notify", "paste the full")["message"]
        again = rpc.wait_for(lambda r: r.get("method") == "input" and r["id"] != ask["id"], 30)
        rpc.send_raw(json.dumps({"type": "extension_ui_response", "id": again["id"], "value": landed}))
        assert request("notify", "Signed in")["message"] == 'Signed in to MCP server "sec" (2 tools).'
        answered(first)
        # Cancelling the dialog cancels a sign-in.
        assert rpc.call({"type": "prompt", "message": "/mcp logout sec"}, 30)["success"] is True
        request("notify", "Signed out")
        second = rpc.send({"type": "prompt", "message": "/mcp login sec"})
        seen = (ask["id"], again["id"])
        third = rpc.wait_for(lambda r: r.get("method") == "input" and r["id"] not in seen, 60)
        rpc.send_raw(json.dumps({"type": "extension_ui_response", "id": third["id"], "cancelled": True}))
        failed = request("notify", "failed")["message"]
        assert failed == 'Sign-in to MCP server "sec" failed: cancelled'
        answered(second)
    finally:
        assert rpc.close() == 0, rpc.stderr
    assert "Traceback" not in rpc.stderr
    assert not browser_log.exists()
