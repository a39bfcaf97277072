"""The result text of ls, find and grep: lines cut to pi's byte limit, then pi's bracketed notices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_core.agent.tools import AgentToolResult
from pi_core.agent.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head
from pi_core.ai.messages import TextContent

#: No line limit: these tools cap by their own item count, and by bytes here.
_NO_LIMIT = 2**53 - 1


@dataclass(frozen=True)
class Notice:
    """One ``[...]`` remark and the ``details`` entry that goes with it."""

    text: str
    key: str
    value: Any


def listing_result(
    lines: Sequence[str], before: Notice | None = None, after: Notice | None = None
) -> AgentToolResult:
    """``lines`` joined and cut to ``DEFAULT_MAX_BYTES`` (head kept), with the notices in pi's order:
    ``before`` (the tool's item limit), the byte limit, ``after``."""
    truncation = truncate_head("\n".join(lines), max_lines=_NO_LIMIT)
    byte_limit = None
    if truncation.truncated:
        byte_limit = Notice(
            f"{format_size(DEFAULT_MAX_BYTES)} limit reached", "truncation", truncation.to_details()
        )
    notices = [notice for notice in (before, byte_limit, after) if notice is not None]
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notice.text for notice in notices)}]"
    details = {notice.key: notice.value for notice in notices}
    return AgentToolResult(content=[TextContent(text=text)], details=details or None)
