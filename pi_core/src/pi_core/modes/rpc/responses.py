"""What the RPC mode writes back: responses to commands and the payloads they carry.

A response is ``{"id"?, "type": "response", "command", "success": true, "data"?}`` or
``{"id"?, "type": "response", "command", "success": false, "error"}``; ``id`` and ``data`` are
left out when there are none, exactly as pi's ``JSON.stringify`` drops ``undefined``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pi_core.modes.jsonl import to_wire
from pi_core.runtime.stats import ContextUsage, SessionStats, TokenTotals, WireModel
from pi_core.session.entries import to_wire as entry_to_wire

__all__ = [
    "BashResult",
    "ContextUsage",
    "CycleModelResult",
    "RpcSessionState",
    "SessionStats",
    "TokenTotals",
    "WireModel",
    "bash_update",
    "entries_since",
    "error_response",
    "success_response",
    "tree_response_line",
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


def error_response(request_id: str | None, command: str | None, message: str) -> dict[str, Any]:
    """A failure response carrying the error text; ``command`` is left out when the input had no
    ``type`` to name (as pi leaves it out)."""
    response: dict[str, Any] = {}
    if request_id is not None:
        response["id"] = request_id
    response["type"] = "response"
    if command is not None:
        response["command"] = command
    response.update(success=False, error=message)
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


def bash_update(request_id: str | None, delta: str) -> dict[str, Any]:
    """``bash_execution_update``: one chunk of a running RPC ``bash`` command's output."""
    update: dict[str, Any] = {"type": "bash_execution_update"}
    if request_id is not None:
        update["id"] = request_id
    update["delta"] = delta
    return update


def entries_since(manager: Any, since: str | None) -> list[dict[str, Any]]:
    """Every entry in append order as the file holds it, or only those after the entry ``since``.

    Raises ``KeyError`` when ``since`` names no entry.
    """
    entries = manager.get_entries()
    if since is not None:
        index = next((i for i, entry in enumerate(entries) if entry.id == since), None)
        if index is None:
            raise KeyError(since)
        entries = entries[index + 1 :]
    return [entry_to_wire(entry) for entry in entries]


def tree_response_line(request_id: str | None, roots: list[Any], leaf_id: str | None) -> str:
    """The ``get_tree`` response as one finished JSON line.

    A session is mostly one long chain, so its tree is as deep as the session is long; it is
    written with an explicit stack (no recursion, no nesting limit of the JSON encoder).
    Nodes are ``{entry, children, label?, labelTimestamp?}``.
    """
    head = success_response(request_id, "get_tree")
    parts = [_compact(head)[:-1], ',"data":{"tree":[']
    # The stack holds nodes to open, or closing text to write once a node's children are done.
    stack: list[Any] = [*reversed(roots)]
    pending_comma: list[bool] = [False]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            if item.startswith("]"):
                pending_comma.pop()
            continue
        if pending_comma[-1]:
            parts.append(",")
        pending_comma[-1] = True
        parts.append('{"entry":')
        parts.append(_compact(to_wire(entry_to_wire(item.entry))))
        parts.append(',"children":[')
        closing = "]"
        if item.label is not None:
            closing += ',"label":' + _compact(item.label)
        if item.label_timestamp is not None:
            closing += ',"labelTimestamp":' + _compact(item.label_timestamp)
        pending_comma.append(False)
        stack.append(closing + "}")
        stack.extend(reversed(item.children))
    parts.append('],"leafId":' + _compact(leaf_id) + "}}\n")
    return "".join(parts)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
