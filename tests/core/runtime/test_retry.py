from __future__ import annotations

import asyncio

import pytest
from pi_core.ai.messages import AssistantMessage
from pi_core.runtime.events import AutoRetryEndEvent, AutoRetryStartEvent
from pi_core.runtime.retry import AutoRetry, RetrySettings, is_retryable_error, retry_delay_ms


def _error(text: str | None, stop_reason: str = "error") -> AssistantMessage:
    return AssistantMessage.model_validate(
        {"api": "openai-completions", "provider": "p", "model": "m", "stopReason": stop_reason,
         "errorMessage": text}
    )  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["529 Overloaded", "Rate limit reached", "429 status code", "503 Service Unavailable", "fetch failed",
     "Connection error.", "Request timed out.", "socket hang up", "stream ended without finish",
     "WebSocket closed", "Internal server error", "upstream connect error", "provider returned error",
     "Anthropic stream ended before message_stop (connection closed mid-response)", "read ECONNRESET",
     "Connection lost mid-stream: peer closed connection", "502 Bad gateway", "520 unknown"],
)  # fmt: skip
def test_is_retryable_error_matches_pi_patterns(text: str) -> None:
    assert is_retryable_error(_error(text), is_overflow=False)


@pytest.mark.parametrize(
    "text",
    ["Invalid API key", "400 Bad request: unknown field", None, "400 bad input (request req_5029xyz)",
     "429 You exceeded your current quota (insufficient_quota)"],
)  # fmt: skip
def test_is_retryable_error_rejects_permanent_errors(text: str | None) -> None:
    assert not is_retryable_error(_error(text), is_overflow=False)


def test_is_retryable_error_leaves_overflow_and_non_errors_alone() -> None:
    assert not is_retryable_error(_error("500 prompt is too long"), is_overflow=True)
    assert not is_retryable_error(_error("503", stop_reason="aborted"), is_overflow=False)


def test_retry_delay_doubles() -> None:
    assert [retry_delay_ms(2000, n) for n in (1, 2, 3)] == [2000, 4000, 8000]
    assert [retry_delay_ms(2000, n, 5000) for n in (1, 2, 3)] == [2000, 4000, 5000]


async def test_auto_retry_backs_off_then_reports_success() -> None:
    events: list[object] = []
    retry = AutoRetry(events.append)
    dropped: list[bool] = []
    settings = RetrySettings(base_delay_ms=1)
    assert await retry.handle_error(_error("503"), settings, lambda: dropped.append(True))
    assert retry.in_flight and dropped == [True]
    assert events == [AutoRetryStartEvent(attempt=1, max_attempts=3, delay_ms=1, error_message="503")]
    await retry.note_reply(_error(None, stop_reason="stop"))
    assert events[-1] == AutoRetryEndEvent(success=True, attempt=1)
    assert retry.attempt == 0


async def test_auto_retry_gives_up_after_max_retries() -> None:
    events: list[object] = []
    retry = AutoRetry(events.append)
    settings = RetrySettings(max_retries=2, base_delay_ms=1)
    assert await retry.handle_error(_error("503"), settings, lambda: None)
    assert await retry.handle_error(_error("503"), settings, lambda: None)
    assert not await retry.handle_error(_error("503 again"), settings, lambda: None)
    assert events[-1] == AutoRetryEndEvent(success=False, attempt=2, final_error="503 again")
    assert not retry.in_flight and retry.attempt == 0


async def test_auto_retry_cancel_during_backoff() -> None:
    events: list[object] = []
    retry = AutoRetry(events.append)
    task = asyncio.create_task(
        retry.handle_error(_error("503"), RetrySettings(base_delay_ms=60_000), lambda: None)
    )
    await asyncio.sleep(0.01)
    waiter = asyncio.create_task(retry.wait())
    retry.cancel()
    assert await asyncio.wait_for(task, 1) is False
    await asyncio.wait_for(waiter, 1)
    assert events[-1] == AutoRetryEndEvent(success=False, attempt=1, final_error="Retry cancelled")


async def test_auto_retry_disabled_settles_without_events() -> None:
    events: list[object] = []
    retry = AutoRetry(events.append)
    retry.arm()
    assert not await retry.handle_error(_error("503"), RetrySettings(enabled=False), lambda: None)
    assert events == [] and not retry.in_flight
