"""The fullscreen REPL: a prompt-toolkit full-screen application drawn with rich.

The transcript fills the screen and scrolls (PageUp/PageDown, the mouse wheel); the editor stays
at the bottom with a footer under it that is always there (model, thinking level, context,
tokens, cost, directory and git branch, plugin statuses). The answer being streamed is drawn as
markdown while it grows. Commands, dialogs, the picker and the keys are the inline REPL's
(:class:`~pi_core.modes.interactive.app.InteractiveMode`): what they print becomes transcript
blocks through :class:`~pi_core.modes.interactive.transcript.TranscriptConsole`, so Ctrl+O
redraws every tool result expanded or collapsed, and Ctrl+T every thinking block shown or
hidden, in place. Dialogs (the picker, a plugin's
questions) and plugin components take the editor's place inside the running application, so the
answer being streamed goes on growing above them.
Ctrl+F searches the transcript; dragging with the mouse selects characters and copies them.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import DynamicCompleter
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text
from prompt_toolkit.history import FileHistory, History
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    DynamicKeyBindings,
    KeyBindings,
    merge_key_bindings,
)
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    UIContent,
    UIControl,
    Window,
)
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.screen import Char
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output import Output
from prompt_toolkit.styles import DynamicStyle
from prompt_toolkit.utils import get_cwidth
from rich.markdown import Markdown
from rich.text import Text

from pi_core.modes.interactive.app import (
    LIVE_REFRESH,
    RENDER_POSTPONE,
    SEQUENCE_WAIT,
    InteractiveMode,
    _default_history,
    escape_wait,
)
from pi_core.modes.interactive.code_blocks import ThemedMarkdown
from pi_core.modes.interactive.editor_echo import EditorEcho
from pi_core.modes.interactive.editor_slot import EditorControl
from pi_core.modes.interactive.keymap import Keymap, key_text
from pi_core.modes.interactive.overlay import OverlayOptions, OverlayRequest, PlacedOverlay
from pi_core.modes.interactive.screen_rows import RowsWindow, row_cells, split_rows
from pi_core.modes.interactive.transcript import Block, Line, Transcript, TranscriptConsole

if TYPE_CHECKING:
    from pi_core.ai.abort import AbortSignal
    from pi_core.modes.interactive.custom import ComponentKeys
    from pi_core.modes.interactive.external_editor import ExternalEditor
    from pi_core.modes.interactive.picker import PickerKeys, Selector
    from pi_core.modes.interactive.program_status import Blocked
    from pi_core.modes.interactive.styles import ReplStyles
    from pi_core.runtime.host import RuntimeHost

T = TypeVar("T")

#: A streaming block longer than this many lines is shown as its plain tail while it grows
#: (laying out a huge unfinished code block as markdown on every token would lag the keys).
LIVE_MARKDOWN_LINES = 120
#: Seconds between two redraws for output (a key redraws at once).
REDRAW_INTERVAL = 0.03
#: Rows the mouse wheel scrolls per notch.
WHEEL_ROWS = 3
#: Seconds a note such as "Copied 3 lines" stays in the status row.
FLASH_SECONDS = 2.5

_PAUSED = "\x00paused"


class FullscreenMode(InteractiveMode):
    """The REPL as a full-screen application (``tuiMode`` ``fullscreen``, the default)."""

    transcript_keys = True

    def __init__(
        self,
        host: RuntimeHost,
        *,
        input: Input | None = None,
        output: Output | None = None,
        history_file: Path | None = None,
        verbose: bool = False,
    ) -> None:
        self.transcript = Transcript()
        self._view_size = (80, 24)
        console = TranscriptConsole(self.transcript, lambda: self._view_size)
        super().__init__(
            host, console=console, input=input, output=output, history_file=history_file, verbose=verbose
        )
        self._own_terminal = input is None and output is None
        self.transcript.on_change = self.invalidate
        self._app: Application[str] | None = None
        self._app_task: asyncio.Task[str] | None = None
        self._submitted: deque[str] = deque()
        self._wakeup = asyncio.Event()
        self._buffer: Buffer | None = None
        self._search: Buffer | None = None
        self._searching = False
        self._flash: tuple[float, str] | None = None
        self._live_key: tuple[Any, ...] | None = None
        self._live_lines: list[Line] = []
        #: The interval is over: the next redraw lays the streaming block out again.
        self._live_ready = False
        self._redraw_timer: asyncio.TimerHandle | None = None
        #: An abort (Esc, Ctrl+C) is under way: its output is drawn without the output pacing.
        self._aborting_now = False
        self._shown_rows: list[Line] = []
        #: Plugin components floating over the transcript now.
        self._overlays = 0
        #: Plugin components and dialogs shown in the editor's place (the last one is drawn and
        #: takes the keys; closing it shows the one under it again), oldest first.
        self._in_place: list[Container] = []
        #: Which of those are dialogs (``select``, ``confirm``, ``input``, ``editor``, the picker).
        #: While one of them, or a floating component, has the keys, the REPL's own are off.
        self._dialog_views: list[Container] = []
        #: The floating ones, in the order shown.
        self._placed: list[PlacedOverlay] = []
        #: What the factory of each component in the editor's place made, by its container's id.
        self._made: dict[int, Any] = {}
        #: Where the keys go when an overlay gives them to nobody (``unfocus(None)``).
        self._nowhere = Window(FormattedTextControl("", focusable=True), height=0)
        #: A mouse drag over the transcript: (row on screen, column) where it began and is now.
        self._select_from: tuple[int, int] | None = None
        self._select_to: tuple[int, int] | None = None
        #: With ``fullscreenCopyOnSelect`` off, the last drag's selection, drawn until the next
        #: press and copied by ``app.message.copy``: its text, its lines' ids (it scrolls with
        #: them) with their index, its first column, the column after its last, its row count.
        self._kept: tuple[str, dict[int, int], int, int, int] | None = None

    # --- editor and application -------------------------------------------------------------------

    def _start_editor(self) -> None:
        if self._app is not None:  # started before plugins (:meth:`_plugins_starting`)
            return
        self._editor_reads()
        history: History = (
            FileHistory(str(self._history_file))
            if self._history_file is not None
            else _default_history(self.host.options.agent_dir)
        )
        self._buffer = Buffer(
            multiline=True,
            history=history,
            completer=DynamicCompleter(lambda: self.completer),
            complete_while_typing=True,
            accept_handler=self._accept,
        )
        self._search = Buffer(multiline=False, accept_handler=self._search_next)
        self._app = self._build_app()
        self._tap_input(self._app)

    async def _start_plugins(self) -> None:
        """The header is redrawn when a plugin replaces it, so plugins can start after it."""
        self._print_opening()
        await self.bind()

    def ask_terminal_colours(self) -> None:
        """Nothing here waits for the answer (the transcript is laid out again when it comes),
        so a wait runs on its own: after it, a terminal that said nothing gets ANSI colours
        instead of the grey of the wait."""
        super().ask_terminal_colours()
        if self.colours is not None:
            self.spawn(self.terminal_colours_answered())

    async def _plugins_starting(self) -> None:
        """The application runs before plugins start, as pi's UI does: the editor, the footer
        and the header are drawn at once — in grey (the ``system`` theme while the terminal's
        colours are awaited), laid out again in colour when they come — and a dialog a plugin
        opens in ``session_start`` opens inside it. What is typed meanwhile waits for the REPL."""
        if self._app is None:
            from pi_core.runtime import system_theme

            if system_theme.pending():  # asked just now: the first frame is grey
                self.ui.terminal_changed()
            self._start_editor()
            self._editor_free.clear()
            running = asyncio.Event()
            self._app_task = task = asyncio.create_task(self._run_app(running.set))
            waiting = asyncio.ensure_future(running.wait())
            await asyncio.wait({waiting, task}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()

    def _print_header(self) -> None:
        session = self.host.session
        if session.settings.settings.quiet_startup and not self.verbose:
            return
        self.console.print(_HeaderView(self))

    def header_changed(self) -> None:
        self.transcript.relayout()

    def lay_out_sample(self) -> None:
        from pi_core.modes.interactive.app import _MARKDOWN_SAMPLE

        self.transcript.render([Markdown(_MARKDOWN_SAMPLE)], {}, self._view_size[0])

    def theme_changed(self) -> None:
        if self.styles is self._applied_styles:  # a plugin's own theme object: its rows again
            self.transcript.relayout()
        else:
            self.apply_theme()

    def _use_styles(self, styles: ReplStyles) -> None:
        """The transcript is laid out again with the theme: old output takes its colours too."""
        self._live_key = None
        self.transcript.use_theme(styles.rich, styles.color_system)

    def terminal_size(self) -> tuple[int, int]:
        app = self._app
        if app is not None:
            size = app.output.get_size()
            return size.columns, size.rows
        return self._view_size

    def _editor_app(self) -> Any:
        return self._app

    def _accept(self, buffer: Buffer) -> bool:
        self._submitted.append(buffer.text)
        self._wakeup.set()
        return False  # the editor is emptied (the text went to history)

    def _build_app(self) -> Application[str]:
        assert self._buffer is not None and self._search is not None
        self._editor_control = EditorControl(self._buffer, self.editor_slot)
        editor = Window(
            self._editor_control,
            height=Dimension(min=1, max=12),
            wrap_lines=True,
            get_line_prefix=self._line_prefix,
            dont_extend_height=True,
        )
        self._editor_echo = EditorEcho(editor)
        searching = Condition(lambda: self._searching)
        search_bar = ConditionalContainer(
            Window(
                BufferControl(self._search),
                height=1,
                get_line_prefix=lambda line, wrap: [("class:search", self._search_prompt())],
            ),
            filter=searching,
        )
        body = HSplit(
            [
                _TranscriptWindow(_TranscriptControl(self)),
                search_bar,
                ConditionalContainer(
                    RowsWindow(lambda width: split_rows(self._above_editor())),
                    filter=Condition(lambda: self.ui.has_widgets("aboveEditor")),
                ),
                RowsWindow(lambda width: split_rows(self._status_row())[:1]),
                DynamicContainer(lambda: self._in_place[-1] if self._in_place else editor),
                ConditionalContainer(
                    RowsWindow(lambda width: split_rows(self._below_editor())),
                    filter=Condition(lambda: self.ui.has_widgets("belowEditor")),
                ),
                RowsWindow(lambda width: split_rows(self._footer())),
                self._nowhere,
            ]
        )
        root = FloatContainer(
            body, floats=[Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))]
        )
        self._root = root
        app: Application[str] = Application(
            layout=Layout(root, focused_element=editor),
            key_bindings=ConditionalKeyBindings(
                merge_key_bindings(
                    [DynamicKeyBindings(lambda: self._key_bindings), self._own_keys(searching)]
                ),
                filter=~Condition(self._plugin_ui_has_keys),
            ),
            style=DynamicStyle(lambda: self.styles.toolkit),
            color_depth=lambda: self.styles.color_depth,
            full_screen=True,
            mouse_support=True,
            refresh_interval=1.0,
            min_redraw_interval=None,  # keys redraw at once; output is paced by invalidate()
            input=self.terminal["input"],
            output=self.terminal["output"],
        )
        # Esc alone aborts at once (see InteractiveMode._make_editor).
        app.ttimeoutlen = escape_wait()
        app.timeoutlen = SEQUENCE_WAIT
        app.max_render_postpone_time = RENDER_POSTPONE
        return app

    def _line_prefix(self, line: int, wrap: int) -> StyleAndTextTuples:
        if self.editor_slot.draws_rows():
            return []  # a plugin editor draws its own prompt
        if line == 0 and wrap == 0:
            return [(self.prompt_style(), self._prompt_message())]
        return [("", "  ")]

    def _own_keys(self, searching: Condition) -> DynamicKeyBindings:
        """The transcript's keys (pi's ``tui.altScreen.*`` actions), made again for each keymap
        (``/reload``); they win over the editor's on a key both have."""
        made: list[tuple[Keymap, KeyBindings]] = []

        def current() -> KeyBindings:
            if not made or made[0][0] is not self.keymap:
                made[:] = [(self.keymap, self._transcript_keys(self.keymap, searching))]
            return made[0][1]

        return DynamicKeyBindings(current)

    def _transcript_keys(self, keymap: Keymap, searching: Condition) -> KeyBindings:
        keys = KeyBindings()

        def on(action_id: str, handler: Callable[[], object], **options: Any) -> None:
            for sequence in keymap.sequences(action_id):
                keys.add(*sequence, **options)(lambda event: handler())

        def page() -> int:
            return max(1, self._view_size[1] - 2)

        on("tui.altScreen.pageUp", lambda: self.scroll(page()))
        on("tui.altScreen.pageDown", lambda: self.scroll(-page()))
        on("tui.altScreen.halfPageUp", lambda: self.scroll(max(1, page() // 2)))
        on("tui.altScreen.halfPageDown", lambda: self.scroll(-max(1, page() // 2)))
        on("tui.altScreen.lineUp", lambda: self.scroll(1))
        on("tui.altScreen.lineDown", lambda: self.scroll(-1))
        on("tui.altScreen.top", self.scroll_to_top)
        # At the bottom already, Ctrl+End is the editor's own (the end of its text).
        on(
            "tui.altScreen.bottom",
            lambda: self.scroll(-self.transcript.scroll),
            filter=Condition(lambda: self.transcript.scroll > 0),
        )
        on("tui.altScreen.previousPrompt", lambda: self.jump_to_prompt(up=True))
        on("tui.altScreen.nextPrompt", lambda: self.jump_to_prompt(up=False))
        on("tui.altScreen.search", self._open_search)
        assert self._search is not None
        search = self._search
        on("tui.altScreen.searchNext", lambda: self._search_next(search), filter=searching)
        on("tui.altScreen.searchPrevious", lambda: self._search_next(search, down=True), filter=searching)
        on("tui.altScreen.searchClose", self._close_search, filter=searching, eager=True)
        keys.add("c-c", filter=searching)(lambda event: self._close_search())
        return keys

    def _search_prompt(self) -> str:
        """The search field's prompt, with the keys as bound (``search (Enter: older, Esc closes): ``)."""
        hints = [
            what.format(key_text(keys[:1]))
            for action_id, what in (
                ("tui.altScreen.searchNext", "{}: older"),
                ("tui.altScreen.searchPrevious", "{}: newer"),
                ("tui.altScreen.searchClose", "{} closes"),
            )
            if (
                keys := [
                    key for key in self.keymap.keys.get(action_id, []) if self.keymap.sequence(key, action_id)
                ]
            )
        ]
        return f"search ({', '.join(hints)}): " if hints else "search: "

    def _open_search(self) -> None:
        if self._search is not None and self._app is not None:
            self._searching = True
            self._app.layout.focus(self._search)

    def scroll_to_top(self) -> None:
        """The transcript's first row at the top of the screen (every block is laid out)."""
        width, height = self._view_size
        rows = len(self.live_lines(width)) + sum(
            len(self.transcript.lines(block, width)) for block in self.transcript.blocks
        )
        self.scroll(max(0, rows - height) - self.transcript.scroll)

    def jump_to_prompt(self, *, up: bool) -> None:
        """The user's message above (or below) the top of the screen goes to its top; below the
        last one is the bottom, following new output again."""
        width, height = self._view_size
        scroll = self.transcript.prompt_scroll(width, height, len(self.live_lines(width)), up=up)
        if scroll is not None:
            self.scroll(scroll - self.transcript.scroll)

    def scroll(self, rows: int) -> None:
        """Scroll the transcript up (``rows`` > 0) or down; at the bottom it follows new output."""
        self.transcript.scroll = max(0, self.transcript.scroll + rows)
        self.invalidate()

    # --- search -------------------------------------------------------------------------------------

    def _search_next(self, buffer: Buffer, *, down: bool = False) -> bool:
        """The next hit further up (``down``: the one below), wrapping round at the end."""
        width, height = self._view_size
        find = self.transcript.search_down if down else self.transcript.search
        hit = find(buffer.text, width, self.transcript.highlight)
        if hit is None and self.transcript.highlight is not None:
            hit = find(buffer.text, width, None)  # wrap around
        if hit is None:
            self.flash(f"Not found: {buffer.text}")
        else:
            self.transcript.scroll_to(hit, width, height)
        return True  # keep the text: Enter again finds the next older one

    def _close_search(self) -> None:
        self._searching = False
        self.transcript.highlight = None
        self.transcript.scroll = 0
        if self._app is not None and self._buffer is not None:
            with contextlib.suppress(ValueError):
                self._app.layout.focus(self._buffer)
        self.invalidate()

    # --- the parts around the editor -------------------------------------------------------------

    def flash(self, text: str) -> None:
        self._flash = (time.monotonic() + FLASH_SECONDS, text)
        self.invalidate()

    def _status_row(self) -> StyleAndTextTuples:
        parts: StyleAndTextTuples = []
        # A dialog or a component in the editor's place hides the working row, as pi's, which
        # draws it in the editor's border, does.
        if self.busy and self.ui.working_visible and not self._in_place:
            elapsed = int(time.monotonic() - self._task_started)
            # The keys act on the run only while the editor has them (not a floating
            # component's, where Enter answers it).
            hints = (
                self.run_hints(
                    ("app.interrupt", "aborts"),
                    ("tui.input.submit", "steers"),
                    ("app.message.followUp", "queues"),
                )
                if self.editor_focused()
                else []
            )
            keys = "".join(f" · {hint}" for hint in hints)
            message = self.ui.working_prefix() + (self.ui.working_message or "working…")
            parts.extend(to_formatted_text(ANSI(message)))
            parts.append(("class:working", f" {elapsed}s{keys}"))
        flash = self._flash
        if flash is not None and flash[0] > time.monotonic():
            parts.append(("class:status", ("  " if parts else "") + flash[1]))
        elif self.transcript.scroll:
            parts.append(
                ("class:status", ("  " if parts else "") + "↑ scrolled · PageDown or Ctrl+End returns")
            )
        return parts or [("class:separator", "─" * max(1, self._view_size[0]))]

    def _above_editor(self) -> StyleAndTextTuples:
        lines = self.ui.widget_lines("aboveEditor", self._view_size[0])
        return to_formatted_text(ANSI("\n".join(lines))) if lines else []

    def _below_editor(self) -> StyleAndTextTuples:
        lines = self.ui.widget_lines("belowEditor", self._view_size[0])
        return to_formatted_text(ANSI("\n".join(lines))) if lines else []

    def _footer(self) -> StyleAndTextTuples:
        width = self._view_size[0]
        custom = self.ui.component_rows("footer", width)
        if custom is not None:
            return to_formatted_text(ANSI("\n".join(custom)), style="class:footer")
        figures = "  ".join(self.footer_text().split(" · "))
        rows = f"{_fit(figures, width)}\n{self.place_row(width)}"
        footer: StyleAndTextTuples = [("class:footer", rows)]
        if self.ui.statuses:
            # Plugin statuses keep their colours (``ctx.ui.theme.fg``).
            statuses = "  ".join(self.ui.statuses[key] for key in sorted(self.ui.statuses))
            footer.append(("class:footer", "\n"))
            footer.extend(to_formatted_text(ANSI(statuses), style="class:footer"))
        return footer

    def live_lines(self, width: int) -> list[Line]:
        """The block being streamed (markdown as it grows) and the running tools' last lines."""
        renderer = self.renderer
        text_pending = renderer._text.pending
        pending = renderer.pending_text()
        live = tuple((name, tuple(tail)) for name, tail in renderer.live_output.values())
        key = (width, pending, live, renderer.hide_thinking)
        if key == self._live_key:
            return self._live_lines
        now = time.monotonic()
        ended = not pending.strip() and not live
        if self._live_key is not None and self._live_key[0] == width and not self._live_ready and not ended:
            # New text is laid out only when the interval since the last layout is over, in the
            # redraw its timer asks for: a key pressed meanwhile redraws with what is there.
            if self._live_timer is None:
                wait = max(0.0, LIVE_REFRESH - (now - self._live_at))
                self._live_timer = asyncio.get_running_loop().call_later(wait, self._live_due)
            return self._live_lines
        self._live_ready = False
        self._live_at = now
        parts: list[Any] = []
        if pending.strip():
            shown = pending.strip("\n")  # sanitised by the renderer
            rows = shown.split("\n")
            if text_pending and len(rows) <= LIVE_MARKDOWN_LINES:
                parts.append(ThemedMarkdown(renderer.markdown(shown, "assistant", streaming=True)))
            elif text_pending:
                parts.append(Text("\n".join(rows[-LIVE_MARKDOWN_LINES:])))
            else:
                thinking = renderer.markdown(
                    "\n".join(rows[-LIVE_MARKDOWN_LINES:]), "assistant-thinking", streaming=True
                )
                parts.append(Text(thinking, style="pi.thinking"))
        for name, tail in live:
            parts.append(Text(f"{name} running…", style="pi.toolName"))
            if tail:
                parts.append(Text("\n".join(f"  {line}" for line in tail), style="pi.toolOutput"))
        self._live_lines = self.transcript.render(parts, {}, width) if parts else []
        self._live_key = key
        return self._live_lines

    def _live_due(self) -> None:
        """The interval is over: the next redraw lays the block out again (``live_lines`` notes
        when, as the layout may also come with a key's redraw)."""
        self._live_timer = None
        self._live_ready = True
        self._redraw_due()

    # --- selection ----------------------------------------------------------------------------------

    def select(self, row: int, column: int, *, start: bool) -> None:
        if start or self._select_from is None:
            self._select_from = (row, column)
            self._kept = None
        self._select_to = (row, column)
        self.invalidate()

    def finish_selection(self, row: int, column: int) -> None:
        """The drag ended at (``row``, ``column``): the characters between its ends are copied —
        with ``fullscreenCopyOnSelect`` off they stay selected instead, for Ctrl+X."""
        start, self._select_from = self._select_from, None
        self._select_to = None
        if start is None or start == (row, column):
            self.invalidate()
            return
        text = self.selection_text(start, (row, column))
        rows = abs(row - start[0]) + 1
        if text and self.host.session.settings.settings.fullscreen_copy_on_select:
            self.spawn(self._copy(text, rows))
        elif text:
            (low_row, low_col), (high_row, high_col) = sorted((start, (row, column)))
            lines = {id(line): index for index, line in enumerate(self._shown_rows[low_row : high_row + 1])}
            self._kept = (text, lines, low_col, high_col + 1, rows)
        self.invalidate()

    async def copy_message(self) -> None:
        """A selection kept (``fullscreenCopyOnSelect`` off) is copied; otherwise the last answer."""
        if self._kept is None:
            return await super().copy_message()
        text, *_, rows = self._kept
        await self._copy(text, rows)

    def selection_text(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """The characters on screen from ``start`` to ``end`` (row, column; both included)."""
        (low_row, low_col), (high_row, high_col) = sorted((start, end))
        rows = self.transcript.plain_rows(self._shown_rows[low_row : high_row + 1])
        if rows:
            rows[-1] = _columns(rows[-1], 0, high_col + 1)
            rows[0] = _columns(rows[0], low_col, None)
        return "\n".join(line.rstrip() for line in rows).strip("\n")

    def selected_span(self, row: int) -> tuple[int, int | None] | None:
        """The columns of ``row`` inside the selection being dragged, or kept (end ``None``: to
        the end)."""
        if self._select_from is None or self._select_to is None:
            return self._kept_span(row)
        (low_row, low_col), (high_row, high_col) = sorted((self._select_from, self._select_to))
        if not low_row <= row <= high_row:
            return None
        return (low_col if row == low_row else 0, high_col + 1 if row == high_row else None)

    def _kept_span(self, row: int) -> tuple[int, int | None] | None:
        if self._kept is None or row >= len(self._shown_rows):
            return None
        _, lines, first, after, _ = self._kept
        index = lines.get(id(self._shown_rows[row]))
        if index is None:
            return None
        return (first if index == 0 else 0, after if index == len(lines) - 1 else None)

    async def _copy(self, text: str, rows: int) -> None:
        from pi_core.modes.interactive.clipboard import copy_to_clipboard

        terminal = sys.__stdout__ if self._own_terminal else None
        if await copy_to_clipboard(text, terminal):
            self.flash(f"Copied {len(text)} character(s) from {rows} line(s)")
        else:
            self.flash("No clipboard here (xclip, xsel, wl-copy or a terminal with OSC 52)")

    # --- the loop's hooks ---------------------------------------------------------------------------

    async def _read(self) -> str | None:
        while True:
            while not self._no_dialog.is_set():
                await self._no_dialog.wait()
            if self._quit:
                return None
            if self._submitted:
                return self._submitted.popleft()
            if self._app_task is None or self._app_task.done():
                self._editor_free.clear()
                self._app_task = asyncio.create_task(self._run_app())
            self._wakeup.clear()
            waiter = asyncio.create_task(self._wakeup.wait())
            done, _ = await asyncio.wait({waiter, self._app_task}, return_when=asyncio.FIRST_COMPLETED)
            if waiter not in done:
                waiter.cancel()
            if self._app_task in done:
                try:
                    result = self._app_task.result()
                except (EOFError, KeyboardInterrupt):
                    return None
                if result != _PAUSED and not self._submitted:
                    return None

    async def _run_app(self, running: Callable[[], None] = lambda: None) -> str:
        assert self._app is not None
        text, self._restore_text = self._restore_text, ""

        def restore() -> None:
            running()
            # The application resets its layout when it starts again: give the editor its text back.
            if text and self._buffer is not None:
                self._buffer.text = text
                self._buffer.cursor_position = len(text)

        try:
            return await self._app.run_async(pre_run=restore)
        finally:
            self._editor_free.set()

    def _print_footer(self) -> None:
        """The footer is always on screen here; runs leave no copy of it in the transcript."""

    def invalidate(self) -> None:
        """Redraw soon: output (tokens, tool updates, plugin statuses) is drawn at most every
        ``REDRAW_INTERVAL``, so that a key — which redraws at once — never waits behind it.
        While an abort is under way what it prints is the answer to a key, drawn at once too."""
        app = self._app
        if app is None or not app.is_running:
            return
        if self._aborting_now:
            if self._redraw_timer is not None:
                self._redraw_timer.cancel()
                self._redraw_timer = None
            app.invalidate()
            return
        if self._redraw_timer is not None:
            return
        loop = asyncio.get_running_loop()
        self._redraw_timer = loop.call_later(REDRAW_INTERVAL, self._redraw_due)

    def _redraw_due(self) -> None:
        self._redraw_timer = None
        app = self._app
        if app is not None and app.is_running:
            app.invalidate()

    async def abort(self) -> None:
        self._aborting_now = True
        try:
            await super().abort()
        finally:
            self._aborting_now = False

    def request_quit(self) -> None:
        self._quit = True
        self._wakeup.set()
        app = self._app
        if app is not None and app.is_running and app.future is not None and not app.future.done():
            app.exit(result="")

    def editor_buffer(self) -> Buffer | None:
        return self._buffer

    def set_editor_text(self, text: str) -> None:
        self.pastes.clear()
        if self.editor_slot.set_text(text):
            return
        if self._buffer is not None:
            self._buffer.text = text
            self._buffer.cursor_position = len(text)
            self.invalidate()
        else:
            self._restore_text = text

    def get_editor_text(self) -> str:
        own = self.editor_slot.get_text()
        if own is not None:
            return own
        return self.pastes.expand(self._buffer.text if self._buffer is not None else self._restore_text)

    def redraw(self) -> None:
        """Session navigation: the transcript is replaced by the session's, drawn as it was live."""
        self.transcript.clear()
        self._print_header()
        self.renderer.replay(self.host.session.messages, self.custom_entries())

    def redrawn_in_place(self) -> contextlib.AbstractContextManager[None]:
        """The transcript is laid out again after the change, what is at the top of the screen
        kept there while it is scrolled up."""
        width, height = self._view_size
        return self.transcript.kept_in_place(width, height, len(self.live_lines(width)))

    def toggle_tool_output(self) -> None:
        """Ctrl+O: every tool result on screen is drawn again, expanded or collapsed (scrolled
        up, the top of the screen stays where it is)."""
        with self.redrawn_in_place():
            self.renderer.expand_tools = not self.renderer.expand_tools
        self.flash("Tool output " + ("expanded" if self.renderer.expand_tools else "collapsed"))

    async def show_component(
        self,
        factory: Callable[..., Any],
        theme: Any,
        keys: ComponentKeys,
        overlay: bool,
        request: OverlayRequest | None = None,
    ) -> Any:
        """The component is shown inside the running application — in the editor's place, or
        with ``overlay`` floating over the transcript where ``request``'s options put it — so
        output goes on streaming around it; the keys are its until it is done (an overlay's
        handle may give them back meanwhile)."""
        app = self._app
        if app is None or not app.is_running:
            return await super().show_component(factory, theme, keys, overlay, request)
        from pi_core.modes.interactive.custom import (
            Showing,
            TerminalSize,
            component_container,
            dispose,
            make_component,
        )

        showing = Showing()
        closed = asyncio.Event()
        showing.on_done = closed.set
        tui = TerminalSize(self.terminal_size, self.invalidate)
        made = await make_component(factory, tui, theme, keys, showing)
        if showing.finished:
            return showing.outcome()
        content, bindings = component_container(made, showing)
        request = request or OverlayRequest()
        placed: PlacedOverlay | None = None
        if overlay:
            placed = PlacedOverlay(
                HSplit([content], key_bindings=bindings, style="class:overlay"),
                request.options or _own_width(made),
                app,
                give_focus_back=self._focus_under,
                close=lambda: showing.done(None),
                give_focus_to=self._focus_on,
                component=made,
            )
            shown: Container = placed.content
            self._root.floats.append(placed.float)
            self._placed.append(placed)
            self._overlays += 1
            if request.blocked is not None:  # until done, hidden or covered as it may be
                self.program_status.set_blocked(placed, request.blocked)
        else:
            shown = HSplit([content], key_bindings=bindings)
            self._in_place.append(shown)
            self._made[id(shown)] = made
            self.waiting(shown, request.blocked)
        try:
            # Keys find their bindings through the layout's parent links, which are otherwise
            # only brought up to date by the next redraw: a key typed before it would miss the
            # component's bindings.
            app.layout.update_parents_relations()
            if placed is None or not placed.non_capturing:
                with contextlib.suppress(ValueError):  # a container with nothing to focus
                    app.layout.focus(content)
            if placed is not None and request.on_handle is not None:
                try:
                    request.on_handle(placed)
                except Exception as error:
                    if request.report is not None:
                        request.report(error)
            self.invalidate()
            await closed.wait()
        finally:
            had_focus = app.is_running and app.layout.has_focus(shown)
            if placed is not None:
                self._overlays -= 1
                self._placed.remove(placed)
                with contextlib.suppress(ValueError):
                    self._root.floats.remove(placed.float)
                if request.blocked is not None:
                    self.program_status.set_blocked(placed, None)
            else:
                with contextlib.suppress(ValueError):
                    self._in_place.remove(shown)
                self._made.pop(id(shown), None)
                self.done_waiting(shown)
            app.layout.update_parents_relations()
            if had_focus:
                self._focus_under(placed)
            dispose(made)
            self.invalidate()
        return showing.outcome()

    def _live(self) -> bool:
        """Whether the application is up to show a dialog inside it (not before it first starts,
        nor once it is closing)."""
        app = self._app
        return app is not None and app.is_running and app.future is not None and not app.future.done()

    def _dialog_has_keys(self) -> bool:
        if not self._dialog_views or self._app is None:
            return False
        return self._in_place[-1] in self._dialog_views and self._app.layout.has_focus(self._in_place[-1])

    def _plugin_ui_has_keys(self) -> bool:
        """Whether a dialog, a plugin's component in the editor's place or a floating one has
        the keys: then every key is its (as pi hands them all to the focused component), and
        the REPL's own — Esc aborting the run, Ctrl+D, Ctrl+F — rest."""
        app = self._app
        if app is None or not (self._in_place or self._placed):
            return False
        if self._in_place and app.layout.has_focus(self._in_place[-1]):
            return True
        return any(app.layout.has_focus(placed.content) for placed in self._placed)

    def _open_dialog(self, view: Container, focus: Container, blocked: Blocked | None) -> Callable[[], None]:
        """Show ``view`` in the editor's place, with the keys; the function that closes it. It
        closes at once when answered, so a key typed right after goes to what comes back — the
        editor (its text as it was) or the dialog under it. Output goes on streaming above it;
        the terminal hears that pi waits for what ``blocked`` says while it is on top."""
        app = self._app
        assert app is not None
        self._in_place.append(view)
        self._dialog_views.append(view)
        self.waiting(view, blocked)
        app.layout.update_parents_relations()  # see show_component
        with contextlib.suppress(ValueError):
            app.layout.focus(focus)
        self.invalidate()

        def close() -> None:
            if view not in self._dialog_views:
                return
            had_focus = app.is_running and app.layout.has_focus(view)
            self._in_place.remove(view)
            self._dialog_views.remove(view)
            self.done_waiting(view)
            app.layout.update_parents_relations()
            if had_focus:
                self._focus_under(None)
            self.invalidate()

        return close

    async def show_picker(
        self,
        title: str,
        rows: Sequence[str],
        *,
        initial: int,
        extra_keys: PickerKeys,
        timeout_ms: float | None,
        signal: AbortSignal | None,
        on_highlight: Callable[[int | None], None] | None,
        blocked: Blocked | None,
    ) -> int | None:
        """The list in the editor's place inside the running application, output going on above it."""
        if not self._live():
            return await super().show_picker(
                title,
                rows,
                initial=initial,
                extra_keys=extra_keys,
                timeout_ms=timeout_ms,
                signal=signal,
                on_highlight=on_highlight,
                blocked=blocked,
            )
        from pi_core.modes.interactive.dialogs import cancelled_by
        from pi_core.modes.interactive.picker import Picker, picker_view

        result: int | None = None
        if rows and not (signal is not None and signal.aborted):
            picker = Picker(list(rows))
            picker.refilter(keep=initial)
            # The status row already runs across above the editor's place: no rule of its own.
            view, keys = picker_view(
                title,
                picker,
                extra_keys,
                timeout_ms=timeout_ms,
                on_highlight=on_highlight,
                rule_above=False,
                keymap=self.keymap.keys,
            )
            closed = asyncio.Event()
            chosen: list[int | None] = []
            close = self._open_dialog(HSplit([view], key_bindings=keys), view, blocked)

            def finished(index: int | None) -> None:
                chosen.append(index)
                close()
                closed.set()

            picker.on_finish = finished
            try:
                with cancelled_by(timeout_ms, signal, lambda: picker.finish(None)):
                    await closed.wait()
            finally:
                close()
            result = chosen[0] if chosen else None
        return result

    async def show_selector(self, selector: Selector) -> Any:
        """The selector in the editor's place inside the running application."""
        if not self._live():
            return await super().show_selector(selector)
        closed = asyncio.Event()
        chosen: list[Any] = []
        selector.rule_above = False  # the status row already runs across above the editor's place
        close = self._open_dialog(HSplit([selector.view], key_bindings=selector.keys), selector.view, None)

        def finished(result: Any) -> None:
            chosen.append(result)
            close()
            closed.set()

        selector.on_finish = finished
        try:
            await closed.wait()
        finally:
            close()
        return chosen[0] if chosen else None

    async def question(
        self,
        title: str,
        *,
        message: str = "",
        prompt: str = "> ",
        default: str = "",
        placeholder: str | None = None,
        multiline: bool = False,
        secret: bool = False,
        timeout_ms: float | None = None,
        signal: AbortSignal | None = None,
        blocked: Blocked | None = None,
        external: ExternalEditor | None = None,
    ) -> str | None:
        """The question in the editor's place inside the running application."""
        if not self._live():
            return await super().question(
                title,
                message=message,
                prompt=prompt,
                default=default,
                placeholder=placeholder,
                multiline=multiline,
                secret=secret,
                timeout_ms=timeout_ms,
                signal=signal,
                blocked=blocked,
                external=external,
            )
        from pi_core.modes.interactive.dialogs import cancelled_by, question_view

        if signal is not None and signal.aborted:
            return None
        closed = asyncio.Event()
        answers: list[str | None] = []
        close: Callable[[], None] = lambda: None  # noqa: E731 - the dialog's, once it is open

        def answered(text: str | None) -> None:
            answers.append(text)
            close()
            closed.set()

        view, field = question_view(
            title,
            answered,
            message=message,
            prompt=prompt,
            default=default,
            placeholder=placeholder,
            multiline=multiline,
            secret=secret,
            timeout_ms=timeout_ms,
            external=external,
        )
        close = self._open_dialog(view, field, blocked)
        try:
            with cancelled_by(timeout_ms, signal, lambda: answered(None)):
                await closed.wait()
        finally:
            close()
        return answers[0] if answers else None

    def _focus_under(self, leaving: PlacedOverlay | None) -> None:
        """The keys go where they went before the component that is leaving (or hiding) took
        them: the front-most other overlay that takes keys, else the component in the editor's
        place, else the editor."""
        app = self._app
        if app is None or not app.is_running:
            return
        for placed in reversed(self._placed):
            usable = placed.showing() and not placed.non_capturing and placed.wants_keys
            if placed is not leaving and usable:
                with contextlib.suppress(ValueError):
                    app.layout.focus(placed.content)
                    return
        target: Any = self._in_place[-1] if self._in_place else self._buffer
        if target is not None:
            with contextlib.suppress(ValueError):
                app.layout.focus(target)

    def _focus_on(self, target: Any) -> bool:
        """An overlay's ``unfocus(target)``: the keys to ``target`` — another overlay (its handle
        or its component), a component shown in the editor's place, a prompt-toolkit container,
        or ``None``: nobody (no component nor the editor gets them until something takes them).
        False when ``target`` is none of those on screen now."""
        app = self._app
        if app is None or not app.is_running:
            return False
        if target is None:
            app.layout.focus(self._nowhere)
            return True
        for placed in self._placed:
            if target is placed or target is placed.component:
                if not placed.showing():
                    return False
                placed.focus()
                return placed.is_focused()
        container: Any = None
        for shown in self._in_place:
            if self._made.get(id(shown)) is target:
                container = shown
        if container is None and (isinstance(target, Container) or hasattr(target, "__pt_container__")):
            container = target
        if container is None:
            return False
        try:
            app.layout.focus(container)
        except ValueError:
            return False
        return True

    async def dialog(self, run: Callable[[], Awaitable[T]], blocked: Blocked | None = None) -> T:
        """A dialog asked while the application is not running (before it first starts) takes the
        screen: the transcript's last rows are drawn above the question (still in the alternate
        screen), and the application comes back when it is answered."""
        self._dialogs += 1
        self._no_dialog.clear()
        try:
            while not self._editor_free.is_set():
                app = self._app
                if app is not None and app.is_running and app.future is not None and not app.future.done():
                    if not self._restore_text and self._buffer is not None:
                        self._restore_text = self._buffer.text
                    # Leave the alternate screen on: the dialog draws there, over a snapshot.
                    app.renderer._in_alternate_screen = False
                    app.exit(result=_PAUSED)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._editor_free.wait(), 0.05)
            async with self._dialog_lock:
                self._show_context()
                console = self.console
                assert isinstance(console, TranscriptConsole)
                console.echo = self._echo if self._own_terminal else None
                try:
                    with self.shown_waiting(blocked):
                        return await run()
                finally:
                    console.echo = None
                    self._clear_screen()
        finally:
            self._dialogs -= 1
            if self._dialogs == 0:
                self._no_dialog.set()

    def _show_context(self) -> None:
        """The transcript's last rows at the top of the screen, for the dialog to draw under."""
        app = self._app
        if app is None or not self._own_terminal:
            return
        output = app.output
        width, height = self._view_size
        rows, _ = self.transcript.window(width, max(1, height - 16), [])
        from prompt_toolkit.renderer import print_formatted_text

        output.write_raw(_erase(self.terminal_size()[1]))
        for row in rows:
            print_formatted_text(output, to_formatted_text([*row, ("", "\n")]), self.styles.toolkit)
        output.write_raw("\n")
        output.flush()

    def _clear_screen(self) -> None:
        """Home and clear: the application draws from where the cursor is, and entering the
        alternate screen again (still in it) does not move it."""
        if self._app is not None and self._own_terminal:
            self._app.output.write_raw(_erase(self.terminal_size()[1]))
            self._app.output.flush()

    def _echo(self, block: Block) -> None:
        """A block printed while a dialog has the screen (its title, say): drawn there too."""
        app = self._app
        if app is None:
            return
        from prompt_toolkit.renderer import print_formatted_text

        for row in self.transcript.lines(block, self._view_size[0]):
            print_formatted_text(app.output, to_formatted_text([*row, ("", "\n")]), self.styles.toolkit)
        app.output.flush()

    async def _shutdown(self) -> None:
        await super()._shutdown()
        if not self._own_terminal:
            return
        if self.host.session.settings.settings.fullscreen_exit_output == "transcript":
            self._print_transcript()
        elif self.host.session.session_file:
            print(f"Resume this session with: pi --session {self.host.session.session_file}")

    def _print_transcript(self) -> None:
        """After leaving the alternate screen: the conversation on the normal screen, as pi does."""
        from rich.console import Console

        from pi_core.modes.interactive.transcript import clean_environ

        console = Console(highlight=False, _environ=clean_environ())
        for block in self.transcript.blocks:
            with contextlib.suppress(Exception):
                console.print(*block.objects, **block.kwargs)


def _own_width(made: Any) -> Callable[[], OverlayOptions]:
    """Without options an overlay is as wide as the component's ``width`` attribute says (pi)."""
    width = getattr(made, "width", None)
    options = OverlayOptions(width=width) if isinstance(width, int) and width > 0 else OverlayOptions()
    return lambda: options


class _HeaderView:
    """The header as a transcript block that asks the mode for its rows each time it is laid
    out, so a plugin's ``set_header`` (usually in ``session_start``) replaces it in place."""

    def __init__(self, mode: FullscreenMode) -> None:
        self.mode = mode

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from self.mode.header_parts(options.max_width)
        loaded = self.mode._loaded_summary()
        if loaded:
            yield Text(loaded, style="pi.dim")


class _TranscriptWindow(Window):
    """The transcript's window, which writes its rows onto prompt-toolkit's screen itself.

    prompt-toolkit's own window costs about half a millisecond per full row; while an answer
    streams every row moves up as the block grows, so a redraw rebuilt them all. Here each row
    (a list of fragments the transcript keeps) is turned into screen cells once and the cells are
    reused for as long as the same row object is shown, wherever it moves.
    """

    def __init__(self, control: _TranscriptControl) -> None:
        super().__init__(control, wrap_lines=False, always_hide_cursor=True)
        self._control = control
        self._cells: dict[int, tuple[Line, tuple[Any, ...], dict[int, Char]]] = {}

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
        control = self._control
        rows = control.compute(position.width, position.height)
        control._computed = None
        mode = control.mode
        buffer = screen.data_buffer
        cached = self._cells
        kept: dict[int, tuple[Line, tuple[Any, ...], dict[int, Char]]] = {}
        for offset, row in enumerate(rows):
            key = (mode.selected_span(offset), parent_style, position.xpos, position.width)
            hit = cached.get(id(row))
            if hit is not None and hit[0] is row and hit[1] == key:
                cells = hit[2]
            else:
                cells = row_cells(row, key[0], parent_style, position.xpos, position.width)
            kept[id(row)] = (row, key, cells)
            buffer[position.ypos + offset].update(cells)
        self._cells = kept
        left, top = position.xpos, position.ypos

        def handler(event: MouseEvent) -> Any:
            inside = Point(x=event.position.x - left, y=event.position.y - top)
            return control.mouse_handler(MouseEvent(inside, event.event_type, event.button, event.modifiers))

        # What set_mouse_handler_for_range does, a row at a time rather than a cell at a time
        # (a tenth of a redraw, every redraw, for the transcript's few thousand cells).
        row_of_handlers = dict.fromkeys(range(left, left + position.width), handler)
        for y in range(top, top + position.height):
            mouse_handlers.mouse_handlers[y].update(row_of_handlers)
        screen.visible_windows_to_write_positions[self] = position


def _columns(text: str, start: int, end: int | None) -> str:
    """The part of a screen row between two columns (wide characters take two)."""
    out: list[str] = []
    column = 0
    for letter in text:
        cells = max(0, get_cwidth(letter))
        if column >= start and (end is None or column < end):
            out.append(letter)
        column += cells
    return "".join(out)


def _erase(rows: int) -> str:
    """Blank the screen row by row and home the cursor. Clearing it whole (ED) makes tmux, with
    its default ``scroll-on-clear``, push what was there into the scrollback: each dialog would
    leave a copy of the transcript behind."""
    return "\x1b[H" + "\x1b[2K\x1b[B" * rows + "\x1b[H"


def _fit(text: str, width: int) -> str:
    return text if len(text) < width else text[: max(1, width - 2)] + "…"


class _TranscriptControl(UIControl):
    """Draws the rows of the transcript that are on screen; the wheel scrolls, a drag selects."""

    def __init__(self, mode: FullscreenMode) -> None:
        self.mode = mode
        self._computed: tuple[int, int, list[Line]] | None = None

    def is_focusable(self) -> bool:
        return False

    def compute(self, width: int, height: int) -> list[Line]:
        """The rows on screen now (kept for the ``create_content`` that follows)."""
        mode = self.mode
        mode._view_size = (width, height)
        transcript = mode.transcript
        rows, scroll = transcript.window(width, height, mode.live_lines(width))
        transcript.scroll = scroll
        mode._shown_rows = rows
        self._computed = (width, height, rows)
        return rows

    def create_content(self, width: int, height: int) -> UIContent:
        computed, self._computed = self._computed, None
        if computed is not None and computed[:2] == (width, height):
            rows = computed[2]
        else:
            rows = self.compute(width, height)
            self._computed = None

        def get_line(index: int) -> StyleAndTextTuples:
            return rows[index]

        return UIContent(get_line=get_line, line_count=len(rows), show_cursor=False)

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        mode = self.mode
        kind = mouse_event.event_type
        row, column = mouse_event.position.y, mouse_event.position.x
        if kind == MouseEventType.SCROLL_UP:
            mode.scroll(WHEEL_ROWS)
        elif kind == MouseEventType.SCROLL_DOWN:
            mode.scroll(-WHEEL_ROWS)
        elif kind == MouseEventType.MOUSE_DOWN and mouse_event.button == MouseButton.LEFT:
            mode.select(row, column, start=True)
        elif kind == MouseEventType.MOUSE_MOVE and mouse_event.button == MouseButton.LEFT:
            mode.select(row, column, start=False)
        elif kind == MouseEventType.MOUSE_UP:
            mode.finish_selection(row, column)
        else:
            return NotImplemented
        return None
