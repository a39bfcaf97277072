"""The editor's place in the REPL: the built-in editor, or a plugin's (``set_editor_component``).

The built-in editor's buffer stays where it is either way: it keeps the focus, its history and
its completions, and a :class:`~pi_core.plugins.editor.CustomEditor` types into it. What changes
is who gets the keys first (the plugin's ``handle_input``, with each key's raw bytes, before the
REPL's key bindings) and who draws the rows (:class:`EditorControl` asks the slot).

A plugin editor that raises — made, drawn or given a key — is reported as its plugin's error
and the built-in editor comes back with the text it had.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, fragment_list_width, to_formatted_text
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import UIContent
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.utils import get_cwidth

from pi_core.plugins.editor import CustomEditor, draws_itself

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer
    from prompt_toolkit.mouse_events import MouseEvent

    from pi_core.modes.interactive.app import InteractiveMode

#: Key presses that are the terminal's business, not an editor's (never given to a plugin editor).
_NOT_KEYS = (Keys.CPRResponse, Keys.Vt100MouseEvent, Keys.WindowsMouseEvent, Keys.ScrollUp, Keys.ScrollDown)
_PASTE_START, _PASTE_END = "\x1b[200~", "\x1b[201~"


class EditorSlot:
    """The plugin editor in the editor's place, if any, and the factory that made it."""

    def __init__(self, mode: InteractiveMode) -> None:
        self._mode = mode
        #: ``set_editor_component``'s factory (``get_editor_component`` returns it).
        self.factory: Callable[..., Any] | None = None
        self.component: Any = None
        self._plugin = ""
        #: While a key is being given to the component: the presses it passes on.
        self._passing: list[KeyPress] | None = None

    def draws_rows(self) -> bool:
        """Whether the rows in the editor's place are the plugin's (not the buffer's own drawing)."""
        return self.component is not None and draws_itself(self.component)

    def set(self, factory: Callable[..., Any] | None, plugin: str) -> None:
        """Make the plugin's editor from ``factory(tui, theme, keybindings)`` (``None``: the
        built-in one again); it starts with the text the editor has now."""
        mode = self._mode
        if factory is None:
            self._restore()
            return
        from pi_core.modes.interactive.custom import ComponentKeys, TerminalSize

        tui = TerminalSize(mode.terminal_size, mode.invalidate)
        tui.builtin_editor = Builtin(self)
        try:
            made = factory(tui, mode.ui.theme, ComponentKeys(mode.keymap.keys))
        except Exception as error:
            mode.host.session.report_plugin_error(plugin, "ui.set_editor_component", error)
            return
        text = self._current_text()
        self._restore()
        self.factory, self.component, self._plugin = factory, made, plugin
        with contextlib.suppress(AttributeError):  # a class with __slots__ and no such slot
            made.on_submit = self.submit
        if not isinstance(made, CustomEditor):
            self._call("set_text", text)
        mode.invalidate()

    def _restore(self) -> None:
        """The built-in editor again, with the plugin editor's text."""
        component, self.component, self.factory = self.component, None, None
        if component is not None and not isinstance(component, CustomEditor):
            text = self._ask(component, "get_text")
            if isinstance(text, str):
                self._mode.set_editor_text(text)
        self._mode.invalidate()

    def _current_text(self) -> str:
        component = self.component
        if component is not None and not isinstance(component, CustomEditor):
            text = self._ask(component, "get_text")
            return text if isinstance(text, str) else ""
        return self._mode.get_editor_text()

    def _ask(self, component: Any, method: str, *args: Any) -> Any:
        function = getattr(component, method, None)
        if not callable(function):
            return None
        try:
            return function(*args)
        except Exception as error:
            self._mode.host.session.report_plugin_error(self._plugin, "ui.set_editor_component", error)
            return None

    def _call(self, method: str, *args: Any) -> Any:
        return self._ask(self.component, method, *args)

    def _failed(self, error: BaseException) -> None:
        """The component raised: reported, and the built-in editor back (after this redraw or key)."""
        plugin, component = self._plugin, self.component
        self.component = self.factory = None
        self._mode.host.session.report_plugin_error(plugin, "ui.set_editor_component", error)

        def give_text_back() -> None:
            if component is not None and not isinstance(component, CustomEditor):
                text = self._ask(component, "get_text")
                if isinstance(text, str):
                    self._mode.set_editor_text(text)
            self._mode.invalidate()

        try:
            asyncio.get_running_loop().call_soon(give_text_back)
        except RuntimeError:
            give_text_back()

    # --- text -------------------------------------------------------------------------------------

    def get_text(self) -> str | None:
        """A plugin editor's own text (``None`` for the built-in buffer's)."""
        component = self.component
        if component is None or isinstance(component, CustomEditor):
            return None
        text = self._call("get_text")
        return text if isinstance(text, str) else ""

    def set_text(self, text: str) -> bool:
        """Give a plugin editor of its own ``text``; false when the built-in buffer holds it."""
        component = self.component
        if component is None or isinstance(component, CustomEditor):
            return False
        self._call("set_text", text)
        self._mode.invalidate()
        return True

    def submit(self, text: str) -> None:
        """``on_submit``: ``text`` goes where Enter sends the built-in editor's."""
        buffer = self._mode.editor_buffer()
        if buffer is None:
            return
        buffer.text = text
        buffer.cursor_position = len(text)
        buffer.validate_and_handle()

    # --- keys -------------------------------------------------------------------------------------

    def route(self, presses: list[KeyPress]) -> list[KeyPress]:
        """Give each key to the plugin editor; the presses it passes on (``super().handle_input``)
        go on to the REPL's key bindings and the buffer. Esc and the key after it in one read are
        one key (Alt+X), as the terminal sent them."""
        kept: list[KeyPress] = []
        index = 0
        while index < len(presses):
            press = presses[index]
            index += 1
            if press.key in _NOT_KEYS or self.component is None:
                kept.append(press)
                continue
            data = _PASTE_START + press.data + _PASTE_END if press.key == Keys.BracketedPaste else press.data
            if press.key == Keys.Escape and index < len(presses) and presses[index].key not in _NOT_KEYS:
                following = presses[index]
                if following.key not in (Keys.Escape, Keys.BracketedPaste):
                    data += following.data
                    index += 1
            kept.extend(self._give(data, press))
        self._mode.invalidate()  # a key the component kept may still have changed how it looks
        return kept

    def _give(self, data: str, press: KeyPress) -> list[KeyPress]:
        passed: list[KeyPress] = []
        self._passing = passed
        try:
            self.component.handle_input(data)
        except Exception as error:
            self._failed(error)
            return passed or parse_keys(data) or [press]  # the key still reaches the editor
        finally:
            self._passing = None
        return passed

    def feed(self, data: str) -> None:
        """Keys a :class:`CustomEditor` passes on: with the key being routed, or on their own (a
        timer's) straight to the key processor."""
        presses = parse_keys(data)
        if self._passing is not None:
            self._passing.extend(presses)
            return
        app = self._mode._editor_app()
        if app is None or not app.is_running:
            return
        from pi_core.modes.interactive.custom import TappedKeyProcessor

        processor = app.key_processor
        for press in presses:
            if isinstance(processor, TappedKeyProcessor):
                processor.feed_untapped(press)
            else:
                processor.feed(press)
        processor.process_keys()

    # --- rows -------------------------------------------------------------------------------------

    def drawn(self, width: int) -> tuple[list[StyleAndTextTuples], Point] | None:
        """The plugin's rows at ``width`` and where the cursor is among them; ``None`` when the
        buffer draws itself."""
        component = self.component
        if component is None or not draws_itself(component):
            return None
        from pi_core.modes.interactive.custom import rows_of

        try:
            rows = rows_of(component, width)
        except Exception as error:
            self._failed(error)
            return None
        lines: list[StyleAndTextTuples] = [parsed_row(row) for row in rows] or [[]]
        if isinstance(component, CustomEditor):
            cursor = builtin_cursor(self._mode)
            cursor = Point(x=cursor.x, y=min(cursor.y, len(lines) - 1))
        else:
            cursor = Point(x=fragment_list_width(lines[-1]), y=len(lines) - 1)
        return lines, cursor


class Builtin:
    """The built-in editor as a :class:`CustomEditor` reaches it (``tui.builtin_editor``)."""

    def __init__(self, slot: EditorSlot) -> None:
        self._slot = slot
        self._mode = slot._mode

    def feed(self, data: str) -> None:
        self._slot.feed(data)

    def rows(self, width: int) -> list[str]:
        return builtin_rows(self._mode)

    def get_text(self) -> str:
        buffer = self._mode.editor_buffer()
        return buffer.text if buffer is not None else self._mode._restore_text

    def get_expanded_text(self) -> str:
        return self._mode.pastes.expand(self.get_text())

    def set_text(self, text: str) -> None:
        buffer = self._mode.editor_buffer()
        if buffer is None:
            self._mode._restore_text = text
            return
        buffer.text = text
        buffer.cursor_position = len(text)
        self._mode.invalidate()

    def insert_text(self, text: str) -> None:
        buffer = self._mode.editor_buffer()
        if buffer is None:
            self._mode._restore_text += text
            return
        buffer.insert_text(text)
        self._mode.invalidate()

    def invalidate(self) -> None:
        self._mode.invalidate()


def builtin_rows(mode: InteractiveMode) -> list[str]:
    """The built-in editor as rows: the prompt, then the text (later lines indented), the cursor's
    character in reverse video."""
    buffer: Buffer | None = mode.editor_buffer()
    text = buffer.text if buffer is not None else ""
    cursor = buffer.cursor_position if buffer is not None else len(text)
    rows: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n")):
        lead = mode._prompt_message() if number == 0 else "  "
        end = start + len(line)
        if start <= cursor <= end:
            column = cursor - start
            under = line[column] if column < len(line) else " "
            line = f"{line[:column]}\x1b[7m{under}\x1b[27m{line[column + 1 :]}"
        rows.append(lead + line)
        start = end + 1
    return rows


def builtin_cursor(mode: InteractiveMode) -> Point:
    """Where :func:`builtin_rows` draws the cursor (column, row)."""
    buffer = mode.editor_buffer()
    if buffer is None:
        return Point(x=get_cwidth(mode._prompt_message()), y=0)
    document = buffer.document
    lead = mode._prompt_message() if document.cursor_position_row == 0 else "  "
    before = document.current_line_before_cursor
    return Point(x=get_cwidth(lead) + get_cwidth(before), y=document.cursor_position_row)


_PARSED: dict[str, StyleAndTextTuples] = {}


def parsed_row(row: str) -> StyleAndTextTuples:
    """A plugin editor's row (text with colour escapes) as fragments, parsed once while it is
    drawn again unchanged: it is drawn at every redraw, and a key changes one row of it."""
    fragments = _PARSED.get(row)
    if fragments is None:
        if len(_PARSED) > 1000:
            _PARSED.clear()
        fragments = _PARSED[row] = to_formatted_text(ANSI(row))
    return fragments


def parse_keys(data: str) -> list[KeyPress]:
    """The key presses a terminal's bytes stand for."""
    presses: list[KeyPress] = []
    parser = Vt100Parser(presses.append)
    parser.feed(data)
    parser.flush()
    return presses


class EditorControl(BufferControl):
    """The editor's buffer control; while a plugin editor draws itself, its rows are shown in
    place of the buffer's text (the buffer keeps the focus, so keys and completions still work)."""

    def __init__(self, buffer: Buffer, slot: EditorSlot, **options: Any) -> None:
        super().__init__(buffer, **options)
        self._slot = slot
        self._laid_out: tuple[int, tuple[list[StyleAndTextTuples], Point]] | None = None

    def _plugin_rows(self, width: int) -> tuple[list[StyleAndTextTuples], Point] | None:
        laid_out, self._laid_out = self._laid_out, None
        if laid_out is not None and laid_out[0] == width:
            return laid_out[1]
        return self._slot.drawn(width)

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: Any
    ) -> int | None:
        if not self._slot.draws_rows():
            return super().preferred_height(width, max_available_height, wrap_lines, get_line_prefix)
        drawn = self._slot.drawn(width)
        if drawn is None:
            return super().preferred_height(width, max_available_height, wrap_lines, get_line_prefix)
        self._laid_out = (width, drawn)
        columns = max(1, width)
        return sum(max(1, -(-fragment_list_width(line) // columns)) for line in drawn[0])

    def create_content(self, width: int, height: int, preview_search: bool = False) -> UIContent:
        drawn = self._plugin_rows(width) if self._slot.draws_rows() else None
        if drawn is None:
            return super().create_content(width, height, preview_search)
        lines, cursor = drawn
        return UIContent(
            get_line=lambda index: lines[index],
            line_count=len(lines),
            cursor_position=cursor,
            show_cursor=False,
        )

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        if self._slot.draws_rows():
            return NotImplemented  # the rows are the plugin's: a click means nothing to the buffer
        return super().mouse_handler(mouse_event)
