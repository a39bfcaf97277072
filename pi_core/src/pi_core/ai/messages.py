"""Messages and content blocks exactly as pi stores them in session files and sends on the wire.

Field names and values are JSON-compatible with pi 0.73.1 (see spec/agent-loop.md §2). The union
``Message`` covers what an LLM sees (user, assistant, toolResult); ``AgentMessage`` adds the
coding agent's own roles, which are converted to LLM messages before each provider call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

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


class Usage(PiModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


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
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)


class ToolResultMessage(PiModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContentBlock] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)


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
    | Annotated[CompactionSummaryMessage, Tag("compactionSummary")],
    Discriminator(_role_of),
]
"""Everything the agent keeps in its transcript and its session file."""

LlmMessage = UserMessage | AssistantMessage | ToolResultMessage
