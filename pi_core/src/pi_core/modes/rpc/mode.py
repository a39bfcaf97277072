"""RPC mode: read commands from stdin, write responses and session events to stdout (JSON lines).

Every input line is handled in its own task, so a long command (``prompt``, ``compact``, ``bash``)
never blocks the next one; responses carry the command's ``id`` for correlation. ``prompt`` answers
as soon as its preflight passed (or it was queued or handled), later failures arrive only as
events. stdin EOF lets the commands already read finish (open dialogs get their default answer), then
shuts the runtime down; the mode returns exit status 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from pi_core.modes.jsonl import read_json_lines, serialize_json_line
from pi_core.modes.rpc import commands as c
from pi_core.modes.rpc.responses import (
    BashResult,
    CycleModelResult,
    RpcSessionState,
    bash_update,
    entries_since,
    error_response,
    success_response,
    tree_response_line,
)
from pi_core.modes.rpc.ui import RpcExtensionUI
from pi_core.modes.rpc.ui_protocol import UiResponse
from pi_core.modes.wire import wire_event
from pi_core.runtime.events import ExtensionErrorEvent
from pi_core.runtime.host import RuntimeHost


class RpcMode:
    """One RPC conversation over a reader and a line writer."""

    def __init__(
        self,
        host: RuntimeHost,
        write: Callable[[str], None],
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.host = host
        self._write = write
        self._warn = warn or _stderr_line
        self.ui = RpcExtensionUI(self.output, lambda: self.host.setting_theme())
        self._unsubscribe: Callable[[], None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Cleared while the plugins start (``session_start`` in :meth:`run`); commands wait for it.
        self._started = asyncio.Event()
        self._started.set()

    def output(self, value: Any) -> None:
        self._write(serialize_json_line(value))

    def _forward(self, event: Any) -> None:
        self._write(serialize_json_line(wire_event(event)))

    async def bind(self) -> None:
        """(Re)attach to the host's current session: event forwarding, UI and error reporting."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = self.host.session.subscribe(self._forward)
        await self.host.bind_mode(ui=self.ui, on_error=self._report_error, mode="rpc")

    def _report_error(self, error: ExtensionErrorEvent) -> None:
        self.output(error)

    async def run(self, reader: asyncio.StreamReader) -> int:
        """Serve until stdin ends; returns the exit status."""
        self.host.on_session_replaced(self.bind)
        # Read stdin while plugins start: a session_start handler may ask the client something
        # (ctx.ui.confirm) and must get its answer; commands wait until start-up is done.
        self._started.clear()
        starting = asyncio.create_task(self._start())
        async for line in read_json_lines(reader):
            task = asyncio.create_task(self.handle_line(line))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        # EOF: nobody can answer dialogs any more; let the commands already read finish.
        self.ui.close()
        await starting
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self._unsubscribe is not None:
            self._unsubscribe()
        await self.host.dispose()
        return 0

    async def _start(self) -> None:
        try:
            await self.bind()
        finally:
            self._started.set()

    async def handle_line(self, line: str) -> None:
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as error:
            self.output(error_response(None, "parse", f"Failed to parse command: {error}"))
            return
        if isinstance(raw, dict) and raw.get("type") == "extension_ui_response":
            # A malformed answer cannot be matched to a dialog; pi ignores it too.
            with contextlib.suppress(ValidationError):
                self.ui.resolve(UiResponse.model_validate(raw))
            return
        if not isinstance(raw, dict):
            self.output(error_response(None, "parse", "Failed to parse command: expected a JSON object"))
            return
        await self._started.wait()
        request_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        try:
            command = c.parse_command(raw)
        except c.UnknownCommandError as error:
            self.output(error_response(request_id, error.command_type, str(error)))
            return
        except ValidationError as error:
            self.output(error_response(request_id, str(raw.get("type")), _validation_text(error)))
            return
        ignored = c.unknown_fields(raw)
        if ignored:
            # pi ignores fields it does not know; say so where diagnostics go, and run the command.
            names = ", ".join(f'"{name}"' for name in ignored)
            self._warn(
                f"pi: RPC {command.type}: ignoring unknown field{'s' if len(ignored) > 1 else ''} {names}"
            )
        try:
            response = await self.dispatch(command)
        except Exception as error:  # a failing command becomes a failure response, never a crash
            self.output(error_response(command.id, command.type, str(error) or type(error).__name__))
            return
        if isinstance(response, str):
            self._write(response)
        elif response is not None:
            self.output(response)

    async def dispatch(self, command: c.RpcCommand) -> dict[str, Any] | str | None:
        """The response to ``command`` (a dict, or a finished line for large nested data), or
        ``None`` when it answers on its own (``prompt``)."""
        session = self.host.session
        rid = command.id
        match command:
            case c.PromptCommand():
                self._start_prompt(command)
                return None
            case c.SteerCommand():
                disposition = await session.steer(command.message, command.images, source="rpc")
                return success_response(rid, "steer", {"disposition": disposition})
            case c.FollowUpCommand():
                disposition = await session.follow_up(command.message, command.images, source="rpc")
                return success_response(rid, "follow_up", {"disposition": disposition})
            case c.BareCommand(type="clear_queue"):
                steering, follow_up = session.clear_queue()
                return success_response(rid, "clear_queue", {"steering": steering, "followUp": follow_up})
            case c.BareCommand(type="abort"):
                await session.abort()
                return success_response(rid, "abort")
            case c.NewSessionCommand():
                cancelled = await self.host.new_session(parent_session=command.parent_session)
                return success_response(rid, "new_session", {"cancelled": cancelled})
            case c.BareCommand(type="get_state"):
                return success_response(rid, "get_state", self._state())
            case c.SetModelCommand():
                model = await session.find_available_model(command.provider, command.model_id)
                if model is None:
                    return error_response(
                        rid, "set_model", f"Model not found: {command.provider}/{command.model_id}"
                    )
                await session.set_model(model)
                return success_response(rid, "set_model", model)
            case c.BareCommand(type="cycle_model"):
                cycled = await session.cycle_model()
                if cycled is None:
                    return success_response(rid, "cycle_model", None)
                model, level, scoped = cycled
                data = CycleModelResult(model=model, thinking_level=level, is_scoped=scoped)
                return success_response(rid, "cycle_model", data)
            case c.BareCommand(type="get_available_models"):
                models = await session.get_available_models()
                return success_response(rid, "get_available_models", {"models": models})
            case c.SetThinkingLevelCommand():
                session.set_thinking_level(command.level)
                return success_response(rid, "set_thinking_level")
            case c.BareCommand(type="get_available_thinking_levels"):
                levels = session.available_thinking_levels()
                return success_response(rid, "get_available_thinking_levels", {"levels": levels})
            case c.BareCommand(type="cycle_thinking_level"):
                cycled_level = session.cycle_thinking_level()
                return success_response(
                    rid, "cycle_thinking_level", None if cycled_level is None else {"level": cycled_level}
                )
            case c.SetSteeringModeCommand():
                session.set_steering_mode(command.mode)
                return success_response(rid, "set_steering_mode")
            case c.SetFollowUpModeCommand():
                session.set_follow_up_mode(command.mode)
                return success_response(rid, "set_follow_up_mode")
            case c.CompactCommand():
                return success_response(rid, "compact", await session.compact(command.custom_instructions))
            case c.SetAutoCompactionCommand():
                session.set_auto_compaction_enabled(command.enabled)
                return success_response(rid, "set_auto_compaction")
            case c.SetAutoRetryCommand():
                session.set_auto_retry_enabled(command.enabled)
                return success_response(rid, "set_auto_retry")
            case c.BareCommand(type="abort_retry"):
                session.abort_retry()
                return success_response(rid, "abort_retry")
            case c.BashCommand():
                outcome = await session.execute_bash(
                    command.command,
                    exclude_from_context=command.exclude_from_context,
                    on_chunk=lambda delta: self.output(bash_update(rid, delta)),
                )
                result = BashResult(
                    output=outcome.output,
                    exit_code=outcome.exit_code,
                    cancelled=outcome.cancelled,
                    truncated=outcome.truncated,
                    full_output_path=outcome.full_output_path,
                )
                return success_response(rid, "bash", result)
            case c.BareCommand(type="abort_bash"):
                session.abort_bash()
                return success_response(rid, "abort_bash")
            case c.BareCommand(type="get_session_stats"):
                return success_response(rid, "get_session_stats", session.get_session_stats())
            case c.ExportHtmlCommand():
                path = await session.export_to_html(command.output_path)
                return success_response(rid, "export_html", {"path": str(path)})
            case c.SwitchSessionCommand():
                cancelled = await self.host.switch_session(command.session_path)
                return success_response(rid, "switch_session", {"cancelled": cancelled})
            case c.ForkCommand():
                cancelled, text = await self.host.fork(command.entry_id)
                return success_response(rid, "fork", {"text": text, "cancelled": cancelled})
            case c.BareCommand(type="clone"):
                leaf = session.session_manager.get_leaf_id()
                if not leaf:
                    return error_response(rid, "clone", "Cannot clone session: no current entry selected")
                cancelled, _ = await self.host.fork(leaf, position="at")
                return success_response(rid, "clone", {"cancelled": cancelled})
            case c.BareCommand(type="get_fork_messages"):
                messages = [{"entryId": e, "text": t} for e, t in session.get_user_messages_for_forking()]
                return success_response(rid, "get_fork_messages", {"messages": messages})
            case c.BareCommand(type="get_last_assistant_text"):
                return success_response(
                    rid, "get_last_assistant_text", {"text": session.get_last_assistant_text()}
                )
            case c.SetSessionNameCommand():
                name = command.name.strip()
                if not name:
                    return error_response(rid, "set_session_name", "Session name cannot be empty")
                session.set_session_name(name)
                return success_response(rid, "set_session_name")
            case c.BareCommand(type="get_messages"):
                return success_response(rid, "get_messages", {"messages": list(session.messages)})
            case c.BareCommand(type="get_commands"):
                return success_response(rid, "get_commands", {"commands": session.get_commands()})
            case c.GetEntriesCommand():
                manager = session.session_manager
                try:
                    entries = entries_since(manager, command.since)
                except KeyError:
                    return error_response(rid, "get_entries", f"Entry not found: {command.since}")
                return success_response(
                    rid, "get_entries", {"entries": entries, "leafId": manager.get_leaf_id()}
                )
            case c.BareCommand(type="get_tree"):
                manager = session.session_manager
                return tree_response_line(rid, manager.get_tree(), manager.get_leaf_id())
        raise AssertionError(f"unhandled command {command.type}")  # parse_command only yields the above

    def _start_prompt(self, command: c.PromptCommand) -> None:
        session = self.host.session
        answered = False

        def on_preflight(disposition: str) -> None:
            nonlocal answered
            if not answered:
                answered = True
                self.output(success_response(command.id, "prompt", {"disposition": disposition}))

        async def run() -> None:
            nonlocal answered
            try:
                await session.prompt(
                    command.message,
                    images=command.images,
                    streaming_behavior=command.streaming_behavior,
                    source="rpc",
                    on_preflight=on_preflight,
                )
            except Exception as error:
                if not answered:
                    answered = True
                    self.output(error_response(command.id, "prompt", str(error) or type(error).__name__))

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _state(self) -> RpcSessionState:
        s = self.host.session
        return RpcSessionState(
            model=s.model,
            thinking_level=s.thinking_level,
            is_streaming=s.is_streaming,
            is_compacting=s.is_compacting,
            steering_mode=s.steering_mode,
            follow_up_mode=s.follow_up_mode,
            session_file=s.session_file,
            session_id=s.session_id,
            session_name=s.session_name,
            auto_compaction_enabled=s.auto_compaction_enabled,
            message_count=len(s.messages),
            pending_message_count=s.pending_message_count,
        )


def _validation_text(error: ValidationError) -> str:
    """``Invalid command: TYPE.FIELD: what is wrong``, naming the field by its wire name."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"Invalid command: {where}: {first['msg']}" if where else f"Invalid command: {first['msg']}"


def _stderr_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
