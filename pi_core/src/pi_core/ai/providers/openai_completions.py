"""``openai-completions``: OpenAI Chat Completions (and any compatible server) on the async SDK (spec §9.2).

Works with any base URL (Ollama, LM Studio, vLLM, llama.cpp); pi's ``compat`` knobs are
auto-detected from provider/baseUrl and overridable per model.
"""

from __future__ import annotations

import contextlib
import json
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
    Usage,
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
    ProviderStream,
    StreamFailure,
    affinity_session_id,
    compact_json,
    copilot_headers,
    finish_tool_call,
    finish_usage,
    is_openrouter,
    open_openai_client,
    resolve_cache_retention,
    run_stream,
    sdk_post,
    stream_sdk_request,
)
from pi_core.ai.sdk_import import sdk_object
from pi_core.ai.thinking import clamp_thinking_level, default_max_tokens
from pi_core.ai.transform import transform_messages

API = "openai-completions"
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")


def detect_compat(model: Model) -> dict[str, Any]:
    """pi's auto-detected compatibility settings, overridden by ``model.compat``."""
    provider, url = model.provider, model.base_url
    is_zai = provider == "zai" or "api.z.ai" in url
    is_moonshot = provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in url
    is_cf_workers = provider == "cloudflare-workers-ai" or "api.cloudflare.com" in url
    is_cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    is_grok = provider == "xai" or "api.x.ai" in url
    is_deepseek = provider == "deepseek" or "deepseek.com" in url
    non_standard = (
        provider == "cerebras"
        or "cerebras.ai" in url
        or is_grok
        or "chutes.ai" in url
        or is_deepseek
        or is_zai
        or is_moonshot
        or provider == "opencode"
        or "opencode.ai" in url
        or is_cf_workers
        or is_cf_gateway
    )
    if is_deepseek:
        thinking_format = "deepseek"
    elif is_zai:
        thinking_format = "zai"
    elif is_openrouter(model):
        thinking_format = "openrouter"
    else:
        thinking_format = "openai"
    detected: dict[str, Any] = {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": not non_standard,
        "supportsReasoningEffort": not (is_grok or is_zai or is_moonshot or is_cf_gateway),
        "supportsUsageInStreaming": True,
        "maxTokensField": "max_tokens"
        if ("chutes.ai" in url or is_moonshot or is_cf_gateway)
        else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "requiresReasoningContentOnAssistantMessages": is_deepseek,
        "thinkingFormat": thinking_format,
        "supportsStrictMode": not (is_moonshot or is_cf_gateway),
        "cacheControlFormat": "anthropic"
        if provider == "openrouter" and model.id.startswith("anthropic/")
        else None,
        "supportsLongCacheRetention": not (is_cf_workers or is_cf_gateway),
        "sendSessionAffinityHeaders": is_openrouter(model),
        "sessionAffinityFormat": "openrouter" if is_openrouter(model) else "openai",
    }
    for key, value in (model.compat or {}).items():
        if value is not None:
            detected[key] = value
    return detected


def _normalize_tool_call_id(call_id: str, model: Model, _source: AssistantMessage) -> str:
    if "|" in call_id:
        head = call_id.split("|", 1)[0]
        return "".join(c if c.isalnum() or c in "_-" else "_" for c in head)[:40]
    if model.provider == "openai":
        return call_id[:40]
    return call_id


def _image_url(block: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}


def convert_messages(model: Model, context: Context, compat: dict[str, Any]) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    append = params.append
    messages: list[LlmMessage] = transform_messages(context.messages, model, _normalize_tool_call_id)
    if context.system_prompt:
        role = "developer" if model.reasoning and compat["supportsDeveloperRole"] else "system"
        append({"role": role, "content": context.system_prompt})
    after_results = compat["requiresAssistantAfterToolResult"]
    thinking_as_text = compat["requiresThinkingAsText"]
    result_names = compat["requiresToolResultName"]
    empty_reasoning = compat["requiresReasoningContentOnAssistantMessages"] and model.reasoning
    images_ok = "image" in model.input
    last_role: str | None = None
    i = 0
    count = len(messages)
    while i < count:
        msg = messages[i]
        if after_results and last_role == "toolResult" and msg.role == "user":
            append({"role": "assistant", "content": "I have processed the tool results."})
        # Roles and block types by their tags, as transform_messages does (this loop too runs
        # over the whole history).
        if msg.role == "user":
            if isinstance(msg.content, str):
                append({"role": "user", "content": msg.content})
            else:
                parts = [
                    {"type": "text", "text": b.text} if b.type == "text" else _image_url(b)
                    for b in msg.content
                ]
                if parts:
                    append({"role": "user", "content": parts})
        elif msg.role == "assistant":
            out: dict[str, Any] = {"role": "assistant", "content": "" if after_results else None}
            texts: list[str] = []
            thinking: list[ThinkingContent] = []
            calls: list[ToolCall] = []
            for b in msg.content:  # one pass over the blocks (this runs once per message)
                if b.type == "text":
                    if b.text.strip():
                        texts.append(b.text)
                elif b.type == "thinking":
                    if b.thinking.strip():
                        thinking.append(b)
                elif b.type == "toolCall":
                    calls.append(b)
            if thinking and thinking_as_text:
                joined = "\n\n".join(b.thinking for b in thinking)
                out["content"] = [
                    {"type": "text", "text": joined},
                    *({"type": "text", "text": t} for t in texts),
                ]
            else:
                text = texts[0] if len(texts) == 1 else "".join(texts)
                if text:
                    out["content"] = text
                signature = thinking[0].thinking_signature if thinking else None
                if signature:
                    out[signature] = "\n".join(b.thinking for b in thinking)
            if calls:
                out["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": compact_json(c.arguments),
                        },
                    }
                    for c in calls
                ]
                details = []
                for c in calls:
                    if c.thought_signature:
                        with contextlib.suppress(ValueError):
                            details.append(json.loads(c.thought_signature))
                if details:
                    out["reasoning_details"] = details
            if empty_reasoning and "reasoning_content" not in out:
                out["reasoning_content"] = ""
            if not out["content"] and not out.get("tool_calls"):
                i += 1
                continue
            append(out)
        else:
            images: list[dict[str, Any]] = []
            while i < count:
                result = messages[i]
                if result.role != "toolResult":
                    break
                blocks = result.content
                if len(blocks) == 1 and blocks[0].type == "text":
                    text = blocks[0].text
                else:
                    text = "\n".join(b.text for b in blocks if b.type == "text")
                entry: dict[str, Any] = {
                    "role": "tool",
                    "content": text if text else "(see attached image)",
                    "tool_call_id": result.tool_call_id,
                }
                if result_names and result.tool_name:
                    entry["name"] = result.tool_name
                append(entry)
                if images_ok:
                    images.extend(_image_url(b) for b in blocks if b.type == "image")
                i += 1
            if images:
                if after_results:
                    append({"role": "assistant", "content": "I have processed the tool results."})
                append(
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": "Attached image(s) from tool result:"}, *images],
                    }
                )
                last_role = "user"
            else:
                last_role = "toolResult"
            continue
        last_role = msg.role
        i += 1
    return params


def convert_tools(tools: list[ToolSpec], compat: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if compat["supportsStrictMode"] is not False:
            function["strict"] = False
        out.append({"type": "function", "function": function})
    return out


def _has_tool_history(messages: list[LlmMessage]) -> bool:
    return any(
        isinstance(m, ToolResultMessage)
        or (isinstance(m, AssistantMessage) and any(isinstance(b, ToolCall) for b in m.content))
        for m in messages
    )


def build_params(
    model: Model, context: Context, options: StreamOptions, compat: dict[str, Any]
) -> dict[str, Any]:
    retention = resolve_cache_retention(options.cache_retention)
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning else None
    effort = None if level in (None, "off") else level
    level_map = model.thinking_level_map or {}
    params: dict[str, Any] = {
        "model": model.request_id or model.id,
        "messages": convert_messages(model, context, compat),
        "stream": True,
    }
    long_ok = retention == "long" and compat["supportsLongCacheRetention"]
    if (("api.openai.com" in model.base_url and retention != "none") or long_ok) and options.session_id:
        params["prompt_cache_key"] = options.session_id
    if long_ok:
        params["prompt_cache_retention"] = "24h"
    if compat["supportsUsageInStreaming"] is not False:
        params["stream_options"] = {"include_usage": True}
    if compat["supportsStore"]:
        params["store"] = False
    max_tokens = default_max_tokens(model, options.max_tokens)
    if max_tokens:
        params["max_tokens" if compat["maxTokensField"] == "max_tokens" else "max_completion_tokens"] = (
            max_tokens
        )
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if context.tools:
        params["tools"] = convert_tools(context.tools, compat)
    elif _has_tool_history(context.messages):
        params["tools"] = []
    if options.tool_choice:
        params["tool_choice"] = options.tool_choice
    fmt = compat["thinkingFormat"]
    if model.reasoning and fmt in ("zai", "qwen"):
        params["enable_thinking"] = bool(effort)
    elif model.reasoning and fmt == "qwen-chat-template":
        params["chat_template_kwargs"] = {"enable_thinking": bool(effort), "preserve_thinking": True}
    elif model.reasoning and fmt == "deepseek":
        params["thinking"] = {"type": "enabled" if effort else "disabled"}
        if effort:
            params["reasoning_effort"] = level_map.get(effort) or effort
    elif model.reasoning and fmt == "openrouter":
        if effort:
            params["reasoning"] = {"effort": level_map.get(effort) or effort}
        elif not ("off" in level_map and level_map["off"] is None):
            params["reasoning"] = {"effort": level_map.get("off") or "none"}
    elif model.reasoning and compat["supportsReasoningEffort"]:
        if effort:
            params["reasoning_effort"] = level_map.get(effort) or effort
        elif isinstance(level_map.get("off"), str):
            params["reasoning_effort"] = level_map["off"]
    return params


def parse_usage(raw: Any, model: Model) -> Usage:
    """pi 1.6.0's reading of a Chat Completions usage object.

    Cached (read) tokens are looked for where each service puts them (OpenAI/OpenRouter in
    ``prompt_tokens_details``, DeepSeek as ``prompt_cache_hit_tokens``, Kimi at the top level);
    ``cache_write_tokens`` is a separate count, not part of them. ``reasoning`` is the reasoning
    share of ``completion_tokens`` (0 when the service does not say).
    """
    prompt = _field(raw, "prompt_tokens") or 0
    details = _field(raw, "prompt_tokens_details")
    cache_read = _first_set(
        _field(details, "cached_tokens"),
        _field(raw, "prompt_cache_hit_tokens"),
        _field(raw, "cached_tokens"),
    )
    cache_write = _field(details, "cache_write_tokens") or 0
    completion = _field(raw, "completion_tokens") or 0
    completion_details = _field(raw, "completion_tokens_details")
    reasoning = _field(completion_details, "reasoning_tokens") or _field(raw, "reasoning_tokens") or 0
    usage = Usage(
        input=max(0, prompt - cache_read - cache_write),
        output=completion,
        cache_read=cache_read,
        cache_write=cache_write,
        reasoning=reasoning,
    )
    finish_usage(model, usage)
    return usage


def _field(obj: Any, name: str) -> Any:
    """``obj.name`` of an SDK object or a plain dict (extra fields arrive as dicts); ``None`` if absent."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _first_set(*values: Any) -> int:
    """The first value that is not ``None`` (JavaScript's ``??`` chain), else 0."""
    for value in values:
        if value is not None:
            return int(value)
    return 0


class _Usage:
    """Attribute access over a raw usage dict (as found in a choice's extra fields)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.__dict__.update(raw)


def map_finish_reason(reason: str) -> tuple[str, str | None]:
    if reason in ("stop", "end"):
        return "stop", None
    if reason == "length":
        return "length", None
    if reason in ("tool_calls", "function_call"):
        return "toolUse", None
    return "error", f"Provider finish_reason: {reason}"


def affinity_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Replica-pinning headers, sent only when ``compat.sendSessionAffinityHeaders`` is on.

    That is the default on OpenRouter (``x-session-id``); a provider such as Fireworks turns it on
    to get ``x-client-request-id`` and ``x-session-affinity``, plus ``session_id`` in format
    ``openai`` (``openai-nosession`` leaves that one out).
    """
    session_id = affinity_session_id(options)
    compat = detect_compat(model)
    if session_id is None or not compat["sendSessionAffinityHeaders"]:
        return {}
    fmt = compat["sessionAffinityFormat"]
    if fmt == "openrouter":
        return {"x-session-id": session_id}
    headers = {"session_id": session_id} if fmt == "openai" else {}
    headers.update({"x-client-request-id": session_id, "x-session-affinity": session_id})
    return headers


class OpenAICompletionsProvider:
    api = API

    def stream(self, model: Model, context: Context, options: StreamOptions) -> ProviderStream:
        return run_stream(model, options, lambda output: _run(model, context, options, output))


def _run(
    model: Model, context: Context, options: StreamOptions, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    def open_client() -> Any:
        headers = merge_headers(
            identity_headers(model, attribution=options.attribution),
            model.headers,
            copilot_headers(model, context),
            affinity_headers(model, options),
            options.headers,
        )
        return open_openai_client(model, options, headers)

    return stream_sdk_request(
        model,
        options,
        output,
        open_client=open_client,
        send=_send,
        build_params=lambda: build_params(model, context, options, detect_compat(model)),
        consume=lambda response: _consume(response, model, output),
    )


async def _send(client: Any, body: dict[str, Any] | bytes, request: dict[str, Any]) -> Any:
    AsyncStream = sdk_object("openai._streaming", "AsyncStream")
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    return await sdk_post(
        client,
        "/chat/completions",
        body,
        {**request, "security": {"bearer_auth": True}},
        cast_to=ChatCompletion,
        stream_cls=AsyncStream[ChatCompletionChunk],
    )


async def _consume(
    response: Any, model: Model, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    blocks = output.content
    text_block: TextContent | None = None
    thinking_block: ThinkingContent | None = None
    calls_by_index: dict[int, ToolCall] = {}
    calls_by_id: dict[str, ToolCall] = {}
    # Blocks are only ever appended, so a block's content index is fixed when it is created.
    text_at = thinking_at = -1
    call_at: dict[int, int] = {}  # id(block) → content index
    raw_args: dict[int, str] = {}  # content index → raw JSON so far
    saw_finish = False

    async for chunk in response:
        if not output.response_id and getattr(chunk, "id", None):
            output.response_id = chunk.id
        chunk_model = getattr(chunk, "model", None)
        if (
            isinstance(chunk_model, str)
            and chunk_model
            and chunk_model != model.id
            and not output.response_model
        ):
            output.response_model = chunk_model
        if getattr(chunk, "usage", None):
            output.usage = parse_usage(chunk.usage, model)
        choices = getattr(chunk, "choices", None)
        if not choices:
            continue
        choice = choices[0]
        choice_extra = choice.model_extra
        if choice_extra and not getattr(chunk, "usage", None) and choice_extra.get("usage"):
            # Some servers (e.g. Moonshot) report usage on the choice instead of the chunk.
            output.usage = parse_usage(_Usage(choice_extra["usage"]), model)
        if choice.finish_reason:
            saw_finish = True
            output.raw_stop_reason = choice.finish_reason  # pi 1.6.0 records the API's own reason
            mapped, error = map_finish_reason(choice.finish_reason)
            output.stop_reason = mapped
            if error:
                output.error_message = error
        delta = choice.delta
        if delta is None:
            continue
        content = delta.content
        if content:
            if text_block is None:
                text_block = TextContent(text="")
                text_at = len(blocks)
                blocks.append(text_block)
                yield TextStartEvent(content_index=text_at, partial=output)
            text_block.text += content
            yield construct(
                TextDeltaEvent,
                {
                    "type": "text_delta",
                    "content_index": text_at,
                    "delta": content,
                    "partial": output,
                },
            )
        extra = delta.model_extra or {}
        for field in REASONING_FIELDS:
            value = extra.get(field)
            if isinstance(value, str) and value:
                if thinking_block is None:
                    thinking_block = ThinkingContent(thinking="", thinking_signature=field)
                    thinking_at = len(blocks)
                    blocks.append(thinking_block)
                    yield ThinkingStartEvent(content_index=thinking_at, partial=output)
                thinking_block.thinking += value
                yield construct(
                    ThinkingDeltaEvent,
                    {
                        "type": "thinking_delta",
                        "content_index": thinking_at,
                        "delta": value,
                        "partial": output,
                    },
                )
                break
        for tc in delta.tool_calls or []:
            stream_index = tc.index if isinstance(tc.index, int) else None
            block = calls_by_index.get(stream_index) if stream_index is not None else None
            if block is None and tc.id:
                block = calls_by_id.get(tc.id)
            if block is None:
                block = ToolCall(
                    id=tc.id or "", name=(tc.function.name if tc.function else None) or "", arguments={}
                )
                at = call_at[id(block)] = len(blocks)
                blocks.append(block)
                raw_args[at] = ""
                yield ToolCallStartEvent(content_index=at, partial=output)
            else:
                at = call_at[id(block)]
            if stream_index is not None:
                calls_by_index[stream_index] = block
            if tc.id:
                if not block.id:
                    block.id = tc.id
                calls_by_id[tc.id] = block
            if not block.name and tc.function and tc.function.name:
                block.name = tc.function.name
            piece = (tc.function.arguments if tc.function else None) or ""
            if piece:
                raw_args[at] += piece
                block.arguments = parse_streaming_json(raw_args[at])
            yield construct(
                ToolCallDeltaEvent,
                {
                    "type": "toolcall_delta",
                    "content_index": at,
                    "delta": piece,
                    "partial": output,
                },
            )
        details = extra.get("reasoning_details")
        if isinstance(details, list):
            for detail in details:
                if (
                    isinstance(detail, dict)
                    and detail.get("type") == "reasoning.encrypted"
                    and detail.get("id")
                ):
                    for b in blocks:
                        if isinstance(b, ToolCall) and b.id == detail["id"]:
                            b.thought_signature = compact_json(detail)
    for at, done in enumerate(blocks):
        if isinstance(done, TextContent):
            yield TextEndEvent(content_index=at, content=done.text, partial=output)
        elif isinstance(done, ThinkingContent):
            yield ThinkingEndEvent(content_index=at, content=done.thinking, partial=output)
        else:
            finish_tool_call(done, raw_args.pop(at, ""))
            yield ToolCallEndEvent(content_index=at, tool_call=done, partial=output)
    if not saw_finish:
        raise StreamFailure("OpenAI stream ended without a finish_reason (connection closed mid-response)")
