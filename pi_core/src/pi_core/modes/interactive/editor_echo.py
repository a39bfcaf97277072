"""Typed characters drawn by redrawing the editor's window alone.

A redraw lays out the whole screen (transcript, working row, widgets, editor, footer) and
compares it with the screen drawn before: about a millisecond and a half, and while an answer
streams most of what it finds changed is the answer, not the key. When the keys just handled only
typed into the editor, the editor keeps its height and nothing was drawn over it, the editor's
window alone is drawn again, onto a copy of the screen drawn last, and the difference written
out: the character reaches the terminal in a fraction of that time. The full redraw the keys
asked for still follows at the loop's next turn and draws whatever else changed.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit import renderer as toolkit_renderer
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.screen import Screen, WritePosition


def types_text(key: Any) -> bool:
    """Whether a key press is a character typed (not a control key, not an escape sequence)."""
    return isinstance(key, str) and not isinstance(key, Keys) and len(key) == 1 and key.isprintable()


class EditorEcho:
    """Remembers where and how the layout last drew the editor's window, to draw it alone."""

    def __init__(self, window: Window) -> None:
        self.window = window
        #: The last full redraw's arguments to the window, and the height it measured.
        self._drawn: tuple[WritePosition, str, bool, int | None, int] | None = None
        self._draw = draw = window.write_to_screen

        def write_to_screen(
            screen: Screen,
            mouse_handlers: Any,
            write_position: WritePosition,
            parent_style: str,
            erase_bg: bool,
            z_index: int | None,
        ) -> None:
            draw(screen, mouse_handlers, write_position, parent_style, erase_bg, z_index)
            rows = get_app().output.get_size().rows
            self._drawn = (
                write_position,
                parent_style,
                erase_bg,
                z_index,
                self._height(write_position, rows),
            )

        window.write_to_screen = write_to_screen  # type: ignore[method-assign]

    def _height(self, position: WritePosition, rows: int) -> int:
        """The height the window asks for: measured against the screen's rows, not its area's,
        which would cap it at the height it has."""
        return self.window.preferred_height(position.width, rows).preferred

    def redraw(self, app: Application[Any]) -> bool:
        """Draw the editor's window alone and write what changed; ``False`` (nothing drawn) when
        the whole layout has to be drawn instead."""
        renderer = app.renderer
        last = renderer._last_screen
        drawn = self._drawn
        if (
            drawn is None
            or last is None
            or app.is_done
            or renderer._attrs_for_style is None
            or renderer._style_string_has_style is None
            or self.window not in last.visible_windows_to_write_positions
        ):
            return False
        size = app.output.get_size()
        if (
            size != renderer._last_size
            or renderer.style.invalidation_hash() != renderer._last_style_hash
            or app.color_depth != renderer._last_color_depth
        ):
            return False
        position, parent_style, erase_bg, z_index, height = drawn
        if self._height(position, size.rows) != height:
            return False  # the layout changes: the editor grows or shrinks
        if any(
            window is not self.window and _overlap(shown, position)
            for window, shown in last.visible_windows_to_write_positions.items()
        ):
            return False  # something was drawn over the editor (a completion menu, an overlay)
        screen = _copy_without(last, position, size.columns)
        self._draw(screen, renderer.mouse_handlers, position, parent_style, erase_bg, z_index)
        if screen._draw_float_functions:
            return False  # not drawn: the window floats (it has a z-index); the full redraw draws it
        renderer._cursor_pos, renderer._last_style = toolkit_renderer._output_screen_diff(
            app,
            renderer.output,
            screen,
            renderer._cursor_pos,
            app.color_depth,
            last,
            renderer._last_style,
            False,
            full_screen=renderer.full_screen,
            attrs_for_style_string=renderer._attrs_for_style,
            style_string_has_style=renderer._style_string_has_style,
            size=size,
            previous_width=size.columns,
        )
        renderer._last_screen = screen
        renderer.output.flush()
        return True


def _overlap(one: WritePosition, other: WritePosition) -> bool:
    return (
        one.xpos < other.xpos + other.width
        and other.xpos < one.xpos + one.width
        and one.ypos < other.ypos + other.height
        and other.ypos < one.ypos + one.height
    )


def _copy_without(screen: Screen, area: WritePosition, columns: int) -> Screen:
    """A copy of ``screen`` (``columns`` wide) with ``area`` blank. The rows outside it are the
    same objects (they are only read); a row across it is left out when the area spans it (the
    copy makes a new one as the window writes), else copied without the area's columns."""
    copy = Screen(initial_width=screen.width, initial_height=screen.height)
    copy.data_buffer.update(screen.data_buffer)
    copy.zero_width_escapes.update(screen.zero_width_escapes)
    copy.cursor_positions = dict(screen.cursor_positions)
    copy.menu_positions = dict(screen.menu_positions)
    copy.show_cursor = screen.show_cursor
    copy.visible_windows_to_write_positions = dict(screen.visible_windows_to_write_positions)
    left, right = area.xpos, area.xpos + area.width
    spans = left <= 0 and right >= columns
    grids: tuple[Any, ...] = (copy.data_buffer, copy.zero_width_escapes)  # y → x → cell
    for rows in grids:
        for y in range(area.ypos, area.ypos + area.height):
            row = rows.get(y)
            if row is None:
                continue
            if spans or not row:
                del rows[y]
                continue
            kept = rows.default_factory()
            kept.update({x: cell for x, cell in row.items() if x < left or x >= right})
            rows[y] = kept
    return copy
