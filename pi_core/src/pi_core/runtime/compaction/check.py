"""When automatic compaction runs: the check after each agent run and before each prompt (spec §4.2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_core.ai.messages import AgentMessage, AssistantMessage
from pi_core.ai.overflow import is_context_overflow

from .entry_messages import iso_to_ms, last_compaction_index
from .settings import CompactionSettings
from .tokens import calculate_context_tokens, estimate_context_tokens, should_compact

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)

CompactionAction = Literal["none", "threshold", "overflow", "overflow_exhausted"]


@dataclass(frozen=True)
class CompactionCheck:
    """What the runtime should do after looking at an assistant message.

    - ``overflow``: set the overflow-attempt flag, drop the failed message from the in-memory
      context, run compaction with reason ``overflow`` and retry once afterwards;
    - ``overflow_exhausted``: emit ``compaction_end`` (reason ``overflow``) with
      :data:`OVERFLOW_RECOVERY_FAILED` and stop;
    - ``threshold``: run compaction with reason ``threshold``, no retry.
    """

    action: CompactionAction
    #: The context size the threshold test used (0 when it was not reached).
    context_tokens: int = 0


def latest_compaction(branch: Sequence[Any]) -> Any:
    """The last ``compaction`` entry on the branch, or None."""
    index = last_compaction_index(branch)
    return branch[index] if index >= 0 else None


def check_compaction(
    message: AssistantMessage,
    *,
    settings: CompactionSettings,
    model_provider: str | None,
    model_id: str | None,
    context_window: int,
    branch: Sequence[Any],
    agent_messages: Sequence[AgentMessage],
    overflow_attempted: bool,
    skip_aborted: bool = True,
) -> CompactionCheck:
    """pi's ``_checkCompaction`` decision, without side effects.

    ``skip_aborted`` is True after an agent run (aborted answers never trigger) and False for the
    check before a new prompt. ``agent_messages`` is the in-memory context (used to estimate the
    size when ``message`` is an error without usage).
    """
    if not settings.enabled:
        return CompactionCheck("none")
    if skip_aborted and message.stop_reason == "aborted":
        return CompactionCheck("none")

    same_model = model_id is not None and message.provider == model_provider and message.model == model_id
    compaction = latest_compaction(branch)
    compacted_at = iso_to_ms(compaction.timestamp) if compaction is not None else None
    # A message from before the latest compaction describes the old, larger context.
    if compacted_at is not None and message.timestamp <= compacted_at:
        return CompactionCheck("none")

    if same_model and is_context_overflow(message, context_window):
        return CompactionCheck("overflow_exhausted" if overflow_attempted else "overflow")

    if message.stop_reason == "error":
        estimate = estimate_context_tokens(agent_messages)
        if estimate.last_usage_index is None:
            return CompactionCheck("none")
        source = agent_messages[estimate.last_usage_index]
        if (
            compacted_at is not None
            and isinstance(source, AssistantMessage)
            and source.timestamp <= compacted_at
        ):
            return CompactionCheck("none")
        tokens = estimate.tokens
    else:
        tokens = calculate_context_tokens(message.usage)

    if should_compact(tokens, context_window, settings):
        return CompactionCheck("threshold", tokens)
    return CompactionCheck("none", tokens)


def context_usage_tokens(branch: Sequence[Any], agent_messages: Sequence[AgentMessage]) -> int | None:
    """The "context used" figure (spec §3.5): None after a compaction until the newest valid response
    after it reports non-zero usage; otherwise the estimate over ``agent_messages``."""
    compaction_index = last_compaction_index(branch)
    if compaction_index >= 0:
        trusted = False
        for entry in reversed(branch[compaction_index + 1 :]):
            message = entry.message if entry.type == "message" else None
            if isinstance(message, AssistantMessage) and message.stop_reason not in ("aborted", "error"):
                trusted = calculate_context_tokens(message.usage) > 0
                break
        if not trusted:
            return None
    return estimate_context_tokens(agent_messages).tokens
