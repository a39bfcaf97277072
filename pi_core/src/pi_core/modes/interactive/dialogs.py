"""One-question prompts for dialogs (plugin ``ctx.ui``, the project-trust question).

Each question is its own short prompt-toolkit session on the REPL's terminal. Escape or Ctrl+C
cancels (``None``); a timeout or an aborted signal does the same, as pi's dialogs do.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from pi_core.ai.abort import AbortSignal

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
    input: Input | None = None,
    output: Output | None = None,
) -> str | None:
    """Read one answer; ``None`` when cancelled, timed out or aborted."""
    if signal is not None and signal.aborted:
        return None
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    @bindings.add("c-c")
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(result=_CANCEL)

    if multiline:

        @bindings.add("escape", "enter")
        def _submit(event: KeyPressEvent) -> None:
            event.current_buffer.validate_and_handle()

    session: PromptSession[Any] = PromptSession(
        input=input,
        output=output,
        key_bindings=bindings,
        multiline=multiline,
        completer=WordCompleter(list(choices), sentence=True) if choices else None,
        placeholder=placeholder,
        is_password=secret,
        erase_when_done=False,
    )

    def cancel() -> None:
        app = session.app
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=_CANCEL)

    try:
        with cancelled_by(timeout_ms, signal, cancel):
            answer = await session.prompt_async(message, default=default)
    except (EOFError, KeyboardInterrupt):
        return None
    return None if answer is _CANCEL else str(answer)


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
