"""Characters typed into the editor are drawn by redrawing the editor's window alone; the screen
that leaves is the screen a full redraw draws."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from pi_core.modes.interactive.editor_echo import types_text
from prompt_toolkit.keys import Keys

MODES = pytest.mark.parametrize("fullscreen", [False, True], ids=["regular", "fullscreen"])


def _cells(screen: Any) -> dict[tuple[int, int], tuple[str, str]]:
    return {
        (y, x): (cell.char, cell.style)
        for y, row in screen.data_buffer.items()
        for x, cell in row.items()
        if y < screen.height
    }


class Watched:
    """Each editor-alone redraw, checked against the full redraw that follows it at once."""

    def __init__(self, mode: Any, whole_screen: bool = True) -> None:
        self.mode = mode
        self.echoed: list[str] = []
        self.refused = 0
        echo = mode._editor_echo
        real = echo.redraw

        def redraw(app: Any) -> bool:
            if not real(app):
                self.refused += 1
                return False
            alone = app.renderer._last_screen
            cursor = alone.cursor_positions.get(app.layout.current_window)
            app._redraw()
            full = app.renderer._last_screen
            area = full.visible_windows_to_write_positions[echo.window]
            editor_rows = range(area.ypos, area.ypos + area.height)
            # Nothing else changed (or, with a menu that the key closed: the editor's rows).
            assert {k: v for k, v in _cells(alone).items() if whole_screen or k[0] in editor_rows} == {
                k: v for k, v in _cells(full).items() if whole_screen or k[0] in editor_rows
            }
            assert cursor == full.cursor_positions.get(app.layout.current_window)
            self.echoed.append(mode.get_editor_text())
            return True

        echo.redraw = redraw


@MODES
async def test_typed_characters_redraw_the_editor_alone_as_a_full_redraw_would(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    await asyncio.sleep(0.1)  # the first full redraw
    watched = Watched(repl.mode)
    for letter in "hello world":
        repl.send(letter)
        await repl.until(lambda typed=letter: repl.mode.get_editor_text().endswith(typed))
    assert watched.echoed[-1] == "hello world" and len(watched.echoed) >= 8
    repl.send("\x7f\x7f")  # Backspace is not typed text: a full redraw
    await repl.until(lambda: repl.mode.get_editor_text() == "hello wor")
    assert watched.echoed[-1] == "hello world"
    repl.mode.set_editor_text("")
    assert await repl.quit() == 0


@MODES
async def test_a_line_that_wraps_takes_a_full_redraw_and_a_menu_the_next_one(
    repl_factory: Callable[..., Any], fullscreen: bool
) -> None:
    repl = await repl_factory(fullscreen=fullscreen)
    await repl.wait_idle_editor()
    await asyncio.sleep(0.1)
    mode = repl.mode
    width = mode._editor_app().output.get_size().columns
    mode.set_editor_text("x" * (width - 4))
    await asyncio.sleep(0.1)
    watched = Watched(mode, whole_screen=False)
    repl.send("yyyyyy")  # the line wraps: the editor grows a row (the inline one has rows spare)
    await repl.until(lambda: mode.get_editor_text().endswith("yyyyyy"))
    assert watched.refused >= 1 if fullscreen else watched.echoed
    mode.set_editor_text("")
    await asyncio.sleep(0.1)
    watched.echoed.clear()
    repl.send("/")
    await repl.until(lambda: mode._editor_control.buffer.complete_state is not None)
    await asyncio.sleep(0.1)  # the menu is drawn (over what the echo of "/" left)
    assert watched.echoed == ["/"]
    drawn = mode._editor_app().render_counter
    repl.send("m")  # the editor's rows as a full redraw's, which follows and draws the menu
    await repl.until(lambda: mode.get_editor_text() == "/m")
    await repl.until(lambda: mode._editor_app().render_counter > drawn)
    mode.set_editor_text("")
    assert await repl.quit() == 0


def test_what_counts_as_typed_text() -> None:
    assert types_text("a") and types_text(" ") and types_text("é")
    assert not types_text(Keys.ControlA) and not types_text(Keys.Escape) and not types_text("\x1b")
    assert not types_text("ab")


EDITOR_PLUGIN = """
from pi_core import hookimpl
from pi_core.plugins.editor import CustomEditor


class Marked(CustomEditor):
    def render(self, width):
        rows = super().render(width)
        rows[-1] += " MARKED"
        return rows


def editor(args, ctx):
    ctx.ui.set_editor_component(lambda tui, theme, keys: Marked(tui, theme, keys))
    ctx.ui.notify("EDITOR SET")


@hookimpl
def register_commands(register):
    register("marked", editor, description="a plugin editor")
"""


@MODES
async def test_a_plugin_editor_redraws_alone_too(
    repl_factory: Callable[..., Any], tmp_path: Any, fullscreen: bool
) -> None:
    plugin = tmp_path / "marked.py"
    plugin.write_text(EDITOR_PLUGIN)
    repl = await repl_factory(extensions=(str(plugin),), fullscreen=fullscreen)
    await repl.submit("/marked")
    await repl.wait_for("EDITOR SET")
    await repl.wait_idle_editor()
    await asyncio.sleep(0.1)
    watched = Watched(repl.mode)
    repl.send("abc")
    await repl.until(lambda: repl.mode.get_editor_text() == "abc")
    await asyncio.sleep(0.05)
    assert watched.echoed and watched.echoed[-1] == "abc"
    app = repl.mode._editor_app()
    row = app.renderer._last_screen.data_buffer[
        app.renderer._last_screen.get_cursor_position(app.layout.current_window).y
    ]
    drawn = "".join(cell.char for cell in row.values())
    assert "> abc" in drawn and "MARKED" in drawn
    repl.mode.set_editor_text("")
    assert await repl.quit() == 0
