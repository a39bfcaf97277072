"""Events AgentSession adds on top of the agent loop's events (pi's ``AgentSessionEvent``).

Modes receive these and the loop's ``AgentEvent`` models through one subscription; JSON and RPC
modes write each one as a line. Field names and optional-field omission follow pi 1.6.0.
"""

from __future__ import annotations

from typing import Any, Literal

from pi_core._model import PiModel
from pi_core.errors import error_message

CompactionReason = Literal["manual", "threshold", "overflow"]


class QueueUpdateEvent(PiModel):
    """The full pending steering and follow-up texts, sent whenever either list changes."""

    type: Literal["queue_update"] = "queue_update"
    steering: list[str]
    follow_up: list[str]


class CompactionStartEvent(PiModel):
    type: Literal["compaction_start"] = "compaction_start"
    reason: CompactionReason


class CompactionEndEvent(PiModel):
    """``result`` is the compaction result object, absent when nothing was compacted."""

    type: Literal["compaction_end"] = "compaction_end"
    reason: CompactionReason
    result: dict[str, Any] | None = None
    aborted: bool
    will_retry: bool
    error_message: str | None = None


class AutoRetryStartEvent(PiModel):
    type: Literal["auto_retry_start"] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class AutoRetryEndEvent(PiModel):
    type: Literal["auto_retry_end"] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


class ThinkingLevelChangedEvent(PiModel):
    type: Literal["thinking_level_changed"] = "thinking_level_changed"
    level: str


class SessionInfoChangedEvent(PiModel):
    type: Literal["session_info_changed"] = "session_info_changed"
    name: str | None = None


class AgentSettledEvent(PiModel):
    """Nothing more follows on its own: retries, recovery, compaction and queued input are done.

    Sent after the last ``agent_end`` of a prompt, once the session is idle; ``aborted`` tells
    whether ``abort()`` ended it.
    """

    type: Literal["agent_settled"] = "agent_settled"
    aborted: bool


class EntryAppendedEvent(PiModel):
    """A plugin appended a session entry (``ctx.append_entry``); ``entry`` as written to the file."""

    type: Literal["entry_appended"] = "entry_appended"
    entry: dict[str, Any]


class SummarizationRetryScheduledEvent(PiModel):
    """A compaction or branch-summary request failed transiently; the next attempt waits ``delay_ms``."""

    type: Literal["summarization_retry_scheduled"] = "summarization_retry_scheduled"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class SummarizationRetryAttemptStartEvent(PiModel):
    """The retried summary request starts. ``source`` is ``compaction`` (with ``reason``) or
    ``branchSummary``."""

    type: Literal["summarization_retry_attempt_start"] = "summarization_retry_attempt_start"
    source: Literal["compaction", "branchSummary"]
    reason: CompactionReason | None = None


class SummarizationRetryFinishedEvent(PiModel):
    """The retries of one summary request are over (success, failure or abort)."""

    type: Literal["summarization_retry_finished"] = "summarization_retry_finished"


class ExtensionErrorEvent(PiModel):
    """A plugin handler raised; RPC mode forwards it, print mode writes it to stderr."""

    type: Literal["extension_error"] = "extension_error"
    extension_path: str
    event: str
    error: str


def error_text(error: BaseException) -> str:
    """An ``extension_error``'s ``error``: the message alone (the type's name when it is empty)."""
    return error_message(error)


SessionEvent = (
    QueueUpdateEvent
    | CompactionStartEvent
    | CompactionEndEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | ThinkingLevelChangedEvent
    | SessionInfoChangedEvent
    | AgentSettledEvent
    | EntryAppendedEvent
    | SummarizationRetryScheduledEvent
    | SummarizationRetryAttemptStartEvent
    | SummarizationRetryFinishedEvent
    | ExtensionErrorEvent
)
