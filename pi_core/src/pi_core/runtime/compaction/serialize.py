"""Flatten a conversation into the plain text a summary request quotes (spec §6.1).

Serializing, instead of sending the messages as messages, keeps the summarizing model from
continuing the conversation. Call ``convert_to_llm`` first so pi's own roles arrive as user text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pi_core.ai.messages import LlmMessage, ToolCall

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
    arguments = ", ".join([f"{key}={js_json(value)}" for key, value in call.arguments.items()])
    return f"{call.name}({arguments})"


def _text(content: list[Any]) -> str:
    # All text blocks concatenated; the single-block case (nearly every message) skips the join.
    if len(content) == 1:
        block = content[0]
        return block.text if block.type == "text" else ""
    return "".join([block.text for block in content if block.type == "text"])


def _serialize_assistant(content: list[Any], add: Callable[[str], None]) -> None:
    if len(content) == 1:  # the common shapes: one text answer or one tool call
        block = content[0]
        kind = block.type
        if kind == "text":
            add("[Assistant]: " + block.text)
        elif kind == "toolCall":
            add("[Assistant tool calls]: " + format_tool_call(block))
        elif kind == "thinking":
            add("[Assistant thinking]: " + block.thinking)
        return
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[str] = []
    for block in content:
        kind = block.type
        if kind == "text":
            texts.append(block.text)
        elif kind == "thinking":
            thinking.append(block.thinking)
        elif kind == "toolCall":
            calls.append(format_tool_call(block))
    if thinking:
        add("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        add("[Assistant]: " + "\n".join(texts))
    if calls:
        add("[Assistant tool calls]: " + "; ".join(calls))


def serialize_conversation(messages: Iterable[LlmMessage]) -> str:
    """pi's ``serializeConversation``: one labelled part per message piece, blank lines between.

    Thinking, text and tool calls of an assistant message come out in that order, whatever the
    block order was. Hot on big sessions, hence the inlined paths for single-block messages.
    """
    parts: list[str] = []
    add = parts.append
    limit = TOOL_RESULT_MAX_CHARS
    for message in messages:
        role = message.role
        content: Any = message.content
        if role == "assistant":
            if len(content) == 1 and content[0].type == "text":
                add("[Assistant]: " + content[0].text)
            else:
                _serialize_assistant(content, add)
            continue
        if content.__class__ is str:
            text = content
        elif len(content) == 1:
            block = content[0]
            text = block.text if block.type == "text" else ""
        else:
            text = _text(content)
        if not text:
            continue
        if role == "user":
            add("[User]: " + text)
        elif role == "toolResult":
            if len(text) > limit and text.isascii():
                # The usual long output: cut it in one step (no UTF-16 counting needed).
                add(f"[Tool result]: {text[:limit]}\n\n[... {len(text) - limit} more characters truncated]")
            else:
                add("[Tool result]: " + truncate_for_summary(text))
    return "\n\n".join(parts)
