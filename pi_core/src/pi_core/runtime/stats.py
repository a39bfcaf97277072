"""Session statistics as pi reports them (RPC ``get_session_stats``, ``/session``).

The models also drop ``None`` fields on output except where pi writes an explicit ``null``
(``contextUsage.tokens``/``percent`` right after a compaction).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from pi_core._model import PiModel
from pi_core.ai.messages import AssistantMessage, ToolResultMessage, Usage
from pi_core.session.entries import valid_usage


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
    """Message counts, token totals and cost of the live transcript."""

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


def compute_session_stats(
    counted: Iterable[tuple[str, str | None, Any]],
    *,
    session_file: str | None,
    session_id: str,
    context_usage: ContextUsage | None,
) -> SessionStats:
    """pi 1.6.0's ``getSessionStats``: over every entry of the session file (all branches;
    ``SessionManager.iter_counted``), count the message entries by role and sum the usage of
    assistant messages, of tool results that carry one, of ``usage`` entries and of
    compaction/branch-summary summaries. A usage that is not pi's usage object is left out
    (the reader reported it when the file was opened)."""
    users = assistants = results = total = tool_calls = 0
    usages: list[Usage] = []
    for kind, role, item in counted:
        if kind == "message":
            total += 1
            if role == "user":
                users += 1
            elif role == "assistant":
                assistants += 1
                if isinstance(item, AssistantMessage):
                    tool_calls += sum(1 for block in item.content if block.type == "toolCall")
                    usages.append(item.usage)
            elif role == "toolResult":
                results += 1
                extra = item.model_extra if isinstance(item, ToolResultMessage) else None
                usage = valid_usage(extra.get("usage")) if extra else None
                if usage is not None:
                    usages.append(usage)
        elif item is not None:
            usage = valid_usage(getattr(item, "usage", None))
            if usage is not None:
                usages.append(usage)
    tokens_in = sum(u.input for u in usages)
    tokens_out = sum(u.output for u in usages)
    cache_read = sum(u.cache_read for u in usages)
    cache_write = sum(u.cache_write for u in usages)
    return SessionStats(
        session_file=session_file,
        session_id=session_id,
        user_messages=users,
        assistant_messages=assistants,
        tool_calls=tool_calls,
        tool_results=results,
        total_messages=total,
        tokens=TokenTotals(
            input=tokens_in,
            output=tokens_out,
            cache_read=cache_read,
            cache_write=cache_write,
            total=tokens_in + tokens_out + cache_read + cache_write,
        ),
        cost=sum(u.cost.total for u in usages),
        context_usage=context_usage,
    )
