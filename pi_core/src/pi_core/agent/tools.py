"""The tool interface shared by the agent loop, the built-in tools plugin and third-party plugins.

A tool is a plain ``AgentTool`` record: what the model is told (name, description, JSON schema),
what the system prompt says about it, and an async ``execute``. Plugins build these and hand them to
``register_tools``; the loop validates arguments against ``parameters`` before calling ``execute``.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from pi_core._model import PiModel
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import ToolResultContentBlock


class AgentToolResult(PiModel):
    """What ``execute`` returns (and what ``on_update`` receives as a partial result).

    ``content`` is what the model sees; ``details`` is structured data stored with the result in
    the session and used by renderers, never sent to the model. ``terminate`` asks to end the run
    after this batch (honoured only when every result of the batch asks for it).
    """

    content: list[ToolResultContentBlock] = Field(default_factory=list)
    details: Any = None
    terminate: bool | None = None
    #: Data matching the tool's ``output_schema`` (kept in the session; the model reads ``content``).
    structured_content: Any = None
    #: ``True`` reports a failure that still carries a result (instead of raising).
    is_error: bool | None = None


ToolUpdate = Callable[[AgentToolResult], None]

ToolExposure = Literal["direct", "model-only", "codemode", "deferred", "hidden"]


class ToolExecute(Protocol):
    """``execute(tool_call_id, params, signal, on_update, ctx)``, parameters by position (any names).

    ``ctx`` is a :class:`pi_core.plugins.context.ToolContext` when pi's runtime calls the tool.
    """

    def __call__(
        self,
        tool_call_id: str,
        params: Any,
        signal: AbortSignal | None,
        on_update: ToolUpdate | None,
        ctx: Any,
        /,
    ) -> Awaitable[AgentToolResult | str]: ...


class ToolError(Exception):
    """Raise from ``execute`` to fail a tool call; the message goes to the model verbatim."""


#: The JSON schema of each parameter model, made on first use.
_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = weakref.WeakKeyDictionary()


@dataclass
class AgentTool:
    """A tool the model can call.

    ``parameters`` is either a pydantic model class (``execute`` then receives a validated instance)
    or a JSON-schema dict (``execute`` receives the validated dict). Raising from ``execute`` is the
    only way to report failure: the loop turns the exception into an ``isError`` tool result.
    """

    name: str
    label: str
    description: str
    parameters: type[BaseModel] | dict[str, Any]
    execute: ToolExecute
    #: One line for the system prompt's "Available tools" section; without it the tool is not listed.
    prompt_snippet: str | None = None
    #: Bullets added to the system prompt's "Guidelines" while the tool is active; each names the tool.
    prompt_guidelines: list[str] = field(default_factory=list)
    #: "sequential" makes any batch containing this tool run one call at a time.
    execution_mode: Literal["sequential", "parallel"] | None = None
    #: Compatibility shim run on raw arguments before validation (e.g. old stored shapes).
    prepare_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: Optional REPL renderers returning rich renderables: ``render_call(args, ctx)``,
    #: ``render_result(result, options, ctx)``. Only the interactive mode calls them.
    render_call: Callable[..., Any] | None = None
    render_result: Callable[..., Any] | None = None
    #: How the model and other tools reach it (pi 1.6): ``direct`` — declared to the model while
    #: active and callable by tools; ``model-only`` — declared, never called by other tools;
    #: ``codemode``/``deferred`` — callable by tools whenever registered, declared only once
    #: activated explicitly; ``hidden`` — registered but unreachable (how a tool is withdrawn).
    exposure: ToolExposure = "direct"
    #: ``False`` registers the tool inactive; ``--tools`` or ``ctx.set_active_tools`` activates it.
    default_active: bool = True
    #: MCP tool annotations (``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
    #: ``openWorldHint``): unverified hints a permission plugin may use.
    annotations: dict[str, Any] | None = None
    #: JSON schema of ``structured_content`` when the tool returns data (the model still gets ``content``).
    output_schema: dict[str, Any] | None = None

    @property
    def activates_on_registration(self) -> bool:
        """Registering it makes it active (pi: ``direct``/``model-only`` unless ``default_active=False``)."""
        return self.default_active and self.exposure in ("direct", "model-only")

    @property
    def callable_by_tools(self) -> bool:
        """Whether ``ctx.execute_tool`` may call it (``direct`` only while active)."""
        return self.exposure in ("direct", "codemode", "deferred")

    def json_schema(self) -> dict[str, Any]:
        """The parameters as the JSON schema sent to the provider (one dict per parameter model,
        as a dict given as ``parameters`` is itself; callers must not change it)."""
        if isinstance(self.parameters, dict):
            return self.parameters
        schema = _SCHEMAS.get(self.parameters)
        if schema is None:
            # pydantic generates the schema anew on each call; a request asks twice per tool.
            schema = _SCHEMAS[self.parameters] = self.parameters.model_json_schema()
        return schema
