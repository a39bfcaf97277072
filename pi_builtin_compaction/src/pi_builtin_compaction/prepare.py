"""pi's ``prepareCompaction``: boundaries, cut point, what to summarize, file operations (spec §5).

One pass over the summarized range collects the messages and their file operations; the context
size (``tokensBefore``) is estimated walking back only to the newest response with usage. That
keeps a 100k-entry preparation well inside its budget (bench/bench_compaction.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    ToolResultMessage,
    UserMessage,
)
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionSettings,
    FileOperations,
    estimate_branch_context_tokens,
    last_compaction_index,
    message_for_compaction,
)
from pi_core.runtime.compaction.entry_messages import index_on_branch
from pi_core.session.entries import MessageEntry

from .cut_point import find_cut_point

#: Message classes that are never an assistant message (their ``role`` is fixed).
_NOT_ASSISTANT = frozenset({UserMessage, ToolResultMessage, BashExecutionMessage, CustomMessage})


def _collect(branch: Sequence[Any], start: int, end: int, file_ops: FileOperations) -> list[AgentMessage]:
    """The compaction messages of ``branch[start:end]``, recording file operations on the way.

    Runs over up to the whole branch, so pi's own entry and message classes are recognized by
    class: that spares reading ``type`` and ``role`` from each object's dictionary."""
    messages: list[AgentMessage] = []
    append = messages.append
    track = file_ops.add_from_message
    for entry in branch[start:end]:
        if type(entry) is MessageEntry or entry.type == "message":
            message = entry.message
            append(message)
            kind = type(message)
            if kind is AssistantMessage or (kind not in _NOT_ASSISTANT and message.role == "assistant"):
                track(message)
            elif kind is ToolResultMessage and message.nested_calls is not None:
                track(message)  # the calls its tool made itself (ctx.execute_tool)
        else:
            # custom_message / branch_summary become user-like messages; they carry no tool calls.
            synthesized = message_for_compaction(entry)
            if synthesized is not None:
                append(synthesized)
    return messages


def prepare_compaction(branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
    """Plan a compaction of ``branch`` (root first). None: nothing new since the last compaction,
    or the first kept entry has no id (an unmigrated session)."""
    if branch and branch[-1].type == "compaction":
        return None

    previous_index = last_compaction_index(branch)
    previous_summary: str | None = None
    boundary_start = 0
    file_ops = FileOperations()
    if previous_index >= 0:
        previous = branch[previous_index]
        previous_summary = previous.summary
        # Re-summarize what the previous compaction kept verbatim, together with everything newer.
        kept_at = index_on_branch(branch, previous.first_kept_entry_id, previous_index)
        boundary_start = kept_at if kept_at is not None else previous_index + 1
        if not getattr(previous, "from_hook", None):
            file_ops.add_from_details(getattr(previous, "details", None))
    boundary_end = len(branch)

    cut = find_cut_point(branch, boundary_start, boundary_end, settings.keep_recent_tokens)
    first_kept = branch[cut.first_kept_index] if cut.first_kept_index < len(branch) else None
    if first_kept is None or not getattr(first_kept, "id", None):
        return None

    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_index
    to_summarize = _collect(branch, boundary_start, history_end, file_ops)
    turn_prefix = (
        _collect(branch, cut.turn_start_index, cut.first_kept_index, file_ops) if cut.is_split_turn else []
    )
    return CompactionPreparation.from_branch(
        first_kept_entry_id=first_kept.id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=estimate_branch_context_tokens(branch, previous_index),
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
    )
