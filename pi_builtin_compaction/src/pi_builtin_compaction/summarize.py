"""pi's ``compact``: the history summary, the turn-prefix summary of a split turn, file lists (spec §6)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any

from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AgentMessage, AssistantMessage, TextContent, UserMessage
from pi_core.runtime.compaction import (
    CompactionError,
    CompactionPreparation,
    CompactionResult,
    CompleteFn,
    SummaryRequest,
    format_file_operations,
    serialize_conversation_into,
)

from .prompts import (
    ADDITIONAL_FOCUS,
    NO_PRIOR_HISTORY,
    SPLIT_TURN_SEPARATOR,
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_CONVERSATION_HEADING,
    TURN_PREFIX_INSTRUCTIONS_HEADING,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)


def conversation_block(messages: Sequence[AgentMessage], *after: str) -> str:
    """``<conversation>`` + the serialized messages (after the usual LLM conversion) + ``after``,
    joined once: the conversation of a big session is tens of megabytes."""
    parts = ["<conversation>\n"]
    serialize_conversation_into(parts, messages, convert=True)
    parts.append("\n</conversation>\n\n")
    parts.extend(after)
    return "".join(parts)


def summary_request(prompt_text: str, max_tokens: int, *, use_reasoning: bool = True) -> SummaryRequest:
    """One user message with one text block, under the summarization system prompt."""
    return SummaryRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        messages=[UserMessage(content=[TextContent(text=prompt_text)])],
        max_tokens=max_tokens,
        use_reasoning=use_reasoning,
    )


def history_request(
    messages: Sequence[AgentMessage],
    reserve_tokens: int,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
) -> SummaryRequest:
    """The request of ``generateSummary``: the update prompt when a previous summary exists."""
    prompt = UPDATE_SUMMARIZATION_PROMPT if previous_summary else SUMMARIZATION_PROMPT
    if custom_instructions:
        prompt = f"{prompt}{ADDITIONAL_FOCUS}{custom_instructions}"
    previous = f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n" if previous_summary else ""
    return summary_request(conversation_block(messages, previous, prompt), int(0.8 * reserve_tokens))


def turn_prefix_request(
    messages: Sequence[AgentMessage], reserve_tokens: int, custom_instructions: str | None = None
) -> SummaryRequest:
    """The request summarizing the beginning of a split turn; half the reserve as output budget.

    As in pi 1.6.0 the conversation sits under a ``# Conversation`` heading and the prompt under
    ``# Instructions``, and the user's focus (``/compact TEXT``) applies to this request too.
    """
    parts = [TURN_PREFIX_CONVERSATION_HEADING]
    serialize_conversation_into(parts, messages, convert=True)
    parts += [TURN_PREFIX_INSTRUCTIONS_HEADING, TURN_PREFIX_SUMMARIZATION_PROMPT]
    if custom_instructions:
        parts += [ADDITIONAL_FOCUS, custom_instructions]
    return summary_request("".join(parts), int(0.5 * reserve_tokens))


def response_text(response: AssistantMessage) -> str:
    """All text blocks of a response joined by newlines; thinking is discarded."""
    return "\n".join(block.text for block in response.content if isinstance(block, TextContent))


async def _run(request: SummaryRequest, complete: CompleteFn, signal: AbortSignal, failure: str) -> str:
    response = await complete(request, signal)
    if response.stop_reason == "error":
        raise CompactionError(f"{failure}: {response.error_message or 'Unknown error'}")
    return response_text(response)


async def generate_summary(
    messages: Sequence[AgentMessage],
    reserve_tokens: int,
    complete: CompleteFn,
    signal: AbortSignal,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
) -> str:
    """Summarize (or, with a previous summary, update the summary with) ``messages``."""
    request = history_request(messages, reserve_tokens, custom_instructions, previous_summary)
    return await _run(request, complete, signal, "Summarization failed")


async def generate_turn_prefix_summary(
    messages: Sequence[AgentMessage],
    reserve_tokens: int,
    complete: CompleteFn,
    signal: AbortSignal,
    custom_instructions: str | None = None,
) -> str:
    """Summarize the beginning of a turn whose end is kept verbatim."""
    request = turn_prefix_request(messages, reserve_tokens, custom_instructions)
    return await _run(request, complete, signal, "Turn prefix summarization failed")


async def _both(
    history: Coroutine[Any, Any, str] | None, prefix: Coroutine[Any, Any, str]
) -> tuple[str | None, str]:
    """Run the two summary requests concurrently; the first failure cancels the other and is raised."""
    try:
        async with asyncio.TaskGroup() as group:
            history_task = group.create_task(history) if history is not None else None
            prefix_task = group.create_task(prefix)
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0] from None
    return (history_task.result() if history_task is not None else None), prefix_task.result()


async def compact(
    preparation: CompactionPreparation,
    complete: CompleteFn,
    signal: AbortSignal,
    custom_instructions: str | None = None,
) -> CompactionResult:
    """Generate the summary for a preparation and assemble the stored text (spec §6.7)."""
    reserve = preparation.settings.reserve_tokens
    if preparation.is_split_turn and preparation.turn_prefix_messages:
        history, prefix = await _both(
            generate_summary(
                preparation.messages_to_summarize,
                reserve,
                complete,
                signal,
                custom_instructions,
                preparation.previous_summary,
            )
            if preparation.messages_to_summarize
            else None,
            generate_turn_prefix_summary(
                preparation.turn_prefix_messages, reserve, complete, signal, custom_instructions
            ),
        )
        summary = f"{history or NO_PRIOR_HISTORY}{SPLIT_TURN_SEPARATOR}{prefix}"
    else:
        summary = await generate_summary(
            preparation.messages_to_summarize,
            reserve,
            complete,
            signal,
            custom_instructions,
            preparation.previous_summary,
        )

    read_files, modified_files = preparation.file_ops.file_lists()
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )
