"""``openai-responses``: the OpenAI Responses API (streaming) on the async SDK (spec §9.3).

``azure-openai-responses`` is the same API as Azure OpenAI serves it: the SDK's Azure client sends
the key in an ``api-key`` header and ``?api-version=`` (``AZURE_OPENAI_API_VERSION``, default
``v1``) with every request, as pi 1.6.0 does.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from pi_core.ai._fast import construct
from pi_core.ai.cost import calculate_cost
from pi_core.ai.identity import identity_headers, merge_headers
from pi_core.ai.json_parse import parse_streaming_json
from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
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
    ProviderStream,
    StreamFailure,
    affinity_session_id,
    client_kwargs,
    compact_json,
    copilot_headers,
    finish_tool_call,
    is_openrouter,
    open_openai_client,
    resolve_cache_retention,
    run_stream,
    sdk_headers,
    sdk_post,
    stream_sdk_request,
)
from pi_core.ai.sdk_import import sdk_object
from pi_core.ai.thinking import clamp_thinking_level, default_max_tokens
from pi_core.ai.transform import transform_messages

API = "openai-responses"
AZURE_API = "azure-openai-responses"
TOOL_CALL_PROVIDERS = {"openai", "openai-codex", "opencode"}
#: Azure's client also keeps the item half of ``call|item`` ids for Azure's own messages.
AZURE_TOOL_CALL_PROVIDERS = {*TOOL_CALL_PROVIDERS, "azure"}
AZURE_API_VERSION_ENV = "AZURE_OPENAI_API_VERSION"
DEFAULT_AZURE_API_VERSION = "v1"
_BAD_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
STATUS_TO_STOP = {
    "completed": "stop",
    "incomplete": "length",
    "failed": "error",
    "cancelled": "error",
    "in_progress": "stop",
    "queued": "stop",
}


def short_hash(text: str) -> str:
    """pi's 53-bit string hash, base 36 (used to shorten foreign ids deterministically)."""
    mask = 0xFFFFFFFF
    h1, h2 = 0xDEADBEEF, 0x41C6CE57

    def imul(a: int, b: int) -> int:
        return (a * b) & mask

    for ch in text.encode("utf-16-le").decode("utf-16-le"):
        code = ord(ch)
        h1 = imul(h1 ^ code, 2654435761)
        h2 = imul(h2 ^ code, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507) ^ imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507) ^ imul(h1 ^ (h1 >> 13), 3266489909)

    def base36(n: int) -> str:
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        out = ""
        while True:
            n, r = divmod(n, 36)
            out = digits[r] + out
            if n == 0:
                return out

    return base36(h2 & mask) + base36(h1 & mask)


def _id_part(part: str) -> str:
    return _BAD_ID_CHARS.sub("_", part)[:64].rstrip("_")


def _image(block: ImageContent) -> dict[str, Any]:
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.mime_type};base64,{block.data}",
    }


def convert_messages(
    model: Model,
    context: Context,
    before_assistant: Callable[[AssistantMessage], list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """The Responses ``input`` items of the conversation. ``before_assistant(message)`` gives items
    to put in front of an assistant message's own (OpenAI Codex's ``configuration_update``)."""
    keep_items = AZURE_TOOL_CALL_PROVIDERS if model.api == AZURE_API else TOOL_CALL_PROVIDERS

    def normalize(call_id: str, _target: Model, source: AssistantMessage) -> str:
        if model.provider not in keep_items or "|" not in call_id:
            return _id_part(call_id)
        call, item = call_id.split("|", 1)
        foreign = source.provider != model.provider or source.api != model.api
        item_id = f"fc_{short_hash(item)}"[:64] if foreign else _id_part(item)
        if not item_id.startswith("fc_"):
            item_id = _id_part(f"fc_{item_id}")
        return f"{_id_part(call)}|{item_id}"

    items: list[dict[str, Any]] = []
    if context.system_prompt:
        items.append({"role": "developer" if model.reasoning else "system", "content": context.system_prompt})
    for index, msg in enumerate(transform_messages(context.messages, model, normalize)):
        if isinstance(msg, UserMessage):
            if isinstance(msg.content, str):
                items.append({"role": "user", "content": [{"type": "input_text", "text": msg.content}]})
            else:
                parts = [
                    {"type": "input_text", "text": b.text} if isinstance(b, TextContent) else _image(b)
                    for b in msg.content
                ]
                if parts:
                    items.append({"role": "user", "content": parts})
        elif isinstance(msg, AssistantMessage):
            first = len(items)
            for block in msg.content:
                if isinstance(block, ThinkingContent):
                    if block.thinking_signature:
                        try:
                            items.append(json.loads(block.thinking_signature))
                        except ValueError:
                            continue
                elif isinstance(block, TextContent):
                    msg_id = None
                    phase = None
                    signature = block.text_signature
                    if signature and signature.startswith("{"):
                        try:
                            parsed = json.loads(signature)
                            msg_id, phase = parsed.get("id"), parsed.get("phase")
                        except ValueError:
                            msg_id = signature
                    elif signature:
                        msg_id = signature
                    if not msg_id:
                        msg_id = f"msg_{index}"
                    elif len(msg_id) > 64:
                        msg_id = f"msg_{short_hash(msg_id)}"
                    item: dict[str, Any] = {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": block.text, "annotations": []}],
                        "status": "completed",
                        "id": msg_id,
                    }
                    if phase:
                        item["phase"] = phase
                    items.append(item)
                else:
                    call_id, _, item_id = block.id.partition("|")
                    call: dict[str, Any] = {
                        "type": "function_call",
                        "call_id": call_id,
                        "name": block.name,
                        "arguments": compact_json(block.arguments),
                    }
                    if item_id:
                        call["id"] = item_id
                    items.append(call)
            if before_assistant is not None and len(items) > first:
                items[first:first] = before_assistant(msg)
        elif isinstance(msg, ToolResultMessage):
            text = "\n".join(b.text for b in msg.content if isinstance(b, TextContent))
            images = [b for b in msg.content if isinstance(b, ImageContent)]
            output: Any
            if images and "image" in model.input:
                output = ([{"type": "input_text", "text": text}] if text else []) + [
                    _image(b) for b in images
                ]
            else:
                output = text if text else "(see attached image)"
            items.append(
                {"type": "function_call_output", "call_id": msg.tool_call_id.split("|")[0], "output": output}
            )
    return items


def convert_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
            "strict": False,
        }
        for t in tools
    ]


def build_params(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    retention = resolve_cache_retention(options.cache_retention)
    params: dict[str, Any] = {
        "model": model.request_id or model.id,
        "input": convert_messages(model, context),
        "stream": True,
        "store": False,
    }
    if model.api == AZURE_API:
        # Azure's request names the cache by session whatever the retention, and has no retention field.
        if options.session_id and (model.compat or {}).get("promptCacheKeyMode") != "disabled":
            params["prompt_cache_key"] = options.session_id
    else:
        if retention != "none" and options.session_id:
            params["prompt_cache_key"] = options.session_id
        if retention == "long" and (model.compat or {}).get("supportsLongCacheRetention", True):
            params["prompt_cache_retention"] = "24h"
    max_tokens = default_max_tokens(model, options.max_tokens)
    if max_tokens:
        params["max_output_tokens"] = max_tokens
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if context.tools:
        params["tools"] = convert_tools(context.tools)
    if model.reasoning:
        level = clamp_thinking_level(model, options.reasoning) if options.reasoning else None
        level_map = model.thinking_level_map or {}
        if level and level != "off":
            params["reasoning"] = {"effort": level_map.get(level) or level, "summary": "auto"}
            params["include"] = ["reasoning.encrypted_content"]
        elif model.provider != "github-copilot" and not ("off" in level_map and level_map["off"] is None):
            params["reasoning"] = {"effort": level_map.get("off") or "none"}
    return params


class OpenAIResponsesProvider:
    api = API

    def stream(self, model: Model, context: Context, options: StreamOptions) -> ProviderStream:
        return run_stream(model, options, lambda output: _run(model, context, options, output))


def affinity_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """The headers that keep a session on one replica, by ``compat.sessionAffinityFormat``.

    ``openrouter`` (the default on OpenRouter) sends ``x-session-id``; ``openai`` (the default
    elsewhere) ``session-id`` and ``x-client-request-id``; ``openai-nosession`` only the latter.
    """
    session_id = affinity_session_id(options)
    if session_id is None:
        return {}
    fmt = (model.compat or {}).get("sessionAffinityFormat") or (
        "openrouter" if is_openrouter(model) else "openai"
    )
    if fmt == "openrouter":
        return {"x-session-id": session_id}
    if fmt == "openai":
        return {"session-id": session_id, "x-client-request-id": session_id}
    return {"x-client-request-id": session_id}


class AzureOpenAIResponsesProvider:
    api = AZURE_API

    def stream(self, model: Model, context: Context, options: StreamOptions) -> ProviderStream:
        return run_stream(model, options, lambda output: _run(model, context, options, output))


def azure_api_version() -> str:
    """The ``api-version`` Azure requests carry: ``AZURE_OPENAI_API_VERSION``, else ``v1``."""
    return os.environ.get(AZURE_API_VERSION_ENV, "").strip() or DEFAULT_AZURE_API_VERSION


def _open_azure_client(model: Model, options: StreamOptions) -> Any:
    AsyncAzureOpenAI = sdk_object("openai.lib.azure", "AsyncAzureOpenAI")
    return AsyncAzureOpenAI(
        api_key=options.api_key or "",
        api_version=azure_api_version(),
        base_url=model.base_url or None,
        default_headers=sdk_headers(
            merge_headers(
                identity_headers(model, attribution=options.attribution), model.headers, options.headers
            ),
            "openai",
        ),
        **client_kwargs(options, "openai"),
    )


def _run(
    model: Model, context: Context, options: StreamOptions, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    def open_client() -> Any:
        if model.api == AZURE_API:
            return _open_azure_client(model, options)
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
        build_params=lambda: build_params(model, context, options),
        consume=lambda response: _consume(response, model, output),
    )


async def _send(client: Any, body: dict[str, Any] | bytes, request: dict[str, Any]) -> Any:
    AsyncStream = sdk_object("openai._streaming", "AsyncStream")
    from openai.types.responses import Response, ResponseStreamEvent

    return await sdk_post(
        client,
        "/responses",
        body,
        {**request, "security": {"bearer_auth": True}},
        cast_to=Response,
        stream_cls=AsyncStream[ResponseStreamEvent],
    )


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _dump(item: Any) -> dict[str, Any]:
    if isinstance(item, dict):
        return item
    return dict(item.model_dump(mode="json", exclude_none=True))


async def _consume(
    response: Any, model: Model, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    blocks = output.content
    current_type: str | None = None
    current: TextContent | ThinkingContent | ToolCall | None = None
    raw_args = ""
    finished = False
    async for event in response:
        kind = event.type
        at = len(blocks) - 1
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            if current_type == "message" and isinstance(current, TextContent):
                current.text += event.delta
                yield construct(
                    TextDeltaEvent,
                    {"type": "text_delta", "content_index": at, "delta": event.delta, "partial": output},
                )
        elif kind == "response.reasoning_summary_text.delta" or kind == "response.reasoning_text.delta":
            if current_type == "reasoning" and isinstance(current, ThinkingContent):
                current.thinking += event.delta
                yield construct(
                    ThinkingDeltaEvent,
                    {
                        "type": "thinking_delta",
                        "content_index": at,
                        "delta": event.delta,
                        "partial": output,
                    },
                )
        elif kind == "response.function_call_arguments.delta":
            if current_type == "function_call" and isinstance(current, ToolCall):
                raw_args += event.delta
                current.arguments = parse_streaming_json(raw_args)
                yield construct(
                    ToolCallDeltaEvent,
                    {
                        "type": "toolcall_delta",
                        "content_index": at,
                        "delta": event.delta,
                        "partial": output,
                    },
                )
        elif kind == "response.created":
            output.response_id = event.response.id
        elif kind == "response.output_item.added":
            item = event.item
            current_type = item.type
            if item.type == "reasoning":
                current = ThinkingContent(thinking="")
                blocks.append(current)
                yield ThinkingStartEvent(content_index=len(blocks) - 1, partial=output)
            elif item.type == "message":
                current = TextContent(text="")
                blocks.append(current)
                yield TextStartEvent(content_index=len(blocks) - 1, partial=output)
            elif item.type == "function_call":
                current = ToolCall(id=f"{item.call_id}|{item.id}", name=item.name, arguments={})
                raw_args = item.arguments or ""
                blocks.append(current)
                yield ToolCallStartEvent(content_index=len(blocks) - 1, partial=output)
            else:
                current = None
        elif kind == "response.reasoning_summary_part.done":
            if current_type == "reasoning" and isinstance(current, ThinkingContent):
                current.thinking += "\n\n"
                yield ThinkingDeltaEvent(content_index=at, delta="\n\n", partial=output)
        elif kind == "response.function_call_arguments.done":
            if current_type == "function_call" and isinstance(current, ToolCall):
                previous, raw_args = raw_args, event.arguments
                current.arguments = parse_streaming_json(raw_args)
                if raw_args.startswith(previous) and len(raw_args) > len(previous):
                    yield ToolCallDeltaEvent(
                        content_index=at, delta=raw_args[len(previous) :], partial=output
                    )
        elif kind == "response.output_item.done":
            item = event.item
            if item.type == "reasoning" and isinstance(current, ThinkingContent):
                summary = "\n\n".join(_get(s, "text", "") for s in (_get(item, "summary") or []))
                content = "\n\n".join(_get(c, "text", "") for c in (_get(item, "content") or []))
                current.thinking = summary or content or current.thinking
                current.thinking_signature = json.dumps(_dump(item), separators=(",", ":"))
                yield ThinkingEndEvent(content_index=at, content=current.thinking, partial=output)
            elif item.type == "message" and isinstance(current, TextContent):
                parts = _get(item, "content") or []
                current.text = "".join(
                    (_get(p, "text") if _get(p, "type") == "output_text" else _get(p, "refusal")) or ""
                    for p in parts
                )
                signature: dict[str, Any] = {"v": 1, "id": item.id}
                if _get(item, "phase"):
                    signature["phase"] = item.phase
                current.text_signature = json.dumps(signature, separators=(",", ":"))
                yield TextEndEvent(content_index=at, content=current.text, partial=output)
            elif item.type == "function_call":
                if isinstance(current, ToolCall):
                    call = current
                    finish_tool_call(call, raw_args or item.arguments or "")
                else:
                    call = ToolCall(id=f"{item.call_id}|{item.id}", name=item.name, arguments={})
                    finish_tool_call(call, item.arguments or "")
                yield ToolCallEndEvent(content_index=at, tool_call=call, partial=output)
            current, current_type = None, None
        elif kind in ("response.completed", "response.incomplete"):
            finished = True
            result = event.response
            if result.id:
                output.response_id = result.id
            usage = result.usage
            if usage is not None:
                details = _get(usage, "input_tokens_details")
                cached = (_get(details, "cached_tokens") if details else 0) or 0
                written = (_get(details, "cache_write_tokens") if details else 0) or 0
                out_details = _get(usage, "output_tokens_details")
                # input_tokens holds the cached and the cache-written tokens: both come off.
                output.usage = Usage(
                    input=max(0, (usage.input_tokens or 0) - cached - written),
                    output=usage.output_tokens or 0,
                    cache_read=cached,
                    cache_write=written,
                    reasoning=(_get(out_details, "reasoning_tokens") if out_details else 0) or 0,
                    total_tokens=usage.total_tokens or 0,
                )
            calculate_cost(model, output.usage)
            status = result.status
            output.raw_stop_reason = status or None  # pi 1.6.0 records the API's own reason
            mapped = STATUS_TO_STOP.get(status) if status else "stop"
            if mapped is None:
                raise StreamFailure(f"Unhandled stop reason: {status}")
            output.stop_reason = mapped
            if mapped == "error":
                output.error_message = f"Response status: {status}"
            if mapped == "stop" and any(isinstance(b, ToolCall) for b in blocks):
                output.stop_reason = "toolUse"
        elif kind == "error":
            raise StreamFailure(f"Error Code {_get(event, 'code')}: {_get(event, 'message')}")
        elif kind == "response.failed":
            result = event.response
            error = _get(result, "error")
            details = _get(result, "incomplete_details")
            if error:
                message = f"{_get(error, 'code') or 'unknown'}: {_get(error, 'message') or 'no message'}"
            elif details and _get(details, "reason"):
                message = f"incomplete: {_get(details, 'reason')}"
            else:
                message = "Unknown error (no error details in response)"
            raise StreamFailure(message)
    if not finished:
        raise StreamFailure(
            "OpenAI Responses stream ended before response.completed (connection closed mid-response)"
        )
