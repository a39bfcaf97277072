"""``turn_end`` as pi 1.6.0's actionable boundary: entries, context edits and one more request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_core.plugins import events as ev
from pi_core.testing import LoopbackLLMServer, text_turn
from pi_core.testing.session import PiSession

from pi_core import hookimpl


class Replacer:
    """pi's doc example: drop the first answer from the context and ask again, once."""

    def __init__(self) -> None:
        self.seen: list[ev.TurnEndEvent] = []
        self.done = False

    @hookimpl
    def turn_end(self, event: ev.TurnEndEvent) -> ev.TurnEndResult | None:
        self.seen.append(event.model_copy(deep=True))
        if self.done or event.outcome != "completed" or event.tool_results:
            return None
        self.done = True
        assert event.message_entry_id is not None
        return ev.TurnEndResult(
            entries=[
                *event.entries,
                ev.SettleEntry(type="context_edit", target_id=event.message_entry_id),
                ev.SettleEntry(type="custom", custom_type="replacer", data={"n": 1}),
                ev.SettleEntry(
                    type="custom_message", custom_type="again", content="Answer again.", display=False
                ),
            ],
            continue_=True,
        )


class Watcher:
    """A later handler: sees the first one's proposal and the context it gives."""

    def __init__(self) -> None:
        self.contexts: list[list[str]] = []

    @hookimpl(trylast=True)
    def turn_end(self, event: ev.TurnEndEvent) -> None:
        self.contexts.append([m.role for m in event.context])


async def test_turn_end_edits_the_context_and_asks_again(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    replacer, watcher = Replacer(), Watcher()
    pi_llm_server.add(text_turn("first answer"), text_turn("second answer"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[replacer, watcher]) as pi:
        await pi.prompt("question")
        entries = pi.entries
        starts = pi.event_types().count("agent_start")
    assert len(pi.requests) == 2 and starts == 1  # one run, one more request inside it
    second = pi.requests[1].body["messages"]
    texts = [str(m.get("content")) for m in second]
    assert not any("first answer" in t for t in texts)  # the context edit left it out
    assert "Answer again." in texts[-1] and "question" in str(second)
    kinds = [e["type"] for e in entries]
    assert kinds.count("context_edit") == 1 and "custom" in kinds and "custom_message" in kinds
    assert kinds.index("context_edit") < kinds.index("custom") < kinds.index("custom_message")
    edit = next(e for e in entries if e["type"] == "context_edit")
    assert edit["targetId"] == replacer.seen[0].message_entry_id
    # the later handler saw the context with the proposal applied: the assistant reply gone,
    # the new message at the end
    assert watcher.contexts[0][-1] == "custom" and "assistant" not in watcher.contexts[0][1:]
    assert [t.turn_index for t in replacer.seen] == [0, 1]


async def test_turn_end_bad_proposal_is_reported_and_not_applied(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    @hookimpl
    def turn_end(event: ev.TurnEndEvent) -> dict[str, Any]:
        return {
            "entries": [
                {"type": "custom", "customType": "kept?", "data": 1},
                {"type": "context_edit", "targetId": "no-such-entry"},
            ],
            "continue": True,
        }

    class Plugin:
        pass

    plugin = Plugin()
    plugin.turn_end = turn_end  # type: ignore[attr-defined]
    pi_llm_server.add(text_turn("only"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[plugin], strict=False) as pi:
        await pi.prompt("question")
        kinds = [e["type"] for e in pi.entries]
        errors = [
            str(getattr(e, "error", "")) for e in pi.events if getattr(e, "type", "") == "extension_error"
        ]
    assert len(pi.requests) == 1 and "custom" not in kinds  # nothing of it applied
    assert any("not on the current branch" in error for error in errors)
