"""The "default" strategy: pi's own compaction and branch summarization."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.runtime.compaction import (
    BranchSummaryResult,
    BranchSummarySettings,
    CompactionPreparation,
    CompactionResult,
    CompactionSettings,
    CompleteFn,
)

from .branch import generate_branch_summary
from .prepare import prepare_compaction
from .summarize import compact


class DefaultCompactionStrategy:
    """Summarize everything before the newest ``keepRecentTokens`` with the session's model."""

    def prepare(self, branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
        return prepare_compaction(branch, settings)

    async def compact(
        self,
        preparation: CompactionPreparation,
        *,
        complete: CompleteFn,
        signal: AbortSignal,
        custom_instructions: str | None,
    ) -> CompactionResult:
        return await compact(preparation, complete, signal, custom_instructions)

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
        return await generate_branch_summary(
            entries,
            settings=settings,
            context_window=context_window,
            complete=complete,
            signal=signal,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
        )
