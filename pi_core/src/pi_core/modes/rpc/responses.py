"""What the RPC mode writes back: responses to commands and the payloads they carry.

A response is ``{"id"?, "type": "response", "command", "success": true, "data"?}`` or
``{"id"?, "type": "response", "command", "success": false, "error"}``; ``id`` and ``data`` are
left out when there are none, exactly as pi's ``JSON.stringify`` drops ``undefined``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from pi_core._model import PiModel
from pi_core.modes.jsonl import to_wire

_ABSENT: Any = object()


def success_response(request_id: str | None, command: str, data: Any = _ABSENT) -> dict[str, Any]:
    """A success response; ``data`` may be ``None`` (written as ``null``) or absent."""
    response: dict[str, Any] = {}
    if request_id is not None:
        response["id"] = request_id
    response.update(type="response", command=command, success=True)
    if data is not _ABSENT:
        response["data"] = to_wire(data)
    return response


def error_response(request_id: str | None, command: str, message: str) -> dict[str, Any]:
    """A failure response carrying the error text."""
    response: dict[str, Any] = {}
    if request_id is not None:
        response["id"] = request_id
    response.update(type="response", command=command, success=False, error=message)
    return response


class WireModel(PiModel):
    """Drops ``None`` fields on output except those pi writes as an explicit ``null``."""

    keep_null: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _drop_absent(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        # exclude_none may already have dropped the explicit nulls; put them back in field order.
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            key = self._wire_name(name)
            if data.get(key) is not None:
                out[key] = data[key]
            elif name in self.keep_null and getattr(self, name) is None:
                out[key] = None
        for key, value in data.items():  # unknown (extra) fields keep their place at the end
            if key not in out and value is not None:
                out[key] = value
        return out

    @classmethod
    def _wire_name(cls, name: str) -> str:
        field = cls.model_fields.get(name)
        return field.alias if field is not None and field.alias else name


class RpcSessionState(WireModel):
    """``get_state`` data."""

    model: Any = None
    thinking_level: str
    is_streaming: bool
    is_compacting: bool
    steering_mode: Literal["all", "one-at-a-time"]
    follow_up_mode: Literal["all", "one-at-a-time"]
    session_file: str | None = None
    session_id: str
    session_name: str | None = None
    auto_compaction_enabled: bool
    message_count: int
    pending_message_count: int


class TokenTotals(WireModel):
    input: int
    output: int
    cache_read: int
    cache_write: int
    total: int


class ContextUsage(WireModel):
    """Context-window use; ``tokens``/``percent`` are ``null`` after a compaction until a fresh reply."""

    keep_null: ClassVar[frozenset[str]] = frozenset({"tokens", "percent"})

    tokens: int | None
    context_window: int
    percent: float | None


class SessionStats(WireModel):
    """``get_session_stats`` data."""

    session_file: str | None = None
    session_id: str
    user_messages: int
    assistant_messages: int
    tool_calls: int
    tool_results: int
    total_messages: int
    tokens: TokenTotals
    cost: float
    context_usage: ContextUsage | None = None


class BashResult(WireModel):
    """A user bash command's outcome (``bash`` data); ``exitCode`` is absent when cancelled."""

    output: str
    exit_code: int | None = None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None


class CycleModelResult(WireModel):
    model: Any
    thinking_level: str
    is_scoped: bool


class ForkMessage(WireModel):
    entry_id: str
    text: str


class SlashCommandInfo(WireModel):
    """One ``get_commands`` entry; ``source`` is extension, prompt or skill."""

    name: str
    description: str | None = None
    source: Literal["extension", "prompt", "skill"]
    source_info: dict[str, Any]
