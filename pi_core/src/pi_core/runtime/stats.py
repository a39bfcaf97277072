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


class StatsTally:
    """The running counts and usage sums behind :class:`SessionStats`, fed entry by entry.

    Entries never change once appended, so a session's figures can be brought up to date by
    feeding only the entries appended since the last time (``counted`` says how many were fed):
    the REPL footer asks after every job, and a full pass over a 1M-entry file takes seconds.
    """

    __slots__ = (
        "assistants",
        "cache_read",
        "cache_write",
        "cost",
        "counted",
        "input",
        "output",
        "results",
        "tool_calls",
        "total",
        "users",
    )

    def __init__(self) -> None:
        self.counted = 0
        self.users = self.assistants = self.results = self.total = self.tool_calls = 0
        self.input = self.output = self.cache_read = self.cache_write = 0
        self.cost = 0.0

    def add(self, kind: str, role: str | None, item: Any) -> None:
        """Count one entry as ``SessionManager.iter_counted`` describes it."""
        self.counted += 1
        if kind == "message":
            self.total += 1
            if role == "user":
                self.users += 1
            elif role == "assistant":
                self.assistants += 1
                if isinstance(item, AssistantMessage):
                    self.tool_calls += sum(1 for block in item.content if block.type == "toolCall")
                    self._use(item.usage)
            elif role == "toolResult":
                self.results += 1
                extra = item.model_extra if isinstance(item, ToolResultMessage) else None
                usage = valid_usage(extra.get("usage")) if extra else None
                if usage is not None:
                    self._use(usage)
        elif item is not None:
            usage = valid_usage(getattr(item, "usage", None))
            if usage is not None:
                self._use(usage)

    def _use(self, usage: Usage) -> None:
        self.input += usage.input
        self.output += usage.output
        self.cache_read += usage.cache_read
        self.cache_write += usage.cache_write
        self.cost += usage.cost.total

    def stats(
        self, *, session_file: str | None, session_id: str, context_usage: ContextUsage | None
    ) -> SessionStats:
        return SessionStats(
            session_file=session_file,
            session_id=session_id,
            user_messages=self.users,
            assistant_messages=self.assistants,
            tool_calls=self.tool_calls,
            tool_results=self.results,
            total_messages=self.total,
            tokens=TokenTotals(
                input=self.input,
                output=self.output,
                cache_read=self.cache_read,
                cache_write=self.cache_write,
                total=self.input + self.output + self.cache_read + self.cache_write,
            ),
            cost=self.cost,
            context_usage=context_usage,
        )


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
    tally = StatsTally()
    for kind, role, item in counted:
        tally.add(kind, role, item)
    return tally.stats(session_file=session_file, session_id=session_id, context_usage=context_usage)


class SessionTally:
    """One session's :class:`StatsTally`, kept up to date as the session grows: each call feeds
    only the entries appended since the previous one, and starts over when the session
    manager's entries were replaced or a problem was found in its file (an entry set aside no
    longer counts)."""

    def __init__(self) -> None:
        self._key: tuple[Any, int, int] | None = None
        self._tally = StatsTally()

    def current(self, manager: Any) -> StatsTally:
        """The tally of every entry ``manager`` holds now."""
        key = (manager, manager.entries_generation, len(manager.load_issues))
        if self._key != key:
            self._key, self._tally = key, StatsTally()
        tally = self._tally
        if tally.counted < manager.entry_count:
            for kind, role, item in manager.iter_counted(tally.counted):
                tally.add(kind, role, item)
        return tally
