"""pi's ``prepareCompaction``: boundaries, cut point, what to summarize, file operations (spec §5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_core.ai.messages import AgentMessage
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionSettings,
    FileOperations,
    branch_context_messages,
    estimate_context_tokens,
    message_for_compaction,
)

from .cut_point import find_cut_point


def _last_compaction_index(branch: Sequence[Any]) -> int:
    for i in range(len(branch) - 1, -1, -1):
        if branch[i].type == "compaction":
            return i
    return -1


def _messages(branch: Sequence[Any], start: int, end: int) -> list[AgentMessage]:
    messages = []
    for i in range(start, end):
        message = message_for_compaction(branch[i])
        if message is not None:
            messages.append(message)
    return messages


def prepare_compaction(branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
    """Plan a compaction of ``branch`` (root first). None: nothing new since the last compaction,
    or the first kept entry has no id (an unmigrated session)."""
    if branch and branch[-1].type == "compaction":
        return None

    previous_index = _last_compaction_index(branch)
    previous_summary: str | None = None
    boundary_start = 0
    if previous_index >= 0:
        previous = branch[previous_index]
        previous_summary = previous.summary
        # Re-summarize what the previous compaction kept verbatim, together with everything newer.
        boundary_start = next(
            (i for i, entry in enumerate(branch) if entry.id == previous.first_kept_entry_id),
            previous_index + 1,
        )
    boundary_end = len(branch)

    cut = find_cut_point(branch, boundary_start, boundary_end, settings.keep_recent_tokens)
    first_kept = branch[cut.first_kept_index] if cut.first_kept_index < len(branch) else None
    if first_kept is None or not getattr(first_kept, "id", None):
        return None

    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    to_summarize = _messages(branch, boundary_start, history_end)
    turn_prefix = _messages(branch, cut.turn_start_index, cut.first_kept_index) if cut.is_split_turn else []

    file_ops = FileOperations()
    if previous_index >= 0 and not getattr(branch[previous_index], "from_hook", None):
        file_ops.add_from_details(getattr(branch[previous_index], "details", None))
    for message in to_summarize:
        file_ops.add_from_message(message)
    for message in turn_prefix:
        file_ops.add_from_message(message)

    return CompactionPreparation(
        first_kept_entry_id=first_kept.id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=estimate_context_tokens(branch_context_messages(branch)).tokens,
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
    )
