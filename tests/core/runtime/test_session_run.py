"""runtime/session_run.py: a session's run from claim to settle — auto-retry inside one run, the
``agent_end.willRetry`` flag, ``agent_settled`` once the session is idle, and aborts."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pi_core.testing.faux import text_message

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness

OVERLOADED = "529 overloaded_error: try again"


async def test_one_run_retries_inside_itself_and_settles_once_idle(harness: Harness) -> None:
    harness.provider.responses += [
        text_message("", stop_reason="error", error_message=OVERLOADED),
        text_message("fine now"),
    ]
    session = harness.build()
    idle_when_settled: list[bool] = []
    session.subscribe(
        lambda e: idle_when_settled.append(session.is_idle) if e.type == "agent_settled" else None
    )
    await session.prompt("hello")
    ends = [e for e in harness.events if e.type == "agent_end"]
    assert [e.will_retry for e in ends] == [True, False]
    settled = [e for e in harness.events if e.type == "agent_settled"]
    assert len(settled) == 1 and settled[0].aborted is False
    assert idle_when_settled == [True]  # a client may send the next prompt at once
    assert harness.types()[-1] == "agent_settled"


async def test_no_retry_is_announced_when_none_is_left(harness: Harness) -> None:
    harness.settings.set("retry.maxRetries", 1)
    harness.provider.responses += [
        text_message("", stop_reason="error", error_message=OVERLOADED),
        text_message("", stop_reason="error", error_message=OVERLOADED),
    ]
    session = harness.build()
    await session.prompt("hello")
    assert [e.will_retry for e in harness.events if e.type == "agent_end"] == [True, False]
    assert len(harness.provider.requests) == 2


async def test_an_aborted_run_settles_as_aborted_and_plugins_hear_it(harness: Harness) -> None:
    heard: list[bool] = []

    class Listener:
        @hookimpl
        def agent_settled(self, event: Any) -> None:
            heard.append(event.aborted)

    harness.provider.delay = 0.02
    harness.provider.responses.append(text_message("a long answer that will not finish"))
    session = harness.build(plugins=[Listener()])
    run = asyncio.create_task(session.prompt("go"))
    await asyncio.sleep(0.05)
    await session.abort()
    await run
    await session.wait_for_idle()
    settled = [e for e in harness.events if e.type == "agent_settled"]
    assert [e.aborted for e in settled] == [True]
    for _ in range(20):  # the hook is fired, not awaited
        if heard:
            break
        await asyncio.sleep(0.01)
    assert heard == [True]
    # the next run starts clean
    harness.provider.delay = 0
    harness.provider.responses.append(text_message("again"))
    await session.prompt("once more")
    assert [e.aborted for e in harness.events if e.type == "agent_settled"] == [True, False]
