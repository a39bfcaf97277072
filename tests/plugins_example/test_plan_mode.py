"""pi-ext-plan-mode through a real session: read-only while planning, then the plan runs."""

from __future__ import annotations

from pathlib import Path

import pi_ext_plan_mode.plugin as plan
import pytest
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession, ScriptedUI


@pytest.mark.parametrize(
    ("command", "safe"),
    [("ls -la | wc -l", True), ("git log --oneline", True), ("git commit -m x", False), ("echo x > f", False),
     ("cat a && rm b", False), ("grep -r foo . 2>/dev/null", True)],
)  # fmt: skip
def test_read_only_commands(command: str, safe: bool) -> None:
    assert plan.is_safe(command) is safe


def declared(request: object) -> list[str]:
    return [tool["function"]["name"] for tool in request.body.get("tools", [])]  # type: ignore[attr-defined]


async def test_plan_then_execute(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    touch = ToolUse("bash", {"command": "touch a.txt"})
    write = ToolUse("write", {"path": "a.txt", "content": "x"})
    pi_llm_server.add(
        tool_turn(touch), text_turn("Plan: 1. write a.txt"), tool_turn(write), text_turn("done")
    )
    async with PiSession(pi_llm_server, tmp_path, plugins=[plan], builtin_tools=True) as pi:
        ui = ScriptedUI("Execute the plan")
        await pi.host.bind_mode(ui=ui, mode="tui")
        await pi.prompt("/plan")
        assert ui.statuses["plan"] == "plan mode"
        await pi.prompt("add a.txt")
        first, second, third, _ = pi.requests
        assert declared(first) == ["read", "bash", "grep", "find", "ls"]
        assert "Plan mode is on" in first.body["messages"][0]["content"]
        assert "only read-only commands may run" in str(second.body["messages"][-1]["content"])
        assert ui.asked == ["Execute the plan?"]
        assert "Execute the plan you just made" in str(third.body["messages"][-1]["content"])
        assert "write" in declared(third) and "Plan mode is on" not in str(third.body["messages"][0])
        assert (pi.project / "a.txt").read_text() == "x"
        assert pi.session.get_last_assistant_text() == "done"


async def test_the_mode_survives_a_reload(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    async with PiSession(pi_llm_server, tmp_path, plugins=[plan], builtin_tools=True) as pi:
        await pi.prompt("/plan")
        await pi.host.reload()
        assert pi.ctx().get_active_tools() == ["read", "bash", "grep", "find", "ls"]
