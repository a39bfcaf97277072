"""pi-ext-subagent through a real session: the child is a real ``pi -p`` against the same scripted model."""

from __future__ import annotations

from pathlib import Path

import pi_ext_subagent.plugin as subagent
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession


async def test_the_child_answers_and_only_its_answer_returns(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    task = ToolUse("subagent", {"task": "Summarize README.md in one line."})
    pi_llm_server.add(tool_turn(task), text_turn("README says hello."), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[subagent], builtin_tools=True) as pi:
        (pi.project / "README.md").write_text("hello")
        await pi.prompt("what does the readme say?")
        _, child, final = pi.requests
        assert child.body["messages"][-1]["content"][0]["text"] == "Summarize README.md in one line."
        assert [t["function"]["name"] for t in child.body["tools"]] == ["read", "grep", "find", "ls"]
        assert len(child.body["messages"]) == 2  # a fresh context: system prompt + the task
        assert final.body["messages"][-1] == {
            "role": "tool",
            "tool_call_id": final.body["messages"][-1]["tool_call_id"],
            "content": "README says hello.",
        }
        assert pi.session.get_last_assistant_text() == "done"


async def test_a_failing_child_is_an_error_result(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    task = ToolUse("subagent", {"task": "anything", "tools": ["no-such-tool"]})
    pi_llm_server.add(tool_turn(task), text_turn("the child never asks"), text_turn("done"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[subagent], builtin_tools=True) as pi:
        await pi.prompt("delegate")
        tool_messages = [m for m in pi.session.messages if m.role == "toolResult"]
        assert tool_messages and tool_messages[0].is_error is not None
