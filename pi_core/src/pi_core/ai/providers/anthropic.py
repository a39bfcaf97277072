"""``anthropic-messages``: the Anthropic Messages API on the official async SDK (spec §9.1, §10).

Builds pi's request (system prompt and last user message/tool with ``cache_control``, thinking
budget or adaptive effort per level, images, redacted thinking passed back), streams the raw SSE
events and maps them onto pi's normalised events.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from pi_core.ai._fast import construct
from pi_core.ai.identity import identity_headers, merge_headers
from pi_core.ai.json_parse import parse_streaming_json
from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    LlmMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_core.ai.provider import (
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolSpec,
)
from pi_core.ai.providers._base import (
    COPILOT_PROVIDER,
    ProviderStream,
    StreamFailure,
    affinity_session_id,
    client_kwargs,
    copilot_headers,
    finish_tool_call,
    finish_usage,
    is_openrouter,
    resolve_cache_retention,
    run_stream,
    sdk_headers,
    sdk_post,
    stream_sdk_request,
)
from pi_core.ai.sdk_import import sdk_object
from pi_core.ai.thinking import adjust_max_tokens_for_thinking, default_max_tokens
from pi_core.ai.transform import transform_messages

API = "anthropic-messages"
#: The Messages API version pi sends (its Node SDK's); the Python SDK would send a newer one.
API_VERSION = "2023-06-01"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
CLAUDE_CODE_IDENTITY = "You are Claude Code, Anthropic's official CLI for Claude."
_CLAUDE_CODE_TOOL_NAMES = (
    "Read Write Edit Bash Grep Glob AskUserQuestion EnterPlanMode ExitPlanMode KillShell NotebookEdit "
    "Skill Task TaskOutput TodoWrite WebFetch WebSearch"
)
CLAUDE_CODE_TOOLS = {name.lower(): name for name in _CLAUDE_CODE_TOOL_NAMES.split()}
_BAD_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")

STOP_REASONS = {
    "end_turn": "stop",
    "pause_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "refusal": "error",
    "sensitive": "error",
}


def uses_adaptive_thinking(model: Model) -> bool:
    """Thinking by effort (``adaptive``) rather than a token budget: pi 1.6.0 takes it from the
    model's ``compat.forceAdaptiveThinking`` (its catalogue sets it for Opus/Sonnet 4.6 and later),
    not from the model's name."""
    return (model.compat or {}).get("forceAdaptiveThinking") is True


def is_oauth_token(api_key: str) -> bool:
    return "sk-ant-oat" in api_key


def effort_for_level(model: Model, level: str) -> str:
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}.get(level, "high")


def _normalize_tool_call_id(call_id: str, _model: Model, _source: AssistantMessage) -> str:
    return _BAD_ID_CHARS.sub("_", call_id)[:64]


def _supports_eager_tool_streaming(model: Model) -> bool:
    return bool((model.compat or {}).get("supportsEagerToolInputStreaming", True))


def _cache_control(model: Model, options: StreamOptions) -> dict[str, str] | None:
    retention = resolve_cache_retention(options.cache_retention)
    if retention == "none":
        return None
    control = {"type": "ephemeral"}
    if retention == "long" and (model.compat or {}).get("supportsLongCacheRetention", True):
        control["ttl"] = "1h"
    return control


# --- request --------------------------------------------------------------------------------------


def _block_param(block: TextContent | ImageContent) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    return {"type": "image", "source": {"type": "base64", "media_type": block.mime_type, "data": block.data}}


def _content_blocks(content: list[TextContent | ImageContent]) -> str | list[dict[str, Any]]:
    if not any(isinstance(b, ImageContent) for b in content):
        return "\n".join(b.text for b in content if isinstance(b, TextContent))
    blocks = [_block_param(b) for b in content]
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": "(see attached image)"})
    return blocks


def convert_messages(
    messages: list[LlmMessage], model: Model, oauth: bool, cache_control: dict[str, str] | None
) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    transformed = transform_messages(messages, model, _normalize_tool_call_id)
    i = 0
    while i < len(transformed):
        msg = transformed[i]
        if isinstance(msg, UserMessage):
            if isinstance(msg.content, str):
                if msg.content.strip():
                    params.append({"role": "user", "content": msg.content})
            else:
                user_blocks = [
                    _block_param(b) for b in msg.content if not isinstance(b, TextContent) or b.text.strip()
                ]
                if user_blocks:
                    params.append({"role": "user", "content": user_blocks})
        elif isinstance(msg, AssistantMessage):
            out: list[dict[str, Any]] = []
            for block in msg.content:
                if isinstance(block, TextContent):
                    if block.text.strip():
                        out.append({"type": "text", "text": block.text})
                elif isinstance(block, ThinkingContent):
                    if block.redacted:
                        out.append({"type": "redacted_thinking", "data": block.thinking_signature})
                    elif not block.thinking.strip():
                        continue
                    elif not (block.thinking_signature or "").strip():
                        # Unsigned thinking (e.g. from an aborted stream) would be rejected: send as text.
                        out.append({"type": "text", "text": block.thinking})
                    else:
                        out.append(
                            {
                                "type": "thinking",
                                "thinking": block.thinking,
                                "signature": block.thinking_signature,
                            }
                        )
                else:
                    name = CLAUDE_CODE_TOOLS.get(block.name.lower(), block.name) if oauth else block.name
                    out.append(
                        {"type": "tool_use", "id": block.id, "name": name, "input": block.arguments or {}}
                    )
            if out:
                params.append({"role": "assistant", "content": out})
        else:
            results: list[dict[str, Any]] = []
            while i < len(transformed) and isinstance(transformed[i], ToolResultMessage):
                result = transformed[i]
                assert isinstance(result, ToolResultMessage)
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": result.tool_call_id,
                        "content": _content_blocks(result.content),
                        "is_error": result.is_error,
                    }
                )
                i += 1
            params.append({"role": "user", "content": results})
            continue
        i += 1
    if cache_control and params and params[-1]["role"] == "user":
        last = params[-1]
        if isinstance(last["content"], list):
            tail: dict[str, Any] | None = last["content"][-1] if last["content"] else None
            if tail and tail.get("type") in ("text", "image", "tool_result"):
                tail["cache_control"] = cache_control
        elif isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": cache_control}]
    return params


def convert_tools(
    tools: list[ToolSpec], oauth: bool, eager: bool, cache_control: dict[str, str] | None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, tool in enumerate(tools):
        schema = tool.parameters
        spec: dict[str, Any] = {
            "name": CLAUDE_CODE_TOOLS.get(tool.name.lower(), tool.name) if oauth else tool.name,
            "description": tool.description,
        }
        if eager:
            spec["eager_input_streaming"] = True
        spec["input_schema"] = {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        }
        if cache_control and index == len(tools) - 1:
            spec["cache_control"] = cache_control
        out.append(spec)
    return out


def build_params(model: Model, context: Context, options: StreamOptions, oauth: bool) -> dict[str, Any]:
    """The request body pi sends (minus ``stream``)."""
    cache_control = _cache_control(model, options)
    max_tokens = default_max_tokens(model, options.max_tokens)
    thinking: dict[str, Any] | None = None
    output_config: dict[str, Any] | None = None
    level = options.reasoning
    if model.reasoning:
        if level is None or level == "off":
            thinking = {"type": "disabled"}
        elif uses_adaptive_thinking(model):
            thinking = {"type": "adaptive", "display": "summarized"}
            output_config = {"effort": effort_for_level(model, level)}
        else:
            max_tokens, budget = adjust_max_tokens_for_thinking(
                max_tokens or 0, model.max_tokens, level, options.thinking_budgets
            )
            thinking = {"type": "enabled", "budget_tokens": budget or 1024, "display": "summarized"}
    params: dict[str, Any] = {
        "model": model.request_id or model.id,
        "messages": convert_messages(context.messages, model, oauth, cache_control),
        "max_tokens": max_tokens or model.max_tokens // 3,
    }
    system: list[dict[str, Any]] = []
    if oauth:
        system.append({"type": "text", "text": CLAUDE_CODE_IDENTITY})
    if context.system_prompt:
        system.append({"type": "text", "text": context.system_prompt})
    if system:
        if cache_control:
            for block in system:
                block["cache_control"] = cache_control
        params["system"] = system
    thinking_on = thinking is not None and thinking["type"] != "disabled"
    if options.temperature is not None and not thinking_on:
        params["temperature"] = options.temperature
    if context.tools:
        params["tools"] = convert_tools(
            context.tools, oauth, _supports_eager_tool_streaming(model), cache_control
        )
    if thinking is not None:
        params["thinking"] = thinking
    if output_config is not None:
        params["output_config"] = output_config
    if options.metadata and isinstance(options.metadata.get("user_id"), str):
        params["metadata"] = {"user_id": options.metadata["user_id"]}
    if options.tool_choice:
        choice = options.tool_choice
        params["tool_choice"] = {"type": choice} if isinstance(choice, str) else choice
    return params


def affinity_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Replica pinning for API-key requests, on when ``compat.sendSessionAffinityHeaders`` is.

    On by default for OpenRouter, which takes ``x-session-id``; elsewhere the header is
    ``x-session-affinity`` unless ``compat.sessionAffinityFormat`` is ``openrouter``.
    """
    compat = model.compat or {}
    session_id = affinity_session_id(options)
    send = compat.get("sendSessionAffinityHeaders")
    if session_id is None or not (is_openrouter(model) if send is None else send):
        return {}
    fmt = compat.get("sessionAffinityFormat") or ("openrouter" if is_openrouter(model) else None)
    return {"x-session-id" if fmt == "openrouter" else "x-session-affinity": session_id}


def _headers(model: Model, context: Context, options: StreamOptions, oauth: bool) -> dict[str, str | None]:
    betas: list[str] = []
    if context.tools and not _supports_eager_tool_streaming(model):
        betas.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    thinking = model.reasoning and options.reasoning not in (None, "off")
    if thinking and not uses_adaptive_thinking(model):  # as pi 1.6.0: only when budgets think
        betas.append(INTERLEAVED_THINKING_BETA)
    headers: dict[str, str] = {"accept": "application/json", "anthropic-version": API_VERSION}
    if not oauth:  # a subscription token goes as Claude Code, whose user agent is set below
        headers = {**identity_headers(model, attribution=options.attribution), **headers}
    if oauth:
        headers["anthropic-beta"] = ",".join(["claude-code-20250219", "oauth-2025-04-20", *betas])
        headers["user-agent"] = "claude-cli/2.1.75"
        headers["x-app"] = "cli"
    elif betas:
        headers["anthropic-beta"] = ",".join(betas)
    if not oauth and model.provider != COPILOT_PROVIDER:
        headers.update(affinity_headers(model, options))
    return merge_headers(headers, model.headers, copilot_headers(model, context), options.headers)


# --- stream ---------------------------------------------------------------------------------------


class AnthropicMessagesProvider:
    api = API

    def stream(self, model: Model, context: Context, options: StreamOptions) -> ProviderStream:
        return run_stream(model, options, lambda output: _run(model, context, options, output))


def _run(
    model: Model, context: Context, options: StreamOptions, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    oauth = is_oauth_token(options.api_key or "")
    # Claude subscription tokens and GitHub Copilot go as bearer tokens, API keys as x-api-key.
    bearer = oauth or model.provider == COPILOT_PROVIDER

    def open_client() -> Any:
        headers = _headers(model, context, options, oauth)
        names = {name.lower(): value for name, value in headers.items()}
        key_dropped = "x-api-key" in names and names["x-api-key"] is None
        if not bearer and key_dropped and "authorization" not in names:
            # A plugin dropped the key's header: pi then sends no credentials at all, which the
            # SDK does only when Authorization is dropped as well.
            headers["authorization"] = None
        return anthropic_client_class()(
            base_url=model.base_url or None,
            default_headers=sdk_headers(headers, "anthropic"),
            **({"auth_token": options.api_key or ""} if bearer else {"api_key": options.api_key or ""}),
            **client_kwargs(options, "anthropic"),
            **_NO_SPANS,
        )

    return stream_sdk_request(
        model,
        options,
        output,
        open_client=open_client,
        send=_send,
        build_params=lambda: build_params(model, context, options, oauth),
        consume=lambda response: _consume(response, model, context, oauth, output),
        fixed_params={"stream": True},
    )


_client_class: type | None = None
#: Client options that switch off the SDK's OpenTelemetry spans (filled by anthropic_client_class)
_NO_SPANS: dict[str, Any] = {}


def anthropic_client_class() -> type:
    """``AsyncAnthropic`` sending an API key as ``x-api-key``, as pi and the Anthropic API do.

    The Python SDK (2.x) sends any key as ``Authorization: Bearer``; proxies and gateways that
    check ``x-api-key`` refuse that. OAuth tokens (``auth_token``) stay Bearer. Built on first use,
    so that importing this module does not import the SDK.

    pi records no traces; an SDK release that records OpenTelemetry spans by default is told not
    to (``open_telemetry=False``): no span work per request, and its tracing helpers, which
    import about 700 modules of request types, are never loaded (docs/providers.md).
    """
    global _client_class
    if _client_class is None:
        import inspect

        base = sdk_object("anthropic._client", "AsyncAnthropic")
        if "open_telemetry" in inspect.signature(base.__init__).parameters:
            _NO_SPANS["open_telemetry"] = False

        class PiAnthropic(base):  # type: ignore[misc,valid-type]
            @property
            def auth_headers(self) -> dict[str, str]:
                if self.auth_token is not None:
                    return {"Authorization": f"Bearer {self.auth_token}"}
                return {"X-Api-Key": self.api_key} if self.api_key else {}

        _client_class = PiAnthropic
    return _client_class


async def _send(client: Any, body: dict[str, Any] | bytes, request: dict[str, Any]) -> Any:
    # ``AsyncStream[object]``: the SDK decodes the SSE stream (and raises its error events as API
    # errors) but hands each event over as the JSON object it is, the way pi's TypeScript SDK
    # does. Typed events would cost a pydantic object per delta and, before the first request,
    # the import of the ~150 modules of the Messages response types.
    AsyncStream = sdk_object("anthropic._streaming", "AsyncStream")
    return await sdk_post(
        client, "/v1/messages", body, request, cast_to=object, stream_cls=AsyncStream[object]
    )


def _event_fields(event: Any) -> dict[str, Any]:
    if not isinstance(event, dict):
        raise StreamFailure(f"Malformed stream event (not a JSON object): {str(event)[:200]!r}")
    return event


def _object(value: Any) -> dict[str, Any]:
    """A nested JSON object of an event, or an empty one where the server sent none (or null)."""
    return value if isinstance(value, dict) else {}


async def _consume(
    response: Any, model: Model, context: Context, oauth: bool, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    blocks = output.content
    index_of: dict[int, int] = {}  # API block index → content index
    raw_json: dict[int, str] = {}
    usage = output.usage
    saw_start = saw_stop = False
    tools = context.tools or []
    async for item in response:
        event = _event_fields(item)
        kind = event.get("type")
        if kind == "content_block_delta":
            at = index_of.get(event.get("index", -1))
            if at is None:
                continue
            block = blocks[at]
            delta = _object(event.get("delta"))
            dtype = delta.get("type")
            if dtype == "text_delta" and isinstance(block, TextContent):
                text = delta.get("text") or ""
                block.text += text
                yield construct(
                    TextDeltaEvent,
                    {"type": "text_delta", "content_index": at, "delta": text, "partial": output},
                )
            elif dtype == "thinking_delta" and isinstance(block, ThinkingContent):
                thinking = delta.get("thinking") or ""
                block.thinking += thinking
                yield construct(
                    ThinkingDeltaEvent,
                    {"type": "thinking_delta", "content_index": at, "delta": thinking, "partial": output},
                )
            elif dtype == "input_json_delta" and isinstance(block, ToolCall):
                piece = delta.get("partial_json") or ""
                raw_json[at] += piece
                block.arguments = parse_streaming_json(raw_json[at])
                yield construct(
                    ToolCallDeltaEvent,
                    {"type": "toolcall_delta", "content_index": at, "delta": piece, "partial": output},
                )
            elif dtype == "signature_delta" and isinstance(block, ThinkingContent):
                block.thinking_signature = (block.thinking_signature or "") + (delta.get("signature") or "")
        elif kind == "message_start":
            saw_start = True
            message = _object(event.get("message"))
            output.response_id = message.get("id")
            start_usage = _object(message.get("usage"))
            usage.input = start_usage.get("input_tokens") or 0
            usage.output = start_usage.get("output_tokens") or 0
            usage.cache_read = start_usage.get("cache_read_input_tokens") or 0
            usage.cache_write = start_usage.get("cache_creation_input_tokens") or 0
            creation = _object(start_usage.get("cache_creation"))
            usage.cache_write_1h = creation.get("ephemeral_1h_input_tokens") or 0
            finish_usage(model, usage)
        elif kind == "content_block_start":
            cb = _object(event.get("content_block"))
            ctype = cb.get("type")
            at = len(blocks)
            if ctype == "text":
                blocks.append(TextContent(text=""))
                yield TextStartEvent(content_index=at, partial=output)
            elif ctype == "thinking":
                blocks.append(ThinkingContent(thinking="", thinking_signature=""))
                yield ThinkingStartEvent(content_index=at, partial=output)
            elif ctype == "redacted_thinking":
                blocks.append(
                    ThinkingContent(
                        thinking="[Reasoning redacted]",
                        thinking_signature=cb.get("data") or "",
                        redacted=True,
                    )
                )
                yield ThinkingStartEvent(content_index=at, partial=output)
            elif ctype == "tool_use":
                name = str(cb.get("name") or "")
                if oauth:
                    name = next((t.name for t in tools if t.name.lower() == name.lower()), name)
                blocks.append(ToolCall(id=str(cb.get("id") or ""), name=name, arguments={}))
                raw_json[at] = ""
                yield ToolCallStartEvent(content_index=at, partial=output)
            else:
                continue
            index_of[event.get("index", -1)] = at
        elif kind == "content_block_stop":
            at = index_of.pop(event.get("index", -1), -1)
            if at < 0:
                continue
            block = blocks[at]
            if isinstance(block, TextContent):
                yield TextEndEvent(content_index=at, content=block.text, partial=output)
            elif isinstance(block, ThinkingContent):
                yield ThinkingEndEvent(content_index=at, content=block.thinking, partial=output)
            else:
                finish_tool_call(block, raw_json.pop(at, ""))
                yield ToolCallEndEvent(content_index=at, tool_call=block, partial=output)
        elif kind == "message_delta":
            reason = _object(event.get("delta")).get("stop_reason")
            if reason:
                output.raw_stop_reason = reason  # pi 1.6.0 records the API's own reason
                mapped = STOP_REASONS.get(reason)
                if mapped is None:
                    raise StreamFailure(f"Unhandled stop reason: {reason}")
                output.stop_reason = mapped
                if mapped == "error":
                    output.error_message = f"Anthropic stop reason: {reason}"
            delta_usage = _object(event.get("usage"))
            for field, attribute in _DELTA_USAGE:
                value = delta_usage.get(field)
                if value is not None:
                    setattr(usage, attribute, value)
            long_write = _object(delta_usage.get("cache_creation")).get("ephemeral_1h_input_tokens")
            if long_write is not None:
                usage.cache_write_1h = long_write
            # Thinking tokens are reported as a share of output_tokens (pi 1.6.0 records them).
            thinking_tokens = _object(delta_usage.get("output_tokens_details")).get("thinking_tokens")
            if thinking_tokens is not None:
                usage.reasoning = thinking_tokens
            finish_usage(model, usage)
        elif kind == "message_stop":
            saw_stop = True
    if saw_start and not saw_stop:
        raise StreamFailure("Anthropic stream ended before message_stop (connection closed mid-response)")
    if not saw_start:
        raise StreamFailure("Anthropic stream ended without any message")


#: message_delta usage fields → Usage attributes (a field the server leaves out keeps its count)
_DELTA_USAGE = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_input_tokens", "cache_read"),
    ("cache_creation_input_tokens", "cache_write"),
)
