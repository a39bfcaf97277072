"""Flatten a conversation into the plain text a summary request quotes (spec §6.1).

Serializing, instead of sending the messages as messages, keeps the summarizing model from
continuing the conversation. Call ``convert_to_llm`` first so pi's own roles arrive as user text
(or let :func:`serialize_conversation_into` convert on the way).

Hot on big sessions (bench/bench_compaction.py: ~100k messages, ~60 M characters): the text is
collected as pieces and joined once, so each character is copied once (twice when a tool result
is cut), and roles and block kinds are read from the object's class where it is one of pi's
own, which spares a dictionary lookup per message and block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from json.encoder import encode_basestring as _encode_string
from typing import Any

from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    LlmMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_core.session.convert import convert_to_llm

from .tokens import js_json, js_len

#: Tool results longer than this (in UTF-16 units) are cut in the serialized text.
TOOL_RESULT_MAX_CHARS = 2000

#: pi's own classes and what their ``role`` / ``type`` always is (other classes are asked).
_LLM_ROLES: dict[type, str] = {
    UserMessage: "user",
    AssistantMessage: "assistant",
    ToolResultMessage: "toolResult",
}
_LLM_CLASSES = (UserMessage, AssistantMessage, ToolResultMessage)
_BLOCK_TYPES: dict[type, str] = {
    TextContent: "text",
    ThinkingContent: "thinking",
    ToolCall: "toolCall",
    ImageContent: "image",
}


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """The first ``max_chars`` characters plus a marker saying how many were dropped."""
    length = js_len(text)
    if length <= max_chars:
        return text
    head = text[:max_chars]  # the first max_chars UTF-16 units lie within these code points
    if not head.isascii():
        # Cut at a UTF-16 offset, as JavaScript's slice does (it may split a surrogate pair).
        head = head.encode("utf-16-le", "surrogatepass")[: 2 * max_chars].decode("utf-16-le", "replace")
    return f"{head}\n\n[... {length - max_chars} more characters truncated]"


def format_tool_call(call: ToolCall) -> str:
    """``name(k1=v1, k2=v2)`` with each value as compact JSON, keys in stored order."""
    arguments = call.arguments
    if len(arguments) == 1:  # the usual ``read(path=...)``: no list, no join
        for key, value in arguments.items():
            if type(value) is str:
                return f"{call.name}({key}={_encode_string(value)})"
    return f"{call.name}({', '.join([f'{key}={js_json(value)}' for key, value in arguments.items()])})"


def _block_type(block: Any) -> str:
    return _BLOCK_TYPES.get(type(block)) or block.type


def _text(content: list[Any]) -> str:
    # All text blocks concatenated; the single-block case (nearly every message) skips the join.
    if len(content) == 1:
        block = content[0]
        return block.text if _block_type(block) == "text" else ""
    return "".join([block.text for block in content if _block_type(block) == "text"])


def _assistant_pieces(content: list[Any], add: Callable[[str], None]) -> None:
    if len(content) == 1:  # the common shapes: one text answer or one tool call
        block = content[0]
        kind = _block_type(block)
        if kind == "text":
            add("\n\n[Assistant]: ")
            add(block.text)
        elif kind == "toolCall":
            add("\n\n[Assistant tool calls]: ")
            add(format_tool_call(block))
        elif kind == "thinking":
            add("\n\n[Assistant thinking]: ")
            add(block.thinking)
        return
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[str] = []
    for block in content:
        kind = _block_type(block)
        if kind == "text":
            texts.append(block.text)
        elif kind == "thinking":
            thinking.append(block.thinking)
        elif kind == "toolCall":
            calls.append(format_tool_call(block))
    if thinking:
        add("\n\n[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        add("\n\n[Assistant]: " + "\n".join(texts))
    if calls:
        add("\n\n[Assistant tool calls]: " + "; ".join(calls))


def _pieces(messages: Iterable[Any], add: Callable[[str], None], convert: bool) -> None:
    # Every piece of a message begins with the blank line that separates it from the one before.
    # The single-block shapes (nearly every message) are handled inline, without helper calls.
    limit = TOOL_RESULT_MAX_CHARS
    block_types = _BLOCK_TYPES
    for message in messages:
        role = _LLM_ROLES.get(type(message))
        if role is None:
            if convert and not isinstance(message, _LLM_CLASSES):
                _pieces(convert_to_llm([message]), add, False)
                continue
            role = message.role
        content: Any = message.content
        if content.__class__ is str:
            text = content
        elif len(content) == 1:
            block = content[0]
            kind = block_types.get(type(block)) or block.type
            if kind == "text":
                text = block.text
            elif role == "assistant":
                _assistant_pieces(content, add)
                continue
            else:
                continue
        elif role == "assistant":
            _assistant_pieces(content, add)
            continue
        else:
            text = _text(content)
        if role == "assistant":
            add("\n\n[Assistant]: ")
            add(text)
        elif not text:
            continue
        elif role == "user":
            add("\n\n[User]: ")
            add(text)
        elif role == "toolResult":
            add("\n\n[Tool result]: ")
            if len(text) > limit and text.isascii():
                # The usual long output: cut it in one step (no UTF-16 counting needed).
                add(text[:limit])
                add(f"\n\n[... {len(text) - limit} more characters truncated]")
            else:
                add(truncate_for_summary(text))


def serialize_conversation_into(out: list[str], messages: Iterable[Any], *, convert: bool = False) -> None:
    """Append the pieces of ``serialize_conversation(messages)`` to ``out``, so a caller can join
    them with its own text in one go. ``convert=True`` takes agent messages and applies
    ``convert_to_llm`` on the way (same text as converting the whole list first)."""
    start = len(out)
    _pieces(messages, out.append, convert)
    if len(out) > start:
        out[start] = out[start][2:]  # no separator before the first piece


def serialize_conversation(messages: Iterable[LlmMessage]) -> str:
    """pi's ``serializeConversation``: one labelled part per message piece, blank lines between.

    Thinking, text and tool calls of an assistant message come out in that order, whatever the
    block order was.
    """
    parts: list[str] = []
    serialize_conversation_into(parts, messages)
    return "".join(parts)
