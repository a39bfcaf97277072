"""One-question prompts for dialogs (plugin ``ctx.ui``, the project-trust question).

:func:`ask` runs a question as its own short prompt-toolkit session on the REPL's terminal (the
regular REPL); :func:`question_view` gives its rows and keys to show inside a running
application (the fullscreen REPL, in the editor's place). Enter answers — in a multi-line
question too, where Ctrl+J starts a new line, as in pi's editor dialog; Escape or Ctrl+C cancels
(``None``); a timeout or an aborted signal does the same, as pi's dialogs do. A multi-line question
given an :class:`~.external_editor.ExternalEditor` opens it on its text with that editor's keys
(Ctrl+G), as pi's editor dialog does. A one-line answer stays on one row: a paste loses its line
breaks (the lines run together, as in pi's input) and a long answer scrolls sideways.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import AfterInput, ConditionalProcessor, PasswordProcessor, Processor
from prompt_toolkit.output import Output

from pi_core.ai.abort import AbortSignal
from pi_core.modes.interactive.paste import clean

if TYPE_CHECKING:
    from pi_core.modes.interactive.external_editor import ExternalEditor

_CANCEL = object()


async def ask(
    message: str,
    *,
    default: str = "",
    placeholder: str | None = None,
    choices: Sequence[str] | None = None,
    multiline: bool = False,
    secret: bool = False,
    timeout_ms: float | None = None,
    signal: AbortSignal | None = None,
    external: ExternalEditor | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> str | None:
    """Read one answer; ``None`` when cancelled, timed out or aborted. With ``timeout_ms`` the
    seconds left are counted down in front of ``message``, ``(12s) > ``. ``external``: the
    external editor a multi-line answer can be written in (its failures are printed above)."""
    if signal is not None and signal.aborted:
        return None
    from pi_core.modes.interactive.picker import Countdown

    countdown = Countdown(timeout_ms)
    bindings = KeyBindings()

    @bindings.add("escape", eager=_escape_is_alone(external if multiline else None))
    @bindings.add("c-c")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=_CANCEL)

    if multiline:

        @bindings.add("enter")
        def _submit(event: KeyPressEvent) -> None:
            event.current_buffer.validate_and_handle()

        @bindings.add("c-j")
        def _new_line(event: KeyPressEvent) -> None:
            event.current_buffer.newline(copy_margin=False)

        if external is not None:
            bind_external_editor(bindings, external, _print_problem)
    else:
        _one_line_keys(bindings, lambda event: event.current_buffer.validate_and_handle())

    session: PromptSession[Any] = PromptSession(
        input=input,
        output=output,
        key_bindings=bindings,
        multiline=multiline,
        wrap_lines=multiline,  # one line scrolls sideways, as pi's input does
        completer=WordCompleter(list(choices), sentence=True) if choices else None,
        placeholder=placeholder,
        is_password=secret,
        erase_when_done=False,
        refresh_interval=1.0 if timeout_ms else 0,
    )

    def cancel() -> None:
        app = session.app
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=_CANCEL)

    try:
        with cancelled_by(timeout_ms, signal, cancel):
            shown: Any = (lambda: countdown.prefix() + message) if timeout_ms else message
            answer = await session.prompt_async(shown, default=default)
    except (EOFError, KeyboardInterrupt):
        return None
    return None if answer is _CANCEL else str(answer)


def question_view(
    title: str,
    answered: Callable[[str | None], None],
    *,
    message: str = "",
    prompt: str = "> ",
    default: str = "",
    placeholder: str | None = None,
    multiline: bool = False,
    secret: bool = False,
    timeout_ms: float | None = None,
    external: ExternalEditor | None = None,
) -> tuple[Container, Window]:
    """A question to show inside a running application: its title (counting down the seconds
    of ``timeout_ms``), ``message``, the answer's line(s) after ``prompt`` and a line naming
    the keys; and the window to focus. ``answered`` is called once: with the text (Enter) or
    ``None`` (Escape, Ctrl+C). ``external``: the external editor a multi-line answer can be
    written in (why it failed shows under the answer). The classes ``title``, ``status``,
    ``warning`` and ``placeholder`` take the application's style."""
    from pi_core.modes.interactive.picker import Countdown

    countdown = Countdown(timeout_ms)
    buffer = Buffer(multiline=multiline, document=Document(default, len(default)))
    done: list[bool] = []

    def answer(text: str | None) -> None:
        if not done:
            done.append(True)
            answered(text)

    keys = KeyBindings()

    @keys.add("enter")
    def _submit(event: KeyPressEvent) -> None:
        answer(buffer.text)

    @keys.add("escape", eager=_escape_is_alone(external if multiline else None))
    @keys.add("c-c")
    def _cancel(event: KeyPressEvent) -> None:
        answer(None)

    problem: list[str] = []
    if multiline:

        @keys.add("c-j")
        def _new_line(event: KeyPressEvent) -> None:
            buffer.newline(copy_margin=False)

        if external is not None:

            def report(text: str | None) -> None:
                problem[:] = [text] if text else []

            bind_external_editor(keys, external, report)
    else:
        _one_line_keys(keys, lambda event: answer(buffer.text))

    processors: list[Processor] = []
    if secret:
        processors.append(PasswordProcessor())
    if placeholder:
        processors.append(
            ConditionalProcessor(
                AfterInput([("class:placeholder", placeholder)]), Condition(lambda: not buffer.text)
            )
        )

    def prefix(line: int, wrap: int) -> StyleAndTextTuples:
        return [("", prompt if line == 0 and wrap == 0 else " " * len(prompt))]

    field = Window(
        BufferControl(buffer, input_processors=processors),
        # One line stays one row under its title, scrolling sideways, as pi's input does.
        height=Dimension(min=1, max=10) if multiline else 1,
        wrap_lines=multiline,
        dont_extend_height=True,
        get_line_prefix=prefix,
    )
    hint = "Enter submit · Ctrl+J new line · Esc cancel" if multiline else "Enter submit · Esc cancel"
    if multiline and external is not None and external.label:
        hint += f" · {external.label} external editor"
    rows: list[Container] = [
        Window(
            FormattedTextControl(lambda: [("class:title", countdown.title(title))]),
            wrap_lines=True,
            dont_extend_height=True,
        )
    ]
    if message:
        rows.append(Window(FormattedTextControl(message), wrap_lines=True, dont_extend_height=True))
    rows.append(field)
    if external is not None:
        shown = Condition(lambda: bool(problem))
        why = Window(
            FormattedTextControl(lambda: [("class:warning", problem[0] if problem else "")]), wrap_lines=True
        )
        rows.append(ConditionalContainer(why, filter=shown))
    rows.append(Window(FormattedTextControl([("class:status", hint)]), height=1))
    return HSplit(rows, key_bindings=keys), field


def bind_external_editor(
    keys: KeyBindings, external: ExternalEditor, report: Callable[[str | None], None]
) -> None:
    """The external editor's keys in ``keys``: the focused buffer's text goes to the editor and
    what it saved comes back in its place; ``report`` hears why not (``None`` once it worked).
    A key pressed while the editor is still open does nothing."""
    editing: list[bool] = []

    def open_outside(event: KeyPressEvent) -> None:
        if editing:
            return
        buffer, app = event.current_buffer, event.app

        async def edit() -> None:
            editing.append(True)
            try:
                edited = await external.edit(buffer.text)
            finally:
                editing.clear()
            if edited.text is not None:
                buffer.document = Document(edited.text, len(edited.text))
            report(edited.problem)
            app.invalidate()

        app.create_background_task(edit())

    for sequence in external.keys:
        keys.add(*sequence)(open_outside)


def _escape_is_alone(external: ExternalEditor | None) -> bool:
    """Whether Esc may cancel at once (eagerly): not when the external editor's key is an Alt
    one (Esc, then the key), whose Esc would cancel before its key arrives."""
    return external is None or not any(sequence[0] == "escape" for sequence in external.keys)


def _one_line_keys(keys: KeyBindings, submit: Callable[[KeyPressEvent], None]) -> None:
    """A one-line answer's keys, as pi's input has them: a paste joins its lines (tabs become
    four spaces, control characters go) and Ctrl+J submits, as Enter does."""

    @keys.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text(clean(event.data).replace("\n", ""))

    @keys.add("c-j")
    def _submit(event: KeyPressEvent) -> None:
        submit(event)


def _print_problem(text: str | None) -> None:
    """Why the external editor failed, on a line above the question (regular mode)."""
    from prompt_toolkit.application import get_app_or_none, run_in_terminal

    app = get_app_or_none()
    if not text or app is None:
        return

    def write() -> None:
        app.output.write(text + "\n")
        app.output.flush()

    run_in_terminal(write)


@contextlib.contextmanager
def cancelled_by(
    timeout_ms: float | None, signal: AbortSignal | None, cancel: Callable[[], None]
) -> Iterator[None]:
    """Call ``cancel`` (on the event loop) after ``timeout_ms`` or when ``signal`` aborts, while inside."""
    loop = asyncio.get_running_loop()
    timer = loop.call_later(timeout_ms / 1000, cancel) if timeout_ms else None

    def on_abort() -> None:
        loop.call_soon_threadsafe(cancel)

    remove = signal.add_listener(on_abort) if signal is not None else None
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()
        if remove is not None:
            remove()


def yes(answer: str | None) -> bool:
    return answer is not None and answer.strip().lower() in ("y", "yes")
