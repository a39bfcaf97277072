"""Session statistics as pi reports them (RPC ``get_session_stats``, ``/session``).

The models also drop ``None`` fields on output except where pi writes an explicit ``null``
(``contextUsage.tokens``/``percent`` right after a compaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from pi_core._model import PiModel
from pi_core.ai.messages import AssistantMessage


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


def compute_stats(
    messages: Sequence[Any],
    *,
    session_file: str | None,
    session_id: str,
    context_usage: ContextUsage | None,
) -> SessionStats:
    """Count the transcript's messages and sum assistant usage, as pi's ``getSessionStats``."""
    users = sum(1 for m in messages if m.role == "user")
    results = sum(1 for m in messages if m.role == "toolResult")
    assistants = [m for m in messages if isinstance(m, AssistantMessage)]
    tool_calls = sum(1 for m in assistants for block in m.content if block.type == "toolCall")
    tokens_in = sum(m.usage.input for m in assistants)
    tokens_out = sum(m.usage.output for m in assistants)
    cache_read = sum(m.usage.cache_read for m in assistants)
    cache_write = sum(m.usage.cache_write for m in assistants)
    return SessionStats(
        session_file=session_file,
        session_id=session_id,
        user_messages=users,
        assistant_messages=len(assistants),
        tool_calls=tool_calls,
        tool_results=results,
        total_messages=len(messages),
        tokens=TokenTotals(
            input=tokens_in,
            output=tokens_out,
            cache_read=cache_read,
            cache_write=cache_write,
            total=tokens_in + tokens_out + cache_read + cache_write,
        ),
        cost=sum(m.usage.cost.total for m in assistants),
        context_usage=context_usage,
    )
