"""Agent-level auto-retry of transient provider errors, as pi 0.73.1 does it.

A failed assistant reply is retried when its error text looks transient (rate limits, 5xx,
dropped connections, timeouts) and it is not a context overflow (that is compaction's job).
Attempt *n* waits ``baseDelayMs * 2**(n-1)`` (2 s, 4 s, 8 s by default), at most
``maxAgentDelayMs``; the wait is abortable.
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


def _any_of(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), re.IGNORECASE)


#: Errors that look transient (pi 1.6.0's list), matched case-insensitively anywhere in the text.
#: The same texts for every dialect: a dropped stream reads "Connection lost mid-stream" (or
#: "... stream ended ...") whether it was Anthropic or OpenAI, so both are retried alike.
RETRYABLE_ERROR = _any_of(
    # load, status codes (not inside a longer number such as a request id), server faults
    r"overloaded", r"server_busy", r"servers are currently busy", r"currently experiencing high demand",
    r"model is at capacity", r"rate.?limit", r"too many requests",
    r"(?<![a-z0-9])(?:429|500|502|503|504|520|524)(?![a-z0-9])",
    r"service.?(?:is.?)?(?:temporarily.?)?unavailable", r"server.?error", r"internal.?error",
    # gateways relaying an upstream failure
    r"provider.?returned.?(?:an.?)?error", r"exceeded request buffer limit while retrying upstream",
    r"unable to forward upstream", r"upstream.?request.?failed", r"upstream_stream_read_error",
    r"stream was interrupted", r"http/?2 stream failed",
    # the network and the transport
    r"network.?error", r"connection.?error", r"connection.?refused", r"connection.?lost",
    r"connection.?closed", r"other side closed", r"fetch failed", r"request to \S+ failed, reason:",
    r"getaddrinfo", r"(?<![a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?![a-z0-9_])",
    r"connection reset by peer", r"ENOTFOUND", r"EAI_AGAIN", r"upstream.?connect", r"reset before headers",
    r"socket hang up", r"socket connection was closed", r"timed? out", r"timeout", r"terminated",
    r"websocket.?closed", r"websocket.?error", r"websocket.?connection.?limit.?reached",
    # streams that ended early
    r"ended without", r"stream ended before message_stop", r"stream ended before a terminal response event",
    r"http2 request did not get a response", r"stream disconnected before completion",
    r"cut short after the reply had begun", r"pending stream has been canceled",
    # a server-requested delay above the cap, and explicit advice to retry
    r"retry delay", r"you can retry your request", r"try your request again", r"please retry your request",
    r"ResourceExhausted", r"subscription_sharing_usage_unavailable", r"subscription_sharing_user_unavailable",
)  # fmt: skip

#: Quota, budget and plan limits: sent as 429 like a throttle, but a retry cannot succeed soon.
NOT_RETRYABLE_ERROR = _any_of(
    r"GoUsageLimitError", r"FreeUsageLimitError", r"Monthly usage limit reached", r"available balance",
    r"insufficient_quota", r"out of budget", r"quota exceeded", r"billing",
    r"subscription_sharing_usage_limit_exceeded",
    r"subscription_sharing_workplace_individual_usage_limit_exceeded", r'"code"\s*:\s*"?1308(?![0-9])',
)  # fmt: skip

RETRY_CANCELLED = "Retry cancelled"


@dataclass(frozen=True)
class RetrySettings:
    """``retry.*`` from settings.json."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_agent_delay_ms: int = 60000


def retry_delay_ms(base_delay_ms: int, attempt: int, cap_ms: int | None = None) -> int:
    """Backoff before retry number ``attempt`` (1-based), at most ``cap_ms``."""
    delay = int(base_delay_ms * 2 ** max(0, attempt - 1))
    return delay if cap_ms is None else min(delay, cap_ms)


def is_retryable_error(message: AssistantMessage, *, is_overflow: bool) -> bool:
    """Whether ``message`` failed transiently; ``is_overflow`` is the provider layer's overflow verdict."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_overflow or NOT_RETRYABLE_ERROR.search(message.error_message):
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
        delay = retry_delay_ms(settings.base_delay_ms, self.attempt, settings.max_agent_delay_ms)
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
