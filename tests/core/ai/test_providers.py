"""Each built-in provider on its real SDK against the loopback server (no SDK mocks)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pi_core.ai.abort import AbortController
from pi_core.ai.messages import TextContent, ThinkingContent, ToolCall, UserMessage
from pi_core.ai.overflow import is_context_overflow
from pi_core.ai.provider import Context, ModelCost, ModelCostTier, StreamOptions, ToolSpec
from pi_core.ai.stream import complete_simple, stream_simple
from pi_core.testing import (
    LOOPBACK_API_KEY,
    HttpError,
    LoopbackLLMServer,
    Text,
    Thinking,
    ToolUse,
    Turn,
    Usage,
    overflow,
    overloaded,
    rate_limited,
    server_error,
    text_turn,
    tool_turn,
)

APIS = ["anthropic-messages", "openai-completions", "openai-responses"]
TOOLS = [
    ToolSpec(
        name="read",
        description="Read a file",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
]


def options(**kwargs: Any) -> StreamOptions:
    return StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0, **kwargs)


def ctx(text: str = "hi", tools: list[ToolSpec] | None = None) -> Context:
    return Context(system_prompt="You are terse.", messages=[UserMessage(content=text)], tools=tools)


@pytest.fixture(params=APIS)
def api(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def collect(
    server: LoopbackLLMServer, api: str, context: Context, **opts: Any
) -> tuple[list[Any], Any]:
    model = opts.pop("model", None) or server.model(api)
    response = stream_simple(model, context, options(**opts))
    events = [event async for event in response]
    return events, await response.result()


async def test_provider_streams_text(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Text("Hello, loopback world!", chunks=4)]))
    events, message = await collect(pi_llm_server, api, ctx())
    kinds = [e.type for e in events]
    assert kinds[0] == "start" and kinds[1] == "text_start" and kinds[-2:] == ["text_end", "done"]
    deltas = [e.delta for e in events if e.type == "text_delta"]
    assert len(deltas) == 4 and "".join(deltas) == "Hello, loopback world!"
    assert message.stop_reason == "stop"
    assert message.content == [
        TextContent(text="Hello, loopback world!", text_signature=message.content[0].text_signature)
    ]
    assert message.api == api and message.response_id
    body = pi_llm_server.requests[0].body
    assert body["model"] == f"loopback-{api}" and body["stream"] is True


async def test_provider_fragmented_parallel_tool_calls(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(
        tool_turn(
            ToolUse("read", {"path": "src/main.py", "note": "ünïcode ✓"}, id="call_a1", chunks=5),
            ToolUse("read", {"path": "README.md"}, id="call_b2", chunks=3),
        )
    )
    events, message = await collect(pi_llm_server, api, ctx(tools=TOOLS))
    calls = [b for b in message.content if isinstance(b, ToolCall)]
    assert [c.name for c in calls] == ["read", "read"]
    assert calls[0].arguments == {"path": "src/main.py", "note": "ünïcode ✓"}
    assert calls[1].arguments == {"path": "README.md"}
    assert calls[0].id.startswith("call_a1") and calls[1].id.startswith("call_b2")
    assert message.stop_reason == "toolUse"
    fragments = [e for e in events if e.type == "toolcall_delta" and e.content_index == 0 and e.delta]
    assert len(fragments) >= 5
    ends = [e for e in events if e.type == "toolcall_end"]
    assert [e.tool_call.arguments["path"] for e in ends] == ["src/main.py", "README.md"]
    # Partial arguments are always an object while streaming.
    assert all(isinstance(e.partial.content[e.content_index].arguments, dict) for e in fragments)


async def test_provider_thinking(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Thinking("Let me think about it.", signature="sig-123"), Text("42")]))
    model = pi_llm_server.model(api, reasoning=True)
    events, message = await collect(pi_llm_server, api, ctx(), model=model, reasoning="high")
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking.strip() == "Let me think about it."
    assert message.content[1].text == "42"
    assert any(e.type == "thinking_delta" for e in events)
    if api == "anthropic-messages":
        assert thinking.thinking_signature == "sig-123"
    elif api == "openai-responses":
        assert '"encrypted_content":"sig-123"' in (thinking.thinking_signature or "")
    else:
        assert thinking.thinking_signature == "reasoning_content"


async def test_provider_usage_and_cost(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(text_turn("ok", usage=Usage(input=1000, output=500, cache_read=200)))
    model = pi_llm_server.model(api, cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))
    _, message = await collect(pi_llm_server, api, ctx(), model=model)
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read) == (1000, 500, 200)
    assert usage.total_tokens == 1700
    assert usage.cost.input == pytest.approx(0.003)
    assert usage.cost.output == pytest.approx(0.0075)
    assert usage.cost.cache_read == pytest.approx(0.00006)
    assert usage.cost.total == pytest.approx(0.003 + 0.0075 + 0.00006)


async def test_provider_cost_tier_by_prompt_size(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    tiers = [
        ModelCostTier(input_tokens_above=1000, input=6, output=30, cache_read=0.6),
        ModelCostTier(input_tokens_above=5000, input=12, output=60, cache_read=1.2),
        ModelCostTier(input_tokens_above=500, input=4, output=20),
    ]
    model = pi_llm_server.model(api, cost=ModelCost(input=3, output=15, cache_read=0.3, tiers=tiers))
    # 900 fresh + 200 cached input tokens pass 1,000 (not 5,000): the whole request at the middle rates.
    pi_llm_server.add(text_turn("ok", usage=Usage(input=900, output=100, cache_read=200)))
    _, message = await collect(pi_llm_server, api, ctx(), model=model)
    cost = message.usage.cost
    assert (cost.input, cost.output, cost.cache_read) == (
        pytest.approx(0.0054),
        pytest.approx(0.003),
        pytest.approx(0.00012),
    )
    pi_llm_server.add(text_turn("ok", usage=Usage(input=400, output=100)))
    _, message = await collect(pi_llm_server, api, ctx(), model=model)
    assert message.usage.cost.input == pytest.approx(0.0012)


@pytest.mark.parametrize("reported", [None, 120])
async def test_provider_usage_reasoning(
    pi_llm_server: LoopbackLLMServer, api: str, reported: int | None
) -> None:
    """pi 1.6.0's ``usage.reasoning``: the OpenAI APIs always write it (0 when the service is
    silent), Anthropic only when the API reports thinking tokens; Anthropic adds ``cacheWrite1h``."""
    pi_llm_server.add(text_turn("ok", usage=Usage(input=100, output=400, reasoning=reported)))
    _, message = await collect(pi_llm_server, api, ctx())
    written = message.usage.to_json_dict()
    if api == "anthropic-messages":
        assert written.get("reasoning") == reported
        assert written["cacheWrite1h"] == 0
    else:
        assert written["reasoning"] == (reported or 0)
        assert "cacheWrite1h" not in written
        assert list(written)[:5] == ["input", "output", "cacheRead", "cacheWrite", "reasoning"]
    assert written["output"] == 400
    assert written["cost"]["totalFromProvider"] is False


@pytest.mark.parametrize("error", [rate_limited(), server_error(), overloaded()], ids=["429", "500", "529"])
async def test_provider_http_error_is_readable(
    pi_llm_server: LoopbackLLMServer, api: str, error: HttpError
) -> None:
    pi_llm_server.add(error)
    events, message = await collect(pi_llm_server, api, ctx())
    assert [e.type for e in events] == ["error"]
    assert message.stop_reason == "error"
    assert message.error_message.startswith(f"{error.status} ")
    assert error.message in message.error_message
    assert LOOPBACK_API_KEY not in message.error_message
    assert not is_context_overflow(message, 200000)


@pytest.mark.parametrize("api_name", ["openai-completions", "openai-responses"])
async def test_openai_http_error_shows_the_message(pi_llm_server: LoopbackLLMServer, api_name: str) -> None:
    pi_llm_server.add(
        HttpError(429, "Rate limit reached for requests", "rate_limit_error", "rate_limit_exceeded")
    )
    _, message = await collect(pi_llm_server, api_name, ctx())
    assert message.error_message == "429 Rate limit reached for requests (rate_limit_exceeded)"
    pi_llm_server.add(HttpError(400, "This model's context is too small", "invalid_request_error"))
    _, message = await collect(pi_llm_server, api_name, ctx())
    assert message.error_message == "400 This model's context is too small"
    # A code is what some servers send to say "overflow": it stays in the text.
    pi_llm_server.add(HttpError(400, "Too long", "invalid_request_error", "context_length_exceeded"))
    _, message = await collect(pi_llm_server, api_name, ctx())
    assert is_context_overflow(message, 200000)


async def test_provider_context_overflow_detected(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(overflow(api))
    _, message = await collect(pi_llm_server, api, ctx())
    assert message.stop_reason == "error"
    assert is_context_overflow(message, 200000)


async def test_provider_abort_mid_stream_keeps_partial(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Text("x" * 200, chunks=100)], delay=0.02))
    controller = AbortController()
    response = stream_simple(pi_llm_server.model(api), ctx(), options(signal=controller.signal))
    seen = 0
    async for event in response:
        if event.type == "text_delta":
            seen += 1
            if seen == 3:
                controller.abort()
    message = await response.result()
    assert message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.content[0].text.startswith("xx") and len(message.content[0].text) < 200


async def test_provider_already_aborted_returns_empty_aborted(
    pi_llm_server: LoopbackLLMServer, api: str
) -> None:
    controller = AbortController()
    controller.abort()
    message = await complete_simple(pi_llm_server.model(api), ctx(), options(signal=controller.signal))
    assert message.stop_reason == "aborted" and message.content == []
    assert pi_llm_server.requests == []


async def test_provider_malformed_sse(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Text("partial answer")], malformed=True))
    _, message = await collect(pi_llm_server, api, ctx())
    assert message.stop_reason == "error"
    assert "Malformed stream event" in message.error_message
    assert message.content[0].text == "partial answer"


async def test_provider_dropped_connection(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Text("so far so good")], drop=True))
    _, message = await collect(pi_llm_server, api, ctx())
    assert message.stop_reason == "error"
    assert "mid-" in message.error_message
    assert message.content[0].text == "so far so good"


async def test_provider_tool_arguments_not_json(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    # The reply stands (pi 1.6.0): the call carries empty arguments and why, for the agent loop to
    # answer with a validation error.
    pi_llm_server.add(tool_turn(ToolUse("read", '{"path": "a.py", oops}', id="call_x"), text="Reading"))
    _, message = await collect(pi_llm_server, api, ctx(tools=TOOLS))
    assert message.stop_reason == "toolUse"
    assert message.content[0].text == "Reading"
    call = message.content[1]
    assert isinstance(call, ToolCall) and call.arguments == {}
    assert call.arguments_error is not None
    assert call.arguments_error.endswith('Received arguments:\n{"path": "a.py", oops}')


async def test_provider_tool_arguments_with_bad_escapes_are_repaired(
    pi_llm_server: LoopbackLLMServer, api: str
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("read", '{"path": "C:\\dir\\x.py"}', id="call_w")))
    _, message = await collect(pi_llm_server, api, ctx(tools=TOOLS))
    call = message.content[0]
    assert isinstance(call, ToolCall) and call.arguments == {"path": "C:\\dir\\x.py"}
    assert call.arguments_error is None


async def test_provider_unknown_stop_reason(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(text_turn("fine", stop_reason="mystery_reason"))
    _, message = await collect(pi_llm_server, api, ctx())
    assert message.stop_reason == "error"
    assert "mystery_reason" in message.error_message
    assert message.content[0].text == "fine"


async def test_stream_simple_without_key_raises(
    pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    with pytest.raises(ValueError, match="No API key for provider: anthropic"):
        stream_simple(pi_llm_server.model("anthropic-messages"), ctx(), StreamOptions())


async def test_stream_unknown_api_raises() -> None:
    from pi_core.ai.provider import Model

    with pytest.raises(LookupError, match="No API provider registered for api: nope"):
        stream_simple(Model(id="m", api="nope", provider="x"), ctx(), options())


async def test_loopback_consumer_can_stop_early(pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(Turn(blocks=[Text("y" * 50, chunks=50)], delay=0.01))
    response = stream_simple(pi_llm_server.model("openai-completions"), ctx(), options())
    async for event in response:
        if event.type == "text_delta":
            break
    await response.aclose()  # type: ignore[attr-defined]
    await asyncio.sleep(0)


async def test_provider_error_event_mid_stream(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Text("half an ans")], stream_error=overloaded()))
    _, message = await collect(pi_llm_server, api, ctx())
    assert message.stop_reason == "error"
    assert "Overloaded" in message.error_message
    assert message.content[0].text == "half an ans"


async def test_provider_outside_cancellation_propagates(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    pi_llm_server.add(Turn(blocks=[Text("w" * 100, chunks=100)], delay=0.01))
    controller = AbortController()
    started = asyncio.Event()

    async def consume() -> None:
        response = stream_simple(pi_llm_server.model(api), ctx(), options(signal=controller.signal))
        async for event in response:
            if event.type == "text_delta":
                started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_anthropic_event_that_is_not_an_object_fails_the_stream(
    pi_llm_server: LoopbackLLMServer,
) -> None:
    """The SDK hands Anthropic's events over as the JSON values they are; one that is not an
    object (a proxy's stray line, say) fails the reply with a message naming it."""
    from pi_core.ai.messages import AssistantMessage
    from pi_core.ai.providers._base import StreamFailure
    from pi_core.ai.providers.anthropic import _consume

    async def events() -> Any:
        yield {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 3}}}
        yield ["not", "an", "object"]

    model = pi_llm_server.model("anthropic-messages")
    output = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
    with pytest.raises(StreamFailure, match=r"Malformed stream event \(not a JSON object\)"):
        async for _ in _consume(events(), model, ctx(), False, output):
            pass
    assert output.response_id == "msg_1" and output.usage.input == 3
