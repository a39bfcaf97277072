"""pi-ext-permission-gate through a real session: blocked without a UI, asked with one."""

from __future__ import annotations

from pathlib import Path

import pi_ext_permission_gate.plugin as gate
import pytest
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession, ScriptedUI


def tool_output(pi: PiSession) -> str:
    return str(pi.requests[1].body["messages"][-1]["content"])


@pytest.mark.parametrize(
    "command",
    ["sudo ls", "rm -rf build", "chmod -R 777 .", "git push --force origin main", "dd if=x of=/dev/sda"],
)
def test_patterns_catch_dangerous_commands(command: str) -> None:
    assert gate.dangerous(command) is not None


def test_patterns_leave_ordinary_commands_alone() -> None:
    assert gate.dangerous("ls -la && git status && rm notes.txt") is None
    assert gate.dangerous("make deploy", extra=r"\bdeploy\b") is not None


async def test_without_a_ui_dangerous_commands_are_blocked(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": "sudo touch /x"})), text_turn("ok"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[gate], builtin_tools=True) as pi:
        await pi.prompt("go")
        assert "Dangerous command blocked (no UI to confirm it)" in tool_output(pi)


@pytest.mark.parametrize(("answer", "ran"), [("Yes", True), ("No", False)])
async def test_with_a_ui_the_user_decides(
    answer: str, ran: bool, pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(tool_turn(ToolUse("bash", {"command": "rm -rf made"})), text_turn("ok"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[gate], builtin_tools=True) as pi:
        (pi.project / "made").mkdir()
        ui = ScriptedUI(answer)
        await pi.host.bind_mode(ui=ui, mode="tui")
        await pi.prompt("clean up")
        assert ui.asked and "rm -rf made" in ui.asked[0]
        assert (pi.project / "made").exists() is not ran
        assert ("Blocked by the user" in tool_output(pi)) is not ran
