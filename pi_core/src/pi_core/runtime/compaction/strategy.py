"""The contract between the core and a compaction strategy plugin.

A strategy decides *what* to summarize (``prepare``) and produces the summary (``compact``).
It never touches the session, the hooks or the provider layer directly: the core hands it the
branch and the settings, an LLM-completion callable and an abort signal, and writes the result
itself after validating it (``run_compaction``). That keeps strategies testable on their own and
swappable by name (``compaction.strategy`` in settings.json).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import Field

from pi_core._model import PiModel
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AgentMessage, AssistantMessage, UserMessage
from pi_core.errors import PiError
from pi_core.plugins import events

from .fileops import FileOperations
from .settings import BranchSummarySettings, CompactionSettings


class CompactionPreparation(events.CompactionPreparation):
    """What a compaction will do; handed to ``session_before_compact`` as ``preparation`` (spec §5.9).

    The hook payload's model with the two loosely typed fields made precise.
    """

    file_ops: FileOperations = Field(default_factory=FileOperations)
    settings: CompactionSettings = Field(default_factory=CompactionSettings)

    @classmethod
    def from_branch(
        cls,
        *,
        first_kept_entry_id: str,
        messages_to_summarize: list[AgentMessage],
        turn_prefix_messages: list[AgentMessage],
        is_split_turn: bool,
        tokens_before: int,
        previous_summary: str | None,
        file_ops: FileOperations,
        settings: CompactionSettings,
    ) -> CompactionPreparation:
        """Build from messages taken out of session entries, which are validated already.

        Skips re-validating every message: on a 100k-entry session that alone costs more than the
        rest of the preparation. Anything else must use the normal constructor.
        """
        return cls.model_construct(
            first_kept_entry_id=first_kept_entry_id,
            messages_to_summarize=messages_to_summarize,
            turn_prefix_messages=turn_prefix_messages,
            is_split_turn=is_split_turn,
            tokens_before=tokens_before,
            previous_summary=previous_summary,
            file_ops=file_ops,
            settings=settings,
        )


class CompactionResult(PiModel):
    """What gets written into the ``compaction`` entry (and reported in ``compaction_end``)."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None


class BranchSummaryResult(PiModel):
    """A branch summary ready to be written as a ``branch_summary`` entry."""

    summary: str
    details: Any = None


@dataclass(frozen=True)
class SummaryRequest:
    """One summarization call: the runtime binds model, credentials and thinking level."""

    system_prompt: str
    messages: list[UserMessage]
    max_tokens: int
    #: Compaction calls use the session's thinking level (if the model reasons); branch summaries never do.
    use_reasoning: bool = True


CompleteFn = Callable[[SummaryRequest, AbortSignal], Awaitable[AssistantMessage]]
"""The injected LLM call: ``await complete(request, signal)`` -> the final assistant message.

It returns errors as ``stopReason: "error"`` messages and aborts as ``"aborted"``, exactly as a
provider stream ends; it does not raise for them.
"""


@runtime_checkable
class CompactionStrategy(Protocol):
    """A named way of compacting a session; registered with ``register_compaction_strategies``."""

    def prepare(self, branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
        """Decide what to summarize from the current branch (root first, every entry type).

        Returns None when there is nothing to compact (e.g. the branch ends in a compaction).
        Must be pure and fast: it runs before every compaction, on the whole branch.
        """
        ...

    async def compact(
        self,
        preparation: CompactionPreparation,
        *,
        complete: CompleteFn,
        signal: AbortSignal,
        custom_instructions: str | None,
    ) -> CompactionResult:
        """Produce the summary. Raise on failure; the core then writes nothing."""
        ...


@runtime_checkable
class BranchSummarizer(Protocol):
    """A strategy that can also summarize an abandoned branch on ``/tree`` navigation."""

    async def summarize_branch(
        self,
        entries: Sequence[Any],
        *,
        settings: BranchSummarySettings,
        context_window: int,
        complete: CompleteFn,
        signal: AbortSignal,
        custom_instructions: str | None,
        replace_instructions: bool,
    ) -> BranchSummaryResult:
        """Summarize ``entries`` (chronological). Raise ``SummarizationAborted`` when aborted."""
        ...


class CompactionError(PiError):
    """A compaction or branch summary could not be produced; the session was left unchanged."""


class SummarizationAborted(CompactionError):
    """The summarizing call was aborted (Escape, ``abort_compaction``)."""
