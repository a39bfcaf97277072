"""What the RPC mode writes back: responses to commands and the payloads they carry.

A response is ``{"id"?, "type": "response", "command", "success": true, "data"?}`` or
``{"id"?, "type": "response", "command", "success": false, "error"}``; ``id`` and ``data`` are
left out when there are none, exactly as pi's ``JSON.stringify`` drops ``undefined``.
"""

from __future__ import annotations

from typing import Any, Literal

from pi_core.modes.jsonl import to_wire
from pi_core.runtime.stats import ContextUsage, SessionStats, TokenTotals, WireModel

__all__ = [
    "BashResult",
    "ContextUsage",
    "CycleModelResult",
    "RpcSessionState",
    "SessionStats",
    "TokenTotals",
    "WireModel",
    "error_response",
    "success_response",
]

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
