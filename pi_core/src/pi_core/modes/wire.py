"""Session events as the JSON and RPC streams carry them (pi 1.6.0's ``JsonAgentSessionEvent``).

In process, a ``message_update`` holds the growing assistant message (``message``) and every
provider event holds it again (``partial``). Written out like that, an answer of N deltas costs
O(N²) bytes. On the wire a ``message_update`` is therefore only the provider event without its
``partial``, plus the assistant message's current ``usage``; a ``toolcall_start`` names the call
(``id``, ``toolName``), which the partial would otherwise have told. Clients rebuild the message
from the deltas and take ``message_end`` as final. Every other event goes out as it is.
"""

from __future__ import annotations

from typing import Any

from pi_core.agent.events import MessageUpdateEvent
from pi_core.ai.messages import ToolCall

_DROPPED = {"partial"}


def wire_event(event: Any) -> Any:
    """The value to serialize for ``event``: ``message_update`` in its delta-only form, else itself."""
    if isinstance(event, MessageUpdateEvent):
        return message_update_record(event)
    return event


def message_update_record(event: MessageUpdateEvent) -> dict[str, Any]:
    """``{"type": "message_update", "usage", "assistantMessageEvent"}`` without cumulative copies."""
    update = event.assistant_message_event
    body = update.model_dump(mode="json", by_alias=True, exclude_none=True, exclude=_DROPPED)
    if update.type == "toolcall_start":
        block = _block(event, body.get("contentIndex"))
        if isinstance(block, ToolCall):
            body["id"] = block.id
            body["toolName"] = block.name
    usage = event.message.usage.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"type": "message_update", "usage": usage, "assistantMessageEvent": body}


def _block(event: MessageUpdateEvent, index: Any) -> Any:
    content = event.message.content
    if isinstance(index, int) and 0 <= index < len(content):
        return content[index]
    return None
