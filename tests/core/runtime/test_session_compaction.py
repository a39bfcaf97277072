"""runtime/session_compaction.py: a session's manual compaction with pi 1.6.0's summary retry and
its events, the summed usage it records in the file, and a session without a strategy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AssistantMessage, Usage, UserMessage, text_of
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionStrategyRegistry,
    SummaryRequest,
)
from pi_core.runtime.session_compaction import NO_COMPACTION_PLUGIN
from pi_core.testing.faux import text_message

if TYPE_CHECKING:
    from conftest import Harness


class OneSummary:
    """Keep everything from the last user message on; summarize with one request."""

    def prepare(self, branch: Any, settings: Any) -> CompactionPreparation | None:
        users = [e for e in branch if e.type == "message" and e.message.role == "user"]
        return CompactionPreparation(first_kept_entry_id=users[-1].id, tokens_before=1234) if users else None

    async def compact(
        self, preparation: Any, *, complete: Any, signal: AbortSignal, custom_instructions: str | None
    ) -> CompactionResult:
        request = SummaryRequest(
            system_prompt="Summarize.", messages=[UserMessage(content="the chat")], max_tokens=64
        )
        response: AssistantMessage = await complete(request, signal)
        return CompactionResult(
            summary=text_of(response.content),
            first_kept_entry_id=preparation.first_kept_entry_id,
            tokens_before=preparation.tokens_before,
        )


def _lines(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _use(session: Any, strategy: Any) -> None:
    registry = CompactionStrategyRegistry()
    registry.register("default", strategy, owner="tests")
    session.services.compaction = registry


async def test_a_transient_summary_failure_is_retried_with_pi_s_events(harness: Harness) -> None:
    harness.provider.responses += [
        text_message("first answer"),
        text_message(
            "", stop_reason="error", error_message="529 overloaded_error", usage=Usage(input=7, output=0)
        ),
        text_message("SUMMARY", usage=Usage(input=30, output=5)),
    ]
    session = harness.build()
    _use(session, OneSummary())
    await session.prompt("question")
    result = await session.compact()
    assert result["summary"] == "SUMMARY" and result["tokensBefore"] == 1234
    assert list(result)[:3] == ["summary", "firstKeptEntryId", "tokensBefore"]
    kinds = [e.type for e in harness.events if e.type.startswith(("summarization", "compaction"))]
    assert kinds == [
        "compaction_start",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "compaction_end",
    ]
    scheduled = next(e for e in harness.events if e.type == "summarization_retry_scheduled")
    assert (scheduled.attempt, scheduled.error_message) == (1, "529 overloaded_error")
    started = next(e for e in harness.events if e.type == "summarization_retry_attempt_start")
    assert (started.source, started.reason) == ("compaction", "manual")
    lines = _lines(session.session_file)
    compaction = next(line for line in lines if line["type"] == "compaction")
    assert (compaction["usage"]["input"], compaction["usage"]["output"]) == (37, 5)  # both requests
    roles = [m.role for m in session.messages]
    assert roles[:3] == ["system", "compactionSummary", "user"]  # the replayed prompt, then the summary


async def test_without_a_strategy_compaction_is_refused_and_a_needed_one_reported_once(
    harness: Harness,
) -> None:
    session = harness.build()
    errors: list[Any] = []
    await session.bind_mode(on_error=errors.append)
    with pytest.raises(RuntimeError, match="No compaction strategy is installed"):
        await session.compact()
    overflowed = text_message(
        "", stop_reason="error", error_message="prompt is too long: 200000 tokens > 100000"
    )
    session.agent.state.messages = [UserMessage(content="q"), overflowed]
    for _ in range(2):
        assert await session._compaction.check(overflowed, skip_aborted=True) is False
    assert [(e.event, e.error) for e in errors] == [("compaction", NO_COMPACTION_PLUGIN)]


async def test_context_usage_reads_the_model_window(harness: Harness) -> None:
    harness.provider.responses.append(text_message("answer", usage=Usage(input=2000, output=500)))
    session = harness.build()
    await session.prompt("question")
    usage = session._compaction.get_context_usage()
    assert usage is not None and usage.context_window == 100_000
    assert usage.tokens is not None and usage.percent == pytest.approx(usage.tokens / 1000)
    model = session.model
    assert model is not None
    session.agent.state.model = model.model_copy(update={"context_window": 0})  # a window nobody knows
    assert session._compaction.get_context_usage() is None
