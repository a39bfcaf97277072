"""What each provider request of an AgentSession carries: the messages converted for the model
(``images.blockImages`` applied), the API key with the models.json ``headers`` / ``authHeader`` and
base URL of its auth, the headers ``before_provider_headers`` handlers edit, and the attribution
setting; then the stream itself.

The agent loop asks for the key right before each request and streams right after, so the
headers and base URL found with the key are kept here for that stream (and for the summary
requests of a compaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pi_core.ai.identity import merge_headers, opencode_session_headers
from pi_core.ai.messages import AgentMessage
from pi_core.ai.provider import Model
from pi_core.plugins import events as hook_events
from pi_core.session.convert import block_images, convert_to_llm

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession


class ProviderRequests:
    """The request side of one session: key, headers and base URL of the next request."""

    def __init__(self, session: AgentSession) -> None:
        self._s = session
        #: Extra headers of the next request (auth headers after ``before_provider_headers``;
        #: ``None`` for a header a plugin dropped, which the SDK then leaves out too).
        self.headers: dict[str, str | None] | None = None
        #: The base URL the auth of the next request names, if any.
        self.base_url: str | None = None

    def convert_to_llm(self, messages: Sequence[AgentMessage]) -> list[Any]:
        """pi's ``convertToLlm``, then ``images.blockImages`` (read on every call: it may change)."""
        converted = convert_to_llm(messages)
        return block_images(converted) if self._s.settings.settings.images.block_images else converted

    async def api_key_for(self, provider: str) -> str | None:
        """The key for the next request; its extra headers and base URL are kept for :meth:`stream`."""
        model = self._s.model
        registry = self._s.model_registry
        if registry is None or model is None:
            return None
        auth = await registry.get_api_key_and_headers(model)
        # pi 1.6.0: OpenCode's session header, under the configured ones (it is theirs to replace)
        session_header = opencode_session_headers(model, self._s.session_manager.get_session_id())
        merged = merge_headers(session_header, auth.headers)
        self.headers = await self._provider_headers({k: v for k, v in merged.items() if v is not None})
        self.base_url = auth.base_url
        return str(auth.api_key) if auth.api_key else None

    def attribution(self) -> bool:
        from pi_core.ai.identity import attribution_enabled

        return attribution_enabled(self._s.settings.settings.enable_install_telemetry)

    async def _provider_headers(self, headers: dict[str, str]) -> dict[str, str | None] | None:
        """``before_provider_headers``: plugins add, override (a string) or drop (``None``) headers.

        Their edits go over everything the request carries, as pi's do: a string replaces the
        provider's, the model's or the SDK's header of that name (any case), and a ``None``
        stays in the result so that the request leaves that header out, the SDK's own included
        (``User-Agent``, ``Authorization``).
        """
        hooks = self._s.hooks
        if hooks is None or not hooks.has("before_provider_headers"):
            return dict(headers) or None
        event = hook_events.BeforeProviderHeadersEvent(headers=dict(headers))
        await hooks.before_provider_headers(event, self._s.extension_context())
        edited = event.headers.items()
        return {name: value for name, value in edited if value is None or isinstance(value, str)} or None

    def at_auth_base_url(self, model: Model) -> Model:
        """``model`` pointed at the base URL its auth names (a Copilot business account's endpoint)."""
        if self.base_url and self.base_url != model.base_url:
            return model.model_copy(update={"base_url": self.base_url})
        return model

    def stream(self, model: Model, context: Any, options: Any) -> Any:
        from pi_core.ai.stream import stream_simple

        options = replace(options, attribution=self._s.provider_attribution())
        if self.headers:
            options = replace(options, headers={**self.headers, **(options.headers or {})})
        model = self.at_auth_base_url(model)
        bridge = self._s._bridge
        if bridge is not None and bridge.hooks.has("provider_stream_event"):
            options = replace(options, on_stream_event=bridge.on_stream_event)
        return stream_simple(model, context, options)
