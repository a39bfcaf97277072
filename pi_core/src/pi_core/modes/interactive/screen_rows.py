"""Rows of fragments written onto prompt-toolkit's screen as cells made once per row.

prompt-toolkit's own window turns its content into screen cells character by character on every
redraw, about half a millisecond per full row, and a key redraws the whole layout. While an answer
streams, dozens of rows of it are on screen, so each key paid for all of them. Here a row's cells
(``x → Char``) are made the first time the row is drawn and reused for as long as the same row is
shown, wherever it moves; writing them is one ``dict.update`` per row.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.screen import Char

Line = StyleAndTextTuples
Cells = dict[int, Char]

_CHARS: dict[tuple[str, str], Char] = {}


def char(text: str, style: str) -> Char:
    """One screen cell, shared by every cell with the same character and style (the screen diff
    compares cells, and a shared one compares equal at once)."""
    made = _CHARS.get((text, style))
    if made is None:
        if len(_CHARS) > 50_000:
            _CHARS.clear()
        made = _CHARS[text, style] = Char(text, style)
    return made


def row_cells(
    row: Line, span: tuple[int, int | None] | None, parent_style: str, left: int, width: int
) -> Cells:
    """One row as screen cells (x → character), cut at ``width``; the columns in ``span``
    (end ``None``: to the end of the row) reversed, as a selection is drawn."""
    cells: Cells = {}
    x = 0
    previous: int | None = None
    for fragment in row:
        style = fragment[0]
        if "[ZeroWidthEscape]" in style:
            continue
        style = f"{parent_style} {style}" if parent_style else style
        for letter in fragment[1]:
            selected = span is not None and span[0] <= x and (span[1] is None or x < span[1])
            cell = char(letter, f"{style} reverse" if selected else style)
            if cell.width == 0:
                if previous is not None:  # a combining mark joins the character before it
                    before = cells[previous]
                    cells[previous] = char(before.char + letter, before.style)
                continue
            if x + cell.width > width:
                return cells
            cells[left + x] = cell
            previous = left + x
            x += cell.width
    return cells


def split_rows(fragments: StyleAndTextTuples) -> list[Line]:
    """Formatted text cut into rows at its newlines."""
    rows: list[Line] = [[]]
    for fragment in fragments:
        text = fragment[1]
        if "\n" not in text:
            rows[-1].append(fragment)
            continue
        parts = text.split("\n")
        for number, part in enumerate(parts):
            if number:
                rows.append([])
            if part:
                rows[-1].append((fragment[0], part))
    return rows


class RowsWindow(Window):
    """A window of plain rows (``rows(width)``: one fragment list per row, longer rows cut at the
    width, never wrapped), as high as it has rows (at least one), the rows' cells made once per
    row. For rows that are only looked at: no cursor, no mouse handling. The rows asked for to
    measure the window are the rows drawn in the same redraw."""

    def __init__(self, rows: Callable[[int], list[Line]], *, style: str = "", **options: Any) -> None:
        super().__init__(style=style, dont_extend_height=True, always_hide_cursor=True, **options)
        self._get_rows = rows
        #: The rows the layout was measured with: (width, rows).
        self._measured: tuple[int, list[Line]] | None = None
        self._cells: dict[Hashable, Cells] = {}

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        rows = self._get_rows(width)
        self._measured = (width, rows)  # drawn by the write that follows the measuring
        count = max(1, len(rows))
        return Dimension(min=1, preferred=count, max=count)

    def _write_to_screen_at_index(
        self,
        screen: Any,
        mouse_handlers: Any,
        write_position: Any,
        parent_style: str,
        erase_bg: bool,
    ) -> None:
        position = write_position
        if position.height <= 0 or position.width <= 0:
            return
        own = self.style if isinstance(self.style, str) else ""
        style = f"{parent_style} {own}" if parent_style and own else parent_style or own
        measured, self._measured = self._measured, None
        rows = (
            measured[1]
            if measured is not None and measured[0] == position.width
            else self._get_rows(position.width)
        )
        rows = rows[: position.height]
        cached = self._cells
        kept: dict[Hashable, Cells] = {}
        buffer = screen.data_buffer
        for offset, row in enumerate(rows):
            key = (tuple(row), style, position.xpos, position.width)
            cells = kept.get(key) or cached.get(key)
            if cells is None:
                cells = row_cells(row, None, style, position.xpos, position.width)
            kept[key] = cells
            buffer[position.ypos + offset].update(cells)
        self._cells = kept
        screen.height = max(screen.height, position.ypos + position.height)
        screen.visible_windows_to_write_positions[self] = position


def skip_unchanged_rows() -> None:
    """Make prompt-toolkit's screen diff pass over the rows that did not change since the last
    redraw (installed once, for every application of the process).

    The diff reads every cell of every row of both screens on each redraw, to find the rows'
    ends and then compare them column by column: about a millisecond a redraw for a full
    120-column screen, most of a key's redraw, though a key changes one row or two. A row equal
    to the one drawn before (one dictionary comparison: rows made by :func:`row_cells` and by
    prompt-toolkit share their cells) is handed to it as an empty row on both sides, which it
    passes over writing nothing, and put back afterwards. Redraws from scratch (the first, after a
    resize, the last) are left alone.
    """
    from prompt_toolkit import renderer

    original = renderer._output_screen_diff
    if getattr(original, "skips_unchanged_rows", False):
        return

    def diff(
        app: Any,
        output: Any,
        screen: Any,
        current_pos: Any,
        color_depth: Any,
        previous_screen: Any,
        last_style: Any,
        is_done: bool,
        **options: Any,
    ) -> Any:
        size = options.get("size")
        if (
            previous_screen is None
            or is_done
            or size is None
            or options.get("previous_width") != size.columns
        ):
            return original(
                app, output, screen, current_pos, color_depth, previous_screen, last_style, is_done, **options
            )
        rows, before = screen.data_buffer, previous_screen.data_buffer
        swapped: list[tuple[int, Any, Any]] = []
        for y in range(min(max(screen.height, previous_screen.height), size.rows)):
            row, old = rows.get(y), before.get(y)
            if row is not None and old is not None and row == old:  # (the same row, too)
                swapped.append((y, row, old))
                rows[y] = before[y] = rows.default_factory()
        try:
            return original(
                app, output, screen, current_pos, color_depth, previous_screen, last_style, is_done, **options
            )
        finally:
            for y, row, old in swapped:
                rows[y], before[y] = row, old

    diff.skips_unchanged_rows = True  # type: ignore[attr-defined]
    diff.original = original  # type: ignore[attr-defined]
    renderer._output_screen_diff = diff  # type: ignore[assignment]


def set_mouse_handlers_by_row() -> None:
    """Make prompt-toolkit set a window's mouse handler a row at a time (installed once, for every
    application of the process).

    A window hands its handler to each cell of its area, one dictionary assignment per cell; the
    inline editor's window spans the rows down to the toolbar, some four thousand cells at every
    redraw. One ``dict.update`` per row does the same.
    """
    from prompt_toolkit.layout.mouse_handlers import MouseHandlers

    if getattr(MouseHandlers.set_mouse_handler_for_range, "by_row", False):
        return

    def set_mouse_handler_for_range(
        self: MouseHandlers, x_min: int, x_max: int, y_min: int, y_max: int, handler: Any
    ) -> None:
        row_of_handlers = dict.fromkeys(range(x_min, x_max), handler)
        for y in range(y_min, y_max):
            self.mouse_handlers[y].update(row_of_handlers)

    set_mouse_handler_for_range.by_row = True  # type: ignore[attr-defined]
    set_mouse_handler_for_range.original = MouseHandlers.set_mouse_handler_for_range  # type: ignore[attr-defined]
    MouseHandlers.set_mouse_handler_for_range = set_mouse_handler_for_range  # type: ignore[method-assign]
