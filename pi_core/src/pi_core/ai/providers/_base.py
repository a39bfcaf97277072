"""What every built-in provider shares: the output message, the producer task, abort and error mapping."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from pi_core._gc import gc_paused
from pi_core.ai.auth import redact
from pi_core.ai.cost import calculate_cost
from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_core.ai.provider import (
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    ProviderResponseInfo,
    StartEvent,
    StreamOptions,
)
from pi_core.ai.sdk_import import http_client, sdk_object, settle_guarded_imports

ABORTED_MESSAGE = "Request was aborted"


class StreamFailure(Exception):
    """A failure the provider detected itself (bad stop reason, truncated stream, malformed data)."""


def new_output(model: Model) -> AssistantMessage:
    """The reply a provider fills while it streams: ``stopReason`` is ``pending`` until the API
    says why it stopped (pi 1.6.0's ``message_start`` shows it so)."""
    return AssistantMessage(api=model.api, provider=model.provider, model=model.id, stop_reason="pending")


def resolve_cache_retention(value: str | None) -> str:
    if value:
        return value
    return "long" if os.environ.get("PI_CACHE_RETENTION") == "long" else "short"


def describe_error(error: BaseException) -> str:
    """A readable message shaped like the TypeScript SDKs' (``429 {"type":"error",...}``).

    Keeping pi's shape matters: retry and context-overflow detection match on these texts. An
    OpenAI-style error object (``{"message": ..., "type": ..., "code": ...}``, which the ``openai``
    SDK keeps as the error's body) is shown as its message, plus its code when the message does
    not already name it (overflow detection matches ``context_length_exceeded``).
    """
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        body = getattr(error, "body", None)
        if body is None or body == "":
            return f"{status} status code (no body)"
        message = body.get("message") if isinstance(body, dict) else None
        if isinstance(message, str) and message.strip():
            code = body.get("code") if isinstance(body, dict) else None
            if isinstance(code, str) and code and code not in message:
                message = f"{message} ({code})"
            return message if status < 400 else f"{status} {message}"
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
        # Name the address: a wrong or unreachable base URL is the usual cause.
        request = getattr(error, "request", None)
        url = getattr(request, "url", None)
        where = f" to {url}" if url else ""
        return f"Connection error{where}: {cause}" if cause else f"Connection error{where}."
    if name in ("APITimeoutError", "TimeoutException", "ReadTimeout"):
        return "Request timed out."
    return text or name


Body = Callable[[AssistantMessage], AsyncIterator[AssistantMessageEvent]]


class ProviderStream:
    """A provider's event stream, driven in the consumer's own task.

    ``body(output)`` is an async generator that performs the request and yields events while it
    fills ``output``. Running it in the consumer's task (no producer task, no queue) saves a task
    switch per streamed delta. Abort cancels the consumer task only while it is suspended inside
    the body (i.e. waiting on the SDK), so the HTTP response is closed at once; the cancellation is
    then absorbed here and turned into the ``aborted`` error event. Every failure becomes the
    terminal ``error`` event; nothing raises out of iteration (except a cancellation from outside).
    """

    def __init__(self, model: Model, options: StreamOptions, body: Body) -> None:
        self._output = new_output(model)
        self._options = options
        self._body = body
        self._final: AssistantMessage | None = None
        self._iterator: AsyncGenerator[AssistantMessageEvent, None] | None = None
        self._inside = False

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        if self._iterator is not None:
            raise RuntimeError("a provider stream can be iterated only once")
        self._iterator = self._run()
        return self._iterator

    async def result(self) -> AssistantMessage:
        if self._final is None:
            if self._iterator is None:
                async for _ in self:
                    pass
            if self._final is None:
                raise RuntimeError("Provider stream was closed before it finished")
        return self._final

    async def aclose(self) -> None:
        if self._iterator is not None:
            await self._iterator.aclose()

    def _fail(self, message: str) -> ErrorEvent:
        signal = self._options.signal
        output = self._output
        output.stop_reason = "aborted" if signal is not None and signal.aborted else "error"
        secrets = [self._options.api_key] if self._options.api_key else []
        output.error_message = redact(message, secrets)
        self._final = output
        return ErrorEvent(reason=output.stop_reason, error=output)

    async def _run(self) -> AsyncGenerator[AssistantMessageEvent, None]:
        output = self._output
        signal = self._options.signal
        task = asyncio.current_task()

        cancelled_by_abort = False

        def on_abort() -> None:
            nonlocal cancelled_by_abort
            if self._inside and task is not None:
                cancelled_by_abort = True
                task.cancel()

        remove_listener = signal.add_listener(on_abort) if signal is not None else (lambda: None)
        body = self._body(output)
        try:
            while True:
                # Aborted before the start, or while the consumer held control (e.g. from an
                # event handler): stop now.
                if signal is not None and signal.aborted:
                    raise StreamFailure(ABORTED_MESSAGE)
                self._inside = True
                try:
                    event = await anext(body)
                except StopAsyncIteration:
                    break
                finally:
                    self._inside = False
                yield event
            if signal is not None and signal.aborted:
                raise StreamFailure(ABORTED_MESSAGE)
            if output.stop_reason in ("error", "aborted"):
                raise StreamFailure(output.error_message or "Provider returned an error stop reason")
            if output.stop_reason == "pending":
                raise StreamFailure(f"{output.api} stream ended without a stop reason")
            self._final = output
            yield DoneEvent(reason=output.stop_reason, message=output)
        except asyncio.CancelledError:
            # Absorb only our own cancellation; one requested from outside still propagates.
            if cancelled_by_abort and task is not None and task.cancelling() == 1:
                task.uncancel()
                yield self._fail(ABORTED_MESSAGE)
                return
            raise
        except Exception as error:
            aborted = signal is not None and signal.aborted
            yield self._fail(ABORTED_MESSAGE if aborted else describe_error(error))
        finally:
            remove_listener()
            closer = getattr(body, "aclose", None)
            if closer is not None:
                await closer()


def run_stream(model: Model, options: StreamOptions, body: Body) -> ProviderStream:
    """The stream for ``body`` (see :class:`ProviderStream`)."""
    return ProviderStream(model, options, body)


#: ``send(client, body, request_options)`` → the SDK's stream object for one request; the body
#: is the JSON object, or its encoding (:func:`encoded_body`).
Send = Callable[[Any, dict[str, Any] | bytes, dict[str, Any]], Awaitable[Any]]


async def stream_sdk_request(
    model: Model,
    options: StreamOptions,
    output: AssistantMessage,
    *,
    open_client: Callable[[], Any],
    send: Send,
    build_params: Callable[[], dict[str, Any]],
    consume: Callable[[Any], AsyncIterator[AssistantMessageEvent]],
    fixed_params: dict[str, Any] | None = None,
) -> AsyncIterator[AssistantMessageEvent]:
    """The request/response cycle every SDK provider shares, as a :data:`Body`.

    Opens the client, builds the body and lets ``on_payload`` replace it (``fixed_params`` are
    added afterwards, out of the hook's reach), sends it with ``send`` (see :func:`sdk_post`),
    reports the HTTP response to ``on_response``, emits ``start`` and then the events
    ``consume(response)`` maps. The SDK stream and the client are always closed, also when the
    mapping fails.
    """
    await settle_guarded_imports()  # the SDK must not meet a module another thread half-imported
    client = open_client()
    try:
        # A long history makes hundreds of thousands of new dicts: they are built, shown to the
        # payload hook and encoded with the collector paused, and dropped before it resumes, so
        # no collection walks them (a handler that awaits just keeps it paused that long).
        with gc_paused(freeze=False):
            params = build_params()
            if options.on_payload is not None:
                replaced = await options.on_payload(params, model)
                if replaced is not None:
                    params = replaced
                del replaced
            if fixed_params:
                params = {**params, **fixed_params}
            body = encoded_body(client, params)
            del params
        response = await send(client, body, request_options(options, client))
        if options.on_response is not None:
            http = response.response
            await options.on_response(
                ProviderResponseInfo(status=http.status_code, headers=dict(http.headers)), model
            )
        yield StartEvent(partial=output)
        source = response if options.on_stream_event is None else _Observed(response, options, model)
        try:
            async for event in consume(source):
                yield event
        finally:
            # Close the SDK stream explicitly: a failure inside our mapping must not leave it open.
            await response.close()
    finally:
        await client.close()


class _Observed:
    """The SDK stream, with each parsed event shown to ``on_stream_event`` before it is mapped."""

    def __init__(self, response: Any, options: StreamOptions, model: Model) -> None:
        self._response = response
        self._observe = options.on_stream_event
        self._model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._response, name)

    async def __aiter__(self) -> AsyncIterator[Any]:
        observe = self._observe
        async for item in self._response:
            if observe is not None:
                await observe(item, self._model)
            yield item


async def sdk_post(
    client: Any,
    path: str,
    body: dict[str, Any] | bytes,
    request: dict[str, Any],
    *,
    cast_to: Any,
    stream_cls: Any,
) -> Any:
    """POST pi's finished request body through the SDK client's own request machinery.

    The SDKs' typed ``create`` methods first walk the whole body through their parameter
    transform (for ``openai`` a recursive, type-hint driven copy: 74 % of a 10k-message resume).
    pi builds plain JSON-ready dicts, which that transform returns unchanged, so the body goes
    to ``client.post`` as it is — still with the client's headers, authentication, retries,
    timeouts, error classes and SSE stream (``stream_cls``), and with fields the SDK does not
    declare reaching the server untouched. An already encoded body (:func:`encoded_body`) is
    passed as the request's ``content``; the client's ``Content-Type: application/json`` stays.
    """
    if isinstance(body, bytes):
        return await client.post(
            path, content=body, cast_to=cast_to, options=request, stream=True, stream_cls=stream_cls
        )
    return await client.post(
        path, body=body, cast_to=cast_to, options=request, stream=True, stream_cls=stream_cls
    )


#: client class -> whether its ``post`` takes a ready body (``content=``; SDK releases since 2025)
_takes_content: dict[type, bool] = {}


def encoded_body(client: Any, params: dict[str, Any]) -> dict[str, Any] | bytes:
    """``params`` as the JSON bytes the SDK would send (compact, non-ASCII kept, no NaN), or
    ``params`` itself when the client cannot take bytes or a value is not plain JSON (the SDK
    then encodes it its own way, or reports the problem)."""
    cls = type(client)
    takes = _takes_content.get(cls)
    if takes is None:
        import inspect

        try:
            takes = "content" in inspect.signature(cls.post).parameters
        except (TypeError, ValueError):
            takes = False
        _takes_content[cls] = takes
    if not takes:
        return params
    try:
        text = _encode_body(params)
    except (TypeError, ValueError):
        return params
    try:
        return text.encode()
    except UnicodeEncodeError:
        # Half of a UTF-16 pair (a model or an MCP server sent "\ud800" in its JSON) has no
        # UTF-8 form: it goes as U+FFFD, or every later request of the session would fail.
        return _SURROGATE.sub("\ufffd", text).encode()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _make_compact() -> Callable[[Any], str]:
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    try:  # CPython's C encoder, made once: json.dumps builds one per call (3x the cost for small dicts)
        from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
    except ImportError:
        return encode
    if c_make_encoder is None:
        return encode
    make = c_make_encoder(None, _not_json, encode_basestring, None, ":", ",", False, False, True)

    def compact(value: Any) -> str:
        if isinstance(value, str):
            return encode(value)
        return "".join(make(value, 0))

    return compact


_compact = _make_compact()
#: How the SDKs encode a request body (``openapi_dumps``), with CPython's C encoder.
_encode_body = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def compact_json(value: Any) -> str:
    """JSON as pi's ``JSON.stringify`` writes it: no spaces, non-ASCII kept.

    Used for tool-call arguments sent back to the model: the same bytes as pi (and as in every
    earlier request) keep the provider's prompt-cache prefix valid after a resume. Called once per
    tool call of the history on every request, hence the prebuilt encoder.
    """
    return _compact(value)


def finish_usage(model: Model, usage: Usage) -> None:
    """Total tokens as the sum of the four counts, and the cost from the model's prices."""
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    calculate_cost(model, usage)


def finish_tool_call(call: ToolCall, raw: str) -> None:
    """Final arguments of a streamed tool call. Text that is not a JSON object (cut off, not JSON,
    an array) leaves ``arguments`` empty and says why in ``arguments_error``, with the text the
    model sent: the reply stands, and the agent loop answers the call with a validation error the
    model can act on (pi 1.6.0's ``parseToolCallArguments``)."""
    from pi_core.ai.json_parse import parse_json_object

    call.arguments_error = None
    if not raw.strip():
        call.arguments = {}
        return
    try:
        value: Any = parse_json_object(raw)
    except ValueError as error:
        problem = str(error)
    else:
        if isinstance(value, dict):
            call.arguments = value
            return
        problem = "Tool arguments must be a JSON object"
    call.arguments = {}
    call.arguments_error = f"{problem}\n\nReceived arguments:\n{raw}"


def request_options(options: StreamOptions, client: Any) -> dict[str, Any]:
    """Per-request SDK options: the timeout when the caller set one, and the headers the client's
    ``default_headers`` drop (an ``Omit``, see :func:`sdk_headers`) once more, since the openai
    SDK accepts a request without ``Authorization`` only when the request itself omits it."""
    extra: dict[str, Any] = {}
    if options.timeout_ms is not None:
        extra["timeout"] = options.timeout_ms / 1000
    defaults = getattr(client, "default_headers", None) or {}
    dropped = {name: value for name, value in defaults.items() if not isinstance(value, str)}
    if dropped:
        extra["headers"] = dropped
    return extra


COPILOT_PROVIDER = "github-copilot"


def is_openrouter(model: Model) -> bool:
    """OpenRouter by provider name or by base URL: it routes by ``x-session-id``."""
    return model.provider == "openrouter" or "openrouter.ai" in (model.base_url or "")


def affinity_session_id(options: StreamOptions) -> str | None:
    """The session id that pins a session to one replica; none when caching is off."""
    if resolve_cache_retention(options.cache_retention) == "none":
        return None
    return options.session_id or None


def copilot_headers(model: Model, context: Context) -> dict[str, str]:
    """The headers GitHub Copilot wants per request (pi 1.6.0 sends them on all three APIs):
    ``X-Initiator`` says whether the user (last message theirs) or the agent asks,
    ``Openai-Intent`` is fixed, and ``Copilot-Vision-Request`` flags images in the request."""
    if model.provider != COPILOT_PROVIDER:
        return {}
    last = context.messages[-1] if context.messages else None
    headers = {
        "X-Initiator": "agent" if last is not None and last.role != "user" else "user",
        "Openai-Intent": "conversation-edits",
    }
    for message in context.messages:
        if (
            isinstance(message, (UserMessage, ToolResultMessage))
            and not isinstance(message.content, str)
            and any(isinstance(block, ImageContent) for block in message.content)
        ):
            headers["Copilot-Vision-Request"] = "true"
            break
    return headers


def sdk_headers(headers: Mapping[str, str | None], sdk: str) -> dict[str, Any]:
    """``headers`` as the ``sdk`` client's ``default_headers`` take them: a ``None`` becomes the
    SDK's ``Omit``, which removes the header whatever its case — the SDK's own as well
    (``User-Agent``, ``X-Stainless-OS``, the key's ``Authorization``), as pi's ``null`` does."""
    if all(value is not None for value in headers.values()):
        return dict(headers)
    omit = sdk_object(f"{sdk}._types", "Omit")()
    return {name: omit if value is None else value for name, value in headers.items()}


def open_openai_client(model: Model, options: StreamOptions, headers: Mapping[str, str | None]) -> Any:
    """The ``AsyncOpenAI`` client both OpenAI APIs use (the SDK is imported only when a request is made)."""
    AsyncOpenAI = sdk_object("openai._client", "AsyncOpenAI")

    return AsyncOpenAI(
        api_key=options.api_key or "",
        base_url=model.base_url or None,
        default_headers=sdk_headers(headers, "openai"),
        **client_kwargs(options, "openai"),
    )


def client_kwargs(options: StreamOptions, sdk: str) -> dict[str, Any]:
    """The SDK client's options: pi's retries and timeout, and the SDK's own HTTP client with the
    process's shared TLS context (:func:`pi_core.ai.sdk_import.http_client`)."""
    kwargs: dict[str, Any] = {}
    client = http_client(sdk)
    if client is not None:
        kwargs["http_client"] = client
    if options.max_retries is not None:
        kwargs["max_retries"] = options.max_retries
    if options.timeout_ms is not None:
        kwargs["timeout"] = options.timeout_ms / 1000
    return kwargs
