"""A redraw asks for the rows around the editor several times (to measure the layout, then to
draw it): what they are made from is worked out again only when it changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core.modes.interactive.screen_rows import RowsWindow
from prompt_toolkit.layout import walk


def _text(fragments: Any) -> str:
    return "".join(fragment[1] for fragment in fragments)


async def test_the_inline_toolbar_is_parsed_once_per_change(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory()
    await repl.wait_idle_editor()
    mode = repl.mode
    mode.ui.set_widget("light", ["\x1b[31mRED\x1b[0m"])  # an escape: the row is parsed as ANSI
    first = mode._styled_toolbar()
    assert "RED" in _text(first)
    assert mode._styled_toolbar() is first
    mode.ui.set_widget("light", ["\x1b[32mGREEN\x1b[0m"])
    second = mode._styled_toolbar()
    assert second is not first and "GREEN" in _text(second)
    assert await repl.quit() == 0


async def test_fullscreen_rows_around_the_editor_keep_their_cells(repl_factory: Callable[..., Any]) -> None:
    repl = await repl_factory(fullscreen=True)
    await repl.wait_idle_editor()
    mode = repl.mode
    mode.ui.set_widget("above", ["ABOVE-ROW"], placement="aboveEditor")
    mode.ui.set_widget("below", ["BELOW-ROW"], placement="belowEditor")
    windows = [c for c in walk(mode._root) if isinstance(c, RowsWindow)]
    assert len(windows) == 4  # above the editor, the status row, below the editor, the footer
    drawn = ["".join(text for row in w._get_rows(80) for _, text, *_ in row) for w in windows]
    assert "ABOVE-ROW" in drawn[0] and "BELOW-ROW" in drawn[2] and "loop/fake-model" in drawn[3]
    assert await repl.quit() == 0
