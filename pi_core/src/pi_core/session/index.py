"""The compact in-memory record kept per entry: what tree walks and context building need.

A 100k-entry session would cost several hundred MB as dicts or models. The manager keeps,
per entry, its JSON line plus this small record (ids, type and the few scalars that
context building scans on every entry), and validates full models only for the entries it
actually hands out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_core.ai.messages import AgentMessage, AssistantMessage
from pi_core.session.entries import (
    CompactionEntry,
    ContextEditEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)


@dataclass(slots=True)
class EntryMeta:
    type: str
    id: str
    parent_id: str | None
    timestamp: str
    #: Per-type scalar: message → role; thinking_level_change → level; compaction →
    #: firstKeptEntryId; label and context_edit → targetId; session_info → name.
    key: str | None = None
    #: model_change → (provider, modelId); assistant message → (provider, model), ``None`` until
    #: its line is parsed when the file was only scanned there; label → label text.
    extra: Any = None
    #: The entry's JSON text (as read or as written); ``None`` when ``entry`` is given instead.
    line: str | None = None
    entry: SessionEntry | None = None
    #: 1-based line number in the file (0 when not read from a file).
    line_no: int = 0
    #: A message entry's message, built for a context (validated while the file was read, see
    #: ``lines.py``, or later from ``line``) and kept for the next context and for ``entry``.
    message: AgentMessage | None = None
    #: ``line`` holds only pi's five message entry keys, so ``entry`` can be built around
    #: ``message`` (``lines.wrap_message``) instead of from ``line``.
    plain: bool = False
    #: Where the line is in the file when its text is not kept (``line`` is ``None``): byte
    #: offset << 32 | byte length; 0 otherwise. See ``reader.LineSource``.
    span: int = 0


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


#: One shared string object per entry type / message role instead of one per entry.
_SHARED: dict[str, str] = {}


def shared_str(value: str) -> str:
    return _SHARED.setdefault(value, value)


def meta_from_dict(data: dict[str, Any], line: str | None = None, line_no: int = 0) -> EntryMeta | None:
    """Build the record from a parsed JSON entry; ``None`` when it has no string ``id``.

    Called once per line when a file is opened, hence written for speed (few calls, the common
    case first).
    """
    get = data.get
    entry_id = get("id")
    if type(entry_id) is not str:
        return None
    kind = get("type")
    kind = _SHARED.setdefault(kind, kind) if type(kind) is str else ""
    parent = get("parentId")
    timestamp = get("timestamp")
    meta = EntryMeta(
        kind,
        entry_id,
        parent if type(parent) is str else None,
        timestamp if type(timestamp) is str else ("" if timestamp is None else str(timestamp)),
        None,
        None,
        line,
        None,
        line_no,
    )
    if kind == "message":
        message = get("message")
        if type(message) is dict:
            role = message.get("role")
            if type(role) is str:
                meta.key = _SHARED.setdefault(role, role)
                if role == "assistant":
                    meta.extra = (message.get("provider"), message.get("model"))
    elif kind == "thinking_level_change":
        meta.key = _str_or_none(get("thinkingLevel"))
    elif kind == "model_change":
        meta.extra = (get("provider"), get("modelId"))
    elif kind == "compaction":
        meta.key = _str_or_none(get("firstKeptEntryId"))
    elif kind == "label":
        meta.key = _str_or_none(get("targetId"))
        meta.extra = _str_or_none(get("label"))
    elif kind == "session_info":
        meta.key = _str_or_none(get("name"))
    elif kind == "context_edit":
        meta.key = _str_or_none(get("targetId"))
    return meta


def meta_from_entry(entry: SessionEntry) -> EntryMeta:
    """Build the record from an entry model (no JSON round trip)."""
    meta = EntryMeta(
        type=entry.type, id=entry.id, parent_id=entry.parent_id, timestamp=entry.timestamp, entry=entry
    )
    if isinstance(entry, MessageEntry):
        meta.key = entry.message.role
        if isinstance(entry.message, AssistantMessage):
            meta.extra = (entry.message.provider, entry.message.model)
    elif isinstance(entry, ThinkingLevelChangeEntry):
        meta.key = entry.thinking_level
    elif isinstance(entry, ModelChangeEntry):
        meta.extra = (entry.provider, entry.model_id)
    elif isinstance(entry, CompactionEntry):
        meta.key = entry.first_kept_entry_id
    elif isinstance(entry, LabelEntry):
        meta.key = entry.target_id
        meta.extra = entry.label
    elif isinstance(entry, SessionInfoEntry):
        meta.key = entry.name
    elif isinstance(entry, ContextEditEntry):
        meta.key = entry.target_id
    return meta
