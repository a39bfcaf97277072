from __future__ import annotations

from typing import Any

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.plugins.manager import PluginRecord
from pi_core.plugins.registry import collect_registrations
from pi_core.testing.plugins import PluginHarness, make_plugin


async def _execute(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> AgentToolResult:
    return AgentToolResult()


def tool(name: str) -> AgentTool:
    return AgentTool(name=name, label=name, description=name, parameters={"type": "object"}, execute=_execute)


def add(h: PluginHarness, name: str, *, builtin: bool = False, **hooks: Any) -> None:
    record = PluginRecord(name, "builtin" if builtin else "project", f"/x/{name}.py", builtin=builtin)
    h.pm.add_plugin(make_plugin(**hooks), record)


async def test_registrations_are_recorded_per_plugin_in_load_order() -> None:
    h = PluginHarness()

    async def flags(register: Any) -> None:
        register("plan", description="Plan mode")
        register("profile", type="string", default="dev")

    add(h, "a", register_tools=lambda register: register(tool("alpha")), register_flags=flags)
    add(h, "b", register_tools=lambda register: register(tool("beta")))
    regs = await collect_registrations(h.pm)
    assert regs.errors == []
    assert [(n, r.plugin) for n, r in regs.tools.items()] == [("alpha", "a"), ("beta", "b")]
    assert [(f.name, f.type, f.default, f.plugin) for f in regs.flags.values()] == [
        ("plan", "boolean", None, "a"),
        ("profile", "string", "dev", "a"),
    ]


async def test_same_tool_from_two_plugins_is_a_load_error_naming_both() -> None:
    h = PluginHarness()
    add(h, "first", register_tools=lambda register: register(tool("read_db")))
    add(h, "second", register_tools=lambda register: register(tool("read_db")))
    regs = await collect_registrations(h.pm)
    assert regs.tools["read_db"].plugin == "first"
    [error] = regs.errors
    assert error.plugin == "second" and error.location == "/x/second.py"
    assert "tool 'read_db' is also registered by plugin 'first' (project /x/first.py)" in error.problem


async def test_same_flag_from_two_plugins_is_a_load_error() -> None:
    h = PluginHarness()
    add(h, "first", register_flags=lambda register: register("plan"))
    add(h, "second", register_flags=lambda register: register("plan", type="string"))
    regs = await collect_registrations(h.pm)
    [error] = regs.errors
    assert error.plugin == "second" and "flag 'plan' is also registered by plugin 'first'" in error.problem


async def test_extension_tool_overrides_builtin_of_same_name() -> None:
    h = PluginHarness()
    add(h, "ext", register_tools=lambda register: register(tool("read")))
    add(h, "tools", builtin=True, register_tools=lambda register: register(tool("read")))
    regs = await collect_registrations(h.pm)
    assert regs.errors == [] and regs.tools["read"].plugin == "ext"


async def test_commands_with_the_same_name_get_suffixes() -> None:
    h = PluginHarness()

    async def handler(args: str, ctx: Any) -> None:
        return None

    add(h, "a", register_commands=lambda register: register("deploy", handler, description="A"))
    add(h, "b", register_commands=lambda register: register("deploy", handler))
    add(h, "c", register_commands=lambda register: register("solo", handler))
    regs = await collect_registrations(h.pm)
    assert [(c.invocation_name, c.plugin) for c in regs.commands] == [
        ("deploy:1", "a"),
        ("deploy:2", "b"),
        ("solo", "c"),
    ]


async def test_shortcuts_later_wins_and_renderers_first_wins() -> None:
    h = PluginHarness()

    def first(register: Any) -> None:
        register("ctrl+p", lambda ctx: None)

    def second(register: Any) -> None:
        register("ctrl+p", lambda ctx: None, description="mine")

    add(h, "a", register_shortcuts=first, register_message_renderers=lambda register: register("t", repr))
    add(h, "b", register_shortcuts=second, register_message_renderers=lambda register: register("t", str))
    regs = await collect_registrations(h.pm)
    assert regs.shortcuts["ctrl+p"].plugin == "b" and regs.warnings
    assert regs.message_renderers["t"].plugin == "a"


async def test_broken_registration_hook_and_bad_values_are_load_errors() -> None:
    h = PluginHarness()

    def boom(register: Any) -> None:
        raise RuntimeError("cannot fetch models")

    add(h, "boom", register_providers=boom)
    add(h, "notatool", register_tools=lambda register: register({"name": "x"}))
    add(h, "badflag", register_flags=lambda register: register("--dashes"))
    add(h, "dupstrategy1", register_compaction_strategies=lambda register: register("brief", object()))
    add(h, "dupstrategy2", register_compaction_strategies=lambda register: register("brief", object()))
    regs = await collect_registrations(h.pm)
    problems = {e.plugin: e.problem for e in regs.errors}
    assert problems["boom"] == "register_providers raised RuntimeError: cannot fetch models"
    assert "expects an AgentTool, got dict" in problems["notatool"]
    assert "without leading dashes" in problems["badflag"]
    assert "compaction strategy 'brief' is also registered" in problems["dupstrategy2"]
    assert regs.compaction_strategies["brief"].plugin == "dupstrategy1"
