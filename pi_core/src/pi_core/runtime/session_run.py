"""An AgentSession's runs from start to settle: the session is claimed before a run starts (so a
second prompt queues instead of racing), the agent runs, and then — as pi does, until nothing is
left — auto-retry, overflow recovery and threshold compaction, a turn a plugin asked for after
the loop stopped, and ``agent_before_settle``. Releasing the session emits ``agent_settled``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pi_core.agent import events as agent_events
from pi_core.ai.messages import AssistantMessage
from pi_core.plugins import events as hook_events
from pi_core.runtime.events import AgentSettledEvent
from pi_core.runtime.retry import RetrySettings, is_retryable_error

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession

Step = Callable[[], Awaitable[None]]


class RunDriver:
    """The run state of one session: busy, aborted, the last reply, a requested turn."""

    def __init__(self, session: AgentSession) -> None:
        self._s = session
        self.driving = False
        #: A run was started since the last :meth:`claim` (so ``agent_settled`` is due at release).
        self._run_started = False
        #: ``abort()`` was called during the current run (``agent_settled.aborted``).
        self.abort_requested = False
        self._idle = asyncio.Event()
        self._idle.set()
        #: The run's last assistant reply (set from ``message_end`` / ``agent_end``).
        self.last_assistant: AssistantMessage | None = None
        #: ``send_message(..., trigger_turn=True)`` arrived while a run was ending.
        self.turn_requested = False

    def claim(self) -> None:
        self.driving = True
        self.abort_requested = False
        self._idle.clear()

    def release(self) -> None:
        """The session is idle again; after a run, ``agent_settled`` says so (pi 1.6.0).

        It is emitted once the session already counts as idle, so a client that answers it with
        the next ``prompt`` is not told the agent is still busy.
        """
        self.driving = False
        self._idle.set()
        if self._run_started:
            self._run_started = False
            self._s._emit(AgentSettledEvent(aborted=self.abort_requested))
            self._s.fire_hook("agent_settled", hook_events.AgentSettledEvent(aborted=self.abort_requested))

    async def drive(self, start: Step) -> None:
        """Run the agent, then retry / recover / compact as pi does until nothing is left to do."""
        self._run_started = True
        step: Step | None = start
        while step is not None:
            self.last_assistant = None
            await step()
            step = await self._after_run()
            if step is None:
                step = await self._s._boundaries.before_settle()

    async def _after_run(self) -> Step | None:
        s = self._s
        message, self.last_assistant = self.last_assistant, None
        if message is None:
            return self._requested_turn(None)
        if is_retryable_error(message, is_overflow=self._is_overflow(message)):
            retry = s.settings.settings.retry
            settings = RetrySettings(
                retry.enabled, retry.max_retries, retry.base_delay_ms, retry.max_agent_delay_ms
            )
            if await s._retry.handle_error(message, settings, s._persistence.drop_trailing_error):
                return s.agent.continue_
        s._retry.settle()
        if await s._compaction.check(message, skip_aborted=True):
            return s.agent.continue_
        return self._requested_turn(message)

    def _requested_turn(self, last: AssistantMessage | None) -> Step | None:
        """A plugin asked for a turn (``trigger_turn``) after the loop stopped polling (``agent_end``):
        start the run pi starts then, unless the user aborted."""
        requested, self.turn_requested = self.turn_requested, False
        if not requested or not self._s.agent.has_queued_messages():
            return None
        if last is not None and last.stop_reason == "aborted":
            return None
        return self._s.agent.continue_

    def will_retry(self, event: agent_events.AgentEndEvent) -> bool:
        """Whether auto-retry will start another attempt after this ``agent_end`` (its ``willRetry``)."""
        if self.abort_requested:
            return False
        retry = self._s.settings.settings.retry
        if not retry.enabled or self._s._retry.attempt >= retry.max_retries:
            return False
        last = next((m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None)
        if last is None:
            return False
        return is_retryable_error(last, is_overflow=self._is_overflow(last))

    def _is_overflow(self, message: AssistantMessage) -> bool:
        from pi_core.ai.overflow import is_context_overflow

        model = self._s.model
        return bool(is_context_overflow(message, model.context_window if model else 0))

    async def abort(self) -> None:
        """Cancel a pending retry, abort the run and wait until the agent is idle."""
        s = self._s
        self.abort_requested = True
        s._retry.cancel()
        s._compaction.abort()
        s.agent.abort()
        await s.agent.wait_for_idle()

    async def wait_for_idle(self) -> None:
        """Wait for the run and whatever follows it (retries, recovery) to finish."""
        await self._idle.wait()
        await self._s.agent.wait_for_idle()
