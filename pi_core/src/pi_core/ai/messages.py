"""Messages and content blocks exactly as pi stores them in session files and sends on the wire.

Field names and values are JSON-compatible with pi 0.73.1 (see spec/agent-loop.md §2). The union
``Message`` covers what an LLM sees (user, assistant, toolResult); ``AgentMessage`` adds the
coding agent's own roles, which are converted to LLM messages before each provider call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from pi_core._model import PiModel


def now_ms() -> int:
    """Milliseconds since the epoch, the unit pi uses for every message timestamp."""
    return int(time.time() * 1000)


# --- content blocks -------------------------------------------------------------------------------


class TextContent(PiModel):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(PiModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    #: The provider sent an opaque (redacted) block; its payload lives in ``thinking_signature``.
    redacted: bool | None = None


class ImageContent(PiModel):
    type: Literal["image"] = "image"
    data: str  # base64
    mime_type: str


class ToolCall(PiModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = None
    #: Why ``arguments`` is ``{}``: the model's text was not a JSON object (pi 1.6.0's
    #: ``argumentsError``). Tool validation reports it to the model instead of running the tool.
    arguments_error: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _non_object_arguments(cls, data: Any) -> Any:
        # Files written by other pi versions can hold a string, an array or null here; they still
        # open. The value stays in the file (lines are kept); the call reads as one whose
        # arguments were not a JSON object, which is what it was.
        if isinstance(data, dict) and "arguments" in data and not isinstance(data["arguments"], dict):
            raw = data["arguments"]
            error = f"Tool arguments must be a JSON object\n\nReceived arguments:\n{_json_text(raw)}"
            data = {**data, "arguments": {}}
            data.setdefault("argumentsError", error)
        return data


def _json_text(value: Any) -> str:
    import json

    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


UserContentBlock = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContentBlock = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]
ToolResultContentBlock = UserContentBlock


# --- usage ----------------------------------------------------------------------------------------


class Cost(PiModel):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0
    #: pi 1.6.0: ``total`` is the provider's own figure rather than computed from prices.
    total_from_provider: bool | None = None


class Usage(PiModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    #: pi 1.6.0: the part of ``cache_write`` written with one-hour retention (Anthropic only).
    cache_write_1h: int | None = Field(default=None, alias="cacheWrite1h")
    #: pi 1.6.0: reasoning tokens (part of ``output``), when the provider reports them.
    reasoning: int | None = None
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


def sum_usage(usages: Sequence[Usage]) -> Usage | None:
    """The usages added up field by field (pi's ``combineUsage``); ``None`` for none at all.

    One usage comes back as a copy of itself. A sum of two or more has ``cost.totalFromProvider``
    set, true only when every part's total came from its provider, as pi 1.6.0 writes it.
    """
    if not usages:
        return None
    if len(usages) == 1:
        return usages[0].model_copy(deep=True)
    total = Usage()
    total.cost.total_from_provider = all(usage.cost.total_from_provider is True for usage in usages)
    for usage in usages:
        total.input += usage.input
        total.output += usage.output
        total.cache_read += usage.cache_read
        total.cache_write += usage.cache_write
        total.total_tokens += usage.total_tokens
        if usage.cache_write_1h is not None:
            total.cache_write_1h = (total.cache_write_1h or 0) + usage.cache_write_1h
        if usage.reasoning is not None:
            total.reasoning = (total.reasoning or 0) + usage.reasoning
        total.cost.input += usage.cost.input
        total.cost.output += usage.cost.output
        total.cost.cache_read += usage.cost.cache_read
        total.cost.cache_write += usage.cost.cache_write
        total.cost.total += usage.cost.total
    return total


#: pi 1.6.0's stop reasons. ``pending``: a reply still streaming (pi 1.6.0's ``message_start``); a
#: finished one never has it. ``deferred``: a reply a provider will hand over later (pi's type has it).
StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "pending", "deferred"]


# --- LLM messages ---------------------------------------------------------------------------------


class UserMessage(PiModel):
    role: Literal["user"] = "user"
    content: str | list[UserContentBlock]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(PiModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContentBlock] = Field(default_factory=list)
    api: str
    provider: str
    model: str
    response_model: str | None = None
    response_id: str | None = None
    usage: Usage = Field(default_factory=Usage)
    #: One of :data:`StopReason`, or a value this version does not know (a newer pi's), which is
    #: kept as it is: pi 1.6.0 sends such a reply to the model as any other, only ``error`` and
    #: ``aborted`` replies stay out of the context.
    stop_reason: StopReason | str = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)
    #: pi 1.6.0: the provider's own stop/finish reason (``end_turn``, ``tool_calls``, ...).
    raw_stop_reason: str | None = None
    #: pi 1.6.0: milliseconds from the request to the end of the response.
    duration_ms: int | None = None
    #: pi 1.6.0: the thinking level requested for this response.
    thinking_level: str | None = None


class NestedCall(PiModel):
    """One call a tool made through ``ctx.execute_tool`` (pi 1.6.0's record; never its result)."""

    id: str
    name: str
    status: Literal["ok", "error", "unfinished"] = "unfinished"
    #: The arguments, unless they were too large to keep (then ``arguments_bytes`` says how large).
    arguments: Any = None
    arguments_bytes: int | None = None
    duration_ms: int | None = None
    #: The start of the error text of a failed call.
    error: str | None = None


class NestedCalls(PiModel):
    """``nestedCalls`` of a tool result: the calls its tool made, bounded; ``complete`` is false
    when anything was left out (too many calls, arguments too large, a call that never finished)."""

    calls: list[NestedCall] = Field(default_factory=list)
    complete: bool = True


class ToolResultMessage(PiModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContentBlock] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    #: pi 1.6.0: how long the tool ran, in milliseconds.
    duration_ms: int | None = None
    #: pi 1.6.0: the calls the tool made through ``ctx.execute_tool``, if any.
    nested_calls: NestedCalls | None = None
    timestamp: int = Field(default_factory=now_ms)


# --- system messages (pi 1.6.0: the prompt and tool loadout as part of the transcript) ------------


class ToolDeclaration(PiModel):
    """A tool as the model is told about it: what a system message's ``toolsAdded`` holds."""

    name: str
    description: str = ""
    parameters: Any = None


class ToolReference(PiModel):
    """A tool named in ``toolsRemoved``."""

    name: str


class SystemMessage(PiModel):
    """The system prompt and the tools, or a change of them (pi 1.6.0).

    The first one of a session holds every prompt section and tool; later ones patch
    ``sections`` by name (``None`` removes a section) and list ``toolsAdded``/``toolsRemoved``.
    Replaying them in order (:func:`current_system_message`) gives the current prompt and tools.
    Never sent as a conversation message: the provider request carries the prompt itself.
    """

    role: Literal["system"] = "system"
    content: str | list[UserContentBlock] = ""
    sections: dict[str, str | None] | None = None
    timestamp: int = Field(default_factory=now_ms)
    tools_added: list[ToolDeclaration] | None = None
    tools_removed: list[ToolReference] | None = None

    @model_validator(mode="before")
    @classmethod
    def _null_content(cls, data: Any) -> Any:
        # pi reads a missing or null content as "" (hand-edited and forked files have them).
        if isinstance(data, dict) and data.get("content") is None:
            data = {**data, "content": ""}
        return data


def system_message_text(message: SystemMessage) -> str:
    """The prompt a system message stands for: its content, then its sections, blank-line separated."""
    parts = [text_of(message.content)]
    parts.extend(text for text in (message.sections or {}).values() if text is not None)
    return "\n\n".join(part for part in parts if part)


def current_system_message(messages: Sequence[Any]) -> SystemMessage | None:
    """Every system message of ``messages`` replayed into one: contents joined, sections patched
    by name, tools added and removed in order. ``None`` when there is none (pi's
    ``getCurrentSystemMessage``)."""
    contents: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, ToolDeclaration] = {}
    timestamp: int | None = None
    for message in messages:
        if not isinstance(message, SystemMessage):
            continue
        if timestamp is None:
            timestamp = message.timestamp
        text = text_of(message.content)
        if text:
            contents.append(text)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for removed in message.tools_removed or ():
            tools.pop(removed.name, None)
        for added in message.tools_added or ():
            tools[added.name] = added
    if timestamp is None and not tools:
        return None
    return SystemMessage(
        content="\n\n".join(contents),
        sections=dict(sections) if sections else None,
        tools_added=list(tools.values()) if tools else None,
        timestamp=timestamp or 0,
    )


# --- coding-agent messages (converted before each LLM call) ---------------------------------------


class BashExecutionMessage(PiModel):
    """A user's ``!cmd``; sent to the LLM as a user text unless ``exclude_from_context``."""

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(PiModel):
    """A message a plugin injected; the LLM sees it as a user message with the same content."""

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContentBlock]
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)


class BranchSummaryMessage(PiModel):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(PiModel):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: int = Field(default_factory=now_ms)


Message = Annotated[
    UserMessage | AssistantMessage | ToolResultMessage,
    Field(discriminator="role"),
]


def text_of(content: str | Sequence[Any]) -> str:
    """The text of a message's content: the string itself, or its text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") for block in content if getattr(block, "type", None) == "text")


def _role_of(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("role", ""))
    return str(getattr(value, "role", ""))


AgentMessage = Annotated[
    Annotated[UserMessage, Tag("user")]
    | Annotated[AssistantMessage, Tag("assistant")]
    | Annotated[ToolResultMessage, Tag("toolResult")]
    | Annotated[BashExecutionMessage, Tag("bashExecution")]
    | Annotated[CustomMessage, Tag("custom")]
    | Annotated[BranchSummaryMessage, Tag("branchSummary")]
    | Annotated[CompactionSummaryMessage, Tag("compactionSummary")]
    | Annotated[SystemMessage, Tag("system")],
    Discriminator(_role_of),
]
"""Everything the agent keeps in its transcript and its session file."""

LlmMessage = UserMessage | AssistantMessage | ToolResultMessage
