"""``openai-codex-responses``: the Responses API as the ChatGPT backend serves it to OpenAI Codex.

A ChatGPT subscription's sign-in (the ``openai-codex`` provider's ``/login``) gives an OAuth access
token, a JWT whose claims name the ChatGPT account. Requests go to ``<base>/codex/responses``
(``https://chatgpt.com/backend-api`` by default) through the official ``openai`` SDK, with the
token as a bearer token, the account in ``chatgpt-account-id``, ``originator: pi`` and
``OpenAI-Beta: responses=experimental``. The body is the Responses body of ``openai-responses``
plus what this backend wants: ``store: false``, ``text.verbosity: "low"``, encrypted reasoning
included, ``tool_choice`` and parallel tool calls; on models with ``compat.supportsMidConvoEffort``
the thinking level travels in ``configuration_update`` input items while ``reasoning.effort``
stays fixed, so changing it keeps the prompt cache (pi 1.6.0's scheme).

The stream is the Responses event stream, with the backend's variations mapped first: its final
event may be ``response.done``, a status it does not document is dropped, ``error`` and
``response.failed`` events read ``Codex error: …``. HTTP errors read as pi 1.6.0 words them (the
error's message, or a usage-limit sentence with the plan and the minutes until it resets).

pi 1.6.0 first tries a WebSocket to the same URL and sends the SSE body zstd-compressed; pi for
Python uses the SSE transport only (pi's fallback) and sends plain JSON, which the backend takes.
"""

from __future__ import annotations

import base64
import json
import math
import re
import time
from collections.abc import AsyncIterator
from typing import Any

from pi_core.ai.identity import identity_headers, merge_headers
from pi_core.ai.messages import AssistantMessage
from pi_core.ai.provider import AssistantMessageEvent, Context, Model, StreamOptions
from pi_core.ai.providers._base import (
    ProviderStream,
    StreamFailure,
    client_kwargs,
    resolve_cache_retention,
    run_stream,
    sdk_headers,
    sdk_post,
    stream_sdk_request,
)
from pi_core.ai.providers.openai_responses import _consume, convert_messages, convert_tools
from pi_core.ai.sdk_import import sdk_object
from pi_core.ai.thinking import clamp_thinking_level, default_max_tokens

API = "openai-codex-responses"
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
#: Where the access token's claims keep the ChatGPT account (``chatgpt_account_id``).
JWT_CLAIM = "https://api.openai.com/auth"
#: The Responses API refuses ``max_output_tokens`` below this.
MIN_OUTPUT_TOKENS = 16
#: ``reasoning.effort`` while ``configuration_update`` items carry the thinking level.
CONFIGURATION_UPDATE_EFFORT = "medium"
PROMPT_CACHE_KEY_MAX = 64
KNOWN_STATUSES = {"completed", "incomplete", "failed", "cancelled", "queued", "in_progress"}
_USAGE_LIMIT_CODES = re.compile(r"usage_limit_reached|usage_not_included|rate_limit_exceeded", re.I)
#: Extra fields of pi 1.6.0's assistant message this API fills (kept camelCase in the session).
PROVIDER_THINKING_LEVEL = "providerThinkingLevel"
END_TURN = "endTurn"


class OpenAICodexResponsesProvider:
    api = API

    def stream(self, model: Model, context: Context, options: StreamOptions) -> ProviderStream:
        return run_stream(model, options, lambda output: _run(model, context, options, output))


# --- auth and address -----------------------------------------------------------------------------


def account_id(token: str) -> str:
    """The ChatGPT account id in an access token's claims; raises ``ValueError`` with pi's text."""
    parts = token.split(".")
    try:
        if len(parts) != 3:
            raise ValueError
        payload = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(payload))
        value = claims[JWT_CLAIM]["chatgpt_account_id"]
    except (ValueError, KeyError, TypeError):
        raise ValueError("Failed to extract accountId from token") from None
    if not isinstance(value, str) or not value:
        raise ValueError("Failed to extract accountId from token")
    return value


def responses_url(base_url: str) -> str:
    """``<base>/codex/responses``; a base URL that already ends in ``/codex`` or
    ``/codex/responses`` is completed, not doubled."""
    base = (base_url.strip() or DEFAULT_BASE_URL).rstrip("/")
    if base.endswith("/codex/responses"):
        return base
    if base.endswith("/codex"):
        return f"{base}/responses"
    return f"{base}/codex/responses"


def cache_session_id(options: StreamOptions) -> str | None:
    """The session id that names the prompt cache and the session headers (none without caching)."""
    if resolve_cache_retention(options.cache_retention) == "none" or not options.session_id:
        return None
    return options.session_id[:PROMPT_CACHE_KEY_MAX]


def request_headers(
    model: Model, options: StreamOptions, token: str, session: str | None
) -> dict[str, str | None]:
    """The headers of one request, in pi's order: ``originator`` and the client identity, then
    the model's and the caller's headers, then the account and the SSE headers, which nothing
    overrides."""
    headers = merge_headers(
        {"originator": "pi", **identity_headers(model, attribution=options.attribution)},
        model.headers,
        options.headers,
    )
    protected = {"authorization", "chatgpt-account-id", "openai-beta", "accept", "content-type"}
    headers = {k: v for k, v in headers.items() if k.lower() not in protected}
    headers["chatgpt-account-id"] = account_id(token)
    # The SDK's own defaults are spelled so; the same spelling replaces them instead of doubling them.
    headers["OpenAI-Beta"] = "responses=experimental"
    headers["Accept"] = "text/event-stream"
    headers["Content-Type"] = "application/json"
    if session:
        headers["session-id"] = session
        headers["x-client-request-id"] = session
    return headers


# --- request body ---------------------------------------------------------------------------------


def requested_effort(model: Model, options: StreamOptions) -> str | None:
    """The thinking level asked for, as pi's Codex client takes it: the clamped level, ``none`` for
    thinking off on a reasoning model, ``None`` for a model without reasoning."""
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning else "off"
    if level != "off":
        return level
    return "none" if model.reasoning else None


def native_effort(model: Model, effort: str) -> str | None:
    """The model's own value for a level (``thinkingLevelMap``); ``None`` when it takes no
    reasoning field for it (``"off": null``)."""
    level_map = model.thinking_level_map or {}
    if effort == "none":
        return level_map.get("off", "none")
    return level_map.get(effort) or effort


def configuration_update_effort(model: Model, options: StreamOptions) -> str | None:
    """The level to send in ``configuration_update`` items, on models that take it there."""
    effort = requested_effort(model, options)
    if not (model.compat or {}).get("supportsMidConvoEffort") or effort is None:
        return None
    return native_effort(model, effort)


def _configuration_update(effort: str) -> dict[str, Any]:
    return {"type": "configuration_update", "reasoning": {"effort": effort}}


def build_body(
    model: Model, context: Context, options: StreamOptions, session: str | None, update: str | None
) -> dict[str, Any]:
    def before_assistant(message: AssistantMessage) -> list[dict[str, Any]]:
        # The level an earlier reply of this same model was made with, so the cached prefix holds.
        same = (message.provider, message.api, message.model) == (model.provider, model.api, model.id)
        earlier = (message.model_extra or {}).get(PROVIDER_THINKING_LEVEL)
        return [_configuration_update(earlier)] if same and isinstance(earlier, str) else []

    items = convert_messages(model, context, before_assistant if update is not None else None)
    if update is not None:
        items.append(_configuration_update(update))
    body: dict[str, Any] = {
        "model": model.request_id or model.id,
        "store": False,
        "stream": True,
        "input": items,
        "text": {"verbosity": "low"},
        "include": ["reasoning.encrypted_content"],
        "tool_choice": options.tool_choice or "auto",
        "parallel_tool_calls": True,
    }
    if session:
        body["prompt_cache_key"] = session
    max_tokens = default_max_tokens(model, options.max_tokens)
    if max_tokens and (model.compat or {}).get("supportsMaxOutputTokens", True):
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools)
    effort = requested_effort(model, options)
    if effort is not None:
        sent = native_effort(model, effort) if update is None else CONFIGURATION_UPDATE_EFFORT
        if sent is not None:
            body["reasoning"] = {"effort": sent, "summary": "auto"}
    return body


# --- errors ---------------------------------------------------------------------------------------


def error_message(status: int, text: str) -> str:
    """pi 1.6.0's text for an HTTP error of the Codex backend: a usage limit as a sentence (plan,
    minutes until it resets), else the error object's message, else the body as it came."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict) or not error:
        return text or f"{status} status code (no body)"
    code = str(error.get("code") or error.get("type") or "")
    friendly = None
    if _USAGE_LIMIT_CODES.search(code) or status == 429:
        plan_type = error.get("plan_type")
        plan = f" ({plan_type.lower()} plan)" if isinstance(plan_type, str) and plan_type else ""
        resets_at = error.get("resets_at")
        when = ""
        if isinstance(resets_at, (int, float)) and resets_at:
            minutes = max(0, math.floor((resets_at * 1000 - time.time() * 1000) / 60000 + 0.5))
            when = f" Try again in ~{minutes} min."
        friendly = f"You have hit your ChatGPT usage limit{plan}.{when}"
    message = error.get("message")
    return friendly or (message if isinstance(message, str) and message else text)


def _stream_error(event: dict[str, Any]) -> str:
    nested: dict[str, Any] = event["error"] if isinstance(event.get("error"), dict) else {}
    code = event.get("code") if isinstance(event.get("code"), str) else nested.get("code")
    message = event.get("message") if isinstance(event.get("message"), str) else nested.get("message")
    detail = message or code or json.dumps(event, separators=(",", ":"))
    return f"Codex error: {detail}"


# --- the request ----------------------------------------------------------------------------------


def _run(
    model: Model, context: Context, options: StreamOptions, output: AssistantMessage
) -> AsyncIterator[AssistantMessageEvent]:
    session = cache_session_id(options)
    update = configuration_update_effort(model, options)
    if update is not None:
        output.__pydantic_extra__[PROVIDER_THINKING_LEVEL] = update  # type: ignore[index]
    url = responses_url(model.base_url)

    def open_client() -> Any:
        token = options.api_key or ""
        if not token:
            raise StreamFailure(f"No API key for provider: {model.provider}")
        try:
            headers = request_headers(model, options, token, session)
        except ValueError as error:
            raise StreamFailure(str(error)) from None
        AsyncOpenAI = sdk_object("openai._client", "AsyncOpenAI")
        return AsyncOpenAI(
            api_key=token,
            base_url=url.rsplit("/", 1)[0],
            default_headers=sdk_headers(headers, "openai"),
            **client_kwargs(options, "openai"),
        )

    return stream_sdk_request(
        model,
        options,
        output,
        open_client=open_client,
        send=_send,
        build_params=lambda: build_body(model, context, options, session, update),
        consume=lambda response: _consume(_events(response, output), model, output),
    )


async def _send(client: Any, body: dict[str, Any] | bytes, request: dict[str, Any]) -> Any:
    AsyncStream = sdk_object("openai._streaming", "AsyncStream")
    APIStatusError = sdk_object("openai._exceptions", "APIStatusError")
    try:
        return await sdk_post(
            client,
            "/responses",
            body,
            # "events": hand every event over as it came; the legacy mode raises on an "error" key.
            {**request, "security": {"bearer_auth": True}, "stream_mode": "events"},
            cast_to=object,
            stream_cls=AsyncStream[object],
        )
    except APIStatusError as error:
        response = error.response
        try:
            text = response.text
        except Exception:  # a body the SDK did not read
            text = ""
        raise StreamFailure(error_message(response.status_code, text.strip())) from None


class _Fields(dict[str, Any]):
    """A raw event, or a part of one, read as the Responses mapping reads the SDK's typed events:
    fields as attributes (a missing one is ``None``), nested objects alike. Building the SDK's
    types instead would import its 156 Responses type modules for every request."""

    def __getattr__(self, name: str) -> Any:
        value = self.get(name)
        return _Fields(value) if type(value) is dict else value


class _Events:
    """The backend's raw events as the Responses mapping reads them, its variations mapped
    (see the module's docstring); ``close`` closes the SDK stream."""

    def __init__(self, response: Any, output: AssistantMessage) -> None:
        self._response = response
        self._output = output

    def __getattr__(self, name: str) -> Any:
        return getattr(self._response, name)

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for event in self._response:
            if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                continue
            kind = event["type"]
            if kind == "error":
                raise StreamFailure(_stream_error(event))
            if kind == "response.failed":
                result = event.get("response") or {}
                error = result.get("error") if isinstance(result, dict) else None
                message = error.get("message") if isinstance(error, dict) else None
                raise StreamFailure(message or "Codex response failed")
            if kind in ("response.done", "response.completed", "response.incomplete"):
                result = event.get("response")
                if isinstance(result, dict):
                    if isinstance(result.get("end_turn"), bool):
                        self._output.__pydantic_extra__[END_TURN] = result["end_turn"]  # type: ignore[index]
                    status = result.get("status")
                    result = {**result, "status": status if status in KNOWN_STATUSES else None}
                yield _Fields({**event, "type": "response.completed", "response": result})
                return
            yield _Fields(event)


def _events(response: Any, output: AssistantMessage) -> Any:
    return _Events(response, output)
