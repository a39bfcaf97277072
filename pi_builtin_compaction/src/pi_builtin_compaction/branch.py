"""Branch summarization: what of an abandoned branch fits the budget, and the request (spec §8.4-8.6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AgentMessage
from pi_core.runtime.compaction import (
    BranchSummaryResult,
    BranchSummarySettings,
    CompactionError,
    CompleteFn,
    FileOperations,
    SummarizationAborted,
    SummaryRequest,
    estimate_tokens,
    format_file_operations,
    message_for_branch_summary,
)

from .prompts import ADDITIONAL_FOCUS, BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT
from .summarize import conversation_block, response_text, summary_request

#: Output budget of a branch summary (fixed in pi).
BRANCH_SUMMARY_MAX_TOKENS = 2048
#: Input budget when the model's context window is unknown.
FALLBACK_CONTEXT_WINDOW = 128000
NO_CONTENT = "No content to summarize"


@dataclass
class BranchEntries:
    """The messages selected for a branch summary (chronological) and the files they touched."""

    messages: list[AgentMessage] = field(default_factory=list)
    file_ops: FileOperations = field(default_factory=FileOperations)
    total_tokens: int = 0


def prepare_branch_entries(entries: Sequence[Any], token_budget: int = 0) -> BranchEntries:
    """Newest to oldest, take messages while they fit ``token_budget`` (0 = no limit).

    Earlier summaries are important context: one that does not fit is still taken while less than
    90% of the budget is used. File operations are collected from every entry, fitting or not.
    """
    selected = BranchEntries()
    for entry in entries:
        if entry.type == "branch_summary" and not getattr(entry, "from_hook", None):
            selected.file_ops.add_from_details(getattr(entry, "details", None))

    reversed_messages: list[AgentMessage] = []
    for entry in reversed(entries):
        message = message_for_branch_summary(entry)
        if message is None:
            if entry.type == "message" and entry.message.role == "toolResult":
                # Not summarized, but the files its tool touched itself count (pi 1.6.0 skips them).
                selected.file_ops.add_from_message(entry.message)
            continue
        selected.file_ops.add_from_message(message)
        tokens = estimate_tokens(message)
        if token_budget > 0 and selected.total_tokens + tokens > token_budget:
            if entry.type in ("compaction", "branch_summary") and selected.total_tokens < token_budget * 0.9:
                reversed_messages.append(message)
                selected.total_tokens += tokens
            break
        reversed_messages.append(message)
        selected.total_tokens += tokens
    selected.messages = reversed_messages[::-1]
    return selected


def branch_summary_request(
    messages: Sequence[AgentMessage],
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
) -> SummaryRequest:
    """Conversation + the branch prompt (or the user's own instructions instead / in addition)."""
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{BRANCH_SUMMARY_PROMPT}{ADDITIONAL_FOCUS}{custom_instructions}"
    else:
        instructions = BRANCH_SUMMARY_PROMPT
    return summary_request(
        conversation_block(messages, instructions), BRANCH_SUMMARY_MAX_TOKENS, use_reasoning=False
    )


async def generate_branch_summary(
    entries: Sequence[Any],
    *,
    settings: BranchSummarySettings,
    context_window: int,
    complete: CompleteFn,
    signal: AbortSignal,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
) -> BranchSummaryResult:
    """pi's ``generateBranchSummary``. Raises ``SummarizationAborted`` or ``CompactionError``."""
    budget = (context_window or FALLBACK_CONTEXT_WINDOW) - settings.reserve_tokens
    selected = prepare_branch_entries(entries, budget)
    if not selected.messages:
        return BranchSummaryResult(summary=NO_CONTENT, details={"readFiles": [], "modifiedFiles": []})

    request = branch_summary_request(selected.messages, custom_instructions, replace_instructions)
    response = await complete(request, signal)
    if response.stop_reason == "aborted":
        raise SummarizationAborted("Branch summarization was aborted")
    if response.stop_reason == "error":
        raise CompactionError(response.error_message or "Summarization failed")

    read_files, modified_files = selected.file_ops.file_lists()
    summary = (
        BRANCH_SUMMARY_PREAMBLE + response_text(response) + format_file_operations(read_files, modified_files)
    )
    return BranchSummaryResult(
        summary=summary or "No summary generated",
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )
