"""``pi -p`` with an OpenAI Codex (ChatGPT) login in auth.json, against the loopback model server
(its ``/codex/responses`` path) and the loopback authorization server; and the same auth.json in
the real pi 1.6.0 (``PI16_DIR``)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import Thinking, ToolUse, Turn, text_turn
from pi_core.testing.codex import ACCOUNT_ID, LoopbackAuthServer, codex_credential

from tests.fixtures.real_pi import PI16_MISSING, pi16

if TYPE_CHECKING:
    from conftest import PiEnv

MODEL = "openai-codex/gpt-6.2-sol"


@pytest.fixture
def codex_env(pi_env: PiEnv) -> Iterator[tuple[PiEnv, LoopbackAuthServer]]:
    models = json.loads((pi_env.agent_dir / "models.json").read_text())
    models["providers"]["openai-codex"] = {"baseUrl": pi_env.server.url}
    (pi_env.agent_dir / "models.json").write_text(json.dumps(models))
    with LoopbackAuthServer() as auth:
        pi_env.extra_env["PI_OPENAI_CODEX_LOGIN_URL"] = auth.url
        yield pi_env, auth


def _store(pi_env: PiEnv, credential: dict[str, object]) -> None:
    (pi_env.agent_dir / "auth.json").write_text(json.dumps({"openai-codex": credential}))


def _stored(pi_env: PiEnv) -> dict[str, object]:
    record: dict[str, object] = json.loads((pi_env.agent_dir / "auth.json").read_text())["openai-codex"]
    return record


def test_an_expired_login_is_refreshed_then_a_tool_call_round_trip_runs(
    codex_env: tuple[PiEnv, LoopbackAuthServer],
) -> None:
    pi_env, auth = codex_env
    (pi_env.project / "a.txt").write_text("hello from a")
    _store(pi_env, codex_credential(expires_in_s=-60))
    pi_env.server.add(
        Turn(blocks=[Thinking("look first", signature="enc-1"), ToolUse("read", {"path": "a.txt"})]),
        text_turn("It says hello."),
    )
    result = pi_env.run("-p", "what is in a.txt?", model=MODEL)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "It says hello."
    first, second = pi_env.server.requests
    assert first.path == second.path == "/codex/responses"
    stored = _stored(pi_env)
    assert stored["refresh"] == "rt-loopback-1" and stored["accountId"] == ACCOUNT_ID
    assert first.headers["authorization"] == f"Bearer {stored['access']}"
    assert first.headers["chatgpt-account-id"] == ACCOUNT_ID
    outputs = [item for item in second.body["input"] if item.get("type") == "function_call_output"]
    assert outputs and "hello from a" in outputs[0]["output"]
    assert [r[1] for r in auth.requests] == ["/oauth/token"]


def test_a_revoked_refresh_token_fails_with_one_clear_message(
    codex_env: tuple[PiEnv, LoopbackAuthServer],
) -> None:
    pi_env, auth = codex_env
    auth.state.refresh_fails = True
    before = codex_credential(expires_in_s=-60)
    _store(pi_env, before)
    result = pi_env.run("-p", "hi", model=MODEL)
    assert result.returncode == 1
    assert "OAuth refresh failed for openai-codex: OpenAI Codex token refresh failed (401)" in result.stderr
    assert "Run /login openai-codex again." in result.stderr
    assert "Traceback" not in result.stderr
    assert pi_env.server.requests == [] and _stored(pi_env) == before


def test_the_auth_json_we_refreshed_works_in_pi16(codex_env: tuple[PiEnv, LoopbackAuthServer]) -> None:
    real = pi16()
    if real is None:
        pytest.skip(PI16_MISSING)
    pi_env, _ = codex_env
    _store(pi_env, codex_credential(expires_in_s=-60))
    pi_env.server.add(text_turn("ours"), text_turn("theirs"))
    assert pi_env.run("-p", "hi", model=MODEL).returncode == 0
    ours = _stored(pi_env)
    env = {**pi_env.env(), "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
    done = subprocess.run(
        [*real.argv(), "-p", "--model", MODEL, "hi"],
        cwd=pi_env.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "theirs"
    theirs = pi_env.server.requests[-1]
    assert theirs.headers["authorization"] == f"Bearer {ours['access']}"
    assert theirs.headers["chatgpt-account-id"] == ACCOUNT_ID
    assert _stored(pi_env) == ours  # still valid: pi 1.6.0 used it as it was
    assert isinstance(ours["expires"], int) and ours["expires"] > time.time() * 1000


@pytest.mark.parametrize("tui", [None, "regular"], ids=["default-tui", "regular-tui"])
def test_interactive_browser_login_then_an_answer(
    codex_env: tuple[PiEnv, LoopbackAuthServer], tui: str | None
) -> None:
    import re
    import socket

    import httpx

    from tests.e2e.tmux_pane import start_pane

    pi_env, auth = codex_env
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        pi_env.extra_env["PI_OPENAI_CODEX_CALLBACK_PORT"] = str(probe.getsockname()[1])
    (pi_env.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"openai-codex": {"baseUrl": pi_env.server.url}}})
    )
    pane = start_pane(pi_env, tui=tui, model=None)
    try:
        pane.wait_for("No model yet. Type /login")
        time.sleep(0.5)  # let the editor take the terminal
        pane.submit("/login openai-codex")
        pane.wait_for("Select OpenAI Codex login method")
        pane.keys("Enter")  # the first row: browser login
        screen = pane.wait_for("paste the authorization code / redirect URL here")
        # The terminal wraps the URL (regular mode, joined by capture-pane -J); fullscreen folds
        # it at the pane's 120 columns: full rows go on in the next one.
        rows = screen.splitlines()
        start = next(index for index, row in enumerate(rows) if row.startswith("http://127.0.0.1"))
        joined = rows[start]
        while len(rows[start]) == 120 and start + 1 < len(rows):
            start += 1
            joined += rows[start]
        url = re.search(r"http://127\.0\.0\.1:\d+/oauth/authorize\?\S+", joined)
        assert url is not None, screen
        page = httpx.get(url.group(0), follow_redirects=True, timeout=10)  # the user's browser
        assert page.status_code == 200 and "Authentication successful" in page.text
        pane.wait_for("Logged in to OpenAI (ChatGPT Plus/Pro)")
        pane.wait_for("Model: openai-codex/gpt-6.2-sol")
        pi_env.server.add(text_turn("ANSWER through ChatGPT"))
        pane.submit("hi")
        screen = pane.wait_for("ANSWER through ChatGPT")
        assert "rt-loopback" not in screen
    finally:
        pane.kill()
    stored = _stored(pi_env)
    assert stored["accountId"] == ACCOUNT_ID and stored["refresh"] == "rt-loopback-1"
    (request,) = pi_env.server.requests
    assert request.path == "/codex/responses"
    assert request.headers["authorization"] == f"Bearer {stored['access']}"
    assert [path for _, path, _ in auth.requests] == ["/oauth/authorize", "/oauth/token"]
