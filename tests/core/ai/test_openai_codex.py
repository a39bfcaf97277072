"""``openai-codex-responses`` on the real ``openai`` SDK against the loopback server's Codex path."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from pi_core.ai.messages import TextContent, ThinkingContent, ToolCall, UserMessage
from pi_core.ai.provider import Context, Model, StreamOptions, ToolSpec
from pi_core.ai.providers.openai_codex import account_id, error_message, responses_url
from pi_core.ai.stream import stream_simple
from pi_core.testing import HttpError, LoopbackLLMServer, Text, Thinking, ToolUse, Turn, Usage, text_turn
from pi_core.testing.codex import ACCOUNT_ID, access_token

API = "openai-codex-responses"
TOOLS = [
    ToolSpec(
        name="read",
        description="Read a file",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
]


def codex_model(server: LoopbackLLMServer, **fields: Any) -> Model:
    base = {
        "id": "gpt-6.2-sol",
        "reasoning": True,
        "thinking_level_map": {"off": None, "minimal": "low", "xhigh": "xhigh", "max": "max"},
        "compat": {"supportsMidConvoEffort": True},
        "max_tokens": 128000,
    }
    return server.model(API, **{**base, **fields})


async def run(model: Model, context: Context, **opts: Any) -> tuple[list[Any], Any]:
    options = StreamOptions(api_key=opts.pop("api_key", access_token()), max_retries=0, **opts)
    response = stream_simple(model, context, options)
    events = [event async for event in response]
    return events, await response.result()


def ctx(text: str = "hi", tools: list[ToolSpec] | None = None) -> Context:
    return Context(system_prompt="You are terse.", messages=[UserMessage(content=text)], tools=tools)


async def test_streams_reasoning_text_and_a_tool_call_with_codex_headers() -> None:
    with LoopbackLLMServer() as server:
        server.add(
            Turn(
                blocks=[
                    Thinking("weighing it", signature="enc-1"),
                    Text("Reading."),
                    ToolUse("read", {"path": "a"}),
                ],
                usage=Usage(input=40, output=9, cache_read=10, reasoning=3),
            )
        )
        events, message = await run(
            codex_model(server), ctx(tools=TOOLS), session_id="sess-1", reasoning="high"
        )
        request = server.requests[0]
    assert request.path == "/codex/responses"
    kinds = [e.type for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert {"thinking_delta", "text_delta", "toolcall_delta", "toolcall_end"} <= set(kinds)
    assert message.stop_reason == "toolUse"
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "weighing it"
    assert json.loads(thinking.thinking_signature)["encrypted_content"] == "enc-1"
    assert isinstance(text, TextContent) and text.text == "Reading."
    assert isinstance(call, ToolCall) and call.name == "read" and call.arguments == {"path": "a"}
    assert message.usage.input == 40 and message.usage.cache_read == 10
    assert message.to_json_dict()["providerThinkingLevel"] == "high"

    headers = request.headers
    assert headers["authorization"].startswith("Bearer ey")
    assert headers["chatgpt-account-id"] == ACCOUNT_ID
    assert headers["originator"] == "pi"
    assert headers["user-agent"].startswith("pi-python/")
    assert headers["openai-beta"] == "responses=experimental"
    assert headers["accept"] == "text/event-stream"
    assert headers["session-id"] == headers["x-client-request-id"] == "sess-1"
    body = request.body
    assert body["store"] is False and body["stream"] is True
    assert body["text"] == {"verbosity": "low"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == "sess-1"
    assert body["tool_choice"] == "auto" and body["parallel_tool_calls"] is True
    assert body["max_output_tokens"] == 32000
    assert [t["name"] for t in body["tools"]] == ["read"]
    # The level travels in a configuration_update item; the effort field stays put (pi 1.6.0).
    assert body["reasoning"] == {"effort": "medium", "summary": "auto"}
    assert body["input"][0] == {"role": "developer", "content": "You are terse."}
    assert body["input"][-1] == {"type": "configuration_update", "reasoning": {"effort": "high"}}


async def test_an_earlier_reply_keeps_its_level_before_its_items() -> None:
    with LoopbackLLMServer() as server:
        model = codex_model(server)
        server.add(text_turn("first"))
        _, first = await run(model, ctx(), reasoning="low")
        server.add(text_turn("second"))
        context = ctx()
        context.messages += [first, UserMessage(content="again")]
        await run(model, context, reasoning="xhigh")
        items = server.requests[1].body["input"]
    updates = [
        (i, item["reasoning"]["effort"])
        for i, item in enumerate(items)
        if item.get("type") == "configuration_update"
    ]
    reply = next(i for i, item in enumerate(items) if item.get("type") == "message")
    assert updates == [(reply - 1, "low"), (len(items) - 1, "xhigh")]


async def test_models_without_mid_conversation_effort_send_the_level_as_effort() -> None:
    with LoopbackLLMServer() as server:
        model = codex_model(server, id="gpt-5.6-sol", compat=None, thinking_level_map={"minimal": "low"})
        server.add(text_turn("a"), text_turn("b"))
        await run(model, ctx(), reasoning="minimal")
        await run(model, ctx())  # thinking off on a reasoning model: effort none
        bodies = [r.body for r in server.requests]
    assert bodies[0]["reasoning"] == {"effort": "low", "summary": "auto"}
    assert bodies[1]["reasoning"] == {"effort": "none", "summary": "auto"}
    assert not any(item.get("type") == "configuration_update" for b in bodies for item in b["input"])


async def test_usage_limit_and_plain_errors_read_as_pi_words_them() -> None:
    resets = int(time.time()) + 30 * 60
    with LoopbackLLMServer() as server:
        model = codex_model(server)
        server.add(
            HttpError(429, "limit", code="usage_limit_reached"),
            HttpError(400, "Instructions are not valid", code="bad_request"),
        )
        _, limited = await run(model, ctx())
        _, bad = await run(model, ctx())
    assert limited.stop_reason == "error"
    assert limited.error_message == "You have hit your ChatGPT usage limit."
    assert bad.error_message == "Instructions are not valid"
    body = {"error": {"code": "usage_limit_reached", "plan_type": "PLUS", "resets_at": resets}}
    assert (
        error_message(429, json.dumps(body))
        == "You have hit your ChatGPT usage limit (plus plan). Try again in ~30 min."
    )
    assert error_message(502, "Bad gateway") == "Bad gateway"


async def test_stream_errors_and_tokens_without_an_account() -> None:
    with LoopbackLLMServer() as server:
        model = codex_model(server)
        server.add(
            Turn(blocks=[Text("par")], stream_error=HttpError(500, "Backend melted", code="server_error"))
        )
        _, failed = await run(model, ctx())
        _, no_account = await run(model, ctx(), api_key=access_token(account_id=None))
        sent = len(server.requests)
    assert failed.stop_reason == "error" and failed.error_message == "Codex error: Backend melted"
    assert failed.content[0].text == "par"
    assert no_account.error_message == "Failed to extract accountId from token"
    assert sent == 1  # a token naming no account never reaches the backend


def test_account_and_url_helpers() -> None:
    assert account_id(access_token(account_id="acct-7")) == "acct-7"
    with pytest.raises(ValueError, match="Failed to extract accountId"):
        account_id("not-a-jwt")
    assert (
        responses_url("https://chatgpt.com/backend-api/") == "https://chatgpt.com/backend-api/codex/responses"
    )
    assert responses_url("http://proxy/codex") == "http://proxy/codex/responses"
    assert responses_url("http://proxy/codex/responses") == "http://proxy/codex/responses"
    assert responses_url("") == "https://chatgpt.com/backend-api/codex/responses"
