from __future__ import annotations

import pytest
from pi_core.modes.rpc.commands import (
    COMMAND_TYPES,
    BareCommand,
    BashCommand,
    GetEntriesCommand,
    PromptCommand,
    SetModelCommand,
    SetThinkingLevelCommand,
    UnknownCommandError,
    parse_command,
    unknown_fields,
)
from pydantic import ValidationError

PI_COMMANDS = {
    "prompt", "steer", "follow_up", "abort", "new_session", "get_state", "set_model", "cycle_model",
    "get_available_models", "set_thinking_level", "cycle_thinking_level", "set_steering_mode",
    "set_follow_up_mode", "compact", "set_auto_compaction", "set_auto_retry", "abort_retry", "bash",
    "abort_bash", "get_session_stats", "export_html", "switch_session", "fork", "clone",
    "get_fork_messages", "get_last_assistant_text", "set_session_name", "get_messages", "get_commands",
    # new in pi 1.6.0 (rpc-commands.md)
    "clear_queue", "get_available_thinking_levels", "get_entries", "get_tree",
}  # fmt: skip


def test_command_types_cover_pi_command_set() -> None:
    assert set(COMMAND_TYPES) == PI_COMMANDS


def test_parse_command_reads_camel_case_fields() -> None:
    command = parse_command(
        {"id": "1", "type": "prompt", "message": "hi", "streamingBehavior": "steer",
         "images": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}
    )  # fmt: skip
    assert isinstance(command, PromptCommand)
    assert command.streaming_behavior == "steer"
    assert command.images is not None and command.images[0].mime_type == "image/png"
    model = parse_command({"type": "set_model", "provider": "p", "modelId": "m"})
    assert isinstance(model, SetModelCommand) and model.model_id == "m" and model.id is None


@pytest.mark.parametrize("command_type", ["abort", "get_state", "clone", "get_tree", "clear_queue"])
def test_commands_without_fields_parse_to_the_bare_model_keeping_their_type(command_type: str) -> None:
    command = parse_command({"id": "7", "type": command_type})
    assert isinstance(command, BareCommand) and command.type == command_type and command.id == "7"
    assert unknown_fields({"type": command_type, "id": "7", "extra": 1}) == ["extra"]


def test_parse_command_rejects_unknown_type_with_pi_message() -> None:
    with pytest.raises(UnknownCommandError, match="Unknown command: nope"):
        parse_command({"type": "nope"})


def test_parse_command_rejects_missing_fields() -> None:
    with pytest.raises(ValidationError):
        parse_command({"type": "bash"})
    with pytest.raises(ValidationError):
        parse_command({"type": "set_steering_mode", "mode": "sometimes"})


def test_parse_command_is_strict_about_json_types() -> None:
    with pytest.raises(ValidationError, match="enabled"):
        parse_command({"type": "set_auto_retry", "enabled": "yes"})
    with pytest.raises(ValidationError, match="since"):
        parse_command({"type": "get_entries", "since": 7})
    with pytest.raises(ValidationError, match="excludeFromContext"):
        parse_command({"type": "bash", "command": "ls", "excludeFromContext": 1})


def test_pi_16_fields_and_levels() -> None:
    bash = parse_command({"type": "bash", "command": "ls", "excludeFromContext": True})
    assert isinstance(bash, BashCommand) and bash.exclude_from_context is True
    entries = parse_command({"type": "get_entries", "since": "abc"})
    assert isinstance(entries, GetEntriesCommand) and entries.since == "abc"
    level = parse_command({"type": "set_thinking_level", "level": "max"})
    assert isinstance(level, SetThinkingLevelCommand) and level.level == "max"


def test_unknown_fields_are_named_by_their_wire_names() -> None:
    assert unknown_fields({"type": "prompt", "id": "1", "message": "m", "streamingBehavior": "steer"}) == []
    assert unknown_fields({"type": "get_state", "bogus": 1, "modelId": "x"}) == ["bogus", "modelId"]
    assert unknown_fields({"type": "nope", "x": 1}) == []


def test_unknown_type_without_a_string_type() -> None:
    with pytest.raises(UnknownCommandError, match="Unknown command: undefined") as caught:
        parse_command({"message": "hi"})
    assert caught.value.command_type is None
