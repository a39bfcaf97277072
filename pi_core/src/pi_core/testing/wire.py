"""Rendering a scripted turn as each API's real SSE stream (event names and chunk shapes as sent).

Each renderer yields SSE frames (``bytes``); the special value :data:`DROP` means "close the
connection now, mid-response".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pi_core.testing.script import HttpError, RedactedThinking, Text, Thinking, ToolUse, Turn, split

DROP = b""
MALFORMED_DATA = (
    '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "unterminated'
)


def frame(data: Any, event: str | None = None) -> bytes:
    body = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {body}\n\n".encode()


def _has_tools(turn: Turn) -> bool:
    return any(isinstance(b, ToolUse) for b in turn.blocks)


def _tool_id(block: ToolUse, index: int, prefix: str) -> str:
    return block.id or f"{prefix}{index:04d}loopback"


# --- Anthropic Messages ---------------------------------------------------------------------------


def anthropic_stream(turn: Turn, model: str, seq: int) -> Iterator[bytes]:
    usage = turn.usage
    yield frame(
        {
            "type": "message_start",
            "message": {
                "id": f"msg_loopback{seq:04d}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": usage.input,
                    "output_tokens": 1,
                    "cache_creation_input_tokens": usage.cache_write,
                    "cache_read_input_tokens": usage.cache_read,
                },
            },
        },
        "message_start",
    )
    yield frame({"type": "ping"}, "ping")
    for index, block in enumerate(turn.blocks):
        if isinstance(block, Text):
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in split(block.text, block.chunks)]
        elif isinstance(block, Thinking):
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in split(block.text, block.chunks)]
            deltas.append({"type": "signature_delta", "signature": block.signature})
        elif isinstance(block, RedactedThinking):
            start = {"type": "redacted_thinking", "data": block.data}
            deltas = []
        else:
            start = {
                "type": "tool_use",
                "id": _tool_id(block, index, "toolu_"),
                "name": block.name,
                "input": {},
            }
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in split(block.raw_arguments(), block.chunks)
            ]
        yield frame(
            {"type": "content_block_start", "index": index, "content_block": start}, "content_block_start"
        )
        for delta in deltas:
            yield frame(
                {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
            )
        yield frame({"type": "content_block_stop", "index": index}, "content_block_stop")
    if turn.malformed:
        yield frame(MALFORMED_DATA, "content_block_delta")
    if turn.stream_error is not None:
        yield frame(anthropic_error(turn.stream_error), "error")
        return
    if turn.drop:
        yield DROP
        return
    if turn.cut:
        return
    stop = turn.stop_reason or ("tool_use" if _has_tools(turn) else "end_turn")
    yield frame(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {
                "output_tokens": usage.output,
                **(
                    {"output_tokens_details": {"thinking_tokens": usage.reasoning}}
                    if usage.reasoning is not None
                    else {}
                ),
            },
        },
        "message_delta",
    )
    yield frame({"type": "message_stop"}, "message_stop")


def anthropic_error(error: HttpError) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error.error_type or "api_error", "message": error.message}}


# --- OpenAI Chat Completions ----------------------------------------------------------------------


def completions_stream(turn: Turn, model: str, seq: int, include_usage: bool) -> Iterator[bytes]:
    base = {
        "id": f"chatcmpl-loopback{seq:04d}",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return frame(
            {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        )

    yield chunk({"role": "assistant", "content": ""})
    tool_index = 0
    for index, block in enumerate(turn.blocks):
        if isinstance(block, Text):
            for piece in split(block.text, block.chunks):
                yield chunk({"content": piece})
        elif isinstance(block, Thinking):
            for piece in split(block.text, block.chunks):
                yield chunk({"content": None, "reasoning_content": piece})
        elif isinstance(block, ToolUse):
            call_id = _tool_id(block, index, "call_")
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": tool_index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": block.name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in split(block.raw_arguments(), block.chunks):
                yield chunk({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]})
            tool_index += 1
    if turn.malformed:
        yield frame(MALFORMED_DATA)
    if turn.stream_error is not None:
        yield frame(openai_error(turn.stream_error))
        return
    if turn.drop:
        yield DROP
        return
    if turn.cut:
        return
    yield chunk({}, turn.stop_reason or ("tool_calls" if _has_tools(turn) else "stop"))
    if include_usage:
        usage = turn.usage
        prompt = usage.input + usage.cache_read + usage.cache_write
        yield frame(
            {
                **base,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": usage.output,
                    "total_tokens": prompt + usage.output,
                    "prompt_tokens_details": {"cached_tokens": usage.cache_read},
                    **(
                        {"completion_tokens_details": {"reasoning_tokens": usage.reasoning}}
                        if usage.reasoning is not None
                        else {}
                    ),
                },
            }
        )
    yield frame("[DONE]")


def openai_error(error: HttpError) -> dict[str, Any]:
    return {
        "error": {
            "message": error.message,
            "type": error.error_type or "server_error",
            "param": None,
            "code": error.code,
        }
    }


# --- OpenAI Responses -----------------------------------------------------------------------------


def responses_stream(turn: Turn, model: str, seq: int) -> Iterator[bytes]:
    counter = iter(range(1_000_000))
    response_id = f"resp_loopback{seq:04d}"

    def event(kind: str, **fields: Any) -> bytes:
        return frame({"type": kind, "sequence_number": next(counter), **fields}, kind)

    def response(status: str, output: list[Any], usage: dict[str, Any] | None = None) -> dict[str, Any]:
        return {
            "id": response_id,
            "object": "response",
            "created_at": 1700000000,
            "status": status,
            "model": model,
            "output": output,
            "usage": usage,
        }

    yield event("response.created", response=response("in_progress", []))
    yield event("response.in_progress", response=response("in_progress", []))
    done_items: list[dict[str, Any]] = []
    for index, block in enumerate(turn.blocks):
        if isinstance(block, Thinking):
            item_id = f"rs_{index:04d}"
            yield event(
                "response.output_item.added",
                output_index=index,
                item={"type": "reasoning", "id": item_id, "summary": []},
            )
            part = {"type": "summary_text", "text": ""}
            yield event(
                "response.reasoning_summary_part.added",
                item_id=item_id,
                output_index=index,
                summary_index=0,
                part=part,
            )
            for piece in split(block.text, block.chunks):
                yield event(
                    "response.reasoning_summary_text.delta",
                    item_id=item_id,
                    output_index=index,
                    summary_index=0,
                    delta=piece,
                )
            yield event(
                "response.reasoning_summary_text.done",
                item_id=item_id,
                output_index=index,
                summary_index=0,
                text=block.text,
            )
            yield event(
                "response.reasoning_summary_part.done",
                item_id=item_id,
                output_index=index,
                summary_index=0,
                part={"type": "summary_text", "text": block.text},
            )
            item = {
                "type": "reasoning",
                "id": item_id,
                "summary": [{"type": "summary_text", "text": block.text}],
                "encrypted_content": block.signature,
            }
        elif isinstance(block, Text):
            item_id = f"msg_{index:04d}"
            yield event(
                "response.output_item.added",
                output_index=index,
                item={
                    "type": "message",
                    "id": item_id,
                    "status": "in_progress",
                    "role": "assistant",
                    "content": [],
                },
            )
            empty = {"type": "output_text", "text": "", "annotations": []}
            yield event(
                "response.content_part.added",
                item_id=item_id,
                output_index=index,
                content_index=0,
                part=empty,
            )
            for piece in split(block.text, block.chunks):
                yield event(
                    "response.output_text.delta",
                    item_id=item_id,
                    output_index=index,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
            yield event(
                "response.output_text.done",
                item_id=item_id,
                output_index=index,
                content_index=0,
                text=block.text,
                logprobs=[],
            )
            full = {"type": "output_text", "text": block.text, "annotations": []}
            yield event(
                "response.content_part.done", item_id=item_id, output_index=index, content_index=0, part=full
            )
            item = {
                "type": "message",
                "id": item_id,
                "status": "completed",
                "role": "assistant",
                "content": [full],
            }
        elif isinstance(block, ToolUse):
            item_id = f"fc_{index:04d}"
            raw = block.raw_arguments()
            call = {
                "type": "function_call",
                "id": item_id,
                "call_id": _tool_id(block, index, "call_"),
                "name": block.name,
                "arguments": "",
                "status": "in_progress",
            }
            yield event("response.output_item.added", output_index=index, item=call)
            for piece in split(raw, block.chunks):
                yield event(
                    "response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece
                )
            yield event(
                "response.function_call_arguments.done", item_id=item_id, output_index=index, arguments=raw
            )
            item = {**call, "arguments": raw, "status": "completed"}
        else:
            continue
        done_items.append(item)
        yield event("response.output_item.done", output_index=index, item=item)
    if turn.malformed:
        yield frame(MALFORMED_DATA, "response.output_text.delta")
    if turn.stream_error is not None:
        error = turn.stream_error
        yield event("error", code=error.code or error.error_type, message=error.message, param=None)
        return
    if turn.drop:
        yield DROP
        return
    if turn.cut:
        return
    usage = turn.usage
    total_input = usage.input + usage.cache_read
    status = turn.stop_reason or "completed"
    yield event(
        "response.completed" if status != "incomplete" else "response.incomplete",
        response=response(
            status,
            done_items,
            {
                "input_tokens": total_input,
                "input_tokens_details": {"cached_tokens": usage.cache_read},
                "output_tokens": usage.output,
                "output_tokens_details": {"reasoning_tokens": usage.reasoning or 0},
                "total_tokens": total_input + usage.output,
            },
        ),
    )
