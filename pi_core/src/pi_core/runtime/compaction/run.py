"""``run_compaction``: one compaction from preparation to the written entry (spec §4.4, §4.6, §7).

The runtime decides *that* a compaction runs (``/compact``, threshold, overflow) and emits
``compaction_start``/``compaction_end``; this function does the rest and never leaves a half
result: the entry is appended only after the strategy (or a hook) produced a valid result and
the run was not aborted. Any failure returns an outcome with ``error`` set and the session untouched.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import ValidationError

from pi_core.ai.abort import AbortSignal
from pi_core.plugins.events import SessionBeforeCompactEvent, SessionCompactEvent

from .hooks import CompactionHooks
from .settings import CompactionSettings
from .strategy import (
    CompactionPreparation,
    CompactionResult,
    CompactionStrategy,
    CompleteFn,
    SummarizationAborted,
)

logger = logging.getLogger("pi.compaction")

CompactionReason = Literal["manual", "threshold", "overflow"]

_ERROR_PREFIX: dict[str, str] = {
    "manual": "Compaction failed: ",
    "threshold": "Auto-compaction failed: ",
    "overflow": "Context overflow recovery failed: ",
}

ALREADY_COMPACTED = "Already compacted"
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"
COMPACTION_CANCELLED = "Compaction cancelled"


class CompactionSession(Protocol):
    """What compaction needs of the session manager."""

    def get_branch(self) -> Sequence[Any]: ...

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = ...,
        from_hook: bool = ...,
        usage: Any = ...,
        /,
    ) -> str: ...

    def get_entry(self, entry_id: str, /) -> Any: ...


@dataclass
class CompactionOutcome:
    """How a run ended. Exactly one of: ``result`` set; ``aborted``; ``error`` set."""

    reason: CompactionReason
    result: CompactionResult | None = None
    #: The appended ``compaction`` entry.
    entry: Any = None
    from_extension: bool = False
    aborted: bool = False
    #: Why nothing was written (without the reason prefix), e.g. ``Nothing to compact (session too small)``.
    error: str | None = None
    #: The branch held nothing to compact; automatic runs end silently in that case.
    nothing_to_compact: bool = False

    @property
    def end_error_message(self) -> str | None:
        """``errorMessage`` of ``compaction_end``: prefixed by reason; None when aborted or silent."""
        if self.error is None or self.aborted:
            return None
        if self.nothing_to_compact and self.reason != "manual":
            return None
        return _ERROR_PREFIX[self.reason] + self.error


AfterAppend = Callable[[Any], Awaitable[None]]


def _strategy_result(value: Any, branch_ids: set[str], name: str) -> CompactionResult:
    """Validate what a strategy returned; raise ValueError naming the strategy if it is nonsense."""
    try:
        result = CompactionResult.model_validate(value)
    except ValidationError as error:
        raise ValueError(f"compaction strategy {name!r} returned an invalid result: {error}") from error
    if result.first_kept_entry_id not in branch_ids:
        raise ValueError(
            f"compaction strategy {name!r} returned firstKeptEntryId {result.first_kept_entry_id!r}, "
            "which is not an entry of the current branch"
        )
    return result


async def run_compaction(
    *,
    session: CompactionSession,
    strategy: CompactionStrategy,
    settings: CompactionSettings,
    complete: CompleteFn,
    signal: AbortSignal,
    reason: CompactionReason,
    custom_instructions: str | None = None,
    hooks: CompactionHooks | None = None,
    ctx: Any = None,
    after_append: AfterAppend | None = None,
    summary_usage: Callable[[], Any] | None = None,
) -> CompactionOutcome:
    """Prepare, ask ``session_before_compact``, summarize, validate, append, fire ``session_compact``.

    ``summary_usage()`` gives the model usage of writing the summary, recorded on the entry.

    ``after_append(entry)`` runs right after the entry is written and before ``session_compact``
    fires: the runtime rebuilds the agent's messages there, as pi does.
    """
    name = settings.strategy
    outcome = CompactionOutcome(reason=reason)
    branch = list(session.get_branch())

    try:
        preparation = strategy.prepare(branch, settings)
    except Exception as error:
        logger.exception("compaction strategy %r failed to prepare", name)
        outcome.error = f"compaction strategy {name!r} failed: {error}"
        return outcome
    if preparation is None:
        last_is_compaction = bool(branch) and branch[-1].type == "compaction"
        outcome.error = ALREADY_COMPACTED if last_is_compaction else NOTHING_TO_COMPACT
        outcome.nothing_to_compact = True
        return outcome
    if not isinstance(preparation, CompactionPreparation):
        outcome.error = (
            f"compaction strategy {name!r} returned {type(preparation).__name__}, not a preparation"
        )
        return outcome

    result: CompactionResult | None = None
    supplied_usage: Any = None
    if hooks is not None:
        event = SessionBeforeCompactEvent(
            preparation=preparation,
            branch_entries=branch,
            custom_instructions=custom_instructions,
            signal=signal,
        )
        hook_result = await hooks.session_before_compact(event, ctx)
        if hook_result is not None and hook_result.cancel:
            outcome.aborted = True
            outcome.error = COMPACTION_CANCELLED
            return outcome
        if hook_result is not None and hook_result.compaction is not None:
            supplied = hook_result.compaction
            result = CompactionResult(
                summary=supplied.summary,
                first_kept_entry_id=supplied.first_kept_entry_id,
                tokens_before=supplied.tokens_before,
                details=supplied.details,
            )
            outcome.from_extension = True
            supplied_usage = supplied.usage

    if result is None:
        try:
            produced = await strategy.compact(
                preparation, complete=complete, signal=signal, custom_instructions=custom_instructions
            )
            if signal.aborted:
                raise SummarizationAborted(COMPACTION_CANCELLED)
            result = _strategy_result(produced, {entry.id for entry in branch}, name)
        except SummarizationAborted:
            outcome.aborted = True
            outcome.error = COMPACTION_CANCELLED
            return outcome
        except Exception as error:
            if signal.aborted:
                outcome.aborted = True
                outcome.error = COMPACTION_CANCELLED
                return outcome
            logger.info("compaction with strategy %r failed", name, exc_info=True)
            outcome.error = str(error) or type(error).__name__
            return outcome

    if signal.aborted:
        outcome.aborted = True
        outcome.error = COMPACTION_CANCELLED
        return outcome

    entry_id = session.append_compaction(
        result.summary,
        result.first_kept_entry_id,
        result.tokens_before,
        result.details,
        outcome.from_extension,
        supplied_usage if outcome.from_extension else summary_usage() if summary_usage is not None else None,
    )
    entry = session.get_entry(entry_id)
    outcome.result = result
    outcome.entry = entry
    if after_append is not None:
        await after_append(entry)
    if hooks is not None:
        await hooks.session_compact(
            SessionCompactEvent(compaction_entry=entry, from_extension=outcome.from_extension), ctx
        )
    return outcome
