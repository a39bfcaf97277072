"""The entry points the agent uses: ``stream_simple`` and ``complete_simple``.

``stream_simple`` looks the provider up by ``model.api``, resolves the API key (options, then pi's
environment variables) and hands over the unified options; each provider maps ``reasoning`` to its
own request fields (spec §9). It raises *before* returning when nothing can be sent (no provider for
the api, no API key); after it returned, failures arrive as the stream's ``error`` event.
"""

from __future__ import annotations

from dataclasses import replace

from pi_core.ai.auth import env_api_key
from pi_core.ai.messages import AssistantMessage
from pi_core.ai.provider import AssistantMessageStream, Context, Model, StreamOptions, resolve_api_provider


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageStream:
    """Call the provider for ``model.api`` with the options as given."""
    return resolve_api_provider(model).stream(model, context, options or StreamOptions())


def stream_simple(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessageStream:
    """Stream one assistant message; raises ``No API key for provider: X`` when no key is known."""
    provider = resolve_api_provider(model)
    opts = options or StreamOptions()
    api_key = opts.api_key or env_api_key(model.provider)
    if not api_key:
        raise ValueError(f"No API key for provider: {model.provider}")
    if api_key != opts.api_key:
        opts = replace(opts, api_key=api_key)
    return provider.stream(model, context, opts)


async def complete_simple(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AssistantMessage:
    """The final assistant message of :func:`stream_simple` (stopReason ``error`` on failure)."""
    response = stream_simple(model, context, options)
    async for _ in response:
        pass
    return await response.result()


async def complete(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessage:
    response = stream(model, context, options)
    async for _ in response:
        pass
    return await response.result()
