"""Session-affinity headers and the Anthropic API version, per API, as pi 1.6.0 sends them.

The expected headers were read off the loopback server's records with pi 1.6.0 running the same
models (a ``models.json`` per case: a custom provider, one named ``openrouter``, and a custom
Chat Completions provider with ``compat.sendSessionAffinityHeaders``).
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_core.ai.messages import UserMessage
from pi_core.ai.provider import Context, StreamOptions
from pi_core.ai.stream import complete_simple
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, text_turn

SID = "01a23504-4ea7-729d-b131-e50c72b853a8"
AFFINITY = {"session-id", "session_id", "x-client-request-id", "x-session-affinity", "x-session-id"}


async def sent_headers(
    server: LoopbackLLMServer,
    api: str,
    provider: str | None = None,
    compat: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **opts: Any,
) -> dict[str, str]:
    server.add(text_turn("ok"))
    model = server.model(api, provider=provider, compat=compat, headers=headers)
    options = StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0, session_id=SID, **opts)
    message = await complete_simple(model, Context(messages=[UserMessage(content="hi")]), options)
    assert message.stop_reason == "stop", message.error_message
    return server.requests[-1].headers


def affinity(headers: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name in AFFINITY}


@pytest.mark.parametrize(
    ("api", "provider", "compat", "expected"),
    [
        ("openai-responses", "openai", None, {"session-id": SID, "x-client-request-id": SID}),
        ("openai-responses", "my-proxy", None, {"session-id": SID, "x-client-request-id": SID}),
        ("openai-responses", "openrouter", None, {"x-session-id": SID}),
        (
            "openai-responses",
            "openai",
            {"sessionAffinityFormat": "openai-nosession"},
            {"x-client-request-id": SID},
        ),
        (
            "openai-responses",
            "openrouter",
            {"sessionAffinityFormat": "openai"},
            {"session-id": SID, "x-client-request-id": SID},
        ),
        ("openai-completions", "openai", None, {}),
        ("openai-completions", "my-local", None, {}),
        ("openai-completions", "openrouter", None, {"x-session-id": SID}),
        ("openai-completions", "openrouter", {"sendSessionAffinityHeaders": False}, {}),
        (
            "openai-completions",
            "fireworks",
            {"sendSessionAffinityHeaders": True},
            {"session_id": SID, "x-client-request-id": SID, "x-session-affinity": SID},
        ),
        (
            "openai-completions",
            "fireworks",
            {"sendSessionAffinityHeaders": True, "sessionAffinityFormat": "openai-nosession"},
            {"x-client-request-id": SID, "x-session-affinity": SID},
        ),
        ("anthropic-messages", "anthropic", None, {}),
        ("anthropic-messages", "openrouter", None, {"x-session-id": SID}),
        ("anthropic-messages", "my-proxy", {"sendSessionAffinityHeaders": True}, {"x-session-affinity": SID}),
        (
            "anthropic-messages",
            "my-proxy",
            {"sendSessionAffinityHeaders": True, "sessionAffinityFormat": "openrouter"},
            {"x-session-id": SID},
        ),
    ],
)
async def test_affinity_headers_follow_provider_and_compat(
    pi_llm_server: LoopbackLLMServer,
    api: str,
    provider: str,
    compat: dict[str, Any] | None,
    expected: dict[str, str],
) -> None:
    assert affinity(await sent_headers(pi_llm_server, api, provider, compat)) == expected


@pytest.mark.parametrize("api", ["openai-responses", "openai-completions", "anthropic-messages"])
async def test_no_affinity_headers_without_caching(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    headers = await sent_headers(pi_llm_server, api, "openrouter", cache_retention="none")
    assert affinity(headers) == {}


async def test_header_precedence_is_pis(pi_llm_server: LoopbackLLMServer) -> None:
    # The OpenAI APIs set them over the model's headers, a request's headers override them;
    # Anthropic puts the model's headers over them.
    mine = {"session-id": "mine"}
    headers = await sent_headers(pi_llm_server, "openai-responses", headers=mine)
    assert affinity(headers) == {"session-id": SID, "x-client-request-id": SID}
    options_headers = await sent_request_headers(pi_llm_server, mine)
    assert affinity(options_headers) == {"session-id": "mine", "x-client-request-id": SID}
    headers = await sent_headers(
        pi_llm_server, "anthropic-messages", "openrouter", headers={"x-session-id": "mine"}
    )
    assert affinity(headers) == {"x-session-id": "mine"}


async def sent_request_headers(server: LoopbackLLMServer, request_headers: dict[str, str]) -> dict[str, str]:
    server.add(text_turn("ok"))
    options = StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0, session_id=SID, headers=request_headers)
    context = Context(messages=[UserMessage(content="hi")])
    await complete_simple(server.model("openai-responses"), context, options)
    return server.requests[-1].headers


async def test_anthropic_sends_pis_api_version_unless_configured(pi_llm_server: LoopbackLLMServer) -> None:
    assert (await sent_headers(pi_llm_server, "anthropic-messages"))["anthropic-version"] == "2023-06-01"
    configured = await sent_headers(
        pi_llm_server, "anthropic-messages", headers={"anthropic-version": "2099-01-01"}
    )
    assert configured["anthropic-version"] == "2099-01-01"
