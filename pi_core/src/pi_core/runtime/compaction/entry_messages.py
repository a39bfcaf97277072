"""Which message a session entry contributes to a summary (spec §5.1 and §8.4).

Compaction leaves earlier ``compaction`` entries out (their text arrives as the previous
summary); branch summarization keeps them and skips tool results instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pi_core.ai.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolResultMessage,
)


def iso_to_ms(timestamp: str) -> int:
    """An entry's ISO-8601 timestamp as epoch milliseconds, as pi's ``new Date(ts).getTime()``."""
    moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    return round(moment.timestamp() * 1000)


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


def _context_message(entry: Any) -> AgentMessage | None:
    # What building the session context emits for an entry (sessions.md §11.1 step 5).
    if entry.type == "branch_summary" and not entry.summary:
        return None
    if entry.type == "compaction":
        return None
    return message_for_compaction(entry)


def branch_context_messages(branch: Sequence[Any]) -> list[AgentMessage]:
    """The messages the session context holds with the branch's last entry as leaf."""
    last = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].type == "compaction"), -1)
    if last < 0:
        kept = range(len(branch))
        messages: list[AgentMessage] = []
    else:
        compaction = branch[last]
        messages = [
            CompactionSummaryMessage(
                summary=compaction.summary,
                tokens_before=int(compaction.tokens_before),
                timestamp=iso_to_ms(compaction.timestamp),
            )
        ]
        first_kept = next(
            (i for i in range(last) if branch[i].id == compaction.first_kept_entry_id),
            last,
        )
        kept = range(first_kept, len(branch))
    for i in kept:
        message = _context_message(branch[i])
        if message is not None:
            messages.append(message)
    return messages
