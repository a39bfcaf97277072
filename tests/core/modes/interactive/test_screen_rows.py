"""Rows written as cached screen cells, and the screen diff that passes over unchanged rows."""

from __future__ import annotations

from typing import Any

from pi_core.modes.interactive.screen_rows import RowsWindow, row_cells, split_rows
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.layout import HSplit, Layout
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput


def test_row_cells_cut_at_the_width_with_wide_and_combining_characters() -> None:
    cells = row_cells([("class:a", "ab"), ("", "日本"), ("", "e\u0301x")], None, "class:w", 2, 7)
    assert {x: cell.char for x, cell in cells.items()} == {2: "a", 3: "b", 4: "日", 6: "本", 8: "e\u0301"}
    assert cells[2].style == "class:w class:a" and cells[4].style == "class:w "
    selected = row_cells([("", "abcd")], (1, 3), "", 0, 10)
    assert [cell.style for cell in selected.values()] == ["", " reverse", " reverse", ""]


def test_split_rows_cuts_fragments_at_newlines() -> None:
    rows = split_rows([("s", "one\ntwo"), ("t", "!"), ("", "\n"), ("u", "three")])
    assert rows == [[("s", "one")], [("s", "two"), ("t", "!")], [("u", "three")]]
    assert split_rows([("", "a\n\nb")]) == [[("", "a")], [], [("", "b")]]


def _screen_of(window: RowsWindow, width: int, height: int) -> Screen:
    screen = Screen()
    height = min(height, window.preferred_height(width, height).preferred)
    window.write_to_screen(screen, _handlers(), WritePosition(0, 0, width, height), "", False, None)
    return screen


def _handlers() -> Any:
    from prompt_toolkit.layout.mouse_handlers import MouseHandlers

    return MouseHandlers()


def test_rows_window_is_as_high_as_its_rows_and_reuses_the_cells_of_a_row_still_shown() -> None:
    shown = [[("", "first row is long enough to be cut")], [("class:x", "second")]]
    window = RowsWindow(lambda width: list(shown), style="class:bar")
    app: Application[None] = Application(layout=Layout(HSplit([window])), output=DummyOutput())
    with set_app(app):
        assert window.preferred_height(20, 10).preferred == 2
        screen = _screen_of(window, 20, 10)
        assert "".join(screen.data_buffer[0][x].char for x in range(20)) == "first row is long en"
        assert screen.data_buffer[1][0].style == "class:bar class:x" and screen.height == 2
        second = window._cells[(tuple(shown[1]), "class:bar", 0, 20)]
        shown.insert(0, [("", "a new row on top")])
        screen = _screen_of(window, 20, 10)
        assert "".join(screen.data_buffer[0][x].char for x in range(16)) == "a new row on top"
        assert window._cells[(tuple(shown[2]), "class:bar", 0, 20)] is second  # moved, not made again
        shown.clear()
        assert window.preferred_height(20, 10).preferred == 1  # one empty row, as the toolbar had
