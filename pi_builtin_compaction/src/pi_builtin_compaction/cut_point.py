"""Where to cut a branch: keep roughly ``keepRecentTokens`` of the newest messages (spec §5.5-5.6).

Works on the branch as a list of entries (root first) and on index ranges of it, so the
preparation of a 100k-entry session only walks back as far as the keep budget reaches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_core.runtime.compaction import estimate_tokens

#: Message roles a cut may land on. Never ``toolResult``: it must stay after its tool call.
_CUTTABLE_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
#: Entry types that act as user input: a cut may land on them and they start a turn.
_USER_LIKE_ENTRIES = frozenset({"branch_summary", "custom_message"})


@dataclass(frozen=True)
class CutPoint:
    """``first_kept_index``: first entry kept verbatim. A split turn also summarizes
    ``[turn_start_index, first_kept_index)`` separately as the turn prefix."""

    first_kept_index: int
    turn_start_index: int
    is_split_turn: bool


def is_valid_cut_point(entry: Any) -> bool:
    """A message of any role but ``toolResult``, a ``branch_summary`` or a ``custom_message``."""
    if entry.type == "message":
        return entry.message.role in _CUTTABLE_ROLES
    return entry.type in _USER_LIKE_ENTRIES


def find_turn_start_index(entries: Sequence[Any], index: int, start: int) -> int:
    """Index of the user input that began the turn holding ``entries[index]`` (back to ``start``), or -1."""
    for i in range(index, start - 1, -1):
        entry = entries[i]
        if entry.type in _USER_LIKE_ENTRIES:
            return i
        if entry.type == "message" and entry.message.role in ("user", "bashExecution"):
            return i
    return -1


def _first_cut_point_at_or_after(entries: Sequence[Any], index: int, end: int) -> int | None:
    for i in range(index, end):
        if is_valid_cut_point(entries[i]):
            return i
    return None


def find_cut_point(entries: Sequence[Any], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """pi's ``findCutPoint`` over ``entries[start:end]``."""
    cut = _first_cut_point_at_or_after(entries, start, end)
    if cut is None:
        return CutPoint(start, -1, False)

    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if entry.type != "message":
            continue
        accumulated += estimate_tokens(entry.message)
        if accumulated >= keep_recent_tokens:
            later = _first_cut_point_at_or_after(entries, i, end)
            if later is not None:
                cut = later
            break

    # Settings changes, labels, custom entries etc. right before the cut stay with the kept part.
    while cut > start:
        previous = entries[cut - 1]
        if previous.type in ("compaction", "message"):
            break
        cut -= 1

    cut_entry = entries[cut]
    if cut_entry.type == "message" and cut_entry.message.role == "user":
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(entries, cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)
