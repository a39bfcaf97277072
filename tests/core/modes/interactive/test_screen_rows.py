"""Rows written as cached screen cells, and the screen diff that passes over unchanged rows."""

from __future__ import annotations

import io
import random
from typing import Any

from pi_core.modes.interactive.screen_rows import (
    RowsWindow,
    row_cells,
    set_mouse_handlers_by_row,
    skip_unchanged_rows,
    split_rows,
)
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.screen import Char, Screen, WritePosition
from prompt_toolkit.output import ColorDepth, DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.renderer import _StyleStringHasStyleCache, _StyleStringToAttrsCache
from prompt_toolkit.styles import Style


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


def _random_screen(rng: random.Random, base: Screen | None, width: int, height: int) -> Screen:
    """A screen of random rows, or ``base`` with a few rows changed (the rest shared cells)."""
    screen = Screen()
    letters = "ab c日"
    styles = ["", "class:x", "bold", "#ff0000"]
    for y in range(height):
        keep = base is not None and rng.random() < 0.7
        if keep and base is not None:
            screen.data_buffer[y].update(base.data_buffer[y])
            continue
        for x in range(rng.randrange(0, width)):
            screen.data_buffer[y][x] = Char(rng.choice(letters), rng.choice(styles))
    screen.height = height
    screen.cursor_positions = {}
    return screen


def _diff_output(function: Any, screen: Screen, previous: Screen | None, width: int, height: int) -> str:
    sink = io.StringIO()
    output = Vt100_Output(sink, lambda: Size(rows=height, columns=width), term="xterm-256color")
    style = Style.from_dict({"x": "underline"})
    attrs = _StyleStringToAttrsCache(style.get_attrs_for_style_str, _identity())
    app: Application[None] = Application(layout=Layout(Window()), output=DummyOutput())
    with set_app(app):
        function(
            app,
            output,
            screen,
            Point(0, 0),
            ColorDepth.DEPTH_8_BIT,
            previous,
            None,
            False,
            full_screen=True,
            attrs_for_style_string=attrs,
            style_string_has_style=_StyleStringHasStyleCache(attrs),
            size=Size(rows=height, columns=width),
            previous_width=width,
        )
    output.flush()
    return sink.getvalue()


def _identity() -> Any:
    from prompt_toolkit.styles import DummyStyleTransformation

    return DummyStyleTransformation()


def test_the_diff_passing_over_unchanged_rows_writes_what_prompt_toolkits_writes() -> None:
    from prompt_toolkit import renderer

    skip_unchanged_rows()
    patched = renderer._output_screen_diff
    original = patched.original  # type: ignore[attr-defined]
    assert patched is not original
    skip_unchanged_rows()  # installed once
    assert renderer._output_screen_diff is patched
    rng = random.Random(14)
    width, height = 30, 12
    for _ in range(60):
        before = _random_screen(rng, None, width, height)
        after = _random_screen(rng, before, width, height)
        copies = [(_copy(before), _copy(after)) for _ in range(2)]
        expected = _diff_output(original, copies[0][1], copies[0][0], width, height)
        assert _diff_output(patched, copies[1][1], copies[1][0], width, height) == expected
        for y in range(height):  # the rows are put back as they were (the diff's reads fill gaps)
            assert _drawn(copies[1][1].data_buffer[y]) == _drawn(after.data_buffer[y])


def _drawn(row: Any) -> dict[int, Char]:
    return {x: cell for x, cell in row.items() if cell.style != "[transparent]"}


def _copy(screen: Screen) -> Screen:
    made = Screen()
    for y, row in screen.data_buffer.items():
        made.data_buffer[y].update(row)
    made.height = screen.height
    return made


def test_a_plugin_editors_rows_are_parsed_once_while_unchanged() -> None:
    from pi_core.modes.interactive.editor_slot import parsed_row

    row = "> typed \x1b[7m \x1b[27m  -- INSERT --"
    first = parsed_row(row)
    assert parsed_row(row) is first
    assert "".join(text for _, text, *_ in first) == "> typed    -- INSERT --"
    assert any("reverse" in style for style, *_ in first)
    assert parsed_row(row + "x") is not first


def test_mouse_handlers_set_a_row_at_a_time_as_cell_by_cell() -> None:
    from prompt_toolkit.layout.mouse_handlers import MouseHandlers

    set_mouse_handlers_by_row()
    set_mouse_handlers_by_row()  # installed once
    by_row = MouseHandlers.set_mouse_handler_for_range
    cell_by_cell = by_row.original  # type: ignore[attr-defined]
    ours, theirs = MouseHandlers(), MouseHandlers()

    def handler(event: object) -> None:
        return None

    for x_min, x_max, y_min, y_max in [(0, 120, 0, 34), (5, 9, 40, 41), (10, 10, 0, 5), (0, 3, 7, 7)]:
        by_row(ours, x_min, x_max, y_min, y_max, handler)
        cell_by_cell(theirs, x_min, x_max, y_min, y_max, handler)
    assert {y: dict(row) for y, row in ours.mouse_handlers.items() if row} == {
        y: dict(row) for y, row in theirs.mouse_handlers.items() if row
    }
    assert ours.mouse_handlers[40][6] is handler and 9 not in ours.mouse_handlers[40]
