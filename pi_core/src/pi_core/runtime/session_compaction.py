"""Compaction for an AgentSession: the checks after and before runs, automatic and manual runs,
overflow recovery and tree navigation (spec agent-loop §7), on top of ``pi_core.runtime.compaction``.

One :class:`SessionCompaction` belongs to each AgentSession and works on its state (it is part of the
session, so it uses the session's internal helpers); the algorithm
itself is the configured strategy plugin's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from pi_core.ai.abort import AbortController, AbortSignal
from pi_core.ai.messages import AssistantMessage, Usage, sum_usage
from pi_core.runtime import auth_guidance
from pi_core.runtime.events import (
    CompactionEndEvent,
    CompactionReason,
    CompactionStartEvent,
    SummarizationRetryAttemptStartEvent,
    SummarizationRetryFinishedEvent,
    SummarizationRetryScheduledEvent,
)
from pi_core.runtime.retry import is_retryable_error, retry_delay_ms
from pi_core.runtime.stats import ContextUsage

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession

logger = logging.getLogger("pi.runtime")

NO_COMPACTION_PLUGIN = (
    "Compaction is needed but no compaction strategy is installed (pip install pi-coding-agent-compaction); "
    "going on without it."
)


class SessionCompaction:
    """Compaction state and operations of one session."""

    def __init__(self, session: AgentSession) -> None:
        self._s = session
        self.is_compacting = False
        #: Overflow recovery was tried for the current user message (reset by a new one).
        self.overflow_attempted = False
        #: Usage of the summary requests of the compaction under way (pi 1.6.0 records their
        #: sum as the compaction's ``usage``).
        self._summary_usages: list[Usage] = []
        self._warned = False
        self._abort: AbortController | None = None

    def abort(self) -> None:
        if self._abort is not None:
            self._abort.abort()

    def _strategy(self) -> tuple[Any, Any] | None:
        """(strategy, settings) for the configured strategy, or None without a compaction plugin."""
        registry = self._s.services.compaction
        if registry is None or not registry.names():
            return None
        from pi_core.runtime.compaction import compaction_settings_from

        settings = compaction_settings_from(self._s.settings.merged())
        return registry.select(settings), settings

    async def check(self, message: AssistantMessage, *, skip_aborted: bool) -> bool:
        """pi's ``_checkCompaction``; True when the agent should continue (overflow recovered)."""
        from pi_core.runtime.compaction import compaction_settings_from
        from pi_core.runtime.compaction.check import OVERFLOW_RECOVERY_FAILED, check_compaction

        settings = compaction_settings_from(self._s.settings.merged())
        model = self._s.model
        check = check_compaction(
            message,
            settings=settings,
            model_provider=model.provider if model else None,
            model_id=model.id if model else None,
            context_window=model.context_window if model else 0,
            branch=_compaction_tail(self._s.session_manager),
            agent_messages=self._s.messages,
            overflow_attempted=self.overflow_attempted,
            skip_aborted=skip_aborted,
        )
        if check.action == "none":
            return False
        if check.action == "overflow_exhausted":
            self._s._emit(
                CompactionEndEvent(
                    reason="overflow", aborted=False, will_retry=False, error_message=OVERFLOW_RECOVERY_FAILED
                )
            )
            return False
        if self._strategy() is None:
            if not self._warned:
                self._warned = True
                self._s._emit_error("pi", "compaction", NO_COMPACTION_PLUGIN)
            return False
        if check.action == "overflow":
            self.overflow_attempted = True
            if self._s.messages and self._s.messages[-1] is message:
                self._s._persistence.drop_trailing_error()
            result = await self._auto_compact("overflow", will_retry=True)
            if result is None:
                return False
            # The rebuilt context comes from the file, which still holds the failed reply.
            last = self._s.messages[-1] if self._s.messages else None
            if isinstance(last, AssistantMessage) and last.stop_reason == "error":
                self._s._persistence.drop_trailing_error()
            return True
        await self._auto_compact("threshold", will_retry=False)
        return self._s.agent.has_queued_messages() and bool(self._s.messages)

    async def _auto_compact(self, reason: CompactionReason, *, will_retry: bool) -> dict[str, Any] | None:
        self._s._emit(CompactionStartEvent(reason=reason))
        try:
            outcome = await self._run_compaction(reason, None)
        except Exception as error:  # a broken strategy must not take the session down
            logger.warning("auto-compaction failed", exc_info=True)
            prefix = (
                "Context overflow recovery failed: " if reason == "overflow" else "Auto-compaction failed: "
            )
            self._s._emit(
                CompactionEndEvent(
                    reason=reason, aborted=False, will_retry=False, error_message=prefix + str(error)
                )
            )
            return None
        result = self._result_record(outcome)
        self._s._emit(
            CompactionEndEvent(
                reason=reason,
                result=result,
                aborted=outcome.aborted,
                will_retry=will_retry and result is not None,
                error_message=outcome.end_error_message,
            )
        )
        if result is not None and will_retry:
            await asyncio.sleep(0.1)  # pi gives the UI a beat before the retried request
        return result

    async def _run_compaction(self, reason: CompactionReason, instructions: str | None) -> Any:
        from pi_core.runtime.compaction.run import run_compaction

        chosen = self._strategy()
        assert chosen is not None
        strategy, settings = chosen
        self.is_compacting = True
        controller = self._abort = AbortController()
        self._summary_usages = []
        try:
            return await run_compaction(
                session=self._s.session_manager,
                summary_usage=lambda: sum_usage(self._summary_usages),
                strategy=strategy,
                settings=settings,
                complete=self._summary_completion("compaction", reason),
                signal=controller.signal,
                reason=reason,
                custom_instructions=instructions,
                hooks=self._s.hooks,
                ctx=self._s.extension_context(),
                after_append=self._after_compaction_entry,
            )
        finally:
            self.is_compacting = False
            self._abort = None

    def _result_record(self, outcome: Any) -> dict[str, Any] | None:
        """The result as events and RPC carry it, with ``estimatedTokensAfter`` (pi 1.6.0): the
        character-based estimate of the context rebuilt after the compaction entry."""
        if outcome.result is None:
            return None
        from pi_core.runtime.compaction.tokens import estimate_tokens

        record = outcome.result.to_json_dict()
        estimate = sum(estimate_tokens(message) for message in self._s.messages)
        ordered: dict[str, Any] = {}
        for key, value in record.items():
            ordered[key] = value
            if key == "tokensBefore":
                ordered["estimatedTokensAfter"] = estimate
        ordered.setdefault("estimatedTokensAfter", estimate)
        return ordered

    async def _after_compaction_entry(self, entry: Any) -> None:
        await self.reload_messages()

    def _summary_completion(
        self, source: Literal["compaction", "branchSummary"], reason: CompactionReason | None = None
    ) -> Callable[[Any, AbortSignal], Awaitable[AssistantMessage]]:
        """Summary requests with pi 1.6.0's retry: the ``retry`` settings' budget and backoff, and
        ``summarization_retry_*`` events around every further attempt."""

        async def complete(request: Any, signal: AbortSignal) -> AssistantMessage:
            retry = self._s.settings.settings.retry
            max_attempts = retry.max_retries if retry.enabled else 0
            attempt = 0
            while True:
                response = await self._complete_for_summary(request, signal)
                self._summary_usages.append(response.usage)
                retryable = response.stop_reason == "error" and attempt < max_attempts
                if retryable:
                    window = self._s.model.context_window if self._s.model else 0
                    overflow = _overflowed(response, window)
                    retryable = is_retryable_error(response, is_overflow=overflow)
                if not retryable:
                    if attempt:
                        self._s._emit(SummarizationRetryFinishedEvent())
                    return response
                attempt += 1
                delay = retry_delay_ms(retry.base_delay_ms, attempt)
                self._s._emit(
                    SummarizationRetryScheduledEvent(
                        attempt=attempt,
                        max_attempts=max_attempts,
                        delay_ms=delay,
                        error_message=response.error_message or "Unknown error",
                    )
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(signal.wait(), timeout=delay / 1000)
                if signal.aborted:
                    self._s._emit(SummarizationRetryFinishedEvent())
                    return response.model_copy(update={"stop_reason": "aborted", "error_message": None})
                self._s._emit(SummarizationRetryAttemptStartEvent(source=source, reason=reason))

        return complete

    async def _complete_for_summary(self, request: Any, signal: AbortSignal) -> AssistantMessage:
        from pi_core.ai.provider import Context, StreamOptions
        from pi_core.ai.stream import complete_simple

        model = self._s.model
        if model is None:
            raise RuntimeError(auth_guidance.no_model_selected_message())
        level = self._s.thinking_level
        provider_retry = self._s.settings.settings.retry.provider
        options = StreamOptions(
            # The SDK's own retries follow the same setting as the agent's requests (pi 1.6.0:
            # none by default); transient failures are retried above, with events.
            max_retries=provider_retry.max_retries,
            timeout_ms=provider_retry.timeout_ms,
            max_tokens=request.max_tokens,
            signal=signal,
            api_key=await self._s._requests.api_key_for(model.provider),
            headers=self._s._requests.headers,
            attribution=self._s.provider_attribution(),
            reasoning=level if (request.use_reasoning and model.reasoning and level != "off") else None,  # type: ignore[arg-type]
        )
        context = Context(system_prompt=request.system_prompt, messages=list(request.messages))
        # The key was just looked up: the summary goes where the session's own requests go.
        return await complete_simple(self._s._requests.at_auth_base_url(model), context, options)

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Manual compaction (``/compact``, RPC ``compact``); raises with pi's message on failure."""
        if self._strategy() is None:
            raise RuntimeError("No compaction strategy is installed (pip install pi-coding-agent-compaction)")
        if not self._s.is_idle:
            await self._s.abort()
        self._s._emit(CompactionStartEvent(reason="manual"))
        try:
            outcome = await self._run_compaction("manual", custom_instructions)
        except Exception as error:
            message = f"Compaction failed: {error}"
            self._s._emit(
                CompactionEndEvent(reason="manual", aborted=False, will_retry=False, error_message=message)
            )
            raise
        result = self._result_record(outcome)
        self._s._emit(
            CompactionEndEvent(
                reason="manual",
                result=result,
                aborted=outcome.aborted,
                will_retry=False,
                error_message=outcome.end_error_message,
            )
        )
        if result is None:
            raise RuntimeError(outcome.error or "Compaction failed")
        return result

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> Any:
        """Move the leaf to ``target_id`` (optionally summarizing the abandoned branch), as ``/tree``."""
        from pi_core.runtime.compaction import branch_summary_settings_from, compaction_settings_from
        from pi_core.runtime.compaction.navigate import navigate_tree

        registry = self._s.services.compaction
        summarizer = None
        if registry is not None and registry.names():
            summarizer = registry.branch_summarizer(compaction_settings_from(self._s.settings.merged()))
        controller = self._abort = AbortController()
        self._summary_usages = []
        try:
            return await navigate_tree(
                session=self._s.session_manager,
                target_id=target_id,
                summarize=summarize,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
                label=label,
                summarizer=summarizer,
                settings=branch_summary_settings_from(self._s.settings.merged()),
                context_window=self._s.model.context_window if self._s.model else 0,
                complete=self._summary_completion("branchSummary") if self._s.model else None,
                signal=controller.signal,
                hooks=self._s.hooks,
                ctx=self._s.extension_context(),
                after_move=self._after_tree_move,
                summary_usage=lambda: sum_usage(self._summary_usages),
            )
        finally:
            self._abort = None

    async def reload_messages(self, *_: Any) -> None:
        self._s.agent.state.messages = list(self._s.session_manager.build_session_context().messages)

    async def _after_tree_move(self) -> None:
        # pi 1.6.0: the branch now selected brings its recorded tools back.
        await self.reload_messages()
        self._s.restore_tools_from_transcript()

    def get_context_usage(self) -> ContextUsage | None:
        from pi_core.runtime.compaction.check import context_usage_tokens

        model = self._s.model
        if model is None or model.context_window <= 0:
            return None
        manager = self._s.session_manager
        tail = getattr(manager, "get_branch_since_compaction", None)  # the figure reads only that
        branch = tail() if tail is not None else manager.get_branch()
        tokens = context_usage_tokens(branch, self._s.messages)
        percent = None if tokens is None else tokens / model.context_window * 100
        return ContextUsage(tokens=tokens, context_window=model.context_window, percent=percent)


def _overflowed(message: AssistantMessage, context_window: int) -> bool:
    from pi_core.ai.overflow import is_context_overflow

    return bool(is_context_overflow(message, context_window))


def _compaction_tail(manager: Any) -> list[Any]:
    """What the check reads of the branch (only its latest compaction), without building every
    entry of a long branch when the manager can find it from its records."""
    finder = getattr(manager, "latest_compaction_on_branch", None)
    if finder is None:
        return list(manager.get_branch())
    latest = finder()
    return [latest] if latest is not None else []
