"""A first run: no model at all, a rejected key, a base URL nobody listens on, a broken auth.json —
one clear message each, no traceback, nothing written half-way."""

from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING

import pytest
from pi_core.testing import HttpError

if TYPE_CHECKING:
    from conftest import PiEnv


def _only_groq_at(pi_env: PiEnv, base_url: str) -> None:
    (pi_env.agent_dir / "models.json").write_text(json.dumps({"providers": {"groq": {"baseUrl": base_url}}}))


@pytest.mark.parametrize("mode", [("-p", "hi"), ("--mode", "json", "hi"), ("--mode", "rpc")])
def test_without_any_key_the_modes_say_how_to_give_one(pi_env: PiEnv, mode: tuple[str, ...]) -> None:
    (pi_env.agent_dir / "models.json").unlink()
    result = pi_env.run(*mode, model=None)
    assert result.returncode == 1
    assert result.stdout == ""
    err = result.stderr
    assert err.startswith("No model to use: pi has no API key for any provider.")
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY"):
        assert name in err
    assert str(pi_env.agent_dir / "models.json") in err and "/login" in err
    assert "Traceback" not in err and err.count("No model to use") == 1


def test_a_rejected_key_names_where_it_came_from(pi_env: PiEnv) -> None:
    _only_groq_at(pi_env, pi_env.server.base_url("openai-completions"))
    pi_env.extra_env["GROQ_API_KEY"] = "gsk-wrong"
    pi_env.server.add(HttpError(401, "Invalid API Key", error_type="invalid_request_error"))
    result = pi_env.run("-p", "hi", model=None)
    assert result.returncode == 1
    assert result.stderr.startswith("401 Invalid API Key")
    assert "refused the API key from GROQ_API_KEY" in result.stderr and "/login groq" in result.stderr
    assert "gsk-wrong" not in result.stderr and "Traceback" not in result.stderr


def test_a_base_url_that_refuses_connections_is_named(pi_env: PiEnv) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    _only_groq_at(pi_env, url)
    pi_env.extra_env["GROQ_API_KEY"] = "gsk"
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    settings["retry"]["enabled"] = False
    (pi_env.agent_dir / "settings.json").write_text(json.dumps(settings))
    result = pi_env.run("-p", "hi", model=None, timeout=60)
    assert result.returncode == 1
    assert f"Connection error to {url}/chat/completions" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broken_auth_json_stops_with_one_message_and_stays_as_it_was(pi_env: PiEnv) -> None:
    auth = pi_env.agent_dir / "auth.json"
    auth.write_text('{"groq": {"type": "api_key", ')
    for args in (("-p", "hi"), ("--list-models",)):
        result = pi_env.run(*args)
        assert result.returncode == 1
        assert result.stderr.startswith(f"Failed to parse {auth}:")
        assert "Fix the file or move it away" in result.stderr and "Traceback" not in result.stderr
    assert auth.read_text() == '{"groq": {"type": "api_key", '
