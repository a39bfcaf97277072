"""runtime/session_prompt.py: what a session's transcript records of its system prompt and tools
(pi 1.6.0's system messages), read back from the session file, and a run's own prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.messages import TextContent
from pi_core.testing.faux import text_message, tool_call_message

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness


def _systems(path: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
    return [
        line["message"] for line in lines if line["type"] == "message" and line["message"]["role"] == "system"
    ]


async def _noop(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text="ok")])


def _tool(name: str) -> AgentTool:
    return AgentTool(
        name=name, label=name, description=f"{name} things", parameters={"type": "object"}, execute=_noop
    )


async def test_the_transcript_records_the_prompt_once_then_only_what_changed(harness: Harness) -> None:
    harness.provider.responses += [text_message("one"), text_message("two"), text_message("three")]
    session = harness.build()
    await session.prompt("first")
    await session.prompt("second")  # nothing changed: nothing recorded
    session.register_tool(_tool("probe"), plugin="p")
    await session.prompt("third")
    first, changed = _systems(str(session.session_file))
    assert first["sections"] and [t["name"] for t in first["toolsAdded"]] == ["write"]
    assert [t["name"] for t in changed["toolsAdded"]] == ["probe"] and "toolsRemoved" not in changed
    assert set(changed.get("sections") or {}) <= set(first["sections"])  # only sections that changed
    declared = [[t.name for t in context.tools or []] for context, _ in harness.provider.requests]
    assert declared == [["write"], ["write"], ["write", "probe"]]


async def test_a_tool_registered_inside_a_run_is_recorded_before_the_next_request(harness: Harness) -> None:
    async def grow(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> AgentToolResult:
        ctx.register_tool(_tool("grown"))
        return AgentToolResult(content=[TextContent(text="grew")])

    class Grower:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            register(
                AgentTool(name="grow", label="grow", description="grow a tool", parameters={}, execute=grow)
            )

    harness.provider.responses += [tool_call_message(("c1", "grow", {})), text_message("done")]
    session = harness.build(plugins=[Grower()])
    session.register_tool(
        AgentTool(name="grow", label="grow", description="grow a tool", parameters={}, execute=grow),
        plugin="g",
    )
    await session.prompt("go")
    systems = _systems(str(session.session_file))
    assert [t["name"] for t in systems[-1]["toolsAdded"]] == ["grown"]  # mid-run, one more record
    second_request_tools = [t.name for t in harness.provider.requests[1][0].tools or []]
    assert "grown" in second_request_tools


async def test_a_replaced_prompt_is_sent_for_its_run_only_and_not_recorded(harness: Harness) -> None:
    class Replacer:
        def __init__(self) -> None:
            self.once = True

        @hookimpl
        def before_agent_start(self, event: Any) -> Any:
            if self.once:
                self.once = False
                return {"system_prompt": "You are a pirate."}
            return None

    harness.provider.responses += [text_message("arr"), text_message("plain")]
    session = harness.build(plugins=[Replacer()])
    await session.prompt("hello")
    await session.prompt("again")
    sent = [context.system_prompt for context, _ in harness.provider.requests]
    assert sent[0] == "You are a pirate." and sent[1] != sent[0]
    assert all("pirate" not in json.dumps(system) for system in _systems(str(session.session_file)))
