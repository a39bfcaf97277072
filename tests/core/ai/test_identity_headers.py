"""The client identity on the wire (recorded by the loopback server through the real SDKs): pi
1.6.0's ``User-Agent`` shape and app-credit headers, with this program's name and version."""

from __future__ import annotations

import platform
import sys
from typing import Any

import pytest
from pi_core.ai.identity import attribution_enabled, merge_headers, user_agent
from pi_core.ai.messages import UserMessage
from pi_core.ai.provider import Context, StreamOptions
from pi_core.ai.stream import complete_simple
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, text_turn

from pi_core import __version__

APIS = ["anthropic-messages", "openai-completions", "openai-responses"]


async def _headers(
    server: LoopbackLLMServer, api: str, *, api_key: str = LOOPBACK_API_KEY, **model: Any
) -> dict[str, str]:
    server.add(text_turn("ok"))
    options = StreamOptions(api_key=api_key, max_retries=0, **model.pop("options", {}))
    message = await complete_simple(
        server.model(api, **model), Context(messages=[UserMessage(content="hi")]), options
    )
    assert message.stop_reason == "stop", message.error_message
    return server.requests[-1].headers


def test_the_user_agent_names_this_program_python_and_the_machine() -> None:
    expected_runtime = f"python/{platform.python_version()}"
    assert user_agent().startswith(f"pi-python/{__version__} ({sys.platform}; {expected_runtime}; ")
    assert user_agent().endswith(")") and "x86_64" not in user_agent()  # node's arch names: x64, arm64


@pytest.mark.parametrize("api", APIS)
async def test_every_api_sends_the_user_agent_and_openrouter_gets_the_credit_headers(
    pi_llm_server: LoopbackLLMServer, api: str
) -> None:
    plain = await _headers(pi_llm_server, api)
    assert plain["user-agent"] == user_agent()
    assert not {"x-openrouter-title", "x-openrouter-categories", "http-referer"} & set(plain)
    routed = await _headers(pi_llm_server, api, provider="openrouter")
    assert (routed["x-openrouter-title"], routed["x-openrouter-categories"]) == ("pi-python", "cli-agent")
    assert "http-referer" not in routed  # pi for Python has no site of its own to name
    quiet = await _headers(pi_llm_server, api, provider="openrouter", options={"attribution": False})
    assert quiet["user-agent"] == user_agent() and "x-openrouter-title" not in quiet


async def test_nvidia_and_opencode_get_their_own_credit_header(pi_llm_server: LoopbackLLMServer) -> None:
    nvidia = await _headers(pi_llm_server, "openai-completions", provider="nvidia")
    assert nvidia["x-billing-invoke-origin"] == "Pi-python"
    opencode = await _headers(pi_llm_server, "openai-completions", provider="opencode-go")
    assert opencode["x-opencode-client"] == "pi-python"


async def test_configured_headers_replace_the_identity_whatever_their_case(
    pi_llm_server: LoopbackLLMServer,
) -> None:
    mine = await _headers(pi_llm_server, "openai-completions", headers={"user-agent": "corp-proxy/1"})
    assert mine["user-agent"] == "corp-proxy/1"
    request = await _headers(
        pi_llm_server, "anthropic-messages", options={"headers": {"USER-AGENT": "per-request/2"}}
    )
    assert request["user-agent"] == "per-request/2"
    assert merge_headers({"User-Agent": "a", "X": "1"}, {"user-agent": "b"}) == {"X": "1", "user-agent": "b"}


async def test_a_claude_subscription_token_goes_as_claude_code(pi_llm_server: LoopbackLLMServer) -> None:
    headers = await _headers(pi_llm_server, "anthropic-messages", api_key="sk-ant-oat01-token")
    assert headers["user-agent"].startswith("claude-cli/")


def test_attribution_follows_install_telemetry_unless_pi_telemetry_says() -> None:
    assert attribution_enabled(True, {}) and not attribution_enabled(False, {})
    assert attribution_enabled(False, {"PI_TELEMETRY": "yes"})
    assert not attribution_enabled(True, {"PI_TELEMETRY": "0"})
