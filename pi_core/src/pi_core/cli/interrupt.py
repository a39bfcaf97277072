"""Ctrl+C for the ``pi`` process: always honoured, never raised in the middle of an import.

Python's default SIGINT handler raises ``KeyboardInterrupt`` at whatever bytecode runs next. During
start-up that is usually inside an import — often one racing the SDK prefetch thread — and an
interrupt landing in the import system's own lock handling can leave the global import lock held:
pi then hangs for good (seen once in 71 tries), or dies with a traceback or worse. So:

* :func:`install` (the first thing ``pi`` does): until a mode runs, Ctrl+C ends the process at once
  with status 130. Nothing is lost: nothing has been written yet, and the session files are safe
  against a kill at any point anyway.
* :func:`graceful` (while a mode runs): the first Ctrl+C calls ``on_interrupt`` from the event loop
  — the mode's task is cancelled at an ``await``, so the run is aborted, what it produced is kept
  and the process exits 130 — and a second Ctrl+C ends the process at once, should the shutdown
  itself hang.

Neither handler raises, so no import, lock or ``finally`` is ever cut in half.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # this module is imported before anything else: keep it to the cheapest imports
    import asyncio
    from types import FrameType

EXIT_CODE = 130  # 128 + SIGINT, what a shell reports for a process ended by Ctrl+C


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    os._exit(EXIT_CODE)


def install() -> None:
    """Make Ctrl+C end the process at once (from now until a mode's :func:`graceful` takes over).

    Leaves an ignored SIGINT ignored (``nohup``, background jobs of a non-interactive shell).
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _exit_at_once)


@contextmanager
def graceful(loop: asyncio.AbstractEventLoop, on_interrupt: Callable[[], None]) -> Iterator[None]:
    """Within the block, the first Ctrl+C runs ``on_interrupt`` in ``loop``; the second exits at once.

    Only in the main thread (signals are delivered there) and unless SIGINT is ignored; otherwise
    the block changes nothing.    The previous handler is restored afterwards.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) in (
        signal.SIG_IGN,
        None,
    ):
        yield
        return
    interrupted = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupted
        if interrupted:
            os._exit(EXIT_CODE)
        interrupted = True
        loop.call_soon_threadsafe(on_interrupt)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
