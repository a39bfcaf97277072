"""runtime/session_boundaries.py's ``agent_before_settle`` (``turn_end`` has
test_turn_end_boundary.py): a proposal checked whole, applied in order to the session file and
the context, one more run when asked, and nothing after an abort."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_core.plugins import events as ev
from pi_core.testing.faux import text_message

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness


def _lines(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


class Proposer:
    """Proposes ``entries`` (and ``continue``) at the first settle only."""

    def __init__(self, entries: list[ev.SettleEntry], continue_: bool) -> None:
        self.entries, self.continue_ = entries, continue_
        self.calls = 0

    @hookimpl
    def agent_before_settle(self, event: ev.AgentBeforeSettleEvent) -> ev.AgentBeforeSettleResult | None:
        self.calls += 1
        if self.calls > 1:
            return None
        return ev.AgentBeforeSettleResult(entries=self.entries, continue_=self.continue_)


async def test_a_proposal_is_written_in_order_and_its_message_answered_in_one_more_run(
    harness: Harness,
) -> None:
    harness.provider.responses += [text_message("first"), text_message("checked")]
    entries = [
        ev.SettleEntry(type="custom", custom_type="audit", data={"ok": False}),
        ev.SettleEntry(type="custom_message", custom_type="nudge", content="Check your work.", display=False),
    ]
    proposer = Proposer(entries, continue_=True)
    session = harness.build(plugins=[proposer])
    await session.prompt("do it")
    kinds = [line["type"] for line in _lines(str(session.session_file))]
    assert kinds[-4:] == ["message", "custom", "custom_message", "message"]  # reply, proposal, reply
    second = harness.provider.requests[1][0].messages
    assert second[-1].role == "user" and "Check your work." in json.dumps(second[-1].model_dump())
    assert [e.type for e in harness.events].count("agent_settled") == 1 and proposer.calls == 2


async def test_a_proposal_that_cannot_apply_is_dropped_whole_and_reported(harness: Harness) -> None:
    harness.provider.responses.append(text_message("first"))
    entries = [
        ev.SettleEntry(type="custom", custom_type="audit", data=1),
        ev.SettleEntry(type="context_edit", target_id="no-such-entry"),
    ]
    session = harness.build(plugins=[Proposer(entries, continue_=False)])
    errors: list[Any] = []
    await session.bind_mode(on_error=errors.append)
    await session.prompt("do it")
    assert "custom" not in [line["type"] for line in _lines(str(session.session_file))]
    (error,) = errors
    assert (
        error.event == "agent_before_settle" and "no-such-entry is not on the current branch" in error.error
    )


async def test_continue_needs_a_message_for_the_model(harness: Harness) -> None:
    harness.provider.responses.append(text_message("first"))
    session = harness.build(plugins=[Proposer([], continue_=True)])
    errors: list[Any] = []
    await session.bind_mode(on_error=errors.append)
    await session.prompt("do it")
    assert len(harness.provider.requests) == 1
    assert [e.error for e in errors] == [
        "continue needs a custom_message entry for the model to answer"  # the message alone, as pi
    ]


async def test_an_aborted_run_settles_without_asking_plugins(harness: Harness) -> None:
    proposer = Proposer([ev.SettleEntry(type="custom", custom_type="audit")], continue_=False)
    harness.provider.delay = 0.02
    harness.provider.responses.append(text_message("a long answer that is cut short"))
    session = harness.build(plugins=[proposer])
    run = asyncio.create_task(session.prompt("go"))
    await asyncio.sleep(0.05)
    await session.abort()
    await run
    assert proposer.calls == 0
