"""A small in-memory session and a fake strategy for the orchestration tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionSettings,
    CompleteFn,
    SummaryRequest,
)
from pi_core.session.manager import SessionManager


def assistant(
    text: str, *, calls: list[tuple[str, dict[str, Any]]] | None = None, total: int = 0
) -> AssistantMessage:
    content: list[Any] = [TextContent(text=text)] if text else []
    content += [ToolCall(id=f"c{i}", name=name, arguments=args) for i, (name, args) in enumerate(calls or [])]
    return AssistantMessage(
        content=content,
        api="anthropic-messages",
        provider="anthropic",
        model="m",
        usage=Usage(total_tokens=total),
    )


def reply(text: str = "", stop_reason: str = "stop", error: str | None = None) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)] if text else [],
        api="anthropic-messages",
        provider="anthropic",
        model="m",
        stop_reason=stop_reason,  # type: ignore[arg-type]
        error_message=error,
    )


@pytest.fixture
def session() -> SessionManager:
    """U1 A1(read a.py) R1 U2 A2 U3 A3 — about 100 estimated tokens per user/assistant text."""
    sm = SessionManager.in_memory("/tmp")
    sm.append_model_change("anthropic", "m")
    sm.append_message(UserMessage(content="u" * 400))
    sm.append_message(assistant("", calls=[("read", {"path": "a.py"})]))
    sm.append_message(
        ToolResultMessage(tool_call_id="c0", tool_name="read", content=[TextContent(text="r" * 400)])
    )
    sm.append_message(UserMessage(content="v" * 400))
    sm.append_message(assistant("w" * 400, total=900))
    sm.append_message(UserMessage(content="x" * 400))
    sm.append_message(assistant("y" * 400, total=1200))
    return sm


@dataclass
class FakeStrategy:
    """Keeps from the second-to-last entry; ``compact`` returns whatever ``produce`` makes."""

    produce: Callable[[CompactionPreparation], Any] | None = None
    prepare_error: Exception | None = None
    calls: list[str] = field(default_factory=list)

    def prepare(self, branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
        self.calls.append("prepare")
        if self.prepare_error is not None:
            raise self.prepare_error
        if not branch or branch[-1].type == "compaction":
            return None
        return CompactionPreparation(first_kept_entry_id=branch[-2].id, tokens_before=1234, settings=settings)

    async def compact(
        self,
        preparation: CompactionPreparation,
        *,
        complete: CompleteFn,
        signal: AbortSignal,
        custom_instructions: str | None,
    ) -> CompactionResult:
        self.calls.append("compact")
        if self.produce is not None:
            produced: CompactionResult = self.produce(preparation)
            return produced
        response = await complete(
            SummaryRequest(system_prompt="s", messages=[UserMessage(content="sum")], max_tokens=10), signal
        )
        if response.stop_reason == "error":
            raise RuntimeError(f"Summarization failed: {response.error_message}")
        return CompactionResult(
            summary="".join(b.text for b in response.content if isinstance(b, TextContent)),
            first_kept_entry_id=preparation.first_kept_entry_id,
            tokens_before=preparation.tokens_before,
            details={"custom": custom_instructions},
        )


@pytest.fixture
def strategy() -> FakeStrategy:
    return FakeStrategy()


@dataclass
class Model:
    answers: list[AssistantMessage] = field(default_factory=list)
    requests: list[SummaryRequest] = field(default_factory=list)
    on_call: Callable[[], None] | None = None

    async def __call__(self, request: SummaryRequest, signal: AbortSignal) -> AssistantMessage:
        self.requests.append(request)
        if self.on_call is not None:
            self.on_call()
        return self.answers.pop(0)


@pytest.fixture
def model() -> Model:
    return Model(answers=[reply("SUMMARY")])


@pytest.fixture
def answer() -> Callable[..., AssistantMessage]:
    """``answer(text, stop_reason, error)``: a final assistant message of the summarizing model."""
    return reply
