"""The provider interface: models, request context, options, the normalised event stream, the api registry.

A provider implements one *wire API* (``anthropic-messages``, ``openai-completions``, ...). It is
looked up by ``model.api`` and turns a :class:`Context` into an async stream of
:data:`AssistantMessageEvent` s, exactly one of which is terminal (``done`` or ``error``). Once
``stream`` has returned, nothing raises: HTTP errors, network failures and aborts arrive as an
``error`` event whose message has ``stopReason`` ``"error"`` or ``"aborted"`` (spec §10).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from pi_core._model import PiModel
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AssistantMessage, LlmMessage, ToolCall

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
CacheRetention = Literal["none", "short", "long"]


# --- models ---------------------------------------------------------------------------------------


class ModelCostTier(PiModel):
    """The rates of a request whose input (with cache reads and writes) exceeds ``input_tokens_above``."""

    input_tokens_above: float
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class ModelCost(PiModel):
    """USD per million tokens; ``tiers`` price a whole request by the size of its input."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    tiers: list[ModelCostTier] | None = None


class Model(PiModel):
    """One model as pi describes it (pi-ai ``Model``): what to call, where, and what it costs."""

    id: str
    name: str = ""
    api: str
    provider: str
    base_url: str = ""
    reasoning: bool = False
    #: Level → provider value (a string) or ``None`` to mark the level unsupported.
    thinking_level_map: dict[str, str | None] | None = None
    input: list[Literal["text", "image"]] = Field(default_factory=lambda: ["text"])  # type: ignore[arg-type]
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128000
    max_tokens: int = 16384
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    #: The name requests carry when the service knows the model by another one (an Azure
    #: deployment); not part of pi's model JSON, so never written out.
    request_id: str | None = Field(default=None, exclude=True)

    def model_post_init(self, _context: Any) -> None:
        if not self.name:
            self.name = self.id


# --- request --------------------------------------------------------------------------------------


class ToolSpec(PiModel):
    """What the model is told about a tool: name, description and a JSON schema for its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass
class Context:
    """One provider request: system prompt, LLM messages, tools."""

    system_prompt: str | None = None
    messages: list[LlmMessage] = field(default_factory=list)
    tools: list[ToolSpec] | None = None


class ProviderResponseInfo(PiModel):
    """Passed to ``on_response``: the HTTP status and headers of the provider's response."""

    status: int
    headers: dict[str, str] = Field(default_factory=dict)


OnPayload = Callable[[dict[str, Any], Model], Awaitable[dict[str, Any] | None]]
OnResponse = Callable[[ProviderResponseInfo, Model], Awaitable[None]]
#: Hears each event the provider's SDK parsed from the stream, before pi maps it (read-only).
OnStreamEvent = Callable[[Any, Model], Awaitable[None]]


@dataclass
class StreamOptions:
    """Options for one provider call (pi's ``StreamOptions`` + ``SimpleStreamOptions``).

    ``reasoning`` is the unified thinking level (``None`` = off); each provider maps it to its own
    request fields (spec §9). ``max_retries``/``timeout_ms`` go to the SDK client; ``None`` keeps the
    SDK defaults.
    """

    temperature: float | None = None
    max_tokens: int | None = None
    signal: AbortSignal | None = None
    api_key: str | None = None
    transport: str | None = None
    cache_retention: CacheRetention | None = None
    session_id: str | None = None
    on_payload: OnPayload | None = None
    on_response: OnResponse | None = None
    on_stream_event: OnStreamEvent | None = None
    #: Extra request headers, over the provider's and the model's; ``None`` removes a header of
    #: that name, the SDK's own included (pi's ``null``: what ``before_provider_headers`` drops).
    headers: dict[str, str | None] | None = None
    timeout_ms: int | None = None
    max_retries: int | None = None
    max_retry_delay_ms: int | None = None
    metadata: dict[str, Any] | None = None
    reasoning: ThinkingLevel | None = None
    thinking_budgets: dict[str, int] | None = None
    tool_choice: Any = None
    #: Name this client to services that credit apps (OpenRouter, NVIDIA NIM, OpenCode), as pi
    #: does while install telemetry is on (``pi_core.ai.identity``).
    attribution: bool = True


# --- events ---------------------------------------------------------------------------------------


class _Event(PiModel):
    pass


class StartEvent(_Event):
    type: Literal["start"] = "start"
    partial: AssistantMessage


class TextStartEvent(_Event):
    type: Literal["text_start"] = "text_start"
    content_index: int
    partial: AssistantMessage


class TextDeltaEvent(_Event):
    type: Literal["text_delta"] = "text_delta"
    content_index: int
    delta: str
    partial: AssistantMessage


class TextEndEvent(_Event):
    type: Literal["text_end"] = "text_end"
    content_index: int
    content: str
    partial: AssistantMessage


class ThinkingStartEvent(_Event):
    type: Literal["thinking_start"] = "thinking_start"
    content_index: int
    partial: AssistantMessage


class ThinkingDeltaEvent(_Event):
    type: Literal["thinking_delta"] = "thinking_delta"
    content_index: int
    delta: str
    partial: AssistantMessage


class ThinkingEndEvent(_Event):
    type: Literal["thinking_end"] = "thinking_end"
    content_index: int
    content: str
    partial: AssistantMessage


class ToolCallStartEvent(_Event):
    type: Literal["toolcall_start"] = "toolcall_start"
    content_index: int
    partial: AssistantMessage


class ToolCallDeltaEvent(_Event):
    type: Literal["toolcall_delta"] = "toolcall_delta"
    content_index: int
    #: The raw JSON fragment; the parsed arguments so far are in ``partial.content[content_index]``.
    delta: str
    partial: AssistantMessage


class ToolCallEndEvent(_Event):
    type: Literal["toolcall_end"] = "toolcall_end"
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage


class DoneEvent(_Event):
    type: Literal["done"] = "done"
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    reason: Literal["error", "aborted"]
    error: AssistantMessage


AssistantMessageEvent = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)


class AssistantMessageStream(Protocol):
    """What a provider returns: async-iterable events plus the final message once the stream ends."""

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]: ...

    async def result(self) -> AssistantMessage: ...


# --- providers and their registry -----------------------------------------------------------------


@runtime_checkable
class ApiProvider(Protocol):
    """A wire API implementation. ``stream`` must not raise once it has returned."""

    api: str

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageStream: ...


# --- OAuth logins ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class OAuthAuth:
    """What a stored OAuth credential gives a request: the key, and the base URL when the
    credential decides it (a Copilot token names its account's endpoint)."""

    api_key: str
    base_url: str | None = None


class OAuthLoginIO(Protocol):
    """How a login flow talks to the user (the REPL's ``/login`` implements it)."""

    async def prompt(
        self, message: str, placeholder: str = "", *, signal: AbortSignal | None = None
    ) -> str | None:
        """Ask for a line of text; ``None`` when the user cancels or ``signal`` withdraws the
        question (a browser sign-in that completed while the user could still paste a code)."""
        ...

    async def select(self, message: str, options: list[str]) -> int | None:
        """Let the user pick one of ``options`` (a login method); its index, ``None`` on cancel."""
        ...

    def notify(self, message: str) -> None:
        """Show a line: the code to enter and where, or progress."""
        ...


@runtime_checkable
class OAuthProvider(Protocol):
    """A provider's login of its own (``oauth`` of a :class:`ProviderDefinition` names it).

    Credentials are auth.json records ``{"type": "oauth", "refresh", "access", "expires", ...}``
    (``expires`` in epoch milliseconds), as pi stores them. ``base_url`` is the provider's
    configured one (catalogue or models.json). ``refresh`` returns a new record; the
    registry calls it when the access token has less than five minutes left and writes the result
    back. ``login`` and ``refresh`` raise ``OAuthError`` with a message for the user.
    """

    oauth_id: str
    name: str

    async def login(self, io: OAuthLoginIO, base_url: str | None = None) -> dict[str, Any]: ...

    async def refresh(self, credential: dict[str, Any], base_url: str | None = None) -> dict[str, Any]: ...

    def to_auth(self, credential: dict[str, Any]) -> OAuthAuth: ...


class OAuthError(Exception):
    """A login or token refresh that failed; the message says why (never a token)."""


class ProviderModelConfig(PiModel):
    """A model entry of a models.json provider (only ``id`` is required)."""

    id: str
    name: str | None = None
    api: str | None = None
    base_url: str | None = None
    reasoning: bool | None = None
    thinking_level_map: dict[str, str | None] | None = None
    input: list[Literal["text", "image"]] | None = None
    cost: ModelCost | None = None
    context_window: int | None = None
    max_tokens: int | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None


class ProviderConfig(PiModel):
    """A provider as ``models.json`` describes it (and as plugins register one).

    ``id`` is the provider name (the key under ``providers`` in models.json); ``name`` is an optional
    display name. ``api_key`` and header values are resolved at request time: ``!command``, the name of
    a set environment variable, or a literal.
    """

    id: str = ""
    name: str | None = None
    base_url: str | None = None
    api: str | None = None
    api_key: str | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    auth_header: bool | None = None
    models: list[ProviderModelConfig] | None = None
    model_overrides: dict[str, dict[str, Any]] | None = None


class ProviderDefinition(PiModel):
    """A built-in provider described as data (what the providers plugin registers).

    Unlike a :class:`ProviderConfig` from a plugin, a definition sits where pi's own catalogue sits:
    ``models.json`` patches it (``baseUrl``, ``modelOverrides``, extra ``models``) instead of being
    replaced by it. ``models`` are Model JSON objects whose ``api`` and ``baseUrl`` default to the
    provider's. In ``base_url`` a ``{NAME}`` is replaced by the environment variable ``NAME``;
    ``base_url_env`` names a variable whose value replaces the whole URL; a URL there (or in
    models.json) that names only the host (no path, or a leading part of ``base_url_env_path``)
    gets ``base_url_env_path`` when the host ends with one of ``base_url_env_hosts`` (any host when
    that is ``None``). For such a provider the environment (that variable, or every ``{NAME}`` of
    the template set) outranks a models.json ``baseUrl``.
    ``model_name_map_env`` names a variable of ``id=name`` pairs, comma-separated: a model whose id
    is listed is requested under that name (Azure deployment names). ``env`` lists the
    variables that hold the API key (the first set one wins); ``api_key`` is a fallback key
    (``!command``, a variable name or a literal), e.g. a dummy one for a local server. ``local``
    marks servers on this machine whose models are whatever they have loaded. ``oauth`` names the
    :class:`OAuthProvider` whose login ``/login`` runs for this provider (``github-copilot``).
    """

    id: str
    name: str | None = None
    api: str
    base_url: str = ""
    base_url_env: str | None = None
    base_url_env_path: str | None = None
    base_url_env_hosts: list[str] | None = None
    oauth: str | None = None
    model_name_map_env: str | None = None
    env: list[str] = Field(default_factory=list)
    api_key: str | None = None
    default_model: str | None = None
    local: bool = False
    compat: dict[str, Any] | None = None
    models: list[dict[str, Any]] = Field(default_factory=list)


_registry: dict[str, tuple[ApiProvider, str | None]] = {}


def register_api_provider(provider: ApiProvider, source_id: str | None = None) -> None:
    """Register (or replace) the provider for ``provider.api``; ``source_id`` allows bulk removal."""
    _registry[provider.api] = (provider, source_id)


def unregister_api_providers(source_id: str) -> None:
    for api, (_, source) in list(_registry.items()):
        if source == source_id:
            del _registry[api]


def clear_api_providers() -> None:
    _registry.clear()


def get_api_provider(api: str) -> ApiProvider | None:
    entry = _registry.get(api)
    return entry[0] if entry else None


def get_api_providers() -> list[ApiProvider]:
    return [provider for provider, _ in _registry.values()]


def resolve_api_provider(model: Model) -> ApiProvider:
    """The provider for ``model.api``, or pi's error."""
    provider = get_api_provider(model.api)
    if provider is None:
        raise LookupError(f"No API provider registered for api: {model.api}")
    if provider.api != model.api:
        raise ValueError(f"Mismatched api: {model.api} expected {provider.api}")
    return provider
