"""An async event stream with a final result: the provider side pushes, the consumer iterates.

Providers run their HTTP work in a task and ``push`` events; consumers ``async for`` over the stream
and ``await result()`` for the final message. A deque plus one waiter future keeps a pushed delta
cheap (no asyncio.Queue bookkeeping) — this sits on the per-token hot path.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from pi_core.ai.messages import AssistantMessage
from pi_core.ai.provider import AssistantMessageEvent


def snapshot_message(message: AssistantMessage) -> AssistantMessage:
    """A copy of ``message`` that does not change when the provider keeps filling the original.

    Content blocks and usage are copied (providers grow them in place); once per message, never per delta.
    """
    return message.model_copy(
        update={
            "content": [block.model_copy() for block in message.content],
            "usage": message.usage.model_copy(update={"cost": message.usage.cost.model_copy()}),
        }
    )


class AssistantMessageEventStream:
    """Events of one assistant message; ends after the first ``done`` or ``error`` event."""

    def __init__(self) -> None:
        self._queue: deque[AssistantMessageEvent] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._done = False
        self._result: asyncio.Future[AssistantMessage] = asyncio.get_running_loop().create_future()
        #: The task producing events, if any; ``aclose`` cancels it.
        self.producer: asyncio.Task[None] | None = None
        #: The message as it was when ``start`` was pushed. The producer runs ahead of the consumer and
        #: fills the partial in place, so the agent loop takes its ``message_start`` from here.
        self.start_snapshot: AssistantMessage | None = None

    def push(self, event: AssistantMessageEvent) -> None:
        if self._done:
            return
        kind = event.type
        if kind == "start":
            self.start_snapshot = snapshot_message(event.partial)  # type: ignore[union-attr]
        elif kind == "done" or kind == "error":
            self._done = True
            final = event.message if event.type == "done" else event.error  # type: ignore[union-attr]
            if not self._result.done():
                self._result.set_result(final)
        self._queue.append(event)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def end(self, result: AssistantMessage | None = None) -> None:
        self._done = True
        if not self._result.done():
            if result is not None:
                self._result.set_result(result)
            else:
                # A provider bug must not hang the consumer: fail ``result()`` instead.
                self._result.set_exception(
                    RuntimeError("Provider stream ended without a done or error event")
                )
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        queue = self._queue
        while True:
            if queue:
                yield queue.popleft()
            elif self._done:
                return
            else:
                self._waiter = asyncio.get_running_loop().create_future()
                await self._waiter
                self._waiter = None

    async def result(self) -> AssistantMessage:
        return await self._result

    async def aclose(self) -> None:
        """Stop the producer (used when a consumer gives up early)."""
        task = self.producer
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
