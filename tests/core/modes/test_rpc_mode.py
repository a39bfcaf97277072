"""RpcMode's framing and dispatch, and the extension-UI sub-protocol, in-process with a stand-in host."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pi_core.modes.rpc.mode import RpcMode
from pi_core.modes.rpc.ui import RpcExtensionUI
from pi_core.modes.rpc.ui_protocol import UiResponse


class StandInSession:
    """Records what RpcMode asks of a session; ``prompt`` fails its preflight on demand."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.fail_prompt: str | None = None

    async def bind_mode(self, **kwargs: Any) -> None:
        self.calls.append(("bind_mode", sorted(kwargs)))

    def subscribe(self, listener: Any) -> Any:
        return lambda: None

    async def prompt(self, text: str, **kwargs: Any) -> None:
        self.calls.append(("prompt", text))
        if self.fail_prompt:
            raise RuntimeError(self.fail_prompt)
        kwargs["on_preflight"]("started")

    async def steer(self, text: str, images: Any, *, source: str) -> str:
        self.calls.append(("steer", text))
        return "handled" if text == "/handled" else "queued"

    def set_steering_mode(self, mode: str) -> None:
        self.calls.append(("set_steering_mode", mode))

    def cycle_thinking_level(self) -> str | None:
        return None

    def get_last_assistant_text(self) -> str | None:
        return None


class StandInHost:
    def __init__(self) -> None:
        self.session = StandInSession()

    def on_session_replaced(self, callback: Any) -> None:
        pass

    async def bind_mode(self, *, ui: Any = None, on_error: Any = None, mode: str | None = None) -> None:
        await self.session.bind_mode(ui=ui, on_error=on_error)

    async def dispose(self) -> None:
        pass


def _mode() -> tuple[RpcMode, list[dict[str, Any]], StandInSession]:
    out: list[dict[str, Any]] = []
    host = StandInHost()
    mode = RpcMode(host, lambda line: out.append(json.loads(line)))  # type: ignore[arg-type]
    return mode, out, host.session


async def test_parse_errors_have_no_id_and_unknown_commands_keep_theirs() -> None:
    mode, out, _ = _mode()
    await mode.handle_line("{nope")
    await mode.handle_line('{"id": "7", "type": "warp"}')
    await mode.handle_line('{"id": "8", "type": "set_steering_mode", "mode": "never"}')
    await mode.handle_line('{"id": "9", "message": "no type"}')
    assert out[0]["command"] == "parse" and out[0]["error"].startswith("Failed to parse command: ")
    assert "id" not in out[0]
    assert out[1] == {
        "id": "7",
        "type": "response",
        "command": "warp",
        "success": False,
        "error": "Unknown command: warp",
    }
    assert out[2]["id"] == "8" and out[2]["success"] is False and "mode" in out[2]["error"]
    assert out[3] == {"id": "9", "type": "response", "success": False, "error": "Unknown command: undefined"}


async def test_unknown_fields_are_reported_and_the_command_runs() -> None:
    warnings: list[str] = []
    out: list[dict[str, Any]] = []
    host = StandInHost()
    mode = RpcMode(host, lambda line: out.append(json.loads(line)), warnings.append)  # type: ignore[arg-type]
    await mode.handle_line('{"id": "1", "type": "set_steering_mode", "mode": "all", "speed": 3, "x": 1}')
    assert out == [{"id": "1", "type": "response", "command": "set_steering_mode", "success": True}]
    assert warnings == ['pi: RPC set_steering_mode: ignoring unknown fields "speed", "x"']


async def test_null_data_and_absent_data_are_kept_apart() -> None:
    mode, out, session = _mode()
    await mode.handle_line('{"id": "1", "type": "cycle_thinking_level"}')
    await mode.handle_line('{"id": "2", "type": "set_steering_mode", "mode": "all"}')
    await mode.handle_line('{"type": "get_last_assistant_text"}')
    assert out[0] == {
        "id": "1",
        "type": "response",
        "command": "cycle_thinking_level",
        "success": True,
        "data": None,
    }
    assert out[1] == {"id": "2", "type": "response", "command": "set_steering_mode", "success": True}
    assert out[2]["data"] == {"text": None} and "id" not in out[2]
    assert ("set_steering_mode", "all") in session.calls


async def test_prompt_answers_after_preflight_or_with_its_error() -> None:
    mode, out, session = _mode()
    await mode.handle_line('{"id": "p1", "type": "prompt", "message": "hi"}')
    await asyncio.sleep(0)
    session.fail_prompt = "No API key found for loop."
    await mode.handle_line('{"id": "p2", "type": "prompt", "message": "again"}')
    for _ in range(3):
        await asyncio.sleep(0)
    assert out == [
        {
            "id": "p1",
            "type": "response",
            "command": "prompt",
            "success": True,
            "data": {"disposition": "started"},
        },
        {
            "id": "p2",
            "type": "response",
            "command": "prompt",
            "success": False,
            "error": "No API key found for loop.",
        },
    ]


async def test_run_serves_until_eof_and_returns_zero() -> None:
    mode, out, session = _mode()
    reader = asyncio.StreamReader()
    reader.feed_data(b'{"id": "s", "type": "steer", "message": "go"}\n')
    reader.feed_eof()
    assert await mode.run(reader) == 0
    assert ("steer", "go") in session.calls and out[-1]["command"] == "steer"
    assert out[-1]["data"] == {"disposition": "queued"}


async def test_dialogs_round_trip_and_default_on_timeout_or_cancel() -> None:
    sent: list[Any] = []
    ui = RpcExtensionUI(sent.append)
    choice = asyncio.create_task(ui.select("Pick", ["a", "b"]))
    await asyncio.sleep(0)
    ui.resolve(UiResponse(id=sent[-1].id, value="b"))
    assert await choice == "b"
    assert sent[0].to_json_dict() == {
        "type": "extension_ui_request", "id": sent[0].id, "method": "select", "title": "Pick",
        "options": ["a", "b"],
    }  # fmt: skip
    confirm = asyncio.create_task(ui.confirm("Sure?", "really"))
    await asyncio.sleep(0)
    ui.resolve(UiResponse(id=sent[-1].id, cancelled=True))
    assert await confirm is False
    assert await ui.input("Name", timeout=20) is None  # nobody answers within 20 ms
    ui.resolve(UiResponse(id="unknown", value="x"))  # ignored
    pending = asyncio.create_task(ui.editor("Edit"))
    await asyncio.sleep(0)
    ui.close()  # stdin ended: open dialogs get their default
    assert await pending is None
    assert await ui.confirm("after close", "x") is False


async def test_fire_and_forget_requests() -> None:
    sent: list[Any] = []
    ui = RpcExtensionUI(sent.append)
    ui.notify("hello", "warning")
    ui.set_status("k", None)
    ui.set_widget("w", ["line"], placement="belowEditor")
    ui.set_widget("w", object())  # not representable over RPC: dropped
    ui.set_title("T")
    ui.set_editor_text("draft")
    methods = [request.method for request in sent]
    assert methods == ["notify", "setStatus", "setWidget", "setTitle", "set_editor_text"]
    assert ui.get_editor_text() == ""


async def test_terminal_only_parts_do_nothing_without_a_terminal() -> None:
    """As pi's RPC mode: a plugin editor is never made, ``custom`` (overlay options and all)
    answers ``None`` at once without a handle; print and JSON mode (``HeadlessUI``) alike."""
    from pi_core.runtime.ui import HeadlessUI

    sent: list[Any] = []
    called: list[str] = []

    def factory(*parts: Any) -> Any:
        called.append("factory")

    for ui in (RpcExtensionUI(sent.append), HeadlessUI()):
        ui.set_editor_component(factory)
        assert ui.get_editor_component() is None
        value = await ui.custom(
            factory, overlay=True, overlay_options={"anchor": "top-right"}, on_handle=called.append
        )
        assert value is None
    assert called == [] and sent == []
