"""MCP servers through the real ``pi -p``: a FastMCP server of the tests (tests/mcp/demo_server.py)
over stdio, driven by the scripted model of the loopback server; the requests show what the model
was offered and saw, the session file what was recorded.
"""

from __future__ import annotations

import json
import os
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

DEMO = str(Path(__file__).parents[1] / "mcp" / "demo_server.py")


@pytest.fixture(autouse=True)
def _patient_direct_wait(pi_env: PiEnv) -> None:
    # On a loaded machine a Python server can take over pi's 10 s to start; the tests are about
    # what happens once it did (the mute server's own timeout still bounds its wait).
    pi_env.extra_env["PI_MCP_DIRECT_WAIT"] = "60"


def demo(mode: str = "", **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": sys.executable, "args": [DEMO], "env": {"DEMO_MODE": mode}}
    entry.update(extra)
    return entry


def write_config(pi_env: PiEnv, servers: dict[str, Any]) -> None:
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


def tool_names(body: dict[str, Any]) -> list[str]:
    return sorted(tool["function"]["name"] for tool in body.get("tools", []))


def tool_messages(body: dict[str, Any]) -> dict[str, str]:
    out = {}
    for message in body["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out[message["tool_call_id"]] = content if isinstance(content, str) else json.dumps(content)
    return out


def session_results(pi_env: PiEnv) -> dict[str, dict[str, Any]]:
    results = {}
    for line in pi_env.session_files()[-1].read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "toolResult":
            results[message["toolCallId"]] = message
    return results


def test_direct_tools_are_called_end_to_end_and_recorded(pi_env: PiEnv, tmp_path: Path) -> None:
    write_config(pi_env, {"demo": demo(exposure="direct")})
    pi_env.extra_env["TMPDIR"] = str(tmp_path)
    pi_env.server.add(
        tool_turn(
            ToolUse("mcp__demo__add", {"a": 2, "b": 40}, id="c_add"),
            ToolUse("mcp__demo__picture", {}, id="c_pic"),
            ToolUse("mcp__demo__fail", {"reason": "bad day"}, id="c_fail"),
            ToolUse("mcp__demo__big", {"size": 20_000_000}, id="c_big"),
        ),
        text_turn("done"),
    )
    result = pi_env.run("-p", "add them")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    first = pi_env.server.requests[0].body
    names = tool_names(first)
    assert {"mcp__demo__add", "mcp__demo__picture", "mcp__demo__die"} <= set(names)
    add = next(t["function"] for t in first["tools"] if t["function"]["name"] == "mcp__demo__add")
    assert add["parameters"]["properties"]["a"]["type"] == "integer"  # the server's schema as given
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen["c_add"] == "42"
    assert "bad day" in seen["c_fail"]
    # 20 MB of text: the model reads its two ends and where the whole of it is.
    big = seen["c_big"]
    header = "Warning: truncated output (original token count: 5000000)\nTotal output lines: 1\n\n"
    assert big.startswith(header)
    assert "y…19979520 chars truncated…y" in big and len(big) < 21000
    saved = Path(big.rsplit("[Full output: ", 1)[1].split(" (read it", 1)[0])
    assert saved.parent == tmp_path and saved.stat().st_size == 20_000_000
    stored = session_results(pi_env)
    assert stored["c_add"]["isError"] is False
    assert stored["c_add"]["content"] == [{"type": "text", "text": "42"}]
    assert stored["c_pic"]["content"][0]["type"] == "image"
    assert stored["c_pic"]["content"][0]["mimeType"] == "image/png"
    assert stored["c_fail"]["isError"] is True
    assert stored["c_big"]["details"] == {"server": "demo", "tool": "big", "fullOutputPath": str(saved)}
    assert stored["c_add"]["details"] == {"server": "demo", "tool": "add"}
    assert pi_env.session_files()[-1].stat().st_size < 200_000
    # No server process outlives pi.
    log = (pi_env.agent_dir / "mcp.log").read_text()
    assert "Processing request" in log  # the server's stderr went to mcp.log


def test_deferred_tools_are_found_by_tool_search_then_declared(pi_env: PiEnv) -> None:
    write_config(pi_env, {"demo": demo(env={"DEMO_EXTRA": "100"})})  # default exposure: not declared
    pi_env.server.add(
        tool_turn(ToolUse("tool_search", {"query": "add integers"}, id="c_s")),
        tool_turn(ToolUse("mcp__demo__add", {"a": 1, "b": 1}, id="c_add")),
        text_turn("two"),
    )
    result = pi_env.run("-p", "what is 1+1")
    assert result.returncode == 0, result.stderr
    requests = [r.body for r in pi_env.server.requests]
    assert not any(n.startswith("mcp__") for n in tool_names(requests[0]))
    assert "tool_search" in tool_names(requests[0])
    assert "mcp__demo__add" in tool_names(requests[1])
    assert tool_messages(requests[2])["c_add"] == "2"
    assert "mcp__demo__add" in tool_messages(requests[1])["c_s"]


def test_resource_tools_list_and_read(pi_env: PiEnv) -> None:
    write_config(pi_env, {"demo": demo(exposure="direct")})
    pi_env.server.add(
        tool_turn(
            ToolUse("list_mcp_resources", {}, id="c_list"),
            ToolUse("read_mcp_resource", {"server": "demo", "uri": "demo://readme"}, id="c_read"),
            ToolUse("read_mcp_resource", {"server": "nope", "uri": "demo://readme"}, id="c_bad"),
        ),
        text_turn("ok"),
    )
    result = pi_env.run("-p", "resources")
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    listed = json.loads(seen["c_list"])
    assert listed["resources"][0]["server"] == "demo"
    assert listed["resources"][0]["uri"] == "demo://readme"
    assert seen["c_read"] == "demo readme text"
    assert 'Unknown MCP server "nope"' in seen["c_bad"]


def test_a_server_killed_mid_call_and_broken_servers_give_clear_errors(pi_env: PiEnv) -> None:
    write_config(
        pi_env,
        {
            "demo": demo(exposure="direct"),
            "mute": demo("mute", exposure="direct", timeout=2),
            "flood": demo("flood", exposure="direct"),
            "missing": {"command": "/no/such/program-xyz", "exposure": "direct"},
        },
    )
    pi_env.server.add(
        tool_turn(ToolUse("mcp__demo__die", {}, id="c_die")),
        tool_turn(ToolUse("mcp__flood__add", {"a": 5, "b": 5}, id="c_flood")),
        text_turn("survived"),
    )
    started = time.monotonic()
    result = pi_env.run("-p", "break it", timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "survived\n"
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen["c_die"] == 'MCP server "demo" closed the connection during tools/call die'
    assert seen["c_flood"] == "10"
    # The mute server never answered initialize: the first request waited at most the 10 s budget.
    assert time.monotonic() - started < 30
    assert not any(n.startswith("mcp__mute__") for n in tool_names(pi_env.server.requests[0].body))


def test_a_dropped_server_is_called_again_on_a_new_connection(pi_env: PiEnv) -> None:
    write_config(pi_env, {"demo": demo(exposure="direct")})
    pi_env.server.add(
        tool_turn(ToolUse("mcp__demo__pid", {}, id="c_pid")),
        tool_turn(ToolUse("mcp__demo__die", {}, id="c_die")),
        text_turn("it died"),
        # The next call connects again, as pi 1.6.0 does: a new server process answers.
        tool_turn(ToolUse("mcp__demo__add", {"a": 1, "b": 2}, id="c_after")),
        tool_turn(ToolUse("mcp__demo__pid", {}, id="c_pid2")),
        text_turn("again"),
    )
    # Between the two prompts /mcp shows the dropped server as pi 1.6.0 does.
    result = pi_env.run("-p", "break it", "/mcp", "again", timeout=90)
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("again\n")
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen["c_die"] == 'MCP server "demo" closed the connection during tools/call die'
    assert seen["c_after"] == "3"
    assert seen["c_pid2"] != seen["c_pid"]
    status = result.stdout + result.stderr
    assert "demo: disconnected, reconnects on next call (direct)\n    Connection closed" in status


def test_a_server_that_cannot_start_again_is_tried_once_per_call(pi_env: PiEnv, tmp_path: Path) -> None:
    once = tmp_path / "started"
    write_config(pi_env, {"demo": demo(exposure="direct", env={"DEMO_ONCE": str(once)})})
    pi_env.server.add(
        tool_turn(ToolUse("mcp__demo__die", {}, id="c_die")),
        tool_turn(ToolUse("mcp__demo__add", {"a": 1, "b": 2}, id="c_1")),
        tool_turn(ToolUse("mcp__demo__add", {"a": 1, "b": 2}, id="c_2")),
        # Two calls side by side share one attempt.
        tool_turn(
            ToolUse("mcp__demo__add", {"a": 1, "b": 2}, id="c_3a"),
            ToolUse("mcp__demo__add", {"a": 1, "b": 2}, id="c_3b"),
        ),
        text_turn("gave up"),
    )
    result = pi_env.run("-p", "break it", timeout=90)
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    # One attempt per call (pi 1.6.0 retries stdio connections no further), with the server's stderr.
    for call, start in (("c_1", 1), ("c_2", 2), ("c_3a", 3), ("c_3b", 3)):
        assert seen[call].startswith('MCP server "demo" failed to connect: ')
        assert seen[call].endswith(f"start {start} refused: this server serves once")
    assert once.read_text() == "3"


def test_an_http_server_that_forgot_the_session_is_asked_again_on_a_new_one(
    pi_env: PiEnv, http_demo: Callable[[str], int], tmp_path: Path
) -> None:
    port = http_demo("streamable-http")
    write_config(pi_env, {"web": {"url": f"http://127.0.0.1:{port}/mcp", "exposure": "direct"}})
    pi_env.server.add(
        tool_turn(ToolUse("mcp__web__forget", {}, id="c_forget")),
        tool_turn(ToolUse("mcp__web__add", {"a": 1, "b": 2}, id="c_add")),
        text_turn("restarted"),
    )
    result = pi_env.run("-p", "go", timeout=60)
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen == {"c_forget": "forgotten", "c_add": "3"}
    # The call was refused once (404: unknown session), then made again after a new initialize.
    log = (tmp_path / "streamable-http.log").read_text()
    assert log.count('"POST /mcp HTTP/1.1" 404') == 1


def test_an_http_server_that_dies_mid_call_fails_the_call_at_once(
    pi_env: PiEnv, http_demo: Callable[..., int]
) -> None:
    port = http_demo("streamable-http")
    entry = {"url": f"http://127.0.0.1:{port}/mcp", "exposure": "direct", "timeout": 45}
    write_config(pi_env, {"web": entry})
    pi_env.server.add(
        tool_turn(ToolUse("mcp__web__die", {}, id="c_die")),
        tool_turn(ToolUse("mcp__web__add", {"a": 1, "b": 2}, id="c_after")),
        text_turn("gone"),
    )
    started = time.monotonic()
    result = pi_env.run("-p", "go", timeout=90)
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    # The response stream ended without the answer: the call fails then, not after its 45 s; the
    # next call connects again (three attempts) and says why it could not.
    assert seen["c_die"] == 'MCP server "web" closed the connection during tools/call die'
    assert seen["c_after"] == 'MCP server "web" failed to connect: All connection attempts failed'
    assert time.monotonic() - started < 40


def test_resource_requests_are_retried_once_after_a_503_tool_calls_are_not(
    pi_env: PiEnv, http_demo: Callable[..., int]
) -> None:
    reads = http_demo("streamable-http", DEMO_FAIL_ONCE="resources/read")
    calls = http_demo("streamable-http", DEMO_FAIL_ONCE="tools/call")
    write_config(
        pi_env,
        {
            "res": {"url": f"http://127.0.0.1:{reads}/mcp", "exposure": "direct"},
            "calls": {"url": f"http://127.0.0.1:{calls}/mcp", "exposure": "direct"},
        },
    )
    pi_env.server.add(
        tool_turn(ToolUse("read_mcp_resource", {"server": "res", "uri": "demo://readme"}, id="c_read")),
        tool_turn(ToolUse("mcp__calls__add", {"a": 1, "b": 2}, id="c_add")),
        tool_turn(ToolUse("mcp__calls__add", {"a": 2, "b": 2}, id="c_again")),
        text_turn("read"),
    )
    result = pi_env.run("-p", "go", timeout=90)
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    # The read was refused once and made again; the tool call is not (the server may have run
    # it): its error goes to the model, and the next call connects again.
    assert seen["c_read"] == "demo readme text"
    assert seen["c_add"] == 'MCP server "calls" closed the connection during tools/call add'
    assert seen["c_again"] == "4"


def test_a_failed_stdio_server_shows_the_end_of_its_stderr(pi_env: PiEnv) -> None:
    complain = (
        "import sys; sys.stderr.write('starting\\n' + 'x' * 3000 + '\\nset DEMO_TOKEN first\\n'); sys.exit(3)"
    )
    write_config(pi_env, {"grumpy": {"command": sys.executable, "args": ["-c", complain]}})
    listed = pi_env.run("mcp", "list", model=None, timeout=60)
    assert listed.returncode == 1
    error = listed.stdout.split("  error: ", 1)[1]
    assert "\n    " + "x" * 1979 + "\n    set DEMO_TOKEN first" in error  # its last 2,000 characters
    assert "starting" not in error
    log = (pi_env.agent_dir / "mcp.log").read_text()
    assert "starting\n" in log and "set DEMO_TOKEN first" in log  # all of it still goes to mcp.log


def test_malformed_mcp_json_names_line_and_column(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "mcp.json").write_text('{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n')
    pi_env.server.add(text_turn("fine"))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "fine\n"
    assert "mcp.json:3:" in result.stderr
    assert "Traceback" not in result.stderr


def test_project_mcp_json_needs_trust_and_no_mcp_turns_it_off(pi_env: PiEnv) -> None:
    (pi_env.project / ".pi").mkdir()
    # tool_search is declared as soon as a deferred server is configured, connected or not.
    (pi_env.project / ".pi" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"proj": demo(exposure="direct"), "lazy": demo(exposure="deferred")}})
    )
    pi_env.server.add(text_turn("one"))
    refused = pi_env.run("-p", "hi")
    assert refused.returncode == 1
    assert "mcp.json" in refused.stderr
    pi_env.server.add(text_turn("approved"), text_turn("ignored"))
    approved = pi_env.run("-p", "--approve", "hi")  # this run only: the servers start
    assert approved.returncode == 0, approved.stderr
    assert "tool_search" in tool_names(pi_env.server.requests[-1].body), approved.stderr
    ignored = pi_env.run("-p", "--no-approve", "hi")
    assert ignored.returncode == 0, ignored.stderr
    assert "tool_search" not in tool_names(pi_env.server.requests[-1].body)
    trusted = pi_env.run("trust", model=None)
    assert trusted.returncode == 0, trusted.stderr
    pi_env.server.add(text_turn("two"), text_turn("three"))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert "tool_search" in tool_names(pi_env.server.requests[-1].body)
    off = pi_env.run("-p", "--no-mcp", "hi")
    assert off.returncode == 0, off.stderr
    assert not any(n.startswith("mcp__") for n in tool_names(pi_env.server.requests[-1].body))
    pi_env.server.add(text_turn("four"), text_turn("five"))
    ignored = pi_env.run("-p", "--no-approve", "hi")  # trusted, yet left out as asked
    assert ignored.returncode == 0, ignored.stderr
    assert "tool_search" not in tool_names(pi_env.server.requests[-1].body)
    (pi_env.project / ".pi" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"lazy": demo(exposure="deferred"), "more": demo(exposure="direct")}})
    )
    changed = pi_env.run("-p", "--no-extensions", "hi")  # changed since trusted; asks nothing here
    assert changed.returncode == 0, changed.stderr
    assert "tool_search" not in tool_names(pi_env.server.requests[-1].body)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_no_server_process_outlives_pi(pi_env: PiEnv) -> None:
    write_config(pi_env, {"demo": demo(exposure="direct"), "slow": demo("slow", exposure="deferred")})
    pi_env.server.add(text_turn("bye"))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    time.sleep(0.5)
    left = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:  # a process may end while it is looked at
                cmdline = (proc / "cmdline").read_bytes()
                ours = str(pi_env.agent_dir).encode() in (proc / "environ").read_bytes()
            except OSError:
                continue
            if DEMO.encode() in cmdline and ours:
                left.append(proc.name)
    assert left == [], os.popen("ps -ef | grep demo_server").read()


def test_a_third_party_server_from_pypi_mcp_server_time(pi_env: PiEnv) -> None:
    write_config(
        pi_env, {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"], "exposure": "direct"}}
    )
    pi_env.server.add(
        tool_turn(ToolUse("mcp__time__get_current_time", {"timezone": "Europe/Berlin"}, id="c_time")),
        tool_turn(ToolUse("mcp__time__get_current_time", {"timezone": "Nowhere/Atlantis"}, id="c_bad")),
        text_turn("it is late"),
    )
    result = pi_env.run("-p", "time?", timeout=60)
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert json.loads(seen["c_time"])["timezone"] == "Europe/Berlin"
    assert "Nowhere/Atlantis" in seen["c_bad"]
    stored = session_results(pi_env)
    assert stored["c_time"]["isError"] is False and stored["c_bad"]["isError"] is True


@pytest.fixture
def http_demo(tmp_path: Path) -> Iterator[Callable[[str], int]]:
    servers = ScriptServers(tmp_path)

    def start(transport: str, **extra: str) -> int:
        port = free_port()
        env = {"DEMO_TRANSPORT": transport, "DEMO_PORT": str(port), **extra}
        name = "-".join([transport, *extra.values()]).replace("/", "_")
        return servers.start(DEMO, port, env, log=f"{name}.log", timeout=20)

    yield start
    servers.stop_all()


def test_streamable_http_with_headers_from_the_environment_and_sse_refused(
    pi_env: PiEnv, http_demo: Callable[[str], int]
) -> None:
    http_port = http_demo("streamable-http")
    pi_env.extra_env.update(DEMO_TOKEN="s3cret", BEARER="tok")
    write_config(
        pi_env,
        {
            "web": {
                "url": f"http://127.0.0.1:{http_port}/mcp",
                "headers": {
                    "X-Demo": "${DEMO_TOKEN}",
                    "X-Cmd": "!printf '%s' \"cmd-$DEMO_TOKEN\"",  # the shell sees pi's environment
                    "X-Lit": "$$5 $!x",
                },
                "bearerTokenEnvVar": "BEARER",
                "exposure": "direct",
            },
            # pi 1.6.0 refuses the legacy SSE transport: one message, the other servers go on.
            "old": {"type": "sse", "url": "http://127.0.0.1:9/sse", "exposure": "direct"},
        },
    )
    pi_env.server.add(
        tool_turn(
            ToolUse("mcp__web__add", {"a": 3, "b": 4}, id="c_add"),
            ToolUse("mcp__web__header", {"name": "x-demo"}, id="c_hdr"),
            ToolUse("mcp__web__header", {"name": "authorization"}, id="c_auth"),
            ToolUse("mcp__web__header", {"name": "x-cmd"}, id="c_cmd"),
            ToolUse("mcp__web__header", {"name": "x-lit"}, id="c_lit"),
        ),
        text_turn("over http"),
    )
    result = pi_env.run("-p", "http", timeout=60)
    assert result.returncode == 0, result.stderr
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen == {
        "c_add": "7",
        "c_hdr": "s3cret",
        "c_auth": "Bearer tok",
        "c_cmd": "cmd-s3cret",
        "c_lit": "$5 !x",
    }
    refused = [line for line in result.stderr.splitlines() if '"old"' in line]
    assert refused == [
        f'MCP: {pi_env.agent_dir / "mcp.json"}: server "old": legacy SSE transport is not supported; '
        "use the streamable HTTP URL"
    ]
    assert not any(n.startswith("mcp__old") for n in tool_names(pi_env.server.requests[0].body))


def test_pi_mcp_add_list_remove(pi_env: PiEnv) -> None:
    added = pi_env.run("mcp", "add", "demo", "--exposure", "direct", "--", sys.executable, DEMO, model=None)
    assert added.returncode == 0, added.stderr
    web = pi_env.run(
        "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--bearer-token-env-var", "TOK", model=None
    )
    assert web.returncode == 0, web.stderr
    data = json.loads((pi_env.agent_dir / "mcp.json").read_text())["mcpServers"]
    assert data["demo"] == {"command": sys.executable, "args": [DEMO], "exposure": "direct"}
    assert data["web"]["headers"] == {"Authorization": "Bearer ${TOK}"}
    listed = pi_env.run("mcp", "list", "--json", model=None, timeout=60)
    assert listed.returncode == 1  # web cannot connect
    rows = {row["name"]: row for row in json.loads(listed.stdout)["servers"]}
    assert rows["demo"]["state"] == "connected"
    assert {"name": "mcp__demo__add", "exposure": "direct"} in rows["demo"]["tools"]
    assert rows["web"]["state"] == "failed" and rows["web"]["error"]
    removed = pi_env.run("mcp", "remove", "web", model=None)
    assert removed.returncode == 0, removed.stderr
    assert pi_env.run("mcp", "list", model=None, timeout=60).returncode == 0
    missing = pi_env.run("mcp", "remove", "web", model=None)
    assert missing.returncode == 1 and "no server 'web'" in missing.stderr
    local = pi_env.run("mcp", "add", "-l", "p", "--", "srv", model=None)
    assert local.returncode == 0 and (pi_env.project / ".pi" / "mcp.json").is_file()


EXTENSION = """
import json
from pathlib import Path

from pi_core import hookimpl

seen = []


@hookimpl
def session_start(event, ctx):
    ctx.register_mcp_server("ext", CONFIG)  # before the mcp plugin's session_start: read there


@hookimpl(trylast=True, specname="session_start")
def session_start_late(event, ctx):
    ctx.register_mcp_server("late", CONFIG)  # after it: reaches it through mcp_servers_change
    ctx.register_mcp_server("bad", {"command": 42})


@hookimpl
def mcp_servers_change(event, ctx):
    seen.append([[s.name, s.extension_path] for s in event.servers])


@hookimpl
def agent_end(event, ctx):
    Path(OUT).write_text(json.dumps(seen))
"""


def test_tools_list_changed_and_servers_plugins_register(pi_env: PiEnv, tmp_path: Path) -> None:
    out = tmp_path / "seen.json"
    ext = tmp_path / "ext.py"
    config = demo(exposure="direct")
    ext.write_text(f"CONFIG = {config!r}\nOUT = {str(out)!r}\n" + EXTENSION)
    pi_env.server.add(
        tool_turn(ToolUse("mcp__ext__grow", {}, id="c_grow")),
        tool_turn(
            ToolUse("mcp__ext__grown", {"word": "tall"}, id="c_grown"),
            ToolUse("mcp__late__add", {"a": 1, "b": 2}, id="c_late"),
        ),
        text_turn("done"),
    )
    result = pi_env.run("-p", "-e", str(ext), "grow", timeout=60)
    assert result.returncode == 0, result.stderr
    assert 'MCP: registered server: server "bad" needs either "command"' in result.stderr
    requests = [r.body for r in pi_env.server.requests]
    assert "mcp__ext__add" in tool_names(requests[0])
    assert "mcp__ext__grown" not in tool_names(requests[0])
    # The late server connects once the hook reached the mcp plugin (in the background).
    assert {"mcp__ext__grown", "mcp__late__add"} <= set(tool_names(requests[1]))
    seen = tool_messages(requests[2])
    assert (seen["c_late"], seen["c_grown"]) == ("3", "grown tall")
    ext_name = json.loads(out.read_text())[0][0][1]
    assert json.loads(out.read_text()) == [
        [["ext", ext_name]],
        [["ext", ext_name], ["late", ext_name]],
        [["ext", ext_name], ["late", ext_name], ["bad", ext_name]],
    ]


def test_a_registered_server_mcp_json_overrides_is_listed_as_overridden(
    pi_env: PiEnv, tmp_path: Path
) -> None:
    write_config(pi_env, {"ext": {"command": "/no/such/program-xyz"}})
    ext = tmp_path / "ext.py"
    ext.write_text(
        "from pi_core import hookimpl\n\n\n@hookimpl\ndef session_start(event, ctx):\n"
        "    ctx.register_mcp_server('ext', {'command': 'srv'})\n"
    )
    result = pi_env.run("-p", "-e", str(ext), "/mcp", timeout=60)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("overridden: "))
    assert line.startswith('overridden: "ext" registered by ')
    assert line.endswith(f'is overridden by "ext" in {pi_env.agent_dir / "mcp.json"}')
    assert "ext: failed" in result.stderr


def test_rpc_lists_the_mcp_command_and_mcp_reports_and_reconnects(pi_env: PiEnv) -> None:
    write_config(pi_env, {"demo": demo(exposure="direct"), "gone": {"command": "/no/such/program-xyz"}})
    rpc = pi_env.rpc()
    try:
        response = rpc.call({"type": "get_commands"})
        assert response["success"] is True, response
        mcp = next(c for c in response["data"]["commands"] if c["name"] == "mcp")
        assert mcp["source"] == "extension"
        assert rpc.call({"type": "prompt", "message": "/mcp"}, 90)["success"] is True
        shown = rpc.wait_for(lambda r: r.get("method") == "notify" and "demo:" in r.get("message", ""), 60)
        assert "demo: connected, 8 tools (direct)" in shown["message"].splitlines()
        assert "gone: failed (codemode)\n    command not found: /no/such/program-xyz" in shown["message"]
        reply = rpc.call({"type": "prompt", "message": "/mcp reconnect demo"}, 90)
        assert reply["success"] is True, (reply, rpc.seen)
        again = rpc.wait_for(lambda r: r.get("method") == "notify" and "demo:" in r.get("message", ""), 60)
        assert "demo: connected" in again["message"]
        assert rpc.call({"type": "prompt", "message": "/mcp reconnect nope"}, 90)["success"] is True
        bad = rpc.wait_for(lambda r: r.get("method") == "notify" and "nope" in r.get("message", ""), 30)
        assert bad["message"] == "Unknown MCP server: nope"
    finally:
        assert rpc.close() == 0, rpc.stderr


def test_esc_stops_waiting_for_an_mcp_call_at_once(pi_env: PiEnv) -> None:
    write_config(pi_env, {"demo": demo(exposure="direct", env={"DEMO_SLEEPY": "1"})})
    pi_env.server.add(tool_turn(ToolUse("mcp__demo__sleep", {"seconds": 50}, id="c_sleep")))
    rpc = pi_env.rpc()
    try:
        assert rpc.call({"type": "prompt", "message": "wait"}, 90)["success"] is True
        rpc.wait_for(lambda r: r.get("type") == "tool_execution_start", 90)
        asked = time.monotonic()
        assert rpc.call({"type": "abort"}, 30)["success"] is True
        ended = rpc.wait_for(lambda r: r.get("type") == "tool_execution_end", 30)
        assert time.monotonic() - asked < 10  # not the 50 s the server takes
        assert ended["isError"] is True
        assert ended["result"]["content"][0]["text"] == 'MCP server "demo": tools/call sleep aborted'
        # The connection stays: the next call is answered at once.
        pi_env.server.add(
            tool_turn(ToolUse("mcp__demo__add", {"a": 2, "b": 2}, id="c_add")), text_turn("fine")
        )
        assert rpc.call({"type": "prompt", "message": "add"}, 90)["success"] is True
        added = rpc.wait_for(
            lambda r: r.get("type") == "tool_execution_end" and r.get("toolCallId") == "c_add", 60
        )
        assert added["isError"] is False and "4" in json.dumps(added["result"])
    finally:
        assert rpc.close() == 0, rpc.stderr


RAW = str(Path(__file__).parents[1] / "mcp" / "raw_server.py")
ODD = "badtype,badprops,badrequired,badlength,badenum,badallof,badmaximum,badoutput,mismatch"


def test_tool_schemas_that_are_not_json_schema_are_handled_as_pi_does(pi_env: PiEnv) -> None:
    # Made side by side with pi 1.6.0 (tests/mcp/raw_server.py lists the schemas): a tool without an
    # object inputSchema makes the server's tool list unusable; an object schema goes to the model
    # as given, its malformed keywords are left out when calls are checked, and results are not
    # checked against the outputSchema.
    write_config(
        pi_env,
        {
            "raw": {"command": sys.executable, "args": [RAW], "exposure": "direct"},
            "odd": {
                "command": sys.executable,
                "args": [RAW],
                "exposure": "direct",
                "env": {"RAW_TOOLS": ODD},
            },
        },
    )
    calls = [ToolUse(f"mcp__odd__{name}", {"a": 1}, id=f"c_{name}") for name in ODD.split(",")]
    pi_env.server.add(tool_turn(*calls, ToolUse("mcp__raw__good", {"a": 1}, id="c_raw")), text_turn("ok"))
    result = pi_env.run("-p", "odd tools", timeout=60)
    assert result.returncode == 0, result.stderr
    first = pi_env.server.requests[0].body
    declared = {t["function"]["name"]: t["function"]["parameters"] for t in first["tools"]}
    assert declared["mcp__odd__badprops"] == {"type": "object", "properties": 5}
    assert declared["mcp__odd__badrequired"]["required"] == "ab"
    assert not any(name.startswith("mcp__raw__") for name in declared)
    seen = tool_messages(pi_env.server.requests[-1].body)
    assert seen.pop("c_badtype").startswith(
        'Validation failed for tool "mcp__odd__badtype":\n  - a: expected nonsense, got integer'
    )
    assert seen.pop("c_raw") == "Tool mcp__raw__good not found"
    as_text = {"badrequired", "badlength"}  # their "a" is a string: 1 is coerced, as pi does
    assert seen == {
        f"c_{name}": '{"a": "1"}' if name in as_text else '{"a": 1}'
        for name in ODD.split(",")
        if name != "badtype"
    }
    log = (pi_env.agent_dir / "mcp.log").read_text()
    assert "[raw] error pi: Invalid entry in MCP tools/list result" in log


RELOADER = """
from pi_core import hookimpl


async def _reload(args, ctx):
    await ctx.reload()


@hookimpl
def register_commands(register):
    register("again", _reload, description="reload from a plugin command")
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_reload_and_session_switches_keep_unchanged_servers_and_restart_changed_ones(
    pi_env: PiEnv, tmp_path: Path
) -> None:
    reloader = tmp_path / "again.py"
    reloader.write_text(RELOADER)
    servers = {"keep": demo(exposure="direct"), "edit": demo(exposure="direct", env={"V": "1"})}
    write_config(pi_env, servers)
    rounds = 4
    for n in range(rounds):
        pi_env.server.add(
            tool_turn(
                ToolUse("mcp__keep__pid", {}, id=f"keep{n}"),
                ToolUse("mcp__edit__pid", {}, id=f"edit{n}"),
            ),
            text_turn(f"round {n}"),
        )
    rpc = pi_env.rpc("-e", str(reloader))

    def pids(n: int) -> tuple[int, int]:
        assert rpc.call({"type": "prompt", "message": "pids"}, 90)["success"] is True
        rpc.events_until("agent_end", 90)
        seen = tool_messages(pi_env.server.requests[-1].body)
        return int(seen[f"keep{n}"]), int(seen[f"edit{n}"])

    try:
        keep, edit = pids(0)
        # /reload with the entry of "edit" changed: "keep" runs on, "edit" is a new process.
        servers["edit"] = demo(exposure="direct", env={"V": "2"})
        write_config(pi_env, servers)
        assert rpc.call({"type": "prompt", "message": "/again"}, 90)["success"] is True
        keep1, edit1 = pids(1)
        assert keep1 == keep and edit1 != edit
        assert not _alive(edit)
        # A new session with the same configuration keeps both.
        assert rpc.call({"type": "new_session"}, 90)["data"]["cancelled"] is False
        assert pids(2) == (keep, edit1)
        # Back to the first session file after "edit" left the configuration: it stops.
        first = str(pi_env.session_files()[0])
        write_config(pi_env, {"keep": servers["keep"]})
        assert rpc.call({"type": "switch_session", "sessionPath": first}, 90)["data"]["cancelled"] is False
        assert rpc.call({"type": "prompt", "message": "pids"}, 90)["success"] is True
        rpc.events_until("agent_end", 90)
        seen = tool_messages(pi_env.server.requests[-1].body)
        assert int(seen["keep3"]) == keep and seen["edit3"] == "Tool mcp__edit__pid not found"
        assert not _alive(edit1) and _alive(keep)
    finally:
        assert rpc.close() == 0, rpc.stderr
    assert not _alive(keep)
