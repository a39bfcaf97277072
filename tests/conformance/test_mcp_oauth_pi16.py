"""Live side-by-side with the real pi 1.6.0: an OAuth sign-in made by either pi serves the other
(``mcp-auth.json`` has one layout), and a sign-out by either forgets it. The server is the tests'
OAuth-protected FastMCP server (tests/mcp/oauth_server.py). Skipped unless ``PI16_DIR`` points at
an install of pi 1.6.0 (tests/fixtures/real_pi.py).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi16"
MCP = Path(__file__).resolve().parents[1] / "mcp"
sys.path.insert(0, str(FIXTURES))

from harness import PI16_MISSING, find_pi16, our_pi  # noqa: E402

PI16 = find_pi16()
pytestmark = [
    pytest.mark.conformance,
    pytest.mark.slow,
    pytest.mark.skipif(PI16 is None, reason=PI16_MISSING),
]


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[dict[str, str], str, Path]]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    log = (tmp_path / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, str(MCP / "oauth_server.py")],
        env={**os.environ, "OAUTH_PORT": str(port)},
        stdout=log,
        stderr=log,
    )
    agent = tmp_path / "home" / ".pi" / "agent"
    agent.mkdir(parents=True)
    url = f"http://127.0.0.1:{port}/mcp"
    (agent / "mcp.json").write_text(json.dumps({"mcpServers": {"sec": {"url": url, "exposure": "direct"}}}))
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "BROWSER": f"{sys.executable} {MCP / 'fake_browser.py'}",
        "FAKE_BROWSER_LOG": str(tmp_path / "browser.log"),
    }
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    try:
        yield env, url, agent
    finally:
        server.kill()
        server.wait()
        log.close()


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


def test_a_sign_in_here_serves_pi16_and_its_sign_out_forgets_it(
    setup: tuple[dict[str, str], str, Path],
) -> None:
    env, _url, agent = setup
    assert PI16 is not None
    ours = run([*our_pi(), "mcp", "login", "sec"], env)
    assert ours.returncode == 0, ours.stderr
    listed = run([*PI16, "mcp", "list"], env)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "sec: connected, 2 tools" in listed.stdout
    out = run([*PI16, "mcp", "logout", "sec"], env)
    assert out.returncode == 0, out.stderr
    assert json.loads((agent / "mcp-auth.json").read_text()) == {}
    assert "needs sign-in" in run([*our_pi(), "mcp", "list"], env).stdout


def test_a_pi16_sign_in_serves_us(setup: tuple[dict[str, str], str, Path]) -> None:
    env, url, agent = setup
    assert PI16 is not None
    # pi 1.6.0 opens the page with its own opener; the test plays the browser with the URL it prints.
    login = subprocess.Popen(
        [*PI16, "mcp", "login", "sec"],
        env={**env, "BROWSER": "true", "DISPLAY": ""},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert login.stdout is not None
        page = ""
        for line in login.stdout:
            if "/authorize?" in line:
                page = line.strip()
                break
        assert page, login.stderr.read() if login.stderr else ""
        subprocess.run([*env["BROWSER"].split(), page], env=env, check=True, timeout=60)
        assert login.wait(60) == 0
    finally:
        if login.poll() is None:
            login.kill()
        login.wait()
        for stream in (login.stdout, login.stderr):
            if stream is not None:
                stream.close()
    state = json.loads((agent / "mcp-auth.json").read_text())[f"mcp__sec|{url}"]
    assert state["tokens"]["access_token"].startswith("at-")
    listed = run([*our_pi(), "mcp", "list"], env)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "sec  connected" in listed.stdout and "mcp__sec__add" in listed.stdout
    out = run([*our_pi(), "mcp", "logout", "sec"], env)
    assert out.stdout.strip() == 'Signed out of MCP server "sec".'
    assert json.loads((agent / "mcp-auth.json").read_text()) == {}
