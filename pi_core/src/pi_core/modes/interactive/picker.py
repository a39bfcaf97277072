"""An arrow-key list picker: plugin ``select`` and ``confirm`` dialogs, the trust question,
/settings and the other short lists.

:func:`pick` runs it as its own short application under the output (the regular REPL);
:func:`picker_view` gives its rows and keys to show inside a running application instead (the
fullscreen REPL shows it in the editor's place while output goes on above it).

It is drawn as pi 1.6.0 draws a plugin's select: between two rules, the title (each of its
lines), the rows with ``→`` before the highlighted one (up to ten at once; while some are out of
view the position follows as ``(3/30)``) and a line of keys. Up/Down (or k/j) move,
PageUp/PageDown jump, Enter picks, Esc or Ctrl+C cancels — the ``tui.select.*`` keys of
``keybindings.json`` when the REPL passes them —, Home/End go to the ends; other keys do nothing
(pi's select has no search). Callers may bind more keys (a plugin's select
keeps Ctrl+O expanding tool output).
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.application import Application, get_app_or_none
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import BaseStyle, DynamicStyle, Style
from prompt_toolkit.utils import get_cwidth

from pi_core.ai.abort import AbortSignal
from pi_core.modes.interactive.dialogs import cancelled_by

#: Rows shown at once at most (fewer on a short terminal), as pi's select shows.
MAX_VISIBLE_ROWS = 10

#: Lines the list draws besides its title and rows: two rules, four blank lines, the keys and
#: the position.
_FRAME_LINES = 8

#: Without the REPL's theme (``style``): the terminal's own colours.
_PLAIN_STYLE = Style.from_dict({"title": "bold", "picker.selected": "bold"})


@dataclass
class Picker:
    """The picker's state; key handlers of callers get it to read the choice or change the rows."""

    rows: list[str]
    #: Indexes into ``rows`` in display order.
    shown: list[int] = field(default_factory=list)
    #: Position of the highlighted row in ``shown``.
    cursor: int = 0
    #: Set once something asked the list to close (Enter, Esc, a timeout or a caller's key).
    closing: bool = False
    #: Called once with the choice (``None``: cancelled) when the list closes.
    on_finish: Callable[[int | None], None] | None = None

    def __post_init__(self) -> None:
        self.refilter()

    @property
    def highlighted(self) -> int | None:
        """The index (into ``rows``) of the highlighted row, or ``None`` when nothing is shown."""
        return self.shown[self.cursor] if self.shown else None

    def refilter(self, keep: int | None = None) -> None:
        """List the rows again; the highlight stays on row ``keep`` (or the current one) if there is one."""
        keep = self.highlighted if keep is None else keep
        self.shown = list(range(len(self.rows)))
        self.cursor = self.shown.index(keep) if keep in self.shown else 0

    def set_rows(self, rows: Sequence[str], keep: int | None = None) -> None:
        """Replace the rows; highlight row ``keep`` when given."""
        self.rows = list(rows)
        self.cursor = 0
        self.shown = []
        self.refilter(keep)

    def move(self, delta: int) -> None:
        if self.shown:
            self.cursor = max(0, min(len(self.shown) - 1, self.cursor + delta))

    def window(self, height: int) -> tuple[int, int]:
        """The positions (in ``shown``) of the first row in view and the one after the last:
        ``height`` rows around the highlight, as pi centres its list on it."""
        start = max(0, min(self.cursor - height // 2, len(self.shown) - height))
        return start, min(len(self.shown), start + height)

    def finish(self, result: int | None) -> None:
        if self.closing:
            return
        self.closing = True
        if self.on_finish is not None:
            self.on_finish(result)


PickerKeys = Mapping[str, Callable[[Picker], None]]
"""Extra keys: prompt-toolkit key name → handler that may change the rows or call ``finish``."""


async def pick(
    title: str,
    rows: Sequence[str],
    *,
    initial: int = 0,
    extra_keys: PickerKeys | None = None,
    timeout_ms: float | None = None,
    signal: AbortSignal | None = None,
    input: Input | None = None,
    output: Output | None = None,
    style: Callable[[], BaseStyle] | None = None,
    color_depth: Callable[[], ColorDepth] | None = None,
    on_highlight: Callable[[int | None], None] | None = None,
    keymap: Mapping[str, Sequence[str]] | None = None,
) -> int | None:
    """Let the user choose one of ``rows``; its index, or ``None`` when cancelled or timed out.

    ``style`` gives the classes of :func:`picker_view` their colours (asked at each redraw, so
    they may change while the list is open); ``on_highlight`` hears of each row the highlight
    moves to (the theme picker previews the theme under it); ``keymap`` as for :func:`picker_view`."""
    if not rows or (signal is not None and signal.aborted):
        return None
    picker = Picker(list(rows))
    picker.refilter(keep=initial)
    themed = DynamicStyle(style) if style is not None else _PLAIN_STYLE
    view, bindings = picker_view(
        title, picker, extra_keys or {}, timeout_ms=timeout_ms, on_highlight=on_highlight, keymap=keymap
    )
    app: Application[int | None] = Application(
        layout=Layout(view),
        key_bindings=bindings,
        style=themed,
        color_depth=color_depth,
        full_screen=False,
        erase_when_done=True,
        input=input,
        output=output,
        refresh_interval=1.0 if timeout_ms else None,  # the countdown in the title
    )

    def close(result: int | None) -> None:
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=result)

    picker.on_finish = close
    try:
        with cancelled_by(timeout_ms, signal, lambda: picker.finish(None)):
            return await app.run_async()
    except (EOFError, KeyboardInterrupt):
        return None


def picker_view(
    title: str,
    picker: Picker,
    extra_keys: PickerKeys,
    *,
    timeout_ms: float | None = None,
    on_highlight: Callable[[int | None], None] | None = None,
    rule_above: bool = True,
    keymap: Mapping[str, Sequence[str]] | None = None,
) -> tuple[Container, KeyBindings]:
    """The list's lines and the keys that drive it, for whichever application shows them.

    The application's style colours the classes ``title``, ``picker.selected`` (the highlighted
    row), ``picker.rule``, ``picker.key`` and ``picker.hint`` (the line of keys),
    ``picker.counter`` (the position).
    With ``timeout_ms`` the title counts down the seconds left (the application redraws at
    least every second meanwhile); ``on_highlight`` hears of each row a key moves the highlight
    to. ``rule_above=False`` leaves out the opening rule (the fullscreen REPL's status row runs
    across the screen there already). ``keymap`` (pi's action ids → keys, from
    ``keybindings.json``) rebinds the ``tui.select.*`` keys, and the line of keys names them."""
    keys = KeyBindings()
    countdown = Countdown(timeout_ms)
    last = [picker.highlighted]

    def watched(handler: Callable[[KeyPressEvent], None]) -> Callable[[KeyPressEvent], None]:
        def run(event: KeyPressEvent) -> None:
            handler(event)
            if on_highlight is not None and picker.highlighted != last[0] and not picker.closing:
                last[0] = picker.highlighted
                on_highlight(last[0])
                event.app.invalidate()

        return run

    class _Watched:
        """``keys.add`` with every handler watched for a moved highlight."""

        def add(self, *sequence: Any, **options: Any) -> Callable[[Any], Any]:
            def register(handler: Callable[[KeyPressEvent], None]) -> Callable[[KeyPressEvent], None]:
                keys.add(*sequence, **options)(watched(handler))
                return handler

            return register

    bindings = _Watched()

    def shown_title() -> str:
        return countdown.title(title)

    def on(action: str, *defaults: str) -> Callable[[Callable[[KeyPressEvent], None]], None]:
        """Bind a handler to the keys of pi's ``action`` (``keymap``'s, else ``defaults``)."""

        def register(handler: Callable[[KeyPressEvent], None]) -> None:
            for key in keys_of(action, *defaults):
                sequence = selector_sequence(key)
                assert sequence is not None
                bindings.add(*sequence, eager=sequence == ("escape",))(handler)

        return register

    def keys_of(action: str, *defaults: str) -> list[str]:
        """The keys of ``action`` a terminal can send."""
        chosen = (keymap or {}).get(action, defaults)
        return [key for key in chosen if selector_sequence(key) is not None]

    @on("tui.select.up", "up")
    def _up(event: KeyPressEvent) -> None:
        picker.move(-1)

    @on("tui.select.down", "down")
    def _down(event: KeyPressEvent) -> None:
        picker.move(1)

    @on("tui.select.pageUp", "pageUp")
    def _page_up(event: KeyPressEvent) -> None:
        picker.move(-_visible_rows(event.app, shown_title()))

    @on("tui.select.pageDown", "pageDown")
    def _page_down(event: KeyPressEvent) -> None:
        picker.move(_visible_rows(event.app, shown_title()))

    @bindings.add("home")
    def _home(event: KeyPressEvent) -> None:
        picker.move(-len(picker.rows))

    @bindings.add("end")
    def _end(event: KeyPressEvent) -> None:
        picker.move(len(picker.rows))

    @on("tui.select.confirm", "enter")
    @bindings.add("c-j")  # a bare line feed answers too, as in pi's select
    def _choose(event: KeyPressEvent) -> None:
        picker.finish(picker.highlighted)

    @on("tui.select.cancel", "escape", "ctrl+c")
    def _cancel(event: KeyPressEvent) -> None:
        picker.finish(None)

    @bindings.add("k")
    def _k(event: KeyPressEvent) -> None:  # pi's select moves on k and j too
        picker.move(-1)

    @bindings.add("j")
    def _j(event: KeyPressEvent) -> None:
        picker.move(1)

    @bindings.add(Keys.Any)
    def _other(event: KeyPressEvent) -> None:
        """Other keys do nothing (rather than reaching what is under the list)."""

    for key, handler in extra_keys.items():
        bindings.add(key)(lambda event, handler=handler: handler(picker))

    def text() -> StyleAndTextTuples:
        app = get_app_or_none()
        width = max(4, app.output.get_size().columns) if app is not None else 80
        shown = shown_title()
        height = _visible_rows(app, shown)
        rule: StyleAndTextTuples = [("class:picker.rule", "─" * width)]
        lines: list[StyleAndTextTuples] = [rule] if rule_above else []
        lines.append([])
        for part in shown.split("\n"):
            lines += [[("class:title", " " + piece)] for piece in wrap(part, width - 2)]
        lines.append([])
        start, end = picker.window(height)
        for position in range(start, end):
            selected = position == picker.cursor
            row = ("→ " if selected else "  ") + picker.rows[picker.shown[position]]
            style = "class:picker.selected" if selected else ""
            lines += [[(style, " " + piece)] for piece in wrap(row, width - 2)]
        if start > 0 or end < len(picker.shown):
            lines.append([("class:picker.counter", f"  ({picker.cursor + 1}/{len(picker.shown)})")])
        confirm = "/".join(keys_of("tui.select.confirm", "enter"))
        cancel = "/".join(keys_of("tui.select.cancel", "escape", "ctrl+c"))
        lines += [[], _hint(confirm, cancel), [], rule]
        fragments: StyleAndTextTuples = []
        for number, line in enumerate(lines):
            if number:
                fragments.append(("", "\n"))
            fragments.extend(line)
        return fragments

    view = HSplit(
        [Window(FormattedTextControl(text, focusable=True, show_cursor=False), dont_extend_height=True)]
    )
    return view, keys


def _hint(confirm: str, cancel: str) -> StyleAndTextTuples:
    """The line of keys under the list (pi's keys as bound, in our words)."""
    keys = [("↑↓", "move"), (confirm, "choose"), (cancel, "cancel")]
    line: StyleAndTextTuples = [("", " ")]
    for number, (key, what) in enumerate(keys):
        if number:
            line.append(("", "  "))
        line += [("class:picker.key", key), ("class:picker.hint", f" {what}")]
    return line


def wrap(text: str, width: int) -> list[str]:
    """``text`` broken into lines of at most ``width`` cells, at spaces where it can be (a word
    longer than a line is cut); the spaces it is broken at are dropped, leading ones kept."""
    width = max(1, width)
    lines: list[str] = []
    line, used = "", 0
    for word in _words(text):
        size = get_cwidth(word)
        if used + size > width and line.strip():
            lines.append(line.rstrip(" "))
            line, used = "", 0
            word = word.lstrip(" ")
            size = get_cwidth(word)
        while size > width:  # a word longer than a line: cut it where the line is full
            room, cut = width - used, 0
            while cut < len(word) and get_cwidth(word[: cut + 1]) <= room:
                cut += 1
            lines.append(line + word[:cut])
            line, used, word = "", 0, word[cut:]
            size = get_cwidth(word)
        line += word
        used += size
    lines.append(line.rstrip(" ") if line.strip() else line)
    return lines


def _words(text: str) -> list[str]:
    """``text`` as words, each with the spaces before it."""
    words: list[str] = []
    current = ""
    for char in text:
        if char == " " and current.strip():
            words.append(current)
            current = ""
        current += char
    if current or not words:
        words.append(current)
    return words


class Countdown:
    """The seconds left before a dialog's ``timeout`` (ms) answers it, shown after its title as
    ``(Ns)``, as pi's dialogs count down."""

    def __init__(self, timeout_ms: float | None) -> None:
        self._deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms and timeout_ms > 0 else None

    def title(self, title: str) -> str:
        if self._deadline is None:
            return title
        return f"{title} ({self.left()}s)"

    def prefix(self) -> str:
        """``(Ns) ``, for a question whose title was printed once (the regular REPL)."""
        return f"({self.left()}s) " if self._deadline is not None else ""

    def left(self) -> int:
        return max(0, math.ceil((self._deadline or 0) - time.monotonic()))


def _visible_rows(app: Application[Any] | None, title: str = "") -> int:
    """How many rows of the list show: at most :data:`MAX_VISIBLE_ROWS`, and what the screen has
    left besides the title (wrapped to its width), the rules, blank lines and keys."""
    rows = MAX_VISIBLE_ROWS
    if app is not None:
        size = app.output.get_size()
        width = max(1, size.columns - 2)
        title_rows = sum(len(wrap(line, width)) for line in title.split("\n"))
        rows = min(rows, max(3, size.rows - _FRAME_LINES - title_rows))
    return rows


def selector_sequence(key: str) -> tuple[str, ...] | None:
    """A key (pi's name) as prompt-toolkit names it; ``shift+<letter>`` is the capital letter a
    terminal sends, ``shift+ctrl+o`` what extended key reports of it are parsed into. ``None``
    when a terminal cannot send it."""
    from pi_core.modes.interactive.keys import extended_sequence, key_sequence

    parts = key.lower().split("+")
    if len(parts) == 2 and parts[0] == "shift" and len(parts[1]) == 1 and parts[1].isalpha():
        return (parts[1].upper(),)
    return key_sequence(key) or extended_sequence(key)


def centred_rows(index: int, count: int, visible: int) -> range:
    """The positions on screen of a list of ``count`` rows showing ``visible`` at most: the
    highlighted ``index`` kept in the middle where the list allows, as pi's lists scroll."""
    start = max(0, min(index - visible // 2, count - visible))
    return range(start, min(start + visible, count))


class Selector(ABC):
    """A selector drawn in the editor's place (/tree, /model): subclasses give its lines
    (:meth:`fragments`) and keys (:meth:`bindings`) and call :meth:`finish` with the choice.

    The regular REPL runs it as a short application of its own (:meth:`run`); the fullscreen one
    shows :attr:`view` inside the running application, with :attr:`keys` (see
    ``InteractiveMode.show_selector``)."""

    def __init__(self) -> None:
        self.view = Window(
            FormattedTextControl(self.fragments, focusable=True, show_cursor=False),
            wrap_lines=False,
            dont_extend_height=True,
        )
        self.keys = self.bindings()
        #: Called once with the choice (``None``: cancelled) when the selector closes.
        self.on_finish: Callable[[Any], None] | None = None
        self.finished = False
        self._app: Application[Any] | None = None

    #: Whether the selector draws its opening rule: not under the fullscreen REPL's status row,
    #: which already runs across the screen there.
    rule_above = True
    #: pi's action ids → keys from ``keybindings.json``; an id not in it keeps the selector's
    #: default keys. Subclasses set it before calling ``Selector.__init__``.
    keymap: Mapping[str, Sequence[str]] = {}

    def keys_of(self, action: str, *defaults: str) -> list[str]:
        """The keys of ``action`` a terminal can send (``defaults`` unless the keymap rebinds it)."""
        return [key for key in self.keymap.get(action, defaults) if selector_sequence(key) is not None]

    def on_keys(
        self,
        bindings: KeyBindings,
        action: str,
        defaults: Sequence[str],
        handler: Callable[[], None],
        filter: Any = True,
    ) -> None:
        """Bind ``handler`` to the keys of ``action``."""
        for key in self.keys_of(action, *defaults):
            sequence = selector_sequence(key)
            assert sequence is not None
            bindings.add(*sequence, filter=filter)(lambda event: handler())

    def key_text(self, action: str, *defaults: str, capitalize: bool = False) -> str:
        """The keys of ``action`` as pi writes them in its hints (``escape/ctrl+c``, or
        ``Escape/Ctrl+C`` capitalized)."""
        keys = self.keys_of(action, *defaults)
        if capitalize:
            keys = ["+".join(part[:1].upper() + part[1:] for part in key.split("+")) for key in keys]
        return "/".join(keys)

    @abstractmethod
    def fragments(self) -> StyleAndTextTuples:
        """What the selector shows now (its rows, search field and key hints)."""

    def join(self, lines: Sequence[StyleAndTextTuples], opening: int = 0) -> StyleAndTextTuples:
        """``lines`` as one text; the first ``opening`` of them (the opening rule and the space
        around it) are left out when :attr:`rule_above` is off."""
        fragments: StyleAndTextTuples = []
        for number, line in enumerate(lines[0 if self.rule_above else opening :]):
            if number:
                fragments.append(("", "\n"))
            fragments.extend(line)
        return fragments

    @abstractmethod
    def bindings(self) -> KeyBindings:
        """The selector's keys (made once, by ``__init__``)."""

    def finish(self, result: Any) -> None:
        if not self.finished:
            self.finished = True
            if self.on_finish is not None:
                self.on_finish(result)

    def width(self) -> int:
        """The columns of the terminal it is drawn on."""
        app = get_app_or_none() or self._app
        return max(1, app.output.get_size().columns) if app is not None else 80

    @staticmethod
    def invalidate() -> None:
        app = get_app_or_none()
        if app is not None:
            app.invalidate()

    async def run(
        self,
        *,
        styles: Callable[[], Any] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        timeout_ms: float | None = None,
        signal: AbortSignal | None = None,
    ) -> Any:
        """Run as an application of its own under the output; the choice, ``None`` when cancelled.
        ``styles`` gives the REPL's :class:`~.styles.ReplStyles` at each redraw."""
        from pi_core.modes.interactive.app import SEQUENCE_WAIT, escape_wait

        if signal is not None and signal.aborted:
            return None
        style: BaseStyle = Style([])
        depth: Any = ColorDepth.DEPTH_8_BIT
        if styles is not None:
            style = DynamicStyle(lambda: styles().toolkit)
            depth = lambda: styles().color_depth  # noqa: E731 - asked at each redraw
        app: Application[Any] = Application(
            layout=Layout(HSplit([self.view], key_bindings=self.keys), focused_element=self.view),
            style=style,
            color_depth=depth,
            full_screen=False,
            erase_when_done=True,
            input=input,
            output=output,
        )
        self._app = app
        # Esc alone acts at once, and Alt+arrow (Esc and the arrow in one write) is still one key.
        app.ttimeoutlen = escape_wait()
        app.timeoutlen = SEQUENCE_WAIT

        def close(result: Any) -> None:
            if app.is_running and app.future is not None and not app.future.done():
                app.exit(result=result)

        self.on_finish = close
        try:
            with cancelled_by(timeout_ms, signal, lambda: self.finish(None)):
                return await app.run_async()
        except (EOFError, KeyboardInterrupt):
            return None
