"""The script a loopback server plays: one entry per request, rendered in the wire format asked for.

A :class:`Turn` is a successful (streamed) response made of blocks — :class:`Text`,
:class:`Thinking`, :class:`RedactedThinking`, :class:`ToolUse` — with usage and an optional
API-native stop reason; flags make it go wrong mid-stream (``malformed``, ``drop``). An
:class:`HttpError` answers with an error status and the API's own error body; :func:`overflow`
builds each API's context-overflow error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


def split(text: str, pieces: int) -> list[str]:
    """``text`` in ``pieces`` roughly equal fragments (at least one, never empty ones)."""
    if not text:
        return []
    pieces = max(1, min(pieces, len(text)))
    size = -(-len(text) // pieces)
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass
class Text:
    text: str
    chunks: int = 3


@dataclass
class Thinking:
    text: str
    signature: str = "sig-loopback"
    chunks: int = 2


@dataclass
class RedactedThinking:
    data: str = "opaque-redacted-payload"


@dataclass
class ToolUse:
    """A tool call; ``arguments`` may be a raw string (e.g. deliberately not JSON)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None
    chunks: int = 3

    def raw_arguments(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


Block = Text | Thinking | RedactedThinking | ToolUse


@dataclass
class Usage:
    input: int = 10
    output: int = 5
    cache_read: int = 0
    cache_write: int = 0
    #: Reasoning tokens (part of ``output``) the API reports; ``None`` leaves the field out.
    reasoning: int | None = None


@dataclass
class Turn:
    blocks: list[Block] = field(default_factory=list)
    #: API-native stop reason / finish reason / status; derived from the blocks when ``None``.
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    #: Seconds to sleep before each SSE event (slow streaming, for abort tests).
    delay: float = 0.0
    #: After the blocks, send an event whose data is not JSON.
    malformed: bool = False
    #: After the blocks, drop the connection without finishing the response.
    drop: bool = False
    #: After the blocks, end the HTTP response cleanly, without the API's closing events (a proxy
    #: that cut the stream at an event boundary).
    cut: bool = False
    #: After the blocks, send the API's in-stream error event (e.g. ``overloaded()`` mid-response).
    stream_error: HttpError | None = None


@dataclass
class HttpError:
    """An HTTP error response. ``message``/``error_type`` fill the API's error body."""

    status: int
    message: str = "error"
    error_type: str | None = None
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


ScriptEntry = Turn | HttpError


def text_turn(text: str, **kwargs: Any) -> Turn:
    return Turn(blocks=[Text(text)], **kwargs)


def tool_turn(*calls: ToolUse, text: str | None = None, **kwargs: Any) -> Turn:
    blocks: list[Block] = [Text(text)] if text else []
    blocks.extend(calls)
    return Turn(blocks=blocks, **kwargs)


def rate_limited() -> HttpError:
    return HttpError(429, "Rate limit reached for requests", "rate_limit_error", headers={"retry-after": "0"})


def server_error() -> HttpError:
    return HttpError(500, "Internal server error", "api_error")


def overloaded() -> HttpError:
    return HttpError(529, "Overloaded", "overloaded_error")


def overflow(api: str) -> HttpError:
    """The context-overflow error each API really returns."""
    if api == "anthropic-messages":
        return HttpError(400, "prompt is too long: 213462 tokens > 200000 maximum", "invalid_request_error")
    if api == "openai-responses":
        return HttpError(
            400,
            "Your input exceeds the context window of this model. Please adjust your input and try again.",
            "invalid_request_error",
            code="context_length_exceeded",
        )
    return HttpError(
        400,
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 "
        "tokens. Please reduce the length of the messages.",
        "invalid_request_error",
        code="context_length_exceeded",
    )
