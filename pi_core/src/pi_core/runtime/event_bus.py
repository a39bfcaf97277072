"""``ctx.events``: a small publish/subscribe bus the plugins of one runtime share (pi's ``pi.events``).

Channel names are free-form (by convention ``plugin:event``). ``emit`` calls the listeners in the
order they subscribed; a listener may be ``async def`` (it is scheduled on the running loop) and
one that raises is logged and skipped, so a broken listener never stops the emitter. Each plugin
load — start-up, ``/reload``, every session replacement — gets a fresh bus, so listeners of
replaced plugin instances never hear anything again.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("pi.events")

Listener = Callable[[Any], Any]


class EventBus:
    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    def on(self, channel: str, listener: Listener) -> Callable[[], None]:
        """Call ``listener(data)`` for every ``emit(channel, data)``; returns the unsubscribe function."""
        self._listeners.setdefault(channel, []).append(listener)

        def unsubscribe() -> None:
            listeners = self._listeners.get(channel, [])
            if listener in listeners:
                listeners.remove(listener)

        return unsubscribe

    def emit(self, channel: str, data: Any = None) -> None:
        for listener in list(self._listeners.get(channel, ())):
            try:
                outcome = listener(data)
            except Exception:
                logger.exception("event listener for %r failed", channel)
                continue
            if inspect.isawaitable(outcome):
                task = asyncio.ensure_future(outcome)
                self._tasks.add(task)
                task.add_done_callback(self._finished(channel))

    def _finished(self, channel: str) -> Callable[[asyncio.Task[Any]], None]:
        def done(task: asyncio.Task[Any]) -> None:
            self._tasks.discard(task)
            if not task.cancelled() and task.exception() is not None:
                logger.error("event listener for %r failed", channel, exc_info=task.exception())

        return done

    def clear(self) -> None:
        """Forget every listener."""
        self._listeners.clear()
