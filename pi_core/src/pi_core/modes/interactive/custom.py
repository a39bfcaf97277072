"""Plugin components on the terminal: ``ctx.ui.custom``, custom header and footer rows.

A component is either a prompt-toolkit container (anything ``to_container`` accepts, with its
own key bindings) or an object in pi's shape: ``render(width) -> list[str]`` (rows that may carry
SGR colour escapes) and, for ``custom``, ``handle_input(data)`` called with each key's raw bytes.
``custom`` shows it in place of the editor until the plugin calls ``done(value)``.

A component that raises while it is drawn (or in ``handle_input``) closes with ``None``; the
caller reports the error as the plugin's. Everything else it prints is sanitised like any other
plugin text: colours stay, other control sequences go.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text
from prompt_toolkit.input import Input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyBindings, KeyPress, KeyPressEvent
from prompt_toolkit.key_binding.key_processor import KeyProcessor
from prompt_toolkit.keys import KEY_ALIASES, Keys
from prompt_toolkit.layout import Layout, UIContent, UIControl, Window
from prompt_toolkit.layout.containers import Container, to_container
from prompt_toolkit.output import Output

from pi_core.modes.interactive.editor_echo import types_text
from pi_core.modes.interactive.keys import extended_sequence, key_sequence
from pi_core.modes.interactive.sanitize import keep_style

_NOTHING = object()

#: The keys typed most (printable ASCII), whose bindings :meth:`TappedKeyProcessor.warm_lookups`
#: looks up ahead of the first press.
PRINTABLE_KEYS = tuple(chr(code) for code in range(0x20, 0x7F))


class TerminalSize:
    """What a component factory gets as ``tui``: the terminal's size and a way to ask for a redraw."""

    def __init__(self, size: Callable[[], tuple[int, int]], redraw: Callable[[], None] | None = None) -> None:
        self._size = size
        self._redraw = redraw
        self._app: Application[Any] | None = None
        #: For a plugin editor's factory: the REPL's own editor, which ``CustomEditor`` wraps.
        self.builtin_editor: Any = None

    @property
    def columns(self) -> int:
        return self._size()[0]

    @property
    def rows(self) -> int:
        return self._size()[1]

    def invalidate(self) -> None:
        """Draw the component again (after its state changed outside a key press)."""
        if self._app is not None and self._app.is_running:
            self._app.invalidate()
        elif self._redraw is not None:
            self._redraw()


def rows_of(component: Any, width: int) -> list[str]:
    """A pi-shaped component's rows at ``width``, each sanitised and cut to the width."""
    rendered = component.render(width)
    if isinstance(rendered, str):
        rendered = rendered.split("\n")
    return [keep_style(str(row)).replace("\n", " ") for row in rendered]


class _RowsControl(UIControl):
    """Draws a pi-shaped component: its ``render(width)`` rows, colours kept."""

    def __init__(self, component: Any, failed: Callable[[BaseException], None]) -> None:
        self.component = component
        self._failed = failed
        self._laid_out: tuple[int, list[StyleAndTextTuples]] | None = None

    def is_focusable(self) -> bool:
        return True

    def _lines(self, width: int) -> list[StyleAndTextTuples]:
        try:
            return [to_formatted_text(ANSI(row)) for row in rows_of(self.component, width)]
        except Exception as error:
            self._failed(error)
            return []

    def preferred_height(
        self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: Any
    ) -> int | None:
        self._laid_out = (width, self._lines(width))
        return len(self._laid_out[1])

    def create_content(self, width: int, height: int | None) -> UIContent:
        laid_out, self._laid_out = self._laid_out, None
        lines = laid_out[1] if laid_out is not None and laid_out[0] == width else self._lines(width)
        return UIContent(get_line=lambda index: lines[index], line_count=len(lines), show_cursor=False)


class _Guarded(Container):
    """A plugin's container whose drawing errors close the component instead of the application."""

    def __init__(self, inner: Container, failed: Callable[[BaseException], None]) -> None:
        self.inner = inner
        self._failed = failed

    def reset(self) -> None:
        self.inner.reset()

    def preferred_width(self, max_available_width: int) -> Any:
        try:
            return self.inner.preferred_width(max_available_width)
        except Exception as error:
            self._failed(error)
            from prompt_toolkit.layout.dimension import Dimension

            return Dimension.exact(0)

    def preferred_height(self, width: int, max_available_height: int) -> Any:
        try:
            return self.inner.preferred_height(width, max_available_height)
        except Exception as error:
            self._failed(error)
            from prompt_toolkit.layout.dimension import Dimension

            return Dimension.exact(0)

    def write_to_screen(self, *args: Any, **kwargs: Any) -> None:
        try:
            self.inner.write_to_screen(*args, **kwargs)
        except Exception as error:
            self._failed(error)

    def is_modal(self) -> bool:
        return self.inner.is_modal()

    def get_key_bindings(self) -> Any:
        return self.inner.get_key_bindings()

    def get_children(self) -> list[Container]:
        return [self.inner]


class ComponentKeys:
    """What a component factory gets as ``keybindings``: the REPL's keys by pi's action ids, to
    test the raw bytes ``handle_input`` receives (``matches(data, "tui.select.confirm")``)."""

    def __init__(self, keys: dict[str, list[str]] | None = None) -> None:
        self._keys = {**COMPONENT_ACTIONS, **(keys or {})}

    def get_keys(self, action_id: str) -> list[str]:
        """The keys (pi's names: ``enter``, ``ctrl+c``, ``pageUp``) bound to ``action_id``."""
        return list(self._keys.get(action_id, ()))

    def matches(self, data: str, action_id: str) -> bool:
        """Whether the key whose bytes are ``data`` is one of ``action_id``'s keys (extended key
        reports included: ``ESC [13;2u`` is Shift+Enter)."""
        keys = self._keys.get(action_id, ())
        sequences = [found for key in keys for found in (key_sequence(key), extended_sequence(key)) if found]
        pressed = _parse_keys(data)  # after extended_sequence taught the parser those reports
        return any(tuple(_canonical(name) for name in sequence) == pressed for sequence in sequences)


#: pi's list and input actions with their default keys (``keybindings.json`` may rebind them).
COMPONENT_ACTIONS: dict[str, list[str]] = {
    "tui.select.up": ["up"],
    "tui.select.down": ["down"],
    "tui.select.pageUp": ["pageUp"],
    "tui.select.pageDown": ["pageDown"],
    "tui.select.confirm": ["enter"],
    "tui.select.cancel": ["escape", "ctrl+c"],
    "tui.input.submit": ["enter"],
    "tui.input.tab": ["tab"],
    "tui.input.newLine": ["ctrl+j"],
    # Copies the address of a sign-in screen (and the selected /tree message).
    "app.message.copy": ["ctrl+x"],
}


def _canonical(name: str) -> str:
    return KEY_ALIASES.get(name, name)


def _parse_keys(data: str) -> tuple[str, ...]:
    presses: list[KeyPress] = []
    parser = Vt100Parser(presses.append)
    parser.feed(data)
    parser.flush()
    names = (press.key.value if isinstance(press.key, Keys) else press.key for press in presses)
    return tuple(_canonical(name) for name in names)


def wants_keybindings(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` takes pi's four arguments ``(tui, theme, keybindings, done)`` rather
    than ``(tui, theme, done)``: four positional parameters or ``*args``."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 4 or any(p.kind == p.VAR_POSITIONAL for p in parameters)


class Showing:
    """One component on screen: its value once ``done`` is called, or the error that closed it."""

    def __init__(self) -> None:
        self.value: Any = _NOTHING
        self.failure: BaseException | None = None
        #: Called once the component is done (closes what shows it).
        self.on_done: Callable[[], None] | None = None

    @property
    def finished(self) -> bool:
        return self.value is not _NOTHING

    def done(self, value: Any = None) -> None:
        if self.value is _NOTHING:
            self.value = value
        if self.on_done is not None:
            self.on_done()

    def failed(self, error: BaseException) -> None:
        if self.failure is None:
            self.failure = error
        self.done(None)

    def outcome(self) -> Any:
        """The component's value; raises what broke it."""
        if self.failure is not None:
            raise self.failure
        return None if self.value is _NOTHING else self.value


async def make_component(
    factory: Callable[..., Any], tui: TerminalSize, theme: Any, keys: ComponentKeys, showing: Showing
) -> Any:
    """What ``factory`` makes, called with pi's arguments or this project's three."""
    if wants_keybindings(factory):
        made = factory(tui, theme, keys, showing.done)
    else:
        made = factory(tui, theme, showing.done)
    if inspect.isawaitable(made):
        made = await made
    return made


def component_container(made: Any, showing: Showing) -> tuple[Container, KeyBindings]:
    """The container that draws ``made`` and the keys that feed its ``handle_input``."""
    keys = KeyBindings()
    if hasattr(made, "render") and not hasattr(made, "__pt_container__"):
        control = _RowsControl(made, showing.failed)
        content: Container = Window(control, dont_extend_height=True, wrap_lines=False)
        handle_input = getattr(made, "handle_input", None)
        if callable(handle_input):

            @keys.add(Keys.Any, eager=True)
            @keys.add(Keys.BracketedPaste, eager=True)
            def _forward(event: KeyPressEvent) -> None:
                for press in event.key_sequence:
                    try:
                        handle_input(press.data)
                    except Exception as error:
                        showing.failed(error)
                        return
                    if showing.finished:
                        return

            @keys.add(Keys.CPRResponse, eager=True, save_before=lambda _event: False)
            def _cursor_report(event: KeyPressEvent) -> None:
                # The terminal's answer to the renderer's cursor position request, not a key: the
                # catch-all above must not take it, or prompt-toolkit warns two seconds later
                # that the terminal does not support cursor position requests.
                row, _column = map(int, event.data[2:-1].split(";"))
                event.app.renderer.report_absolute_cursor_row(row)

            for key in ("escape", "enter", "tab", "backspace", "up", "down", "left", "right"):
                keys.add(key, eager=True)(_forward)
            for key in ("pageup", "pagedown", "home", "end", "s-tab"):
                keys.add(key, eager=True)(_forward)
            for letter in "abcdefghijklmnopqrstuvwxyz":
                keys.add(f"c-{letter}", eager=True)(_forward)
    else:
        content = _Guarded(to_container(made), showing.failed)
    return content, keys


def quiet_cpr_warning() -> None:
    """No application of this process says "your terminal doesn't support cursor position
    requests (CPR)": prompt-toolkit prints that when a terminal leaves its question where the
    cursor is unanswered for two seconds, then goes on without the answer, as pi does silently.
    Terminals that answer still give prompt-toolkit the rows below the cursor."""

    def _no_warning(self: Application[Any]) -> None:
        return None

    Application.cpr_not_supported_callback = _no_warning  # type: ignore[method-assign]


def dispose(made: Any) -> None:
    """The component's ``dispose()``, if it has one."""
    method = getattr(made, "dispose", None)
    if callable(method):
        method()


async def run_custom(
    factory: Callable[..., Any],
    theme: Any,
    *,
    size: Callable[[], tuple[int, int]],
    input: Input | None,
    output: Output | None,
    keys: ComponentKeys | None = None,
) -> Any:
    """Show the component ``factory`` makes until ``done(value)``; its value.

    Raises what the factory or the component raised (the caller reports it as the plugin's).
    """
    showing = Showing()
    tui = TerminalSize(size)
    app: Application[Any] | None = None

    def close() -> None:
        if app is not None and app.is_running and app.future is not None and not app.future.done():
            app.exit()

    showing.on_done = close
    made = await make_component(factory, tui, theme, keys or ComponentKeys(), showing)
    if showing.finished:  # done() while being made
        return showing.outcome()
    content, bindings = component_container(made, showing)
    app = Application(
        layout=Layout(content),
        key_bindings=bindings,
        full_screen=False,
        erase_when_done=True,
        input=input,
        output=output,
    )
    tui._app = app
    if not showing.finished:
        try:
            await app.run_async(set_exception_handler=False, handle_sigint=False)
        finally:
            dispose(made)
    return showing.outcome()


class TappedKeyProcessor(KeyProcessor):
    """An application's key processor whose key presses pass the plugins' ``on_terminal_input``
    handlers first (a handler may swallow a key or replace its bytes), then a plugin editor
    (:mod:`.editor_slot`)."""

    def __init__(self, original: KeyProcessor, mode: Any) -> None:
        super().__init__(original._bindings)
        self._mode = mode
        #: Whether every key fed since keys were last handled typed a character.
        self._typed_only = True

    def feed(self, key_press: KeyPress, first: bool = False) -> None:
        self.feed_multiple([key_press], first)

    def feed_multiple(self, key_presses: list[KeyPress], first: bool = False) -> None:
        mode = self._mode
        if mode.ui.input_handlers:
            key_presses = [kept for press in key_presses for kept in self._tap(press)]
        # A plugin editor gets the keys typed while the editor has the focus (not the presses
        # prompt-toolkit feeds back itself, ``first``).
        if mode.editor_slot.component is not None and not first and mode.editor_focused():
            key_presses = mode.editor_slot.route(key_presses)
        if first or not all(types_text(press.key) for press in key_presses):
            self._typed_only = False
        super().feed_multiple(key_presses, first)

    def feed_untapped(self, key_press: KeyPress) -> None:
        self._typed_only = False
        super().feed_multiple([key_press])

    def process_keys(self) -> None:
        """Handle the keys fed, then draw what they changed at once: a redraw asked for is
        otherwise queued behind what the loop has ready, and while an answer streams that is the
        agent consuming a read's worth of tokens (ten milliseconds and more), so the key showed
        only after it. The queued redraw still runs (and writes nothing when nothing else changed).
        Characters typed into the editor redraw the editor alone (:mod:`.editor_echo`) where
        they can; the queued full redraw then draws the rest."""
        typed, self._typed_only = self._typed_only, True
        super().process_keys()
        app = get_app()
        shown = app.invalidated and app.is_running and not app.is_done
        if shown and not (typed and self._mode.echo_typed(app)):
            app._redraw()

    def warm_lookups(self, keys: tuple[str, ...]) -> None:
        """Look ``keys`` up in the focused window's bindings now, as pressing them would. The first
        press of a key walks every binding of the application twice (the bindings for it, and
        those it may begin) before prompt-toolkit caches the answer: most of a millisecond, paid
        by each letter's first press while an answer streams. The answers stay cached until the
        bindings change (``/reload``)."""
        for key in keys:
            self._bindings.get_bindings_for_keys((key,))
            self._bindings.get_bindings_starting_with_keys((key,))

    def _tap(self, press: KeyPress) -> list[KeyPress]:
        if press.key == Keys.CPRResponse:
            return [press]
        data = self._mode.terminal_input(press.data)
        if data is None:
            return []
        if data == press.data:
            return [press]
        parsed: list[KeyPress] = []
        parser = Vt100Parser(parsed.append)
        parser.feed(data)
        parser.flush()
        return parsed
