"""Every member of the documented ``ctx`` protocols is called on a real session and does its job.

The member list comes from the protocols themselves, so a member added to ``ExtensionContext`` or
``CommandContext`` without a call here fails the test.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pi_core.agent.tools import AgentTool
from pi_core.ai.abort import AbortController
from pi_core.plugins.context import CommandContext, ExtensionContext
from pi_core.runtime.extension_context import RuntimeCommandContext, RuntimeContext
from pi_core.testing import LoopbackLLMServer, text_turn
from pi_core.testing.session import PiSession


def protocol_members(protocol: type) -> set[str]:
    names: set[str] = set()
    for klass in protocol.__mro__:
        if klass in (object,) or not getattr(klass, "_is_protocol", False) or klass.__name__ == "Protocol":
            continue
        names |= {name for name in vars(klass) if not name.startswith("_")}
    return names


Check = Callable[[Any, PiSession], Awaitable[None]]


async def _send_message(ctx: Any, pi: PiSession) -> None:
    await ctx.send_message("note", "remember", deliver_as="nextTurn")
    pending = ctx.send_message("plain", "recorded")  # not awaited on purpose: still delivered
    await asyncio.sleep(0)
    await pending
    assert [e["customType"] for e in pi.entries if e["type"] == "custom_message"] == ["plain"]


async def _send_user_message(ctx: Any, pi: PiSession) -> None:
    pi.server.add(text_turn("answer"))
    await ctx.send_user_message("question from a plugin")
    sent = [m["content"][0]["text"] for m in pi.requests[-1].body["messages"][-2:]]
    assert sent == ["question from a plugin", "remember"]  # the nextTurn message rides along


async def _exec(ctx: Any, pi: PiSession) -> None:
    done = await ctx.exec("echo", ["hi"])
    assert (done.stdout, done.stderr, done.code, done.killed) == ("hi\n", "", 0, False)
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.1, controller.abort)
    stopped = await ctx.exec("sleep", ["5"], signal=controller.signal, timeout=10)
    assert stopped.killed
    missing = await ctx.exec("no-such-program-here")
    assert missing.code == 1 and "no-such-program-here" in missing.stderr


async def _compact(ctx: Any, pi: PiSession) -> None:
    failed: list[BaseException] = []
    finished = asyncio.Event()

    def on_error(error: BaseException) -> None:
        failed.append(error)
        finished.set()

    ctx.compact(on_complete=lambda result: finished.set(), on_error=on_error)
    await asyncio.wait_for(finished.wait(), 10)
    assert failed  # nothing to compact yet: reported through on_error, never raised


async def _labels(ctx: Any, pi: PiSession) -> None:
    entry = ctx.append_entry("state", {"n": 1})
    ctx.set_label(entry, "here")
    assert [e["type"] for e in pi.entries][-2:] == ["custom", "label"]


async def _mcp_servers(ctx: Any, pi: PiSession) -> None:
    ctx.register_mcp_server("docs", {"url": "http://127.0.0.1:9/mcp"})
    assert [(s.name, s.config, s.extension_path) for s in ctx.get_mcp_servers()] == [
        ("docs", {"url": "http://127.0.0.1:9/mcp"}, "pi_ext_hello.plugin")
    ]
    assert ctx.unregister_mcp_server("docs") is True
    assert ctx.unregister_mcp_server("docs") is False
    assert ctx.get_mcp_servers() == []


def _ok(condition: bool) -> None:
    assert condition


def _sync(check: Callable[[Any, PiSession], None]) -> Check:
    async def run(ctx: Any, pi: PiSession) -> None:
        check(ctx, pi)

    return run


async def _set_model(ctx: Any, pi: PiSession) -> None:
    assert await ctx.set_model(pi.session.model) is True


async def _session_control(ctx: Any, pi: PiSession) -> None:
    await ctx.wait_for_idle()
    leaf = pi.session.session_manager.get_leaf_id()
    assert (await ctx.navigate_tree(leaf)).cancelled is False


EXTENSION_CHECKS: dict[str, Check] = {
    "ui": _sync(lambda ctx, pi: ctx.ui.notify("hello") or None),
    "has_ui": _sync(lambda ctx, pi: _ok(ctx.has_ui is False)),
    "cwd": _sync(lambda ctx, pi: _ok(ctx.cwd == str(pi.project))),
    "session_manager": _sync(lambda ctx, pi: _ok(bool(ctx.session_manager.get_entries()))),
    "model_registry": _sync(lambda ctx, pi: _ok(ctx.model_registry is pi.session.model_registry)),
    "model": _sync(lambda ctx, pi: _ok(ctx.model.id == "scripted")),
    "thinking_level": _sync(lambda ctx, pi: _ok(ctx.thinking_level == pi.session.thinking_level == "off")),
    "scoped_models": _sync(lambda ctx, pi: _ok(ctx.scoped_models == [])),  # no --models scope
    "signal": _sync(lambda ctx, pi: _ok(ctx.signal is None)),
    "is_idle": _sync(lambda ctx, pi: _ok(ctx.is_idle())),
    "abort": _sync(lambda ctx, pi: ctx.abort()),
    "has_pending_messages": _sync(lambda ctx, pi: _ok(not ctx.has_pending_messages())),
    "shutdown": _sync(lambda ctx, pi: ctx.shutdown() or (_ok(pi.host.shutdown_requested))),
    "get_context_usage": _sync(lambda ctx, pi: _ok(ctx.get_context_usage().context_window == 128000)),
    "compact": _compact,
    "get_system_prompt": _sync(lambda ctx, pi: _ok(ctx.get_system_prompt())),
    "send_message": _send_message,
    "send_user_message": _send_user_message,
    "append_entry": _labels,
    "set_label": _labels,
    "set_session_name": _sync(lambda ctx, pi: ctx.set_session_name("work")),
    "get_session_name": _sync(
        lambda ctx, pi: ctx.set_session_name("x") or (_ok(ctx.get_session_name() == "x"))
    ),
    "exec": _exec,
    "get_active_tools": _sync(lambda ctx, pi: _ok(ctx.get_active_tools() == ["hello"])),
    "get_all_tools": _sync(lambda ctx, pi: _ok(ctx.get_all_tools() == ["hello"])),
    "set_active_tools": _sync(
        lambda ctx, pi: ctx.set_active_tools([]) or (_ok(ctx.get_active_tools() == []))
    ),
    "get_commands": _sync(lambda ctx, pi: _ok([c["name"] for c in ctx.get_commands()] == ["hello"])),
    "set_model": _set_model,
    "get_thinking_level": _sync(lambda ctx, pi: _ok(ctx.get_thinking_level() == "off")),
    "set_thinking_level": _sync(lambda ctx, pi: ctx.set_thinking_level("off")),
    "get_flag": _sync(lambda ctx, pi: _ok(ctx.get_flag("hello-name") is None)),
    "events": _sync(lambda ctx, pi: ctx.events.emit("x", 1)),
    "mode": _sync(lambda ctx, pi: _ok(ctx.mode == "print")),
    "get_settings": _sync(lambda ctx, pi: _ok("compaction" in ctx.get_settings())),
    "is_project_trusted": _sync(lambda ctx, pi: _ok(ctx.is_project_trusted() is True)),
    "register_tool": _sync(lambda ctx, pi: ctx.register_tool(_extra_tool())),
    "unregister_tool": _sync(
        lambda ctx, pi: (
            ctx.register_tool(_extra_tool())
            or _ok(ctx.unregister_tool("extra") and "extra" not in ctx.get_all_tools())
        )
    ),
    "register_mcp_server": _mcp_servers,
    "unregister_mcp_server": _mcp_servers,
    "get_mcp_servers": _mcp_servers,
}


def _extra_tool() -> AgentTool:
    async def run(call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> str:
        return "extra"

    return AgentTool("extra", "extra", "an extra tool", {"type": "object", "properties": {}}, run)


def _prompt_options(ctx: Any, pi: PiSession) -> None:
    options = ctx.get_system_prompt_options()
    assert options.cwd == str(pi.project) and options.selected_tools == ctx.get_active_tools()
    options.selected_tools.append("edited")  # a copy: the session's own options stay
    assert "edited" not in ctx.get_system_prompt_options().selected_tools


COMMAND_CHECKS: dict[str, Check] = {
    "wait_for_idle": _session_control,
    "get_system_prompt_options": _sync(_prompt_options),
    "navigate_tree": _session_control,
    "new_session": lambda ctx, pi: _expect_result(ctx.new_session()),
    "fork": lambda ctx, pi: _fork(ctx, pi),
    "switch_session": lambda ctx, pi: _expect_result(ctx.switch_session(pi.session.session_file)),
    "reload": lambda ctx, pi: ctx.reload(),
}


async def _fork(ctx: Any, pi: PiSession) -> None:
    pi.server.add(text_turn("saved"))  # the new session has no file yet, and such cannot be forked
    await pi.prompt("write the file")
    await _expect_result(ctx.fork(pi.session.session_manager.get_leaf_id()))


async def _expect_result(outcome: Awaitable[Any]) -> None:
    result = await outcome
    assert isinstance(result.cancelled, bool)


def test_the_checks_cover_exactly_the_protocols() -> None:
    assert set(EXTENSION_CHECKS) == protocol_members(ExtensionContext)
    assert set(COMMAND_CHECKS) == protocol_members(CommandContext) - protocol_members(ExtensionContext)


async def test_every_context_member_works_on_a_real_session(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    import pi_ext_hello.plugin as hello

    pi_llm_server.add(text_turn("first"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[hello]) as pi:
        await pi.prompt("hi")
        for name, check in EXTENSION_CHECKS.items():
            result = check(RuntimeContext(pi.session, acting=("pi_ext_hello.plugin", "test")), pi)
            assert inspect.isawaitable(result), name
            await result
        for check in COMMAND_CHECKS.values():  # a fresh ctx each: replacing the session stales the old
            await check(RuntimeCommandContext(pi.session), pi)
