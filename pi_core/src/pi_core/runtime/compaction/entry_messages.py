"""Which message a session entry contributes to a summary (spec §5.1 and §8.4).

Compaction leaves earlier ``compaction`` entries out (their text arrives as the previous
summary); branch summarization keeps them and skips tool results instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_core.ai.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolResultMessage,
)
from pi_core.session.context import build_session_context, iso_to_ms


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
