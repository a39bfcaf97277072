"""Keep the newest ``keepRecentTokens`` of the branch; everything older is dropped unsummarized."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionSettings,
    CompleteFn,
    branch_context_messages,
    estimate_context_tokens,
    estimate_tokens,
    message_for_compaction,
)


def _can_start_context(entry: Any) -> bool:
    # A tool result must stay right after the tool call that asked for it.
    if entry.type == "message":
        return bool(entry.message.role != "toolResult")
    return entry.type in ("custom_message", "branch_summary")


class KeepRecentStrategy:
    """No model call: the summary only says how much was dropped."""

    def prepare(self, branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
        if not branch or branch[-1].type == "compaction":
            return None
        start = 0
        for i in range(len(branch) - 1, -1, -1):
            if branch[i].type == "compaction":
                kept_id = branch[i].first_kept_entry_id
                start = next((j for j in range(i) if branch[j].id == kept_id), i + 1)
                break

        kept_tokens = 0
        cut: int | None = None
        for i in range(len(branch) - 1, start - 1, -1):
            entry = branch[i]
            if entry.type == "message":
                kept_tokens += estimate_tokens(entry.message)
            if kept_tokens >= settings.keep_recent_tokens:
                cut = next((j for j in range(i, len(branch)) if _can_start_context(branch[j])), None)
                break
        if cut is None or cut <= start:
            return None  # everything fits: nothing would be dropped

        dropped = [m for m in map(message_for_compaction, branch[start:cut]) if m is not None]
        return CompactionPreparation(
            first_kept_entry_id=branch[cut].id,
            messages_to_summarize=dropped,
            tokens_before=estimate_context_tokens(branch_context_messages(branch)).tokens,
            settings=settings,
        )

    async def compact(
        self,
        preparation: CompactionPreparation,
        *,
        complete: CompleteFn,
        signal: AbortSignal,
        custom_instructions: str | None,
    ) -> CompactionResult:
        count = len(preparation.messages_to_summarize)
        removed = "1 earlier message was" if count == 1 else f"{count} earlier messages were"
        summary = (
            f"{removed} removed from this conversation to free context; only the most recent part "
            "is kept verbatim. No summary was made."
        )
        return CompactionResult(
            summary=summary,
            first_kept_entry_id=preparation.first_kept_entry_id,
            tokens_before=preparation.tokens_before,
            details={"strategy": "keep-recent", "droppedMessages": count},
        )
