"""A first run in a real terminal: the REPL opens without a model, /login lists the providers and
saves a key, and the next prompt gets an answer (from the loopback server)."""

from __future__ import annotations

import json
import shutil
import stat
import time
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import text_turn

from tests.e2e.tmux_pane import start_pane

if TYPE_CHECKING:
    from conftest import PiEnv

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_first_run_login_then_an_answer(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"groq": {"baseUrl": pi_env.server.base_url("openai-completions")}}})
    )
    pi_env.server.add(text_turn("FIRST-ANSWER from the loopback"))
    pane = start_pane(pi_env, tui=None, model=None)
    try:
        screen = pane.wait_for("No model yet. Type /login")
        assert "no model" in screen
        time.sleep(0.5)  # let the editor take the terminal
        pane.submit("/login")
        screen = pane.wait_for("Select provider to configure:")
        assert "anthropic" in screen and "(ANTHROPIC_API_KEY)" in screen
        pane.submit("groq")
        pane.wait_for("API key for groq")
        pane.submit("gsk-typed-in", shown="*" * len("gsk-typed-in"))
        pane.wait_for("Model: groq/openai/gpt-oss-120b")
        pane.submit("hi")
        screen = pane.wait_for("FIRST-ANSWER from the loopback")
        assert "gsk-typed-in" not in screen
    finally:
        pane.kill()
    auth = pi_env.agent_dir / "auth.json"
    assert json.loads(auth.read_text()) == {"groq": {"type": "api_key", "key": "gsk-typed-in"}}
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    (request,) = pi_env.server.requests
    assert request.headers["authorization"] == "Bearer gsk-typed-in"
    assert request.body["model"] == "openai/gpt-oss-120b"


def test_first_run_copilot_device_login_then_an_answer(pi_env: PiEnv) -> None:
    from tests.builtin_providers.copilot_login_server import GitHubLoginServer

    (pi_env.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"github-copilot": {"baseUrl": pi_env.server.url}}})
    )
    pi_env.server.model_list = [
        {"id": "claude-haiku-4.5", "model_picker_enabled": True, "policy": {"state": "enabled"}}
    ]
    with GitHubLoginServer() as github:
        pi_env.extra_env["PI_GITHUB_COPILOT_LOGIN_URL"] = github.url
        pane = start_pane(pi_env, tui=None, model=None)
        try:
            pane.wait_for("No model yet. Type /login")
            time.sleep(0.5)  # let the editor take the terminal
            pane.submit("/login github-copilot")
            pane.wait_for("GitHub Enterprise URL/domain (blank for github.com)")
            pane.keys("Enter")
            pane.wait_for("enter the code WDJB-MJHT")
            pane.wait_for("Logged in to GitHub Copilot")
            pane.wait_for("Model: github-copilot/claude-haiku-4.5")
            pi_env.server.add(text_turn("ANSWER through Copilot"))
            pane.submit("hi")
            screen = pane.wait_for("ANSWER through Copilot")
            assert "gho_github_token" not in screen
        finally:
            pane.kill()
    auth = pi_env.agent_dir / "auth.json"
    stored = json.loads(auth.read_text())["github-copilot"]
    assert (stored["type"], stored["refresh"], stored["availableModelIds"]) == (
        "oauth",
        "gho_github_token",
        ["claude-haiku-4.5"],
    )
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    (request,) = pi_env.server.requests
    assert request.path == "/v1/messages" and request.body["model"] == "claude-haiku-4.5"
    assert request.headers["authorization"] == f"Bearer {stored['access']}"
    assert request.headers["x-initiator"] == "user" and request.headers["editor-version"] == "vscode/1.107.0"
