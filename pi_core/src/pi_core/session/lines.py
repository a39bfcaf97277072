"""Message models straight from a message entry's JSON line, in less time and memory.

A context of a long session holds one message model per message entry, so the cost per message
decides how fast a large session opens (docs/sessions.md, "Performance"). Entry points:
:func:`meta_with_message` (the reader, while opening: record + message from one parse),
:func:`message_from_line` / :func:`plain_message_from_line` (a context's message from a kept
line), :func:`message_entry_from_line` (a whole :class:`MessageEntry`, for ``get_entry`` and
friends) and :func:`wrap_message` (that entry around a message already built from a *plain*
line, one with no keys beyond pi's five: no second parse, and the message instance is shared).
Two things make them cheaper than validating a ``MessageEntry`` and taking its ``message``:

* **A plain role discriminator.** ``AgentMessage`` chooses its member with a Python function, for
  which pydantic first converts the JSON message into Python dicts and then validates those.
  Here the role tag is read by pydantic-core from the JSON itself (or is already known from the
  record), so a line validates in one pass in Rust: about half the time.
* **One field-set per key combination.** Every pydantic model carries the set of fields its input
  gave (``model_fields_set``); as a ``set`` of five or more names that is 728 bytes, three of them
  per assistant message (message, usage, cost) — nearly half of a message's memory. Models read
  here share one set object per distinct set of names instead. It holds the same names, so
  ``model_fields_set`` and ``exclude_unset`` behave as before; ``model_copy`` copies it first.
  Caveat: assigning a field that the file did not give (``message.error_message = ...`` on a
  message without ``errorMessage``) adds that name to the shared set, i.e. to
  ``model_fields_set`` of every read message with the same names. Only ``exclude_unset`` output
  can notice; nothing in pi uses it on messages (pi writes with ``exclude_none``).

Validation is the same as for the entry model: a line that does not validate is re-validated as a
``MessageEntry`` so the error text is the usual one. A line jiter cannot read but Python's
``json`` can (a lone UTF-16 surrogate escape such as ``"\\ud83d"``, which JavaScript writes for a
cut emoji) is parsed with ``json`` and validated from the dict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.alias_generators import to_camel

from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from pi_core.session.entries import MessageEntry
from pi_core.session.index import EntryMeta, shared_str

#: Unknown entry keys are collected (and then dropped): their absence makes a line *plain*.
#: ``cache_strings="keys"``: the parser's cache of short strings is used for keys only. Values
#: are mostly unique (ids, timestamps, texts, paths), so looking each up cost more than sharing
#: the few repeated ones saved: 12 % of a 100k-message load's validation, for ~0.3 KB more per
#: message (the repeated ``api``/``provider``/``model``/tool names are separate strings).
_LINE_CONFIG = ConfigDict(
    alias_generator=to_camel, populate_by_name=True, extra="allow", cache_strings="keys"
)


def _line_model(message_class: type[BaseModel]) -> type[BaseModel]:
    # Same required entry fields as MessageEntry, so the same lines pass and fail (``type`` is
    # "message" on every line that gets here: the record's type was read from it).
    return create_model(
        f"{message_class.__name__}Line",
        __config__=_LINE_CONFIG,
        type=(str, ...),
        id=(str, ...),
        parent_id=(str | None, ...),
        timestamp=(str, ...),
        message=(message_class, ...),
    )


_MESSAGE_CLASSES: tuple[type[BaseModel], ...] = (
    UserMessage,
    AssistantMessage,
    ToolResultMessage,
    BashExecutionMessage,
    CustomMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    SystemMessage,
)
_CLASS_OF_ROLE: dict[str, type[BaseModel]] = {
    cls.model_fields["role"].default: cls for cls in _MESSAGE_CLASSES
}
#: role -> the line model's validator (called directly: skips ``model_validate_json``'s wrapper).
#: Built on first use: sixteen models built at import (these and the entry models below) were
#: 0.1-0.2 s of start-up before a session could open, and a resume uses few of them, if any.
_LINE_VALIDATORS: dict[str, Any] = {}


def _line_validator(role: str) -> Any | None:
    validator = _LINE_VALIDATORS.get(role)
    if validator is None:
        cls = _CLASS_OF_ROLE.get(role)
        if cls is None:
            return None
        validator = _LINE_VALIDATORS[role] = _line_model(cls).__pydantic_validator__
    return validator


class _MessageEntryLine(BaseModel):
    """A whole message entry line; the role tag is read from the JSON itself (a plain
    discriminator: AgentMessage's function discriminator would first turn the message into dicts)."""

    model_config = _LINE_CONFIG

    type: Literal["message"]
    id: str
    parent_id: str | None
    timestamp: str
    message: Annotated[
        UserMessage
        | AssistantMessage
        | ToolResultMessage
        | BashExecutionMessage
        | CustomMessage
        | BranchSummaryMessage
        | CompactionSummaryMessage
        | SystemMessage,
        Field(discriminator="role"),
    ]


_ENTRY_LINE_VALIDATOR = _MessageEntryLine.__pydantic_validator__

#: How pi's lines for message entries begin (any other spelling just takes the general path).
MESSAGE_LINE_PREFIX = '{"type":"message",'


def meta_with_message(line: str, line_no: int) -> EntryMeta | None:
    """The record of a valid message entry line, carrying its validated message; ``None`` for
    any other line (the reader then takes its general, lenient path, which reports problems)."""
    try:
        entry = _ENTRY_LINE_VALIDATOR.validate_json(line)
    except ValidationError:
        return None
    message = entry.message
    share_field_sets(message)
    role = message.role
    extra = (message.provider, message.model) if role == "assistant" else None
    return EntryMeta(
        "message",
        entry.id,
        entry.parent_id,
        entry.timestamp,
        shared_str(role),
        extra,
        line,
        None,
        line_no,
        message,
        not entry.__pydantic_extra__,
    )


def message_from_line(line: str, role: str | None) -> AgentMessage:
    """The message of a ``message`` entry line whose ``message.role`` is ``role``.

    Raises :class:`pydantic.ValidationError` (as ``MessageEntry`` validation would) for a line
    that is not a valid message entry.
    """
    return plain_message_from_line(line, role)[0]


def plain_message_from_line(line: str, role: str | None) -> tuple[AgentMessage, bool]:
    """:func:`message_from_line`, and whether the line is plain (see :func:`wrap_message`)."""
    validator = _line_validator(role) if role is not None else None
    message: AgentMessage
    plain = False
    if validator is None:  # unknown or missing role: let the entry model decide (and explain)
        message = MessageEntry.model_validate_json(line).message
    else:
        try:
            narrow = validator.validate_json(line)
        except ValidationError as exc:
            message = _entry_fallback(line, exc).message
        else:
            message = narrow.message
            plain = not narrow.__pydantic_extra__
    share_field_sets(message)
    return message, plain


def wrap_message(entry_id: str, parent_id: str | None, timestamp: str, message: AgentMessage) -> MessageEntry:
    """The :class:`MessageEntry` of a plain line (one giving exactly ``type``, ``id``,
    ``parentId``, ``timestamp`` and ``message``) whose message is ``message``: equal to
    :func:`message_entry_from_line` of that line (same dictionary, field set and extras), built
    around the given message instance instead of validating the line again."""
    entry = _new(MessageEntry)
    values: dict[str, Any] = {
        "id": entry_id,
        "parent_id": parent_id,
        "timestamp": timestamp,
        "type": "message",
        "message": message,
    }
    _set(entry, "__dict__", values)
    _set(entry, "__pydantic_fields_set__", _ENTRY_FIELDS)
    _set(entry, "__pydantic_extra__", {})
    _set(entry, "__pydantic_private__", None)
    return entry


def _entry_model(message_class: type[BaseModel]) -> type[MessageEntry]:
    # MessageEntry itself with ``message`` narrowed to one class: same fields, keys and extras.
    return create_model(f"{message_class.__name__}Entry", __base__=MessageEntry, message=(message_class, ...))


#: role -> the entry model's validator, built on first use (see ``_LINE_VALIDATORS``).
_ENTRY_VALIDATORS: dict[str, Any] = {}


def _entry_validator(role: str) -> Any | None:
    validator = _ENTRY_VALIDATORS.get(role)
    if validator is None:
        cls = _CLASS_OF_ROLE.get(role)
        if cls is None:
            return None
        validator = _ENTRY_VALIDATORS[role] = _entry_model(cls).__pydantic_validator__
    return validator


def message_entry_from_line(line: str, role: str | None) -> MessageEntry:
    """The :class:`MessageEntry` of a line whose ``message.role`` is ``role``: equal to
    ``MessageEntry.model_validate_json(line)`` (same class, fields, extras and field sets), in
    about half the time. Raises :class:`pydantic.ValidationError` as that would."""
    validator = _entry_validator(role) if role is not None else None
    if validator is None:
        entry = MessageEntry.model_validate_json(line)
    else:
        try:
            narrow = validator.validate_json(line)
        except ValidationError as exc:
            entry = _entry_fallback(line, exc)
        else:
            entry = MessageEntry.__new__(MessageEntry)
            _set(entry, "__dict__", narrow.__dict__)
            _set(entry, "__pydantic_fields_set__", narrow.__pydantic_fields_set__)
            _set(entry, "__pydantic_extra__", narrow.__pydantic_extra__)
            _set(entry, "__pydantic_private__", None)
    share_field_sets(entry)
    return entry


def _entry_fallback(line: str, exc: ValidationError) -> MessageEntry:
    if any(error["type"] == "json_invalid" for error in exc.errors()):
        try:
            data: Any = json.loads(line)
        except ValueError:
            raise exc from None
        return MessageEntry.model_validate(data)
    # Not expected to succeed; re-raised with the entry model's wording.
    return MessageEntry.model_validate_json(line)


_set = object.__setattr__
_new = object.__new__
_SHARED_SETS: dict[frozenset[str], set[str]] = {}
#: The field set of an entry read from a plain line, shared the way ``share_field_sets`` does.
_ENTRY_FIELDS = _SHARED_SETS.setdefault(
    frozenset({"type", "id", "parent_id", "timestamp", "message"}),
    {"type", "id", "parent_id", "timestamp", "message"},
)
#: Distinct field-name sets are few (they differ by optional and unknown keys); past this many,
#: models keep their own sets rather than letting the table grow with odd files.
_MAX_SHARED = 4096


@dataclass(slots=True)
class _Plan:
    """Per model class: the fields that can hold models, and the last shared set used."""

    nested: tuple[str, ...]
    last: set[str] | None = None


#: Model class -> plan; any other class -> None (not a model: nothing to do).
_PLANS: dict[type, _Plan | None] = {}


def _plan_for(cls: type) -> _Plan | None:
    if not issubclass(cls, BaseModel):
        return None
    nested = tuple(name for name, info in cls.model_fields.items() if _mentions_model(info.annotation))
    return _Plan(nested)


def _mentions_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_mentions_model(arg) for arg in get_args(annotation))


def share_field_sets(obj: Any) -> None:
    """Point the field set of model ``obj``, and of the models inside it, to shared set objects.

    Written for speed (it runs once per model of a context): a plan per class says which fields
    can hold models, and a model whose names equal its class's previous one skips the lookup.
    """
    cls = type(obj)
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan_for(cls)
    if plan is None:
        return
    names = obj.__pydantic_fields_set__
    last = plan.last
    if last is not None and names == last:
        _set(obj, "__pydantic_fields_set__", last)
    else:
        key = frozenset(names)
        shared = _SHARED_SETS.get(key)
        if shared is None and len(_SHARED_SETS) < _MAX_SHARED:
            shared = _SHARED_SETS[key] = set(key)
        if shared is not None:
            _set(obj, "__pydantic_fields_set__", shared)
            plan.last = shared
    if plan.nested:
        values = obj.__dict__
        for name in plan.nested:
            value = values[name]
            if type(value) is list:
                for item in value:
                    share_field_sets(item)
            else:
                share_field_sets(value)
