"""Overlay placement (pi's ``OverlayOptions``) and the handle ``on_handle`` gets, in the
fullscreen REPL: where an overlay goes, hiding and showing it, who has the keys, bad options."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pi_core.modes.interactive.overlay import OverlayBounds, OverlayOptions, place, read_options

PLUGIN = """
import json

from pi_core import hookimpl

HANDLES = []


class Box:
    def __init__(self, done):
        self.done, self.typed = done, ""

    def render(self, width):
        return [f"BOX typed={self.typed}", "second row", "third row"]

    def handle_input(self, data):
        if data == "\\r":
            self.done(self.typed)
        else:
            self.typed += data


async def box(args, ctx):
    value = await ctx.ui.custom(
        lambda tui, theme, keys, done: Box(done),
        overlay=True,
        overlay_options=json.loads(args) if args else None,
        on_handle=HANDLES.append,
    )
    ctx.ui.notify(f"BOX-GAVE {value}")


@hookimpl
def register_commands(register):
    register("box", box, description="a placed overlay")
"""

# What pi 1.6.0's resolveOverlayLayout gives for these (options, overlay height, columns, rows).
PI_PLACEMENTS = [
    ({}, 5, 120, 40, (17, 20, 80), None),
    ({"anchor": "top-right", "width": "50%", "margin": 2}, 6, 120, 40, (2, 58, 60), None),
    ({"anchor": "bottom-left", "maxHeight": "25%"}, 30, 100, 40, (30, 0, 80), 10),
    ({"row": "100%", "col": "0%", "width": 30}, 4, 100, 30, (26, 0, 30), None),
    ({"anchor": "bottom-center", "offsetY": -1, "offsetX": 5, "width": 40}, 3, 120, 40, (36, 45, 40), None),
    ({"minWidth": 50, "width": "10%", "anchor": "left-center"}, 10, 200, 20, (5, 0, 50), None),
    ({"row": 35, "col": 110, "width": 20}, 10, 120, 40, (30, 100, 20), None),
    ({"margin": {"top": 3, "left": 4}, "anchor": "top-left"}, 2, 60, 20, (3, 4, 56), None),
    ({"width": 500}, 2, 90, 20, (9, 0, 90), None),
]


@pytest.mark.parametrize(("options", "height", "columns", "rows", "expected", "max_height"), PI_PLACEMENTS)
def test_overlays_are_placed_as_pi_places_them(
    options: dict[str, Any],
    height: int,
    columns: int,
    rows: int,
    expected: tuple[int, int, int],
    max_height: int | None,
) -> None:
    bounds, limit = place(read_options(options), lambda width: height, columns, rows)
    assert (bounds.row, bounds.col, bounds.width) == expected
    assert limit == max_height
    assert bounds.height == min(height, max_height or height)


def test_options_take_pis_names_or_snake_case_and_bad_ones_say_what_is_wrong() -> None:
    camel = read_options({"maxHeight": "50%", "offsetX": 2, "nonCapturing": True})
    snake = read_options({"max_height": "50%", "offset_x": 2, "non_capturing": True})
    assert camel == snake == OverlayOptions(max_height="50%", offset_x=2, non_capturing=True)
    with pytest.raises(ValueError, match=r"overlay_options: anchor: .*") as bad:
        read_options({"anchor": "middle"})
    assert "\n" not in str(bad.value)
    with pytest.raises(ValueError, match=r"width"):
        read_options({"width": "half"})
    with pytest.raises(ValueError, match=r"colour"):
        read_options({"colour": "red"})


def _plugin(tmp_path: Path) -> str:
    path = tmp_path / "placed.py"
    path.write_text(PLUGIN)
    return str(path)


async def test_a_placed_overlay_and_its_handle(repl_factory: Callable[..., Any], tmp_path: Path) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=True)
    mode: Any = repl.mode
    options = {"anchor": "top-right", "width": 30, "margin": 1}
    await repl.submit("/box " + json.dumps(options))
    await repl.until(lambda: len(mode._placed) == 1)
    handle = mode._placed[0]
    columns = mode.terminal_size()[0]
    await repl.until(lambda: handle.get_bounds() is not None)
    assert handle.get_bounds() == OverlayBounds(row=1, col=columns - 31, width=30, height=3)
    assert handle.is_focused() and not handle.is_hidden()
    repl.send("ab")
    await repl.until(lambda: "typed=ab" in _rows(handle))
    handle.set_hidden(True)  # the keys go back to the editor meanwhile
    assert handle.is_hidden() and not handle.is_focused() and handle.get_bounds() is None
    assert mode._app.layout.has_focus(mode._buffer)
    repl.send("xy")
    await repl.until(lambda: mode.editor_buffer().text == "xy")
    handle.set_hidden(False)
    assert handle.is_focused()
    handle.unfocus()
    assert mode._app.layout.has_focus(mode._buffer)
    handle.focus()
    repl.send("c\r")
    await repl.wait_for("BOX-GAVE abc")
    await repl.until(lambda: not mode._placed and mode._overlays == 0)
    assert mode._app.layout.has_focus(mode._buffer)
    mode.set_editor_text("")
    assert await repl.quit() == 0


async def test_a_non_capturing_overlay_leaves_the_keys_and_hide_ends_it(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=True)
    mode: Any = repl.mode
    await repl.submit('/box {"nonCapturing": true, "anchor": "bottom-left", "maxHeight": 2}')
    await repl.until(lambda: len(mode._placed) == 1)
    handle = mode._placed[0]
    await repl.until(lambda: handle.get_bounds() is not None)
    bounds = handle.get_bounds()
    assert (bounds.col, bounds.height) == (0, 2) and bounds.row == mode.terminal_size()[1] - 2
    assert not handle.is_focused()
    repl.send("typed")
    await repl.until(lambda: mode.editor_buffer().text == "typed")
    handle.hide()
    await repl.wait_for("BOX-GAVE None")
    mode.set_editor_text("")
    assert await repl.quit() == 0


async def test_bad_overlay_options_are_reported_and_the_overlay_still_shows(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=True)
    mode: Any = repl.mode
    await repl.submit('/box {"anchor": "middle"}')
    await repl.wait_for("overlay_options: anchor")
    await repl.until(lambda: len(mode._placed) == 1)
    handle = mode._placed[0]
    await repl.until(lambda: handle.get_bounds() is not None)
    columns = mode.terminal_size()[0]
    assert handle.get_bounds().col == (columns - min(80, columns)) // 2  # pi's defaults
    repl.send("ok\r")
    await repl.wait_for("BOX-GAVE ok")
    assert await repl.quit() == 0


async def test_unfocus_gives_the_keys_to_a_target_and_a_dialog_gives_them_back_only_if_held(
    repl_factory: Callable[..., Any], tmp_path: Path
) -> None:
    repl = await repl_factory(extensions=(_plugin(tmp_path),), fullscreen=True)
    mode: Any = repl.mode
    await repl.submit('/box {"anchor": "top-left", "width": 30}')
    await repl.until(lambda: len(mode._placed) == 1)
    first = mode._placed[0]
    made: list[Any] = []

    class Other:
        def __init__(self, done: Any) -> None:
            self.done, self.typed = done, ""
            made.append(self)

        def render(self, width: int) -> list[str]:
            return [f"OTHER typed={self.typed}"]

        def handle_input(self, data: str) -> None:
            self.typed += data

    second_value = asyncio.ensure_future(
        mode.ui.custom(
            lambda tui, theme, done: Other(done), overlay=True, overlay_options={"anchor": "top-right"}
        )
    )
    await repl.until(lambda: len(mode._placed) == 2 and mode._placed[1].is_focused())
    second = mode._placed[1]
    second.unfocus(first)  # to the other overlay's handle
    assert first.is_focused() and not second.is_focused()
    repl.send("a")
    await repl.until(lambda: "typed=a" in _rows(first))
    first.unfocus({"target": made[0]})  # pi's form, naming the component the factory made
    assert second.is_focused()
    repl.send("b")
    await repl.until(lambda: "typed=b" in _rows(second))
    second.unfocus(None)  # nobody gets the keys
    assert not first.is_focused() and not second.is_focused() and not mode.editor_focused()
    repl.send("z")
    await asyncio.sleep(0.2)
    assert "z" not in _rows(first) + _rows(second) and mode.editor_buffer().text == ""
    first.focus()
    # A dialog over a focused overlay gives it the keys back when it closes...
    asked = asyncio.ensure_future(mode.ui.input("Your name"))
    await repl.in_dialog()
    repl.send("Ada\r")
    assert await asyncio.wait_for(asked, 5) == "Ada"
    assert first.is_focused()
    # ...but not to one that gave them away.
    first.unfocus()
    assert mode.editor_focused()
    asked = asyncio.ensure_future(mode.ui.input("Again"))
    await repl.in_dialog()
    repl.send("\x1b")
    assert await asyncio.wait_for(asked, 5) is None
    assert mode.editor_focused()
    second.focus()
    second_value.cancel()
    first.focus()
    repl.send("\r")
    await repl.wait_for("BOX-GAVE a")
    mode.set_editor_text("")
    assert await repl.quit() == 0


def _rows(handle: Any) -> str:
    from prompt_toolkit.layout import walk

    texts: list[str] = []
    for container in walk(handle.content):
        control = getattr(container, "content", None)
        if control is not None and hasattr(control, "create_content"):
            content = control.create_content(60, 5)
            texts.extend("".join(t for _, t, *_ in content.get_line(i)) for i in range(content.line_count))
    return "\n".join(texts)
