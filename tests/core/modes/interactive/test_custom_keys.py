"""What a plugin component's ``handle_input`` gets in the regular REPL's own application: keys,
not the terminal's answers to the renderer's cursor position requests (those reach the renderer,
or prompt-toolkit warns two seconds later that the terminal does not support them)."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_core.modes.interactive.custom import run_custom
from pi_core.runtime.ui import Theme
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.renderer import CPR_Support


class Recorder:
    def __init__(self, tui: Any, done: Any) -> None:
        self.tui, self.done, self.seen = tui, done, []

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
