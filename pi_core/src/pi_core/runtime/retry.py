"""Agent-level auto-retry of transient provider errors, as pi 0.73.1 does it.

A failed assistant reply is retried when its error text looks transient (rate limits, 5xx,
dropped connections, timeouts) and it is not a context overflow (that is compaction's job).
Attempt *n* waits ``baseDelayMs * 2**(n-1)`` (2 s, 4 s, 8 s by default); the wait is abortable.
:class:`AutoRetry` holds the attempt counter and the "retry in flight" latch that ``prompt()``
waits on; AgentSession owns one and drives it from agent events.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pi_core.ai.abort import AbortController
from pi_core.ai.messages import AssistantMessage
from pi_core.runtime.events import AutoRetryEndEvent, AutoRetryStartEvent

#: pi's retryable-error pattern, matched case-insensitively anywhere in the error text.
RETRYABLE_ERROR = re.compile(
    r"overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504"
    r"|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error"
    r"|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed"
    r"|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without"
    r"|http2 request did not get a response|timed? out|timeout|terminated|retry delay",
    re.IGNORECASE,
)

RETRY_CANCELLED = "Retry cancelled"


@dataclass(frozen=True)
class RetrySettings:
    """``retry.*`` from settings.json."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000


def retry_delay_ms(base_delay_ms: int, attempt: int) -> int:
    """Backoff before retry number ``attempt`` (1-based)."""
    return int(base_delay_ms * 2 ** (attempt - 1))


def is_retryable_error(message: AssistantMessage, *, is_overflow: bool) -> bool:
    """Whether ``message`` failed transiently; ``is_overflow`` is the provider layer's overflow verdict."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_overflow:
        return False
    return RETRYABLE_ERROR.search(message.error_message) is not None


Emit = Callable[[AutoRetryStartEvent | AutoRetryEndEvent], Awaitable[None] | None]


class AutoRetry:
    """Attempt counter, abortable backoff and the latch ``prompt()`` waits on until retries settle."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.attempt = 0
        self._latch: asyncio.Future[None] | None = None
        self._sleep_abort: AbortController | None = None

    @property
    def in_flight(self) -> bool:
        """A retry cycle started and has not settled yet."""
        return self._latch is not None

    def arm(self) -> None:
        """Open the latch synchronously when a retryable ``agent_end`` arrives.

        Done before any async processing so a ``prompt()`` that returns right after the run
        cannot miss the retry that is about to start.
        """
        if self._latch is None:
            self._latch = asyncio.get_running_loop().create_future()

    def settle(self) -> None:
        """Release whoever waits for the retry cycle."""
        latch, self._latch = self._latch, None
        if latch is not None and not latch.done():
            latch.set_result(None)

    async def wait(self) -> None:
        """Wait until the current retry cycle (if any) settles."""
        if self._latch is not None:
            await asyncio.shield(self._latch)

    async def _send(self, event: AutoRetryStartEvent | AutoRetryEndEvent) -> None:
        result = self._emit(event)
        if result is not None:
            await result

    async def note_reply(self, message: AssistantMessage) -> None:
        """Call on every assistant ``message_end``: a non-error reply ends a retry cycle successfully."""
        if message.stop_reason != "error" and self.attempt > 0:
            attempt, self.attempt = self.attempt, 0
            await self._send(AutoRetryEndEvent(success=True, attempt=attempt))

    async def handle_error(
        self,
        message: AssistantMessage,
        settings: RetrySettings,
        drop_failed: Callable[[], None],
    ) -> bool:
        """Back off before the next attempt; ``True`` means the caller should continue the agent.

        ``drop_failed`` removes the failed reply from the live transcript (it stays in the file).
        Returns ``False`` (and settles the latch) when retries are disabled, exhausted or cancelled.
        """
        if not settings.enabled:
            self.settle()
            return False
        self.arm()
        self.attempt += 1
        if self.attempt > settings.max_retries:
            attempt, self.attempt = self.attempt - 1, 0
            await self._send(
                AutoRetryEndEvent(success=False, attempt=attempt, final_error=message.error_message)
            )
            self.settle()
            return False
        delay = retry_delay_ms(settings.base_delay_ms, self.attempt)
        await self._send(
            AutoRetryStartEvent(
                attempt=self.attempt,
                max_attempts=settings.max_retries,
                delay_ms=delay,
                error_message=message.error_message or "Unknown error",
            )
        )
        drop_failed()
        controller = self._sleep_abort = AbortController()
        try:
            await asyncio.wait_for(controller.signal.wait(), timeout=delay / 1000)
        except TimeoutError:
            pass  # the backoff elapsed: go on with the retry
        finally:
            self._sleep_abort = None
        if controller.signal.aborted:
            attempt, self.attempt = self.attempt, 0
            await self._send(AutoRetryEndEvent(success=False, attempt=attempt, final_error=RETRY_CANCELLED))
            self.settle()
            return False
        return True

    def cancel(self) -> None:
        """Stop a pending backoff (RPC ``abort_retry``, ``abort()``) and release waiters."""
        if self._sleep_abort is not None:
            self._sleep_abort.abort("retry cancelled")
        self.settle()
