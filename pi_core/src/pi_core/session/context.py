"""What the model sees: the messages on the path from the leaf to the root (pi's buildSessionContext).

Walk from the leaf up, reverse, then: the latest compaction on the path replaces everything
before it except the entries from its ``firstKeptEntryId`` on (system messages among those are
dropped: the compaction's own ``systemMessage`` checkpoint leads instead); branch summaries and
plugin messages become their message forms; ``context_edit`` entries among the selected ones omit
or replace the content of their target (the latest edit of a target wins); model and thinking
level are the last ones seen on the path (explicit changes and the models that actually
answered). spec/sessions.md §11.1, pi 1.6.0's ``buildSessionProjection``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Literal

from pydantic import ValidationError

from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from pi_core.session.entries import (
    INVALID_REPLACEMENT,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
    replacement_content,
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


def context_from_path(
    path: Sequence[EntryMeta],
    load: Callable[[EntryMeta], SessionEntry],
    load_message: Callable[[EntryMeta], AgentMessage] | None = None,
) -> SessionContext:
    """The context for a root-first path; ``load`` materializes an entry that must be emitted,
    ``load_message`` (default: ``load(meta).message``) the message of a ``message`` entry."""
    if load_message is None:
        load_message = partial(_message_of_entry, load)
    context = SessionContext()
    compaction_at = -1
    # The last thinking level, model and compaction on the path win: walk back from the leaf
    # until all three are found (typically a few entries, not the whole path).
    thinking_found = model_found = False
    for position in range(len(path) - 1, -1, -1):
        meta = path[position]
        kind = meta.type
        if kind == "thinking_level_change":
            if not thinking_found:
                context.thinking_level, thinking_found = meta.key or "off", True
        elif kind == "model_change" or (kind == "message" and meta.key == "assistant"):
            if not model_found:
                context.model, model_found = _model_of(meta, load_message), True
        elif kind == "compaction" and compaction_at < 0:
            compaction_at = position
        if thinking_found and model_found and compaction_at >= 0:
            break

    if compaction_at < 0:
        selected: Sequence[EntryMeta] = path
        leading: list[AgentMessage] = []
    else:
        compaction = load(path[compaction_at])
        assert isinstance(compaction, CompactionEntry)
        tokens = compaction.tokens_before
        leading = [compaction.system_message] if compaction.system_message is not None else []
        leading.append(
            CompactionSummaryMessage(
                summary=compaction.summary,
                tokens_before=int(tokens) if float(tokens).is_integer() else round(tokens),
                timestamp=iso_to_ms(compaction.timestamp),
            )
        )
        # Ids on a path are unique: searching back from the compaction finds pi's first match,
        # after the few kept entries instead of the whole path before them.
        first_kept = compaction.first_kept_entry_id
        kept_from = next(
            (i for i in range(compaction_at - 1, -1, -1) if path[i].id == first_kept), compaction_at
        )
        kept = [
            meta
            for meta in path[kept_from:compaction_at]
            if not (meta.type == "message" and meta.key == "system")
        ]
        selected = [*kept, *path[compaction_at + 1 :]]

    edits: dict[str, EntryMeta] = {}
    for meta in selected:
        if meta.type == "context_edit" and meta.key is not None:
            edits[meta.key] = meta
    messages = context.messages
    messages.extend(leading)
    if not edits:
        for meta in selected:
            if meta.type == "message":
                messages.append(load_message(meta))
            else:
                _emit(meta, load, load_message, messages)
        return context
    for meta in selected:
        own: list[AgentMessage] = []
        if meta.type == "message":
            own.append(load_message(meta))
        else:
            _emit(meta, load, load_message, own)
        edit = edits.get(meta.id)
        if edit is not None and own:
            entry = load(edit)
            assert isinstance(entry, ContextEditEntry)
            own = apply_context_edit(own, entry)
        messages.extend(own)
    return context


def _model_of(meta: EntryMeta, load_message: Callable[[EntryMeta], AgentMessage]) -> ModelRef:
    extra = meta.extra
    if extra is None:  # an assistant message whose line was only scanned: read it now
        message = load_message(meta)
        assert isinstance(message, AssistantMessage)
        extra = meta.extra = (message.provider, message.model)
    provider, model_id = extra
    return ModelRef(provider=provider, model_id=model_id)


_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})


def apply_context_edit(messages: list[AgentMessage], edit: ContextEditEntry) -> list[AgentMessage]:
    """The messages of one entry as ``edit`` leaves them (pi's ``projectContextEntry``): none for an
    omission; otherwise user, assistant, tool-result and plugin messages get the new content (a
    string becomes one text block for assistant and tool results). A replacement that cannot be
    content of the target leaves the target as it is (the reader reported it when the file was
    opened)."""
    content = replacement_content(edit)
    if content is None:
        return []
    if content is INVALID_REPLACEMENT:
        return messages
    out: list[AgentMessage] = []
    for message in messages:
        if message.role not in _EDITABLE_ROLES:
            out.append(message)
            continue
        new_content = content
        if isinstance(message, (AssistantMessage, ToolResultMessage)) and isinstance(content, str):
            new_content = [TextContent(text=content)]
        elif isinstance(content, list):
            new_content = list(content)
        try:
            data = message.model_dump(by_alias=True, exclude_none=True)
            data["content"] = new_content
            out.append(type(message).model_validate(data))
        except ValidationError:
            out.append(message)
    return out


def editable_target(entry: SessionEntry) -> bool:
    """Whether a context edit may target ``entry`` (pi's ``appendContextEdit`` check)."""
    if isinstance(entry, CustomMessageEntry):
        return True
    return isinstance(entry, MessageEntry) and isinstance(
        entry.message, (UserMessage, AssistantMessage, ToolResultMessage)
    )


_EMITTING = frozenset({"message", "custom_message", "branch_summary"})


def _message_of_entry(load: Callable[[EntryMeta], SessionEntry], meta: EntryMeta) -> AgentMessage:
    entry = load(meta)
    assert isinstance(entry, MessageEntry)
    return entry.message


def _emit(
    meta: EntryMeta,
    load: Callable[[EntryMeta], SessionEntry],
    load_message: Callable[[EntryMeta], AgentMessage],
    out: list[AgentMessage],
) -> None:
    if meta.type not in _EMITTING:
        return
    if meta.type == "message":
        out.append(load_message(meta))
        return
    entry = load(meta)
    if isinstance(entry, CustomMessageEntry):
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
