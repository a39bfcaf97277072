"""What a plugin component's ``handle_input`` gets in the regular REPL's own application: keys,
not the terminal's answers to the renderer's cursor position requests (those reach the renderer,
or prompt-toolkit warns two seconds later that the terminal does not support them)."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from pi_core.modes.interactive.custom import quiet_cpr_warning, run_custom
from pi_core.runtime.ui import Theme
from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.renderer import CPR_Support, Renderer


class Recorder:
    def __init__(self, tui: Any, done: Any) -> None:
        self.tui, self.done = tui, done
        self.seen: list[str] = []

    def render(self, width: int) -> list[str]:
        return [f"seen {len(self.seen)}"]

    def handle_input(self, data: str) -> None:
        self.seen.append(data)
        if data == "\r":
            self.done(list(self.seen))


async def test_cursor_reports_go_to_the_renderer_not_the_component() -> None:
    made: list[Recorder] = []
    shown_once = asyncio.Event()

    def factory(tui: Any, theme: Any, done: Any) -> Recorder:
        made.append(Recorder(tui, done))
        shown_once.set()
        return made[-1]

    with create_pipe_input() as pipe:
        shown = asyncio.ensure_future(
            run_custom(factory, Theme(), size=lambda: (80, 24), input=pipe, output=DummyOutput())
        )
        await asyncio.wait_for(shown_once.wait(), 10)
        pipe.send_text("+\x1b[12;1R-")
        await asyncio.sleep(0.2)
        pipe.send_text("\r")
        seen = await asyncio.wait_for(shown, 10)
    assert seen == ["+", "-", "\r"]
    renderer = made[0].tui._app.renderer
    assert renderer.cpr_support == CPR_Support.SUPPORTED


class _Terminal(io.StringIO):
    """Output that says it is a terminal, for a renderer that asks where the cursor is."""

    def isatty(self) -> bool:
        return True


async def test_a_terminal_that_never_answers_gets_no_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    # Restored after the test: quiet_cpr_warning changes the class for the whole process.
    monkeypatch.setattr(Application, "cpr_not_supported_callback", Application.cpr_not_supported_callback)
    monkeypatch.setattr(Renderer, "CPR_TIMEOUT", 0.2)
    quiet_cpr_warning()
    screen = _Terminal()
    output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")
    assert output.responds_to_cpr
    made: list[Recorder] = []
    shown_once = asyncio.Event()

    def factory(tui: Any, theme: Any, done: Any) -> Recorder:
        made.append(Recorder(tui, done))
        shown_once.set()
        return made[-1]

    with create_pipe_input() as pipe:
        shown = asyncio.ensure_future(
            run_custom(factory, Theme(), size=lambda: (80, 24), input=pipe, output=output)
        )
        await asyncio.wait_for(shown_once.wait(), 10)
        await asyncio.sleep(0.6)  # the renderer gave up waiting for the answer
        pipe.send_text("\r")
        await asyncio.wait_for(shown, 10)
    assert made[0].tui._app.renderer.cpr_support == CPR_Support.NOT_SUPPORTED
    assert "\x1b[6n" in screen.getvalue()  # it did ask
    assert "cursor position requests" not in screen.getvalue()
