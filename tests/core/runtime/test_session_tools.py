"""runtime/session_tools.py: which tools a session has active as plugins register and withdraw
them at run time, and which a resumed branch's transcript brings back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.messages import SystemMessage, TextContent, ToolDeclaration, ToolReference
from pi_core.runtime import session_tools

if TYPE_CHECKING:
    from conftest import Harness


async def _echo(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text="echo")])


def _tool(name: str, **fields: Any) -> AgentTool:
    return AgentTool(
        name=name,
        label=name,
        description=f"the {name} tool",
        parameters={"type": "object"},
        execute=_echo,
        **fields,
    )


def _declared(session: Any) -> list[str]:
    return [tool.name for tool in session.agent.state.tools]


def test_a_plugin_that_withdraws_its_override_of_a_builtin_gives_the_builtin_back(harness: Harness) -> None:
    session = harness.build()
    builtin = session.services.tools["write"]
    session.services.builtin_tool_names.add("write")
    session.services.tool_owners["write"] = "tools"
    mine = _tool("write")
    session.register_tool(mine, plugin="mine")
    assert session.services.tools["write"] is mine and _declared(session) == ["write"]
    assert session.unregister_tool("write", plugin="mine") is True
    assert session.services.tools["write"] is builtin and session.services.tool_owners["write"] == "tools"
    assert _declared(session) == ["write"] and session.agent.state.tools[0] is builtin
    with pytest.raises(ValueError, match="belongs to plugin 'tools', not 'mine'"):  # it is pi's again
        session.unregister_tool("write", plugin="mine")


def test_a_name_another_plugin_registered_is_refused(harness: Harness) -> None:
    session = harness.build()
    session.register_tool(_tool("probe"), plugin="first")
    with pytest.raises(ValueError, match="'probe' is already registered by plugin 'first'"):
        session.register_tool(_tool("probe"), plugin="second")
    with pytest.raises(ValueError, match="belongs to plugin 'first', not 'second'"):
        session.unregister_tool("probe", plugin="second")
    assert session.unregister_tool("nothing", plugin="first") is False
    with pytest.raises(TypeError, match="expects an AgentTool, got dict"):
        session.register_tool({"name": "x"}, plugin="first")  # type: ignore[arg-type]


def test_exposure_decides_what_is_declared_and_what_tools_may_call(harness: Harness) -> None:
    session = harness.build()
    session.register_tool(_tool("later", default_active=False), plugin="p")
    session.register_tool(_tool("lookup", exposure="deferred"), plugin="p")
    session.register_tool(_tool("talk", exposure="model-only"), plugin="p")
    assert _declared(session) == ["write", "talk"]
    callable_names = [t.name for t in session_tools.callable_tools(session.services, ["write", "talk"])]
    assert sorted(callable_names) == ["lookup", "write"]  # model-only: never called by tools
    session.register_tool(_tool("talk", exposure="hidden"), plugin="p")  # withdrawn
    assert _declared(session) == ["write"]
    assert session_tools.selectable(session.services, ["talk", "write", "write", "ghost", "later"]) == [
        "write",
        "later",
    ]


def _system(added: list[str] = (), removed: list[str] = ()) -> SystemMessage:  # type: ignore[assignment]
    return SystemMessage(
        content="",
        tools_added=[ToolDeclaration(name=n, description="", parameters={}) for n in added] or None,
        tools_removed=[ToolReference(name=n) for n in removed] or None,
    )


def test_a_resumed_branch_takes_the_tools_its_transcript_records(harness: Harness) -> None:
    session = harness.build()
    services = session.services
    for name in ("read", "bash", "fresh", "quiet"):
        services.tools[name] = _tool(name, default_active=name != "quiet")
    services.builtin_tool_names.update({"write", "read", "bash"})
    assert session_tools.restored(services, [], [], []) is None  # nothing recorded
    messages = [_system(added=["read", "write", "bash"]), _system(removed=["bash"])]
    # the recorded ones, then a plugin tool the transcript never mentioned (not a default-off one)
    assert session_tools.restored(services, messages, [], []) == ["read", "write", "fresh"]
    assert session_tools.restored(services, messages, ["-read", "+bash"], ["fr*"]) == ["write", "bash"]
