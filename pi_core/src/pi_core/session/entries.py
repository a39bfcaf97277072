"""Session file lines as pydantic models, with pi's exact JSON names (session format v3).

Line 1 of a session file is a :class:`SessionHeader`; every other line is one entry of the
tree. Each entry type has its own model; a ``type`` this version does not know becomes an
:class:`UnknownEntry`, and unknown keys on any model are kept (``extra="allow"``), so a file
read here and written back loses nothing. See docs/sessions.md and spec/sessions.md §4-§6.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Tag, TypeAdapter

from pi_core._model import PiModel
from pi_core.ai.messages import AgentMessage, SystemMessage, Usage, UserContentBlock

CURRENT_SESSION_VERSION = 3

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class SessionHeader(PiModel):
    """The first line of a session file; metadata only, not part of the tree."""

    type: Literal["session"] = "session"
    #: Format version; a missing value means 1 (migrated on load).
    version: int | None = None
    id: str
    timestamp: str
    cwd: str = ""
    #: File this session was forked or cloned from.
    parent_session: str | None = None


class _EntryBase(PiModel):
    id: str
    #: ``None`` for a root; always written (as ``null``), unlike other absent optionals.
    parent_id: str | None
    #: ISO-8601 UTC with milliseconds, e.g. ``2025-03-14T09:26:53.120Z``.
    timestamp: str


class MessageEntry(_EntryBase):
    type: Literal["message"] = "message"
    message: AgentMessage


class ModelChangeEntry(_EntryBase):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class ThinkingLevelChangeEntry(_EntryBase):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    #: One of :data:`ThinkingLevel`; kept as a plain string so future levels still load.
    thinking_level: str


class CompactionEntry(_EntryBase):
    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    tokens_before: int | float
    details: Any = None
    #: pi 1.6.0: the model usage of writing the summary (counted in the session totals).
    usage: Any = None
    #: True when a plugin supplied the summary (pi's historic name).
    from_hook: bool | None = None
    #: pi 1.6.0: the prompt and tools replayed up to here; leads the compacted context.
    system_message: SystemMessage | None = None


class BranchSummaryEntry(_EntryBase):
    type: Literal["branch_summary"] = "branch_summary"
    #: The leaf that was left (pi 1.6.0; 0.73.1 wrote the branch point), or ``"root"``.
    from_id: str
    summary: str
    details: Any = None
    #: pi 1.6.0: the model usage of writing the summary (counted in the session totals).
    usage: Any = None
    from_hook: bool | None = None


class CustomEntry(_EntryBase):
    """Plugin state; never part of the model context."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None


class CustomMessageEntry(_EntryBase):
    """A plugin message that the model sees as a user message."""

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserContentBlock]
    display: bool
    details: Any = None


class LabelEntry(_EntryBase):
    """Sets (``label`` given and non-empty) or clears the label of ``target_id``."""

    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None


class SessionInfoEntry(_EntryBase):
    """Session metadata; the last one in the file gives the session name."""

    type: Literal["session_info"] = "session_info"
    name: str | None = None


class ContextEditReplacement(PiModel):
    """New content for the target message (a string, or content blocks of the target's role)."""

    content: Any


class ContextEditEntry(_EntryBase):
    """pi 1.6.0: from here on, the model sees ``target_id``'s message without (``replacement``
    ``None``) or with other content. The target itself stays as it was."""

    type: Literal["context_edit"] = "context_edit"
    #: Kept as read: a damaged edit still loads (the reader reports it; it then has no effect).
    target_id: Any = None
    #: ``None`` (omit the target) or ``{"content": ...}``; see :func:`replacement_content`.
    replacement: Any = None


_NO_REPLACEMENT = object()


def replacement_content(entry: ContextEditEntry) -> Any:
    """The new content of an edit; ``None`` for an omission; :data:`INVALID_REPLACEMENT` when the
    replacement is neither null nor an object with string or list ``content``."""
    value = entry.replacement
    if value is None:
        return None
    if isinstance(value, ContextEditReplacement):
        value = value.model_dump(by_alias=True)
    if isinstance(value, dict) and isinstance(value.get("content"), (str, list)):
        return value["content"]
    return INVALID_REPLACEMENT


#: Marks a replacement that cannot be applied (see :func:`replacement_content`).
INVALID_REPLACEMENT = _NO_REPLACEMENT


class UsageEntry(_EntryBase):
    """pi 1.6.0: model usage that is no message (cache warming, ...); counted in the totals only.

    ``usage`` stays as read; :func:`valid_usage` gives it as a :class:`Usage`, or ``None``.
    """

    type: Literal["usage"] = "usage"
    kind: str = ""
    provider: str = ""
    model: str = ""
    usage: Any = None
    note: str | None = None


def valid_usage(value: Any) -> Usage | None:
    """``value`` as a :class:`Usage` when it is one (pi's usage object), else ``None``."""
    if isinstance(value, Usage):
        return value
    if not isinstance(value, dict):
        return None
    from pydantic import ValidationError

    try:
        return Usage.model_validate(value)
    except ValidationError:
        return None


class UnknownEntry(_EntryBase):
    """An entry type this version does not know: kept, shown in the tree, ignored for context."""

    type: str


KNOWN_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "context_edit",
        "usage",
    }
)


def _entry_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in KNOWN_ENTRY_TYPES else "unknown"


SessionEntry = Annotated[
    Annotated[MessageEntry, Tag("message")]
    | Annotated[ModelChangeEntry, Tag("model_change")]
    | Annotated[ThinkingLevelChangeEntry, Tag("thinking_level_change")]
    | Annotated[CompactionEntry, Tag("compaction")]
    | Annotated[BranchSummaryEntry, Tag("branch_summary")]
    | Annotated[CustomEntry, Tag("custom")]
    | Annotated[CustomMessageEntry, Tag("custom_message")]
    | Annotated[LabelEntry, Tag("label")]
    | Annotated[SessionInfoEntry, Tag("session_info")]
    | Annotated[ContextEditEntry, Tag("context_edit")]
    | Annotated[UsageEntry, Tag("usage")]
    | Annotated[UnknownEntry, Tag("unknown")],
    Discriminator(_entry_tag),
]
"""Any line after the header."""

SessionEntryModel = (
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | ContextEditEntry
    | UsageEntry
    | UnknownEntry
)

#: Built on first use (``defer_build``): the union of every entry and message model took a
#: tenth of a second at import, on the way to opening a session that may never need it.
SessionEntryAdapter: TypeAdapter[SessionEntry] = TypeAdapter(
    SessionEntry, config=ConfigDict(defer_build=True)
)
SessionHeaderAdapter: TypeAdapter[SessionHeader] = TypeAdapter(SessionHeader)

# Key order pi writes per entry type (spec/sessions.md §6); keys not listed follow in their own order.
_BASE_ORDER = ("type", "id", "parentId", "timestamp")
KEY_ORDER: dict[str, tuple[str, ...]] = {
    "session": ("type", "version", "id", "timestamp", "cwd", "parentSession"),
    "message": (*_BASE_ORDER, "message"),
    "model_change": (*_BASE_ORDER, "provider", "modelId"),
    "thinking_level_change": (*_BASE_ORDER, "thinkingLevel"),
    "compaction": (
        *_BASE_ORDER,
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
        "details",
        "usage",
        "fromHook",
        "systemMessage",
    ),
    "branch_summary": (*_BASE_ORDER, "fromId", "summary", "details", "usage", "fromHook"),
    "custom": ("type", "customType", "data", "id", "parentId", "timestamp"),
    "custom_message": ("type", "customType", "content", "display", "details", "id", "parentId", "timestamp"),
    "label": (*_BASE_ORDER, "targetId", "label"),
    "session_info": (*_BASE_ORDER, "name"),
    "context_edit": (*_BASE_ORDER, "targetId", "replacement"),
    "usage": (*_BASE_ORDER, "kind", "provider", "model", "usage", "note"),
}


ENTRY_MODELS: dict[str, type[SessionEntryModel]] = {
    "message": MessageEntry,
    "model_change": ModelChangeEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
    "context_edit": ContextEditEntry,
    "usage": UsageEntry,
}


def parse_entry(data: dict[str, Any] | str | bytes, kind: str | None = None) -> SessionEntry:
    """Validate one entry from its JSON object or JSON text.

    ``kind`` (the entry's ``type``, when the caller already knows it) picks the model directly,
    which validates JSON text about three times faster than going through the union.
    """
    if isinstance(data, dict):
        found = data.get("type")
        model = ENTRY_MODELS.get(found if isinstance(found, str) else "", UnknownEntry)
        return model.model_validate(data)
    if kind is not None:
        return ENTRY_MODELS.get(kind, UnknownEntry).model_validate_json(data)
    return SessionEntryAdapter.validate_json(data)


def to_wire(item: SessionHeader | PiModel) -> dict[str, Any]:
    """The JSON object pi writes for a header or entry: camelCase, absent optionals left out,
    ``parentId`` always present, keys in pi's order."""
    data = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(item, _EntryBase):
        data["parentId"] = item.parent_id
    if isinstance(item, ContextEditEntry) and item.replacement is None:
        data["replacement"] = None  # pi writes the omission as an explicit null
    return order_keys(data)


def order_keys(data: dict[str, Any]) -> dict[str, Any]:
    """Reorder a header/entry object into pi's key order (only for objects created here)."""
    order = KEY_ORDER.get(data.get("type", ""), _BASE_ORDER)
    out = {key: data[key] for key in order if key in data}
    for key, value in data.items():
        if key not in out:
            out[key] = value
    return out
