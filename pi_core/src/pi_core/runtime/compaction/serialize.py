"""Flatten a conversation into the plain text a summary request quotes (spec §6.1).

Serializing, instead of sending the messages as messages, keeps the summarizing model from
continuing the conversation. Call ``convert_to_llm`` first so pi's own roles arrive as user text.
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_core.ai.messages import (
    AssistantMessage,
    LlmMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

from .tokens import js_json, js_len

#: Tool results longer than this (in UTF-16 units) are cut in the serialized text.
TOOL_RESULT_MAX_CHARS = 2000


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """The first ``max_chars`` characters plus a marker saying how many were dropped."""
    length = js_len(text)
    if length <= max_chars:
        return text
    if text.isascii():
        head = text[:max_chars]
    else:
        # Cut at a UTF-16 offset, as JavaScript's slice does (it may split a surrogate pair).
        head = text.encode("utf-16-le", "surrogatepass")[: 2 * max_chars].decode("utf-16-le", "replace")
    return f"{head}\n\n[... {length - max_chars} more characters truncated]"


def format_tool_call(call: ToolCall) -> str:
    """``name(k1=v1, k2=v2)`` with each value as compact JSON, keys in stored order."""
    arguments = ", ".join(f"{key}={js_json(value)}" for key, value in call.arguments.items())
    return f"{call.name}({arguments})"


def _serialize_assistant(message: AssistantMessage, parts: list[str]) -> None:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[str] = []
    for block in message.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ThinkingContent):
            thinking.append(block.thinking)
        elif isinstance(block, ToolCall):
            calls.append(format_tool_call(block))
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))


def serialize_conversation(messages: Iterable[LlmMessage]) -> str:
    """pi's ``serializeConversation``: one labelled part per message piece, blank lines between."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            text = (
                content
                if isinstance(content, str)
                else "".join(block.text for block in content if isinstance(block, TextContent))
            )
            if text:
                parts.append(f"[User]: {text}")
        elif isinstance(message, AssistantMessage):
            _serialize_assistant(message, parts)
        elif isinstance(message, ToolResultMessage):
            text = "".join(block.text for block in message.content if isinstance(block, TextContent))
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)
