"""Token accounting: provider usage, pi's chars/4 estimate, and the threshold test (spec §3).

All lengths are JavaScript string lengths (UTF-16 code units) so the estimates, and therefore
the cut points, equal the TypeScript pi's on the same session.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring as _encode_string
from typing import Any

from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_core.session.jsonl import dumps

from .settings import CompactionSettings

_fast_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

#: What one image block counts in tool results and custom messages (1200 tokens).
IMAGE_CHARS = 4800


def js_len(text: str) -> int:
    """Length of ``text`` as JavaScript counts it (UTF-16 code units: an emoji counts 2).

    ASCII is answered from the string's header. Otherwise the UTF-16 encoding is measured: in C
    it beats any scan for astral characters written in Python (or a regex) by far. A lone
    surrogate, as read from a file JavaScript wrote, is one unit there and here.
    """
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def _has_float(value: Any) -> bool:
    if type(value) is float:
        return True
    if isinstance(value, dict):
        return any(_has_float(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_float(item) for item in value)
    return False


def js_json(value: Any) -> str:
    """``JSON.stringify(value)`` for JSON data.

    Without floats, the C encoder writes exactly what JavaScript does (same escapes, non-ASCII
    kept); floats need JavaScript's number formatting, which the session writer implements.
    """
    if type(value) is str:
        return _encode_string(value)
    if _has_float(value):
        return dumps(value)
    return _fast_dumps(value)


def calculate_context_tokens(usage: Usage) -> int:
    """The context size a response reports: ``totalTokens``, or the sum of its parts when that is 0."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def valid_usage(message: AgentMessage) -> Usage | None:
    """The usage of an assistant message that neither errored nor was aborted; else None."""
    if isinstance(message, AssistantMessage) and message.stop_reason not in ("aborted", "error"):
        return message.usage
    return None


def _content_chars(content: str | Sequence[Any], image_chars: int) -> int:
    if isinstance(content, str):
        return js_len(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += js_len(block.text)
        elif isinstance(block, ImageContent):
            chars += image_chars
    return chars


def estimate_tokens(message: AgentMessage) -> int:
    """pi's conservative estimate: ceil(chars / 4), chars counted per role (spec §3.2)."""
    if isinstance(message, UserMessage):
        chars = _content_chars(message.content, 0)
    elif isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += js_len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += js_len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += js_len(block.name) + js_len(js_json(block.arguments))
    elif isinstance(message, ToolResultMessage | CustomMessage):
        chars = _content_chars(message.content, IMAGE_CHARS)
    elif isinstance(message, BashExecutionMessage):
        chars = js_len(message.command) + js_len(message.output)
    elif isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        chars = js_len(message.summary)
    else:
        return 0
    return math.ceil(chars / 4)


@dataclass(frozen=True)
class ContextEstimate:
    """``tokens`` = usage of the last valid response + estimates of the messages after it."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    #: Index of the message whose usage was used, or None when every message was estimated.
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> ContextEstimate:
    """pi's ``estimateContextTokens`` (spec §3.3)."""
    for index in range(len(messages) - 1, -1, -1):
        usage = valid_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(message) for message in messages[index + 1 :])
            return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = sum(estimate_tokens(message) for message in messages)
    return ContextEstimate(estimated, 0, estimated, None)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """The threshold test: enabled and the context leaves less than ``reserveTokens`` free.

    An unknown window (0) always answers True, as pi does.
    """
    if not settings.enabled:
        return False
    return context_tokens > context_window - settings.reserve_tokens
