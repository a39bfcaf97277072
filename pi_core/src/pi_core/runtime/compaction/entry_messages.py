"""Which message a session entry contributes to a summary (spec §5.1 and §8.4).

Compaction leaves earlier ``compaction`` entries out (their text arrives as the previous
summary); branch summarization keeps them and skips tool results instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Any

from pi_core.ai.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolResultMessage,
)
from pi_core.session.context import build_session_context, iso_to_ms
from pi_core.session.entries import (
    BranchSummaryEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)

from .tokens import calculate_context_tokens, estimate_tokens, valid_usage


def _synthesized(entry: Any) -> AgentMessage | None:
    kind = entry.type
    if kind == "custom_message":
        return CustomMessage(
            custom_type=entry.custom_type,
            content=entry.content,
            display=entry.display,
            details=getattr(entry, "details", None),
            timestamp=iso_to_ms(entry.timestamp),
        )
    if kind == "branch_summary":
        return BranchSummaryMessage(
            summary=entry.summary, from_id=entry.from_id, timestamp=iso_to_ms(entry.timestamp)
        )
    if kind == "compaction":
        return CompactionSummaryMessage(
            summary=entry.summary,
            tokens_before=int(entry.tokens_before),
            timestamp=iso_to_ms(entry.timestamp),
        )
    return None


def message_for_compaction(entry: Any) -> AgentMessage | None:
    """``message`` -> its message; ``custom_message``/``branch_summary`` -> synthesized; else None."""
    kind = entry.type
    if kind == "message":
        message: AgentMessage = entry.message
        return message
    if kind == "compaction":
        return None
    return _synthesized(entry)


def message_for_branch_summary(entry: Any) -> AgentMessage | None:
    """As for compaction, but tool results are skipped and compactions become summary messages."""
    if entry.type == "message":
        message: AgentMessage = entry.message
        return None if isinstance(message, ToolResultMessage) else message
    return _synthesized(entry)


def branch_context_messages(branch: Sequence[Any]) -> list[AgentMessage]:
    """The messages of the session context with the branch's last entry as leaf."""
    return build_session_context(branch).messages


def _context_message(entry: Any) -> AgentMessage | None:
    # What building the session context emits for an entry (sessions.md §11.1 step 5).
    kind = entry.type
    if kind == "message":
        message: AgentMessage = entry.message
        return message
    if kind == "custom_message" or (kind == "branch_summary" and entry.summary):
        return _synthesized(entry)
    return None


#: How many of the newest entries are asked for their type one by one.
_RECENT = 256
#: Entry classes whose ``type`` is fixed and is not ``compaction``.
_NEVER_COMPACTION = frozenset(
    {
        MessageEntry,
        ModelChangeEntry,
        ThinkingLevelChangeEntry,
        BranchSummaryEntry,
        CustomEntry,
        CustomMessageEntry,
        LabelEntry,
        SessionInfoEntry,
    }
)


def last_compaction_index(branch: Sequence[Any]) -> int:
    """Index of the last ``compaction`` entry on the branch, or -1."""
    end = len(branch)
    recent = max(end - _RECENT, 0)
    for i in range(end - 1, recent - 1, -1):  # usually it is recent, if there is one at all
        if branch[i].type == "compaction":
            return i
    # Further back, a branch without compaction is answered from the entries' classes (a pass in
    # C) instead of reading ``type`` from each of, say, 100k entries scattered in memory.
    if set(map(type, islice(branch, recent))) <= _NEVER_COMPACTION:
        return -1
    for i in range(recent - 1, -1, -1):
        if branch[i].type == "compaction":
            return i
    return -1


def index_on_branch(branch: Sequence[Any], entry_id: str, before: int) -> int | None:
    """Index of the entry ``entry_id`` in ``branch[:before]``, or None.

    Searched backwards from ``before``: the entries a compaction keeps lie just before it. (The ids
    on a branch are unique: it is a path in a tree.)
    """
    for i in range(before - 1, -1, -1):
        if branch[i].id == entry_id:
            return i
    return None


def estimate_branch_context_tokens(branch: Sequence[Any], compaction_index: int | None = None) -> int:
    """``estimate_context_tokens(branch_context_messages(branch)).tokens``, walking back only as far
    as the newest response with valid usage instead of building the whole context.

    This is pi's ``tokensBefore``. Pass ``compaction_index`` (from :func:`last_compaction_index`)
    when it is known, to spare the scan.
    """
    last = len(branch) - 1
    if compaction_index is None:
        compaction_index = last_compaction_index(branch)
    spans = [range(last, compaction_index, -1)]
    compaction = branch[compaction_index] if compaction_index >= 0 else None
    if compaction is not None:
        first_kept = index_on_branch(branch, compaction.first_kept_entry_id, compaction_index)
        if first_kept is not None:
            spans.append(range(compaction_index - 1, first_kept - 1, -1))
    trailing = 0
    for span in spans:
        for i in span:
            message = _context_message(branch[i])
            if message is None:
                continue
            usage = valid_usage(message)
            if usage is not None:
                return calculate_context_tokens(usage) + trailing
            trailing += estimate_tokens(message)
    if compaction is not None:
        trailing += estimate_tokens(
            CompactionSummaryMessage(summary=compaction.summary, tokens_before=0, timestamp=0)
        )
    return trailing
