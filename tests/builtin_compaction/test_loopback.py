"""The default strategy end to end through the real SDKs against the loopback LLM server:
what the summary requests carry on the wire, and a failing call leaving the session untouched."""

from __future__ import annotations

from typing import Any

import pytest
from pi_builtin_compaction.prompts import (
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
)
from pi_builtin_compaction.strategy import DefaultCompactionStrategy
from pi_core.ai import builtin_providers
from pi_core.ai.abort import AbortController
from pi_core.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from pi_core.runtime.compaction import CompactionSettings, model_completion, run_compaction
from pi_core.session.manager import SessionManager
from pi_core.testing import LOOPBACK_API_KEY, HttpError, LoopbackLLMServer, text_turn


@pytest.fixture(autouse=True)
def providers() -> None:
    builtin_providers.register_builtin_api_providers()


def session_with_a_long_turn() -> SessionManager:
    """U0 A0, then U1 asking for a refactor whose turn is larger than the keep budget."""
    sm = SessionManager.in_memory("/tmp")
    sm.append_message(UserMessage(content="Explain main.py"))
    sm.append_message(
        AssistantMessage(
            content=[TextContent(text="It parses flags.")], api="x", provider="anthropic", model="m"
        )
    )
    sm.append_message(UserMessage(content="Refactor b.py"))
    sm.append_message(
        AssistantMessage(
            content=[ToolCall(id="t1", name="read", arguments={"path": "b.py"})],
            api="x",
            provider="anthropic",
            model="m",
            stop_reason="toolUse",
        )
    )
    sm.append_message(
        ToolResultMessage(tool_call_id="t1", tool_name="read", content=[TextContent(text="b" * 8000)])
    )
    sm.append_message(
        AssistantMessage(
            content=[TextContent(text="Done: " + "d" * 400)],
            api="x",
            provider="anthropic",
            model="m",
            usage=Usage(total_tokens=3000),
        )
    )
    return sm


def request_text(body: dict[str, Any]) -> str:
    [message] = body["messages"]
    content = message["content"]
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "".join(block["text"] for block in system)
    return str(system)


async def test_split_turn_requests_on_the_wire(pi_llm_server: LoopbackLLMServer) -> None:
    sm = session_with_a_long_turn()
    model = pi_llm_server.model("anthropic-messages", reasoning=True)
    complete = model_completion(model, api_key=LOOPBACK_API_KEY, thinking_level="medium")
    pi_llm_server.add(text_turn("## Goal\nhistory"), text_turn("## Original Request\nrefactor"))

    outcome = await run_compaction(
        session=sm,
        strategy=DefaultCompactionStrategy(),
        settings=CompactionSettings(keep_recent_tokens=200),
        complete=complete,
        signal=AbortController().signal,
        reason="manual",
    )

    assert outcome.error is None, outcome.error
    # The two requests run concurrently and may arrive in either order.
    bodies = sorted(
        (r.body for r in pi_llm_server.requests),
        key=lambda body: request_text(body).startswith("# Conversation"),
    )
    history, prefix = bodies
    assert system_text(history).endswith(SUMMARIZATION_SYSTEM_PROMPT)
    assert request_text(history) == (
        "<conversation>\n[User]: Explain main.py\n\n[Assistant]: It parses flags.\n</conversation>\n\n"
        + SUMMARIZATION_PROMPT
    )
    assert request_text(prefix) == (
        '# Conversation\n[User]: Refactor b.py\n\n[Assistant tool calls]: read(path="b.py")\n\n'
        "[Tool result]: "
        + "b" * 2000
        + "\n\n[... 6000 more characters truncated]\n\n# Instructions\n"
        + TURN_PREFIX_SUMMARIZATION_PROMPT
    )
    # Reasoning models get the session's thinking level on both requests (budget on top of the
    # summary's output budget, capped by the model's max_tokens).
    assert history["thinking"]["type"] == "enabled" and prefix["thinking"]["type"] == "enabled"
    # The n-th request the server recorded got the n-th scripted answer.
    answers = ["## Goal\nhistory", "## Original Request\nrefactor"]
    if pi_llm_server.requests[0].body is prefix:
        answers.reverse()
    entry: Any = outcome.entry
    assert entry.summary == (
        f"{answers[0]}\n\n---\n\n**Turn Context (split turn):**\n\n{answers[1]}"
        "\n\n<read-files>\nb.py\n</read-files>"
    )


async def test_failing_provider_call_leaves_the_session_unchanged(pi_llm_server: LoopbackLLMServer) -> None:
    sm = session_with_a_long_turn()
    before = ([e.to_json_dict() for e in sm.get_entries()], sm.get_leaf_id())
    model = pi_llm_server.model("openai-completions")
    pi_llm_server.add(HttpError(400, "bad request from the model", "invalid_request_error"))

    outcome = await run_compaction(
        session=sm,
        strategy=DefaultCompactionStrategy(),
        settings=CompactionSettings(keep_recent_tokens=100000),
        complete=model_completion(model, api_key=LOOPBACK_API_KEY),
        signal=AbortController().signal,
        reason="threshold",
    )

    assert outcome.entry is None
    assert outcome.error is not None and outcome.error.startswith("Summarization failed: ")
    assert "bad request from the model" in outcome.error
    assert ([e.to_json_dict() for e in sm.get_entries()], sm.get_leaf_id()) == before
    # The next compaction still works.
    pi_llm_server.add(text_turn("fine now"))
    again = await run_compaction(
        session=sm,
        strategy=DefaultCompactionStrategy(),
        settings=CompactionSettings(keep_recent_tokens=100000),
        complete=model_completion(model, api_key=LOOPBACK_API_KEY),
        signal=AbortController().signal,
        reason="manual",
    )
    assert again.entry is not None and again.entry.summary.startswith("fine now")
