"""runtime/session_queue.py: the steering and follow-up texts a session shows until each message
is delivered, the messages the agent holds for them, and what a queued input goes through."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pi_core.ai.messages import ImageContent, TextContent, UserMessage
from pi_core.plugins.registry import CommandSpec
from pi_core.runtime.events import QueueUpdateEvent
from pi_core.runtime.session_queue import MessageQueues

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness

PIXEL = ImageContent(data="aGk=", mime_type="image/png")


def test_queued_texts_leave_the_list_one_by_one_as_they_are_delivered(harness: Harness) -> None:
    agent = harness.build().agent
    updates: list[QueueUpdateEvent] = []
    queues = MessageQueues(agent, updates.append)
    queues.add("again", [], follow_up=False)
    queues.add("again", [], follow_up=False)
    queues.add("later", [PIXEL], follow_up=True)
    assert queues.pending_count == 3 and agent.has_queued_messages()
    assert (updates[-1].steering, updates[-1].follow_up) == (["again", "again"], ["later"])
    queues.delivered(UserMessage(content=[TextContent(text="again")]))
    assert (updates[-1].steering, updates[-1].follow_up) == (["again"], ["later"])  # one of the two
    queues.delivered(UserMessage(content=[TextContent(text="later"), PIXEL]))  # its image aside
    assert (updates[-1].steering, updates[-1].follow_up) == (["again"], [])
    seen = len(updates)
    queues.delivered(UserMessage(content="never queued"))
    assert len(updates) == seen  # nothing to show again
    assert queues.clear() == (["again"], [])
    assert queues.pending_count == 0 and not agent.has_queued_messages()
    assert (updates[-1].steering, updates[-1].follow_up) == ([], [])


async def test_a_queued_input_meets_the_input_hook_and_commands_cannot_wait(harness: Harness) -> None:
    async def noop(args: str, ctx: Any) -> None:
        return None

    class TakesSecrets:
        @hookimpl
        def input(self, event: Any) -> Any:
            if event.text.startswith("secret"):
                return {"action": "handled"}
            return {"action": "transform", "text": event.text.upper()}

    session = harness.build(
        plugins=[TakesSecrets()], commands=[CommandSpec("deploy", "deploy", noop, None, None, "ops")]
    )
    assert await session.steer("secret plan") == "handled"
    assert await session.follow_up("tidy up") == "queued"
    assert session.pending_message_count == 1
    assert [e for e in harness.events if e.type == "queue_update"][-1].follow_up == ["TIDY UP"]
    with pytest.raises(RuntimeError, match=r'Extension command "/deploy" cannot be queued'):
        await session.steer("/deploy now")
    assert await session.steer("/unknown thing") == "queued"  # not a command: plain text
