"""What each provider puts on the wire (recorded by the loopback server), per spec §9."""

from __future__ import annotations

from typing import Any

import pytest
from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_core.ai.provider import Context, StreamOptions, ToolSpec
from pi_core.ai.stream import complete_simple
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, text_turn

TOOL = ToolSpec(
    name="ls", description="List", parameters={"type": "object", "properties": {"path": {"type": "string"}}}
)


async def send(
    server: LoopbackLLMServer, api: str, context: Context, model: dict[str, Any] | None = None, **opts: Any
) -> dict[str, Any]:
    server.add(text_turn("ok"))
    target = server.model(api, **(model or {}))
    message = await complete_simple(
        target, context, StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0, **opts)
    )
    assert message.stop_reason == "stop", message.error_message
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return body


def simple() -> Context:
    return Context(system_prompt="SYS", messages=[UserMessage(content="hello")], tools=[TOOL])


async def test_anthropic_cache_control_and_budget_thinking(pi_llm_server: LoopbackLLMServer) -> None:
    body = await send(
        pi_llm_server,
        "anthropic-messages",
        simple(),
        model={"reasoning": True, "max_tokens": 64000},
        reasoning="medium",
    )
    assert body["system"] == [{"type": "text", "text": "SYS", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["input_schema"] == {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": [],
    }
    # default budgets: medium 8192; max_tokens = min(32000 + 8192, 64000)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192, "display": "summarized"}
    assert body["max_tokens"] == 40192
    headers = pi_llm_server.requests[-1].headers
    assert "interleaved-thinking-2025-05-14" in headers["anthropic-beta"]
    # pi authenticates with x-api-key (gateways that check it refuse a Bearer token).
    assert headers["x-api-key"] == LOOPBACK_API_KEY
    assert "authorization" not in headers


async def test_anthropic_off_and_adaptive(pi_llm_server: LoopbackLLMServer) -> None:
    # Checked side by side with pi 1.6.0 through models.json models: thinking off or a model that
    # does not reason gets no interleaved-thinking beta; effort ("adaptive") thinking comes from
    # compat.forceAdaptiveThinking, not from the name (a bare claude-opus-4-7 thinks by budget).
    body = await send(pi_llm_server, "anthropic-messages", simple(), model={"reasoning": True})
    assert body["thinking"] == {"type": "disabled"}
    assert body["max_tokens"] == 16384
    assert "anthropic-beta" not in pi_llm_server.requests[-1].headers
    body = await send(pi_llm_server, "anthropic-messages", simple(), reasoning="high")
    assert "thinking" not in body and "anthropic-beta" not in pi_llm_server.requests[-1].headers
    adaptive = {"reasoning": True, "compat": {"forceAdaptiveThinking": True}}
    body = await send(pi_llm_server, "anthropic-messages", simple(), model=adaptive, reasoning="xhigh")
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "high"}
    assert "anthropic-beta" not in pi_llm_server.requests[-1].headers
    named = {"id": "claude-opus-4-7", "reasoning": True}
    body = await send(pi_llm_server, "anthropic-messages", simple(), model=named, reasoning="high")
    assert body["thinking"]["type"] == "enabled" and "output_config" not in body
    assert pi_llm_server.requests[-1].headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"


async def test_anthropic_authenticates_like_pi(
    pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The key pi resolved is the only credential sent, whatever the SDK finds in the environment.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-from-the-environment")
    await send(pi_llm_server, "anthropic-messages", simple())
    headers = pi_llm_server.requests[-1].headers
    assert headers["x-api-key"] == LOOPBACK_API_KEY and "authorization" not in headers
    # An OAuth token (Claude subscription) goes as a Bearer token, without x-api-key.
    pi_llm_server.add(text_turn("ok"))
    target = pi_llm_server.model("anthropic-messages")
    token = "sk-ant-oat01-loopback"
    message = await complete_simple(target, simple(), StreamOptions(api_key=token, max_retries=0))
    assert message.stop_reason == "stop", message.error_message
    headers = pi_llm_server.requests[-1].headers
    assert headers["authorization"] == f"Bearer {token}" and "x-api-key" not in headers
    assert "oauth-2025-04-20" in headers["anthropic-beta"]


async def test_anthropic_history_images_tool_results_and_redacted(pi_llm_server: LoopbackLLMServer) -> None:
    api = "anthropic-messages"
    model_id = f"loopback-{api}"
    history = [
        UserMessage(content=[TextContent(text="look"), ImageContent(data="AAAA", mime_type="image/png")]),
        AssistantMessage(
            api=api,
            provider="anthropic",
            model=model_id,
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="opaque", redacted=True),
                ThinkingContent(thinking="hmm", thinking_signature="sig"),
                ToolCall(id="toolu_1", name="ls", arguments={"path": "."}),
                ToolCall(id="toolu_2", name="ls", arguments={"path": "src"}),
            ],
        ),
        ToolResultMessage(tool_call_id="toolu_1", tool_name="ls", content=[TextContent(text="a\nb")]),
    ]
    body = await send(
        pi_llm_server, api, Context(messages=history, tools=[TOOL]), model={"input": ["text", "image"]}
    )
    user, assistant, results = body["messages"]
    assert user["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    assert assistant["content"][0] == {"type": "redacted_thinking", "data": "opaque"}
    assert assistant["content"][1] == {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    # The orphaned second call got a synthetic error result, grouped in one user message.
    assert [r["tool_use_id"] for r in results["content"]] == ["toolu_1", "toolu_2"]
    assert (
        results["content"][1]["content"] == "No result provided" and results["content"][1]["is_error"] is True
    )
    assert results["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_openai_completions_defaults(pi_llm_server: LoopbackLLMServer) -> None:
    body = await send(
        pi_llm_server, "openai-completions", simple(), model={"reasoning": True}, reasoning="high"
    )
    assert body["stream_options"] == {"include_usage": True}
    assert body["store"] is False
    assert body["max_completion_tokens"] == 16384
    assert body["reasoning_effort"] == "high"
    assert body["messages"][0] == {"role": "developer", "content": "SYS"}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "ls", "description": "List", "parameters": TOOL.parameters, "strict": False},
        }
    ]
    assert pi_llm_server.requests[-1].headers["authorization"] == f"Bearer {LOOPBACK_API_KEY}"


async def test_openai_completions_compat_and_off(pi_llm_server: LoopbackLLMServer) -> None:
    compat = {
        "supportsDeveloperRole": False,
        "supportsReasoningEffort": False,
        "maxTokensField": "max_tokens",
    }
    body = await send(
        pi_llm_server,
        "openai-completions",
        simple(),
        model={"reasoning": True, "compat": compat},
        reasoning="low",
    )
    assert body["messages"][0]["role"] == "system"
    assert "reasoning_effort" not in body and body["max_tokens"] == 16384
    body = await send(pi_llm_server, "openai-completions", simple())
    assert body["messages"][0]["role"] == "system" and "reasoning_effort" not in body


async def test_openai_completions_history(pi_llm_server: LoopbackLLMServer) -> None:
    api = "openai-completions"
    history = [
        UserMessage(content="go"),
        AssistantMessage(
            api=api,
            provider="openai",
            model=f"loopback-{api}",
            stop_reason="toolUse",
            content=[
                TextContent(text="calling"),
                ToolCall(id="call_1", name="ls", arguments={"path": ".", "glob": ["*.py", "ü"]}),
            ],
        ),
        ToolResultMessage(tool_call_id="call_1", tool_name="ls", content=[TextContent(text="x")]),
        AssistantMessage(api=api, provider="openai", model="m", stop_reason="error", error_message="boom"),
    ]
    body = await send(pi_llm_server, api, Context(messages=history, tools=[TOOL]))
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
    # pi's JSON.stringify form: no spaces, non-ASCII as is (the prompt-cache prefix stays the same).
    assert body["messages"][1]["tool_calls"][0]["function"] == {
        "name": "ls",
        "arguments": '{"path":".","glob":["*.py","ü"]}',
    }
    assert body["messages"][2] == {"role": "tool", "content": "x", "tool_call_id": "call_1"}


async def test_openai_responses_reasoning_and_history(pi_llm_server: LoopbackLLMServer) -> None:
    api = "openai-responses"
    history = [
        UserMessage(content="go"),
        AssistantMessage(
            api=api,
            provider="openai",
            model=f"loopback-{api}",
            stop_reason="toolUse",
            content=[ToolCall(id="call_1|fc_1", name="ls", arguments={"path": "a b", "n": 1})],
        ),
        ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="ls", content=[TextContent(text="x")]),
    ]
    body = await send(
        pi_llm_server,
        api,
        Context(system_prompt="SYS", messages=history),
        model={"reasoning": True},
        reasoning="minimal",
    )
    assert body["reasoning"] == {"effort": "minimal", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["store"] is False and body["max_output_tokens"] == 16384
    assert body["input"][0] == {"role": "developer", "content": "SYS"}
    assert body["input"][2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "ls",
        "arguments": '{"path":"a b","n":1}',
        "id": "fc_1",
    }
    assert body["input"][3] == {"type": "function_call_output", "call_id": "call_1", "output": "x"}
    body = await send(
        pi_llm_server, api, Context(messages=[UserMessage(content="x")]), model={"reasoning": True}
    )
    assert body["reasoning"] == {"effort": "none"}


async def test_cross_model_history_is_transformed(pi_llm_server: LoopbackLLMServer) -> None:
    history = [
        UserMessage(content="go"),
        AssistantMessage(
            api="openai-responses",
            provider="openai",
            model="gpt-5",
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="secret plan", thinking_signature='{"type":"reasoning"}'),
                ToolCall(id="call_abc|fc_+/=" + "x" * 80, name="ls", arguments={}),
            ],
        ),
        ToolResultMessage(
            tool_call_id="call_abc|fc_+/=" + "x" * 80, tool_name="ls", content=[TextContent(text="y")]
        ),
    ]
    body = await send(pi_llm_server, "anthropic-messages", Context(messages=history))
    assistant = body["messages"][1]
    assert assistant["content"][0] == {"type": "text", "text": "secret plan"}
    new_id = assistant["content"][1]["id"]
    assert len(new_id) <= 64 and all(c.isalnum() or c in "_-" for c in new_id)
    assert body["messages"][2]["content"][0]["tool_use_id"] == new_id


async def test_on_payload_replaces_body_and_on_response_sees_status(pi_llm_server: LoopbackLLMServer) -> None:
    from pi_core.ai.provider import Model, ProviderResponseInfo

    seen: list[int] = []

    async def on_payload(params: dict[str, Any], model: Model) -> dict[str, Any]:
        return {**params, "temperature": 0.25}

    async def on_response(info: ProviderResponseInfo, model: Model) -> None:
        seen.append(info.status)
        assert info.headers["request-id"] == "req_loopback"

    for api in ("anthropic-messages", "openai-completions", "openai-responses"):
        pi_llm_server.add(text_turn("ok"))
        options = StreamOptions(
            api_key=LOOPBACK_API_KEY, max_retries=0, on_payload=on_payload, on_response=on_response
        )
        message = await complete_simple(pi_llm_server.model(api), simple(), options)
        assert message.stop_reason == "stop", message.error_message
        assert pi_llm_server.requests[-1].body["temperature"] == 0.25
    assert seen == [200, 200, 200]


async def test_openai_completions_thinking_formats_reach_the_wire(pi_llm_server: LoopbackLLMServer) -> None:
    qwen = {"thinkingFormat": "qwen-chat-template"}
    body = await send(
        pi_llm_server,
        "openai-completions",
        simple(),
        model={"reasoning": True, "compat": qwen},
        reasoning="low",
    )
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "preserve_thinking": True}
    body = await send(
        pi_llm_server, "openai-completions", simple(), model={"reasoning": True, "provider": "deepseek"}
    )
    assert body["thinking"] == {"type": "disabled"} and body["messages"][0]["role"] == "system"
    body = await send(
        pi_llm_server,
        "openai-completions",
        simple(),
        model={"reasoning": True, "provider": "openrouter"},
        reasoning="high",
    )
    assert body["reasoning"] == {"effort": "high"}


async def test_bodies_go_out_encoded_as_the_sdk_encodes_them(pi_llm_server: LoopbackLLMServer) -> None:
    # The body is encoded before the collector resumes (providers._base.encoded_body): the bytes
    # must be the SDK's own (compact, non-ASCII kept), and anything that is not plain JSON left
    # for the SDK to encode its way.
    import anthropic
    import openai
    from openai._utils._json import openapi_dumps
    from pi_core.ai.provider import Model
    from pi_core.ai.providers._base import encoded_body
    from pydantic import BaseModel

    params = {"model": "m", "messages": [{"role": "user", "content": "grüß 🌍 \u2028"}], "t": 0.1, "n": None}
    for client in (openai.AsyncOpenAI(api_key="x"), anthropic.AsyncAnthropic(api_key="x")):
        assert encoded_body(client, params) == openapi_dumps(params)
        await client.close()

    class Extra(BaseModel):
        value: int = 7

    odd = {"model": "m", "extra": Extra()}
    client = openai.AsyncOpenAI(api_key="x")
    assert encoded_body(client, odd) is odd
    not_a_number = {"x": float("nan")}
    assert encoded_body(client, not_a_number) is not_a_number
    # Half of a UTF-16 pair (from a model's or an MCP server's JSON) has no UTF-8 form.
    assert encoded_body(client, {"content": "a\ud800b"}) == '{"content":"a\ufffdb"}'.encode()
    await client.close()

    async def add_model(params: dict[str, Any], model: Model) -> dict[str, Any]:
        return {**params, "metadata": Extra(value=8)}

    for api in ("anthropic-messages", "openai-completions", "openai-responses"):
        pi_llm_server.add(text_turn("ok"))
        context = Context(system_prompt="SYS", messages=[UserMessage(content="grüß 🌍")])
        options = StreamOptions(api_key=LOOPBACK_API_KEY, max_retries=0, on_payload=add_model)
        message = await complete_simple(pi_llm_server.model(api), context, options)
        assert message.stop_reason == "stop", message.error_message
        request = pi_llm_server.requests[-1]
        assert request.headers["content-type"] == "application/json"
        assert request.body["metadata"] == {"value": 8}
        assert "grüß 🌍" in str(request.body)
