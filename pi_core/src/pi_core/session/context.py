"""What the model sees: the messages on the path from the leaf to the root (pi's buildSessionContext).

Walk from the leaf up, reverse, then: the latest compaction on the path replaces everything
before it except the entries from its ``firstKeptEntryId`` on; branch summaries and plugin
messages become their message forms; model and thinking level are the last ones seen on the
path (explicit changes and the models that actually answered). spec/sessions.md §11.1.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from pi_core.ai.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from pi_core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
)
from pi_core.session.index import EntryMeta, meta_from_entry


class Leaf(enum.Enum):
    """``Leaf.LAST``: no leaf given, use the last entry (pi's ``undefined`` leaf)."""

    LAST = "last"


@dataclass(frozen=True, slots=True)
class ModelRef:
    provider: str
    model_id: str


@dataclass(slots=True)
class SessionContext:
    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str = "off"
    model: ModelRef | None = None


def iso_to_ms(timestamp: str) -> int:
    """Epoch milliseconds of an entry timestamp (JavaScript ``new Date(ts).getTime()``)."""
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0  # JS would give NaN; 0 keeps the message valid and sorts it first


def build_session_context(
    entries: Sequence[SessionEntry],
    leaf_id: str | Literal[Leaf.LAST] | None = Leaf.LAST,
    by_id: Mapping[str, SessionEntry] | None = None,
) -> SessionContext:
    """Context for ``leaf_id`` (``None``: before the first entry, i.e. empty; ``Leaf.LAST``:
    the last entry). An unknown leaf id also falls back to the last entry, as in pi."""
    index = by_id if by_id is not None else {entry.id: entry for entry in entries}
    if leaf_id is None:
        return SessionContext()
    leaf = index.get(leaf_id) if isinstance(leaf_id, str) else None
    if leaf is None:
        if not entries:
            return SessionContext()
        leaf = entries[-1]
    path: list[EntryMeta] = []
    current: SessionEntry | None = leaf
    seen: set[str] = set()
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(meta_from_entry(current))
        current = index.get(current.parent_id) if current.parent_id is not None else None
    path.reverse()
    return context_from_path(path, _entry_of_meta)


def _entry_of_meta(meta: EntryMeta) -> SessionEntry:
    assert meta.entry is not None
    return meta.entry


def context_from_path(path: Sequence[EntryMeta], load: Callable[[EntryMeta], SessionEntry]) -> SessionContext:
    """The context for a root-first path; ``load`` materializes an entry that must be emitted."""
    context = SessionContext()
    compaction_at = -1
    for position, meta in enumerate(path):
        kind = meta.type
        if kind == "thinking_level_change":
            context.thinking_level = meta.key or "off"
        elif kind == "model_change" or (kind == "message" and meta.key == "assistant"):
            provider, model_id = meta.extra
            context.model = ModelRef(provider=provider, model_id=model_id)
        elif kind == "compaction":
            compaction_at = position

    messages = context.messages
    if compaction_at < 0:
        for meta in path:
            _emit(meta, load, messages)
        return context

    compaction = load(path[compaction_at])
    assert isinstance(compaction, CompactionEntry)
    tokens = compaction.tokens_before
    messages.append(
        CompactionSummaryMessage(
            summary=compaction.summary,
            tokens_before=int(tokens) if float(tokens).is_integer() else round(tokens),
            timestamp=iso_to_ms(compaction.timestamp),
        )
    )
    kept = False
    for meta in path[:compaction_at]:
        kept = kept or meta.id == compaction.first_kept_entry_id
        if kept:
            _emit(meta, load, messages)
    for meta in path[compaction_at + 1 :]:
        _emit(meta, load, messages)
    return context


_EMITTING = frozenset({"message", "custom_message", "branch_summary"})


def _emit(meta: EntryMeta, load: Callable[[EntryMeta], SessionEntry], out: list[AgentMessage]) -> None:
    if meta.type not in _EMITTING:
        return
    entry = load(meta)
    if isinstance(entry, MessageEntry):
        out.append(entry.message)
    elif isinstance(entry, CustomMessageEntry):
        out.append(
            CustomMessage(
                custom_type=entry.custom_type,
                content=entry.content,
                display=entry.display,
                details=entry.details,
                timestamp=iso_to_ms(entry.timestamp),
            )
        )
    elif isinstance(entry, BranchSummaryEntry) and entry.summary:
        out.append(
            BranchSummaryMessage(
                summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp)
            )
        )


def get_latest_compaction_entry(entries: Sequence[SessionEntry]) -> CompactionEntry | None:
    """The last compaction entry in ``entries`` (file order, any branch), as pi's helper of that name."""
    for entry in reversed(entries):
        if isinstance(entry, CompactionEntry):
            return entry
    return None
