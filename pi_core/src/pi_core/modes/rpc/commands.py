"""The commands an RPC client sends on stdin, one model per ``type`` (pi 1.6.0 rpc-types).

``parse_command`` turns a decoded JSON object into the matching model; an object whose ``type``
is not a known command raises :class:`UnknownCommandError`, and a known one with a missing field
or a value of the wrong JSON type raises pydantic's ``ValidationError`` (validation is strict:
``"yes"`` is not a boolean). Fields a command does not define are reported by
:func:`unknown_fields` and otherwise ignored, as pi ignores them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field, TypeAdapter

from pi_core._model import PiModel
from pi_core.ai.messages import ImageContent

ThinkingLevelName = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]


class _Command(PiModel):
    id: str | None = None


class PromptCommand(_Command):
    type: Literal["prompt"] = "prompt"
    message: str
    images: list[ImageContent] | None = None
    streaming_behavior: Literal["steer", "followUp"] | None = None


class SteerCommand(_Command):
    type: Literal["steer"] = "steer"
    message: str
    images: list[ImageContent] | None = None


class FollowUpCommand(_Command):
    type: Literal["follow_up"] = "follow_up"
    message: str
    images: list[ImageContent] | None = None


class NewSessionCommand(_Command):
    type: Literal["new_session"] = "new_session"
    parent_session: str | None = None


class SetModelCommand(_Command):
    type: Literal["set_model"] = "set_model"
    provider: str
    model_id: str


class SetThinkingLevelCommand(_Command):
    type: Literal["set_thinking_level"] = "set_thinking_level"
    level: ThinkingLevelName


class SetSteeringModeCommand(_Command):
    type: Literal["set_steering_mode"] = "set_steering_mode"
    mode: QueueMode


class SetFollowUpModeCommand(_Command):
    type: Literal["set_follow_up_mode"] = "set_follow_up_mode"
    mode: QueueMode


class CompactCommand(_Command):
    type: Literal["compact"] = "compact"
    custom_instructions: str | None = None


class SetAutoCompactionCommand(_Command):
    type: Literal["set_auto_compaction"] = "set_auto_compaction"
    enabled: bool


class SetAutoRetryCommand(_Command):
    type: Literal["set_auto_retry"] = "set_auto_retry"
    enabled: bool


class BashCommand(_Command):
    type: Literal["bash"] = "bash"
    command: str
    #: Keep the output in the session file but out of the model's context.
    exclude_from_context: bool = False


class ExportHtmlCommand(_Command):
    type: Literal["export_html"] = "export_html"
    output_path: str | None = None


class SwitchSessionCommand(_Command):
    type: Literal["switch_session"] = "switch_session"
    session_path: str


class ForkCommand(_Command):
    type: Literal["fork"] = "fork"
    entry_id: str


class SetSessionNameCommand(_Command):
    type: Literal["set_session_name"] = "set_session_name"
    name: str


#: The commands that carry nothing but their ``type`` (and ``id``): one model serves them all.
BareCommandType = Literal[
    "abort",
    "abort_bash",
    "abort_retry",
    "clear_queue",
    "clone",
    "cycle_model",
    "cycle_thinking_level",
    "get_available_models",
    "get_available_thinking_levels",
    "get_commands",
    "get_fork_messages",
    "get_last_assistant_text",
    "get_messages",
    "get_session_stats",
    "get_state",
    "get_tree",
]


class BareCommand(_Command):
    """Any command of :data:`BareCommandType`; its ``type`` says which."""

    type: BareCommandType


class GetEntriesCommand(_Command):
    type: Literal["get_entries"] = "get_entries"
    #: An entry id: only the entries appended after it.
    since: str | None = None


RpcCommand = Annotated[
    PromptCommand
    | SteerCommand
    | FollowUpCommand
    | NewSessionCommand
    | SetModelCommand
    | SetThinkingLevelCommand
    | SetSteeringModeCommand
    | SetFollowUpModeCommand
    | CompactCommand
    | SetAutoCompactionCommand
    | SetAutoRetryCommand
    | BashCommand
    | ExportHtmlCommand
    | SwitchSessionCommand
    | ForkCommand
    | SetSessionNameCommand
    | GetEntriesCommand
    | BareCommand,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[RpcCommand] = TypeAdapter(RpcCommand)

#: Every command model and the ``type`` values it stands for.
_BY_TYPE: dict[str, type[_Command]] = {
    command_type: cls
    for cls in _Command.__subclasses__()  # every concrete command derives from _Command directly
    for command_type in get_args(cls.model_fields["type"].annotation)
}
COMMAND_TYPES: frozenset[str] = frozenset(_BY_TYPE)


class UnknownCommandError(ValueError):
    """The object's ``type`` names no RPC command."""

    def __init__(self, command_type: str | None) -> None:
        super().__init__(f"Unknown command: {command_type if command_type is not None else 'undefined'}")
        #: ``None`` when the object has no string ``type`` at all.
        self.command_type = command_type


def parse_command(raw: dict[str, Any]) -> RpcCommand:
    """Validate one decoded input object as an RPC command."""
    command_type = raw.get("type")
    if not isinstance(command_type, str) or command_type not in COMMAND_TYPES:
        raise UnknownCommandError(command_type if isinstance(command_type, str) else None)
    return _ADAPTER.validate_python(raw, strict=True)


def unknown_fields(raw: dict[str, Any]) -> list[str]:
    """The top-level keys of a known command that its model does not define (wire names)."""
    model = _BY_TYPE.get(str(raw.get("type")))
    if model is None:
        return []
    known = {field.alias or name for name, field in model.model_fields.items()}
    return [key for key in raw if key not in known]
