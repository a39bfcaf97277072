from __future__ import annotations

from typing import Any

import pytest
from pi_core.ai import builtin_providers
from pi_core.ai.messages import UserMessage
from pi_core.ai.provider import ApiProvider, Context, Model, StreamOptions
from pi_core.ai.providers.anthropic import build_params
from pi_core.ai.stream import complete_simple
from pi_core.testing import LOOPBACK_API_KEY, HttpError, LoopbackLLMServer


def test_register_providers_hook_registers_the_five_apis() -> None:
    seen: list[Any] = []
    builtin_providers.register_providers(seen.append)
    assert sorted(p.api for p in seen) == [
        "anthropic-messages",
        "azure-openai-responses",
        "openai-codex-responses",
        "openai-completions",
        "openai-responses",
    ]
    assert all(isinstance(p, ApiProvider) for p in seen)
    assert builtin_providers.register_providers.pi_impl  # type: ignore[attr-defined]  # a pi hookimpl


@pytest.mark.parametrize(
    ("level", "budget", "max_tokens"),
    [
        ("minimal", 1024, 33024),
        ("low", 2048, 34048),
        ("medium", 8192, 40192),
        ("high", 16384, 48384),
        ("xhigh", 16384, 48384),
    ],
)
def test_anthropic_budget_per_level(level: str, budget: int, max_tokens: int) -> None:
    model = Model(
        id="claude-sonnet-4-5",
        api="anthropic-messages",
        provider="anthropic",
        reasoning=True,
        max_tokens=64000,
    )
    params = build_params(
        model, Context(messages=[UserMessage(content="x")]), StreamOptions(reasoning=level), False
    )  # type: ignore[arg-type]
    assert params["thinking"]["budget_tokens"] == budget and params["max_tokens"] == max_tokens


def test_anthropic_budget_capped_by_model_max() -> None:
    model = Model(
        id="claude-x", api="anthropic-messages", provider="anthropic", reasoning=True, max_tokens=8192
    )
    options = StreamOptions(reasoning="high", thinking_budgets={"high": 9000})
    params = build_params(model, Context(messages=[UserMessage(content="x")]), options, False)
    assert params["max_tokens"] == 8192 and params["thinking"]["budget_tokens"] == 8192 - 1024


async def test_api_key_never_in_error_message(pi_llm_server: LoopbackLLMServer) -> None:
    builtin_providers.register_builtin_api_providers()
    pi_llm_server.add(HttpError(401, f"invalid x-api-key: {LOOPBACK_API_KEY}", "authentication_error"))
    message = await complete_simple(
        pi_llm_server.model("anthropic-messages"),
        Context(messages=[UserMessage(content="x")]),
        StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0),
    )
    assert message.stop_reason == "error"
    assert LOOPBACK_API_KEY not in (message.error_message or "")
    assert "[redacted]" in (message.error_message or "")
