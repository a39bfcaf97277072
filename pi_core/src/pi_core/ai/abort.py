"""Abort signals: the asyncio counterpart of the AbortController/AbortSignal pair pi passes around.

Cancelling a task is how work actually stops; the signal is how code that is not the task (a
provider stream, a tool running a subprocess, a plugin) learns that the user asked to stop and why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class AbortSignal:
    """Read side: ``aborted``, ``reason``, ``await wait()``, and listeners called once on abort."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._reason: str | None = None
        self._listeners: list[Callable[[], None]] = []

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    @property
    def reason(self) -> str | None:
        return self._reason

    async def wait(self) -> None:
        await self._event.wait()

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` when aborted (at once if already aborted); returns a function that removes it."""
        if self.aborted:
            listener()
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove


class AbortController:
    """Write side: owns one signal and aborts it at most once."""

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str = "aborted") -> None:
        signal = self.signal
        if signal.aborted:
            return
        signal._reason = reason
        signal._event.set()
        listeners, signal._listeners = signal._listeners, []
        for listener in listeners:
            listener()
