"""``ctx.ui.set_widget`` in both REPL modes: lines (cut to ten), a factory's component drawn at
each redraw and disposed when replaced, and a component or factory that raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pi_core.runtime.ui import Theme

MODES = [pytest.param(False, id="regular"), pytest.param(True, id="fullscreen")]


class Meter:
    def __init__(self, tui: Any, theme: Theme, disposed: list[Any]) -> None:
        self.theme, self.tui, self.drawn, self.disposed = theme, tui, 0, disposed

    def render(self, width: int) -> list[str]:
        self.drawn += 1
        return [self.theme.fg("accent", f"METER drawn={self.drawn} width={width}"), "\x1b]0;EVIL\x07METER-2"]

    def dispose(self) -> None:
        self.disposed.append(self)


class Exploding:
    def render(self, width: int) -> list[str]:
        raise RuntimeError("widget exploded")


def _shown(mode: Any, fullscreen: bool) -> str:
    if fullscreen:
        parts = [*mode._above_editor(), ("", "\n|\n"), *mode._below_editor()]
        return "".join(fragment[1] for fragment in parts)
    return str(mode._toolbar() or "")


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_widget_factory_is_drawn_at_each_redraw_and_disposed_when_replaced(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    mode, ui = repl.mode, repl.mode.ui
    disposed: list[Any] = []
    made: list[Meter] = []

    def factory(tui: Any, theme: Theme) -> Meter:
        made.append(Meter(tui, theme, disposed))
        return made[-1]

    ui.set_widget("meter", factory, placement="belowEditor")
    ui.set_widget("lines", [f"LINE-{n}" for n in range(12)])
    first = _shown(mode, fullscreen)
    assert "METER drawn=1" in first and "METER-2" in first and "EVIL" not in first and "\x1b]" not in first
    assert "LINE-9" in first and "LINE-10" not in first and "... (widget truncated)" in first
    if fullscreen:  # above the editor, then below it
        assert first.index("LINE-0") < first.index("|") < first.index("METER drawn")
    assert made[0].tui.columns > 0
    made[0].tui.invalidate()  # the component asks for a redraw (its state changed)
    assert "METER drawn=2" in _shown(mode, fullscreen)  # drawn again, not kept from the first time
    ui.set_widget("meter", ["REPLACED"])
    assert disposed == made and "METER" not in _shown(mode, fullscreen)
    ui.set_widget("meter", None)
    ui.set_widget("lines", None)
    assert "REPLACED" not in _shown(mode, fullscreen) and "LINE-0" not in _shown(mode, fullscreen)
    assert await repl.quit() == 0


@pytest.mark.parametrize("fullscreen", MODES)
async def test_a_widget_that_raises_is_reported_and_removed(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    mode, ui = repl.mode, repl.mode.ui
    ui.set_widget("ok", ["STILL-HERE"])
    ui.set_widget("bad", lambda tui, theme: Exploding())
    assert "STILL-HERE" in _shown(mode, fullscreen)
    await repl.wait_for("widget exploded")
    assert "bad" not in ui.widgets

    def failing(tui: Any, theme: Theme) -> Any:
        raise ValueError("factory exploded")

    ui.set_widget("worse", failing)
    await repl.wait_for("factory exploded")
    assert "worse" not in ui.widgets and "STILL-HERE" in _shown(mode, fullscreen)
    assert await repl.quit() == 0
