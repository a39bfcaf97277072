"""The automatic compaction check (spec §4.2) and the usage figure after a compaction (§3.5)."""

from __future__ import annotations

from typing import Any

from pi_core.ai.messages import AssistantMessage, TextContent, Usage, UserMessage
from pi_core.runtime.compaction import (
    OVERFLOW_RECOVERY_FAILED,
    CompactionSettings,
    check_compaction,
    context_usage_tokens,
)
from pi_core.session.manager import SessionManager


def answer(stop: str = "stop", total: int = 0, error: str | None = None, **usage: int) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text="a" * 40)],
        api="anthropic-messages",
        provider="anthropic",
        model="claude",
        stop_reason=stop,  # type: ignore[arg-type]
        error_message=error,
        usage=Usage(total_tokens=total, **usage),
    )


def check(message: AssistantMessage, branch: list[Any] | None = None, **kwargs: Any) -> str:
    kwargs.setdefault("settings", CompactionSettings())
    kwargs.setdefault("model_provider", "anthropic")
    kwargs.setdefault("model_id", "claude")
    kwargs.setdefault("context_window", 200000)
    kwargs.setdefault("agent_messages", [message])
    kwargs.setdefault("overflow_attempted", False)
    return check_compaction(message, branch=branch or [], **kwargs).action


def test_threshold_from_usage() -> None:
    assert check(answer(total=200000 - 16384 + 1)) == "threshold"
    assert check(answer(total=200000 - 16384)) == "none"
    assert check(answer(total=10**6), settings=CompactionSettings(enabled=False)) == "none"


def test_aborted_answers_count_only_before_a_prompt() -> None:
    big = answer("aborted", total=10**6)
    assert check(big) == "none"
    assert check(big, skip_aborted=False) == "threshold"


def test_overflow_needs_the_same_model_and_one_attempt() -> None:
    failed = answer("error", error="prompt is too long: 213462 tokens > 200000 maximum")
    assert check(failed) == "overflow"
    assert check(failed, overflow_attempted=True) == "overflow_exhausted"
    assert check(failed, model_id="other") == "none"  # no usage anywhere: nothing to estimate
    assert "one compact-and-retry attempt" in OVERFLOW_RECOVERY_FAILED


def test_error_answers_estimate_from_the_last_valid_usage() -> None:
    failed = answer("error", error="overloaded")
    earlier = answer(total=190000)
    messages = [earlier, UserMessage(content="x" * 40000), failed]
    assert check(failed, agent_messages=messages) == "threshold"  # 190000 + 10000 estimated
    assert check(failed, agent_messages=[failed]) == "none"


def test_messages_from_before_the_latest_compaction_never_trigger() -> None:
    sm = SessionManager.in_memory("/tmp")
    first = sm.append_message(UserMessage(content="hi"))
    stale = answer(total=10**6)
    sm.append_message(stale)
    sm.append_compaction("summary", first, 10**6)
    assert check(stale, branch=sm.get_branch()) == "none"

    # An error answer after the compaction whose usage source is a kept, pre-compaction answer.
    failed = answer("error", error="overloaded")
    failed.timestamp = stale.timestamp + 10**6
    assert check(failed, branch=sm.get_branch(), agent_messages=[stale, failed]) == "none"


def test_usage_is_unknown_after_a_compaction_until_a_new_answer() -> None:
    sm = SessionManager.in_memory("/tmp")
    first = sm.append_message(UserMessage(content="hi"))
    sm.append_message(answer(total=5000))
    assert context_usage_tokens(sm.get_branch(), sm.build_session_context().messages) == 5000
    sm.append_compaction("summary", first, 5000)
    assert context_usage_tokens(sm.get_branch(), sm.build_session_context().messages) is None
    sm.append_message(UserMessage(content="next"))
    sm.append_message(answer(total=900))
    assert context_usage_tokens(sm.get_branch(), sm.build_session_context().messages) == 900
