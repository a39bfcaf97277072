"""A dialog nobody answers, in both TUI modes: the REPL goes on drawing and taking keys while it
waits, a dialog's ``timeout`` answers it with the empty value, Esc gives the run back, and the
session file stays whole."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn

MODES = pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])


def _records(repl: Any) -> list[dict[str, Any]]:
    """Every line of the session file, parsed (a torn line fails the test)."""
    path = Path(str(repl.mode.host.session.session_file))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def _loop_lag(samples: int = 20) -> float:
    """The longest a 10 ms sleep overran: the event loop is free while a dialog waits."""
    loop = asyncio.get_running_loop()
    worst = 0.0
    for _ in range(samples):
        started = loop.time()
        await asyncio.sleep(0.01)
        worst = max(worst, loop.time() - started - 0.01)
    return worst


@MODES
async def test_a_gate_nobody_answers_waits_and_escape_lets_the_run_go_on(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    """The example permission gate asks before ``rm -rf``; nobody answers for a while."""
    pi_llm_server.add(
        tool_turn(ToolUse("bash", {"command": "rm -rf build"})), text_turn("went on after the gate")
    )
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.submit("clean up")
    await repl.in_dialog()
    assert await _loop_lag() < 0.5  # the loop keeps turning under the open dialog
    repl.mode.invalidate()  # a redraw (a resize does the same) while it waits
    await asyncio.sleep(0.3)
    assert repl.mode.busy and "went on after the gate" not in repl.output
    repl.send("\x1b")  # Esc: no choice, the gate blocks the command
    await repl.wait_for("went on after the gate")
    await repl.idle()
    assert "Blocked by the user" in repl.output
    records = _records(repl)
    roles = [
        r["message"]["role"] for r in records if r["type"] == "message" and r["message"]["role"] != "system"
    ]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    result = next(
        r["message"] for r in records if r["type"] == "message" and r["message"]["role"] == "toolResult"
    )
    assert result["isError"] is True
    await repl.submit("/session")  # the REPL takes commands again
    await repl.wait_for("Messages")
    assert await repl.quit() == 0


@MODES
async def test_a_dialog_timeout_answers_with_the_empty_value(
    repl_factory: Callable[..., Any], pi_llm_server: LoopbackLLMServer, fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    repl.mode.set_editor_text("half-typed")
    ui = repl.mode.ui
    loop = asyncio.get_running_loop()
    for ask, empty in (
        (lambda: ui.confirm("Nobody answers?", "line one\nline two", timeout=300), False),
        (lambda: ui.select("Nobody picks?", ["a", "b"], timeout=300), None),
        (lambda: ui.input("Nobody types?", "placeholder", timeout=300), None),
    ):
        started = loop.time()
        assert await asyncio.wait_for(ask(), 10) == empty
        assert 0.25 < loop.time() - started < 5
        await repl.wait_idle_editor()
        assert repl.mode.get_editor_text() == "half-typed"
    repl.mode.set_editor_text("")
    assert await repl.quit() == 0


COMPONENT = """
from pi_core import hookimpl


class Waiting:
    def __init__(self, done):
        self.done = done

    def render(self, width):
        return ["WAITING-COMPONENT: Enter ends"]

    def handle_input(self, data):
        if data == "\\r":
            self.done("ended")


async def wait(args, ctx):
    ctx.ui.notify("COMPONENT-GAVE " + str(await ctx.ui.custom(lambda tui, theme, done: Waiting(done))))


@hookimpl
def register_commands(register):
    register("wait", wait, description="a component that waits")
"""


async def test_the_working_row_hides_while_a_component_is_in_the_editors_place(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    """Fullscreen, where the component is drawn in the running application under the status
    row: pi draws its working row in the editor, which the component replaces, so the row has
    neither the spinner nor the run's keys meanwhile (regular mode pauses the editor and its
    toolbar for it)."""
    plugin = tmp_path / "waiting.py"
    plugin.write_text(COMPONENT)
    repl = await repl_factory(extensions=(str(plugin),), fullscreen=True)
    mode: Any = repl.mode

    def row() -> str:
        return "".join(text for _, text, *_ in mode._status_row())

    await repl.submit("/wait")
    await repl.in_component()
    await repl.until(lambda: mode.busy)
    assert "working…" not in row() and "Enter steers" not in row()  # Enter answers the component
    repl.send("\r")
    await repl.wait_for("COMPONENT-GAVE ended")
    await repl.until(lambda: not mode.busy)
    await repl.quit()
