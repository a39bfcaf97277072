"""What every built-in provider shares: the output message, the producer task, abort and error mapping."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

from pi_core.ai.auth import redact
from pi_core.ai.event_stream import AssistantMessageEventStream
from pi_core.ai.messages import AssistantMessage, ToolCall
from pi_core.ai.provider import DoneEvent, ErrorEvent, Model, StreamOptions

ABORTED_MESSAGE = "Request was aborted"


class StreamFailure(Exception):
    """A failure the provider detected itself (bad stop reason, truncated stream, malformed data)."""


def new_output(model: Model) -> AssistantMessage:
    return AssistantMessage(api=model.api, provider=model.provider, model=model.id)


def resolve_cache_retention(value: str | None) -> str:
    if value:
        return value
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def describe_error(error: BaseException) -> str:
    """A readable message shaped like the TypeScript SDKs' (``429 {"type":"error",...}``).

    Keeping pi's shape matters: retry and context-overflow detection match on these texts.
    """
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        body = getattr(error, "body", None)
        if body is None or body == "":
            return f"{status} status code (no body)"
        text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        # An error event inside a 200 stream carries no meaningful status: report the payload alone.
        return text if status < 400 else f"{status} {text}"
    if isinstance(error, json.JSONDecodeError):
        return f"Malformed stream event (not JSON): {error.msg} at position {error.pos}: {error.doc[:200]!r}"
    name = type(error).__name__
    text = str(error)
    cause = error.__cause__
    if name in ("RemoteProtocolError", "ReadError") or "peer closed" in text or "peer closed" in str(cause):
        return f"Connection lost mid-stream: {cause or text or name}"
    if name == "APIConnectionError":
        return f"Connection error: {cause}" if cause else "Connection error."
    if name in ("APITimeoutError", "TimeoutException", "ReadTimeout"):
        return "Request timed out."
    return text or name


Body = Callable[[AssistantMessage, AssistantMessageEventStream], Awaitable[None]]


def run_stream(model: Model, options: StreamOptions, body: Body) -> AssistantMessageEventStream:
    """Run ``body`` in a task that pushes events; turn every failure into the terminal ``error`` event.

    Abort cancels the task (which makes the SDK close its HTTP response); the partial message keeps
    everything received so far and ends with ``stopReason`` ``"aborted"``.
    """
    stream = AssistantMessageEventStream()
    output = new_output(model)
    signal = options.signal
    secrets = [options.api_key] if options.api_key else []

    def fail(message: str) -> None:
        aborted = signal is not None and signal.aborted
        output.stop_reason = "aborted" if aborted else "error"
        output.error_message = redact(message, secrets)
        stream.push(ErrorEvent(reason=output.stop_reason, error=output))

    async def produce() -> None:
        try:
            if signal is not None and signal.aborted:
                raise StreamFailure(ABORTED_MESSAGE)
            await body(output, stream)
            if signal is not None and signal.aborted:
                raise StreamFailure(ABORTED_MESSAGE)
            if output.stop_reason in ("error", "aborted"):
                raise StreamFailure(output.error_message or "Provider returned an error stop reason")
            stream.push(DoneEvent(reason=output.stop_reason, message=output))
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if signal is not None and signal.aborted and task is not None:
                task.uncancel()
                fail(ABORTED_MESSAGE)
                return
            fail("Stream cancelled")
            raise
        except Exception as error:
            fail(ABORTED_MESSAGE if signal is not None and signal.aborted else describe_error(error))
        finally:
            remove_listener()
            stream.end()

    def on_abort() -> None:
        task = stream.producer
        if task is not None and not task.done():
            task.cancel()

    remove_listener = signal.add_listener(on_abort) if signal is not None else (lambda: None)
    stream.producer = asyncio.get_running_loop().create_task(produce())
    return stream


def finish_tool_call(call: ToolCall, raw: str) -> None:
    """Final arguments of a streamed tool call; not-JSON arguments fail the turn, naming the tool."""
    from pi_core.ai.json_parse import parse_json_object

    if not raw.strip():
        call.arguments = {}
        return
    try:
        value: Any = parse_json_object(raw)
    except ValueError as error:
        raise StreamFailure(
            f'Tool call "{call.name}" ({call.id}) arguments are not valid JSON: {error}; got: {raw[:500]}'
        ) from None
    if not isinstance(value, dict):
        raise StreamFailure(
            f'Tool call "{call.name}" ({call.id}) arguments are not a JSON object: {raw[:500]}'
        )
    call.arguments = value


def request_options(options: StreamOptions) -> dict[str, Any]:
    """Per-request SDK options (timeout, retries) when the caller set them."""
    extra: dict[str, Any] = {}
    if options.timeout_ms is not None:
        extra["timeout"] = options.timeout_ms / 1000
    return extra


def client_kwargs(options: StreamOptions) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if options.max_retries is not None:
        kwargs["max_retries"] = options.max_retries
    if options.timeout_ms is not None:
        kwargs["timeout"] = options.timeout_ms / 1000
    return kwargs
