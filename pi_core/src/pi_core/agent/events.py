"""The agent's lifecycle events, shaped as pi-agent-core's ``AgentEvent`` (spec §3.2).

The loop builds ``message_update`` once per streamed delta; it uses ``model_construct`` (trusted
data, core only) so the hot path does not re-validate the message.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_core._model import PiModel
from pi_core.agent.tools import AgentToolResult
from pi_core.ai.messages import AgentMessage, AssistantMessage, ToolResultMessage
from pi_core.ai.provider import AssistantMessageEvent


class AgentStartEvent(PiModel):
    type: Literal["agent_start"] = "agent_start"


class AgentEndEvent(PiModel):
    """The run is over; ``messages`` are the messages added during this run.

    ``will_retry`` is filled in by the session layer (an automatic retry follows); the loop itself
    leaves it ``False``.
    """

    type: Literal["agent_end"] = "agent_end"
    messages: list[AgentMessage] = Field(default_factory=list)
    will_retry: bool = False


class TurnStartEvent(PiModel):
    type: Literal["turn_start"] = "turn_start"


class TurnEndEvent(PiModel):
    type: Literal["turn_end"] = "turn_end"
    message: AgentMessage
    tool_results: list[ToolResultMessage] = Field(default_factory=list)


class MessageStartEvent(PiModel):
    type: Literal["message_start"] = "message_start"
    message: AgentMessage


class MessageUpdateEvent(PiModel):
    """One streamed provider event. ``message`` is the partial assistant message (shared, mutable:
    serialise it right away or rely on the deltas and the final ``message_end``)."""

    type: Literal["message_update"] = "message_update"
    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent


class MessageEndEvent(PiModel):
    type: Literal["message_end"] = "message_end"
    message: AgentMessage


class ToolExecutionStartEvent(PiModel):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Any = None
    #: The calling tool's call id when another tool made this call (``ctx.execute_tool``).
    parent_tool_call_id: str | None = None


class ToolExecutionUpdateEvent(PiModel):
    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Any = None
    partial_result: AgentToolResult
    parent_tool_call_id: str | None = None


class ToolExecutionEndEvent(PiModel):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool = False
    #: How long ``execute`` ran, in ms (``None``: the tool never ran — unknown, invalid, blocked).
    duration_ms: int | None = None
    parent_tool_call_id: str | None = None


AgentEvent = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)
