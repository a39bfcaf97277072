"""pi-ext-todo through a real session: the list follows the branch."""

from __future__ import annotations

from pathlib import Path

import pi_ext_todo.plugin as todo
from pi_core.testing import LoopbackLLMServer, ToolUse, text_turn, tool_turn
from pi_core.testing.session import PiSession, ScriptedUI


def call(**args: object) -> ToolUse:
    return ToolUse("todo", dict(args))


async def test_the_list_lives_in_the_branch(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    pi_llm_server.add(
        tool_turn(call(action="add", text="write tests"), call(action="add", text="fix bug")),
        text_turn("planned"),
        tool_turn(call(action="toggle", id=1)),
        text_turn("ticked"),
        tool_turn(call(action="toggle", id=7)),
        text_turn("oops"),
    )
    async with PiSession(pi_llm_server, tmp_path, plugins=[todo]) as pi:
        ui = ScriptedUI(None)
        await pi.host.bind_mode(ui=ui, mode="tui")
        await pi.prompt("plan")
        after_plan = pi.session.session_manager.get_leaf_id()
        await pi.prompt("tick the first")
        await pi.prompt("/todos")
        assert ui.notices[-1] == ("[x] #1 write tests\n[ ] #2 fix bug", "info")
        await pi.prompt("tick a missing one")
        assert "no todo #7" in str(pi.requests[-1].body["messages"][-1]["content"])
        await pi.session.navigate_tree(after_plan)  # back before the toggle
        await pi.prompt("/todos")
        assert ui.notices[-1] == ("[ ] #1 write tests\n[ ] #2 fix bug", "info")
