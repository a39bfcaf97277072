"""The hooks pi 1.6.0 added, each fired by a real session against the scripted model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pi_core.plugins import events as ev
from pi_core.runtime.ui import HeadlessUI
from pi_core.testing import LoopbackLLMServer, text_turn
from pi_core.testing.session import PiSession

from pi_core import hookimpl


class Recorder:
    """Records what every 1.6 hook it implements saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    @hookimpl
    def agent_settled(self, event: ev.AgentSettledEvent) -> None:
        self.seen.append(("agent_settled", event.aborted))

    @hookimpl
    def session_info_changed(self, event: ev.SessionInfoChangedEvent) -> None:
        self.seen.append(("session_info_changed", event.name))

    @hookimpl
    def session_compact_failed(self, event: ev.SessionCompactFailedEvent) -> None:
        self.seen.append(("session_compact_failed", (event.reason, event.aborted, bool(event.error_message))))

    @hookimpl
    def ui_prompt_start(self, event: ev.UiPromptStartEvent) -> None:
        self.seen.append(("ui_prompt_start", (event.kind, event.title)))

    @hookimpl
    def ui_prompt_end(self, event: ev.UiPromptEndEvent) -> None:
        self.seen.append(("ui_prompt_end", (event.kind, event.title)))

    @hookimpl
    def before_provider_headers(self, event: ev.BeforeProviderHeadersEvent) -> None:
        event.headers["x-plugin"] = "yes"

    @hookimpl
    def input(self, event: ev.InputEvent) -> None:
        self.seen.append(("input", event.streaming_behavior))

    @hookimpl
    def mcp_servers_change(self, event: ev.McpServersChangeEvent) -> None:
        self.seen.append(("mcp_servers_change", [(s.name, s.extension_path) for s in event.servers]))

    def of(self, hook: str) -> list[Any]:
        return [value for name, value in self.seen if name == hook]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


async def settle(pi: PiSession) -> None:
    await pi.session.hooks.dispatcher.drain()


async def test_hook_agent_settled(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    pi_llm_server.add(text_turn("hi"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        await pi.prompt("hello")
        await settle(pi)
        assert recorder.of("agent_settled") == [False]
        assert pi.ctx().is_idle()


class Reviewer:
    """pi's documented agent_before_settle use: one reminder, one more run."""

    @hookimpl
    def agent_before_settle(
        self, event: ev.AgentBeforeSettleEvent, ctx: Any
    ) -> ev.AgentBeforeSettleResult | None:
        branch = ctx.session_manager.get_branch()
        if any(e.type == "custom_message" and e.custom_type == "review" for e in branch):
            return None
        reminder = ev.SettleEntry(type="custom_message", custom_type="review", content="Review the diff.")
        state = ev.SettleEntry(type="custom", custom_type="review-state", data={"asked": True})
        return ev.AgentBeforeSettleResult(entries=[*event.entries, state, reminder], continue_=True)


class Appender:
    """A later handler sees the proposal so far and keeps it."""

    def __init__(self) -> None:
        self.saw: list[int] = []

    @hookimpl
    def agent_before_settle(self, event: ev.AgentBeforeSettleEvent) -> dict[str, Any]:
        self.saw.append(len(event.entries))
        return {"continue": event.continue_}


async def test_hook_agent_before_settle(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    appender = Appender()
    pi_llm_server.add(text_turn("first answer"), text_turn("reviewed"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[Reviewer(), appender]) as pi:
        await pi.prompt("change it")
        assert len(pi.requests) == 2
        assert "Review the diff." in str(pi.requests[1].body["messages"][-1]["content"])
        assert pi.session.get_last_assistant_text() == "reviewed"
        kinds = [(e["type"], e.get("customType")) for e in pi.entries[-3:]]
        assert kinds == [("custom", "review-state"), ("custom_message", "review"), ("message", None)]
        assert appender.saw == [2, 0]  # the second settle: the reviewer proposes nothing


async def test_hook_session_info_changed(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        pi.ctx().set_session_name("  refactor  ")
        await settle(pi)
        assert recorder.of("session_info_changed") == ["refactor"]


async def test_hook_session_compact_failed(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    import pi_builtin_compaction.plugin as compaction

    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder, compaction]) as pi:
        with pytest.raises(RuntimeError):
            await pi.session.compact()  # nothing to compact yet
        await settle(pi)
        assert recorder.of("session_compact_failed") == [("manual", False, True)]


async def test_hook_ui_prompt_start(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        ctx = pi.ctx()
        assert await ctx.ui.confirm("Proceed?", "really") is False  # headless: no answer
        await ctx.ui.input("name?")
        await settle(pi)
        assert recorder.of("ui_prompt_start") == [("confirm", "Proceed?"), ("input", "name?")]


async def test_hook_ui_prompt_end(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    class SlowUI(HeadlessUI):
        async def confirm(self, title: str, message: str, **kwargs: Any) -> bool:
            await asyncio.sleep(0.05)
            return True

    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        await pi.host.bind_mode(ui=SlowUI())
        ui = pi.ctx().ui
        answers = await asyncio.gather(ui.confirm("outer", "x"), ui.select("inner", ["a"]))
        assert answers == [True, None]
        await settle(pi)
        # Overlapping dialogs are one span of waiting.
        assert recorder.of("ui_prompt_start") == [("confirm", "outer")]
        assert len(recorder.of("ui_prompt_end")) == 1


async def test_hook_before_provider_headers(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    pi_llm_server.add(text_turn("hi"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        await pi.prompt("hello")
        assert pi.requests[0].headers.get("x-plugin") == "yes"


async def test_input_carries_the_streaming_behavior(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    pi_llm_server.add(text_turn("hi"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        await pi.prompt("hello")
        await pi.session.follow_up("later")
        # pi 1.6.0 passes the behaviour only while the agent streams (test_session_input.py)
        assert recorder.of("input") == [None, None]


async def test_ctx_reports_mode_settings_and_trust(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    async with PiSession(pi_llm_server, tmp_path) as pi:
        ctx = pi.ctx()
        assert ctx.mode == "print" and ctx.is_project_trusted() is True
        settings = ctx.get_settings()
        assert settings["compaction"]["enabled"] is True
        settings["compaction"]["enabled"] = False  # a copy
        assert ctx.get_settings()["compaction"]["enabled"] is True


@pytest.mark.parametrize("api", ["openai-completions", "anthropic-messages", "openai-responses"])
async def test_provider_stream_event_sees_each_sdk_event_before_mapping(
    api: str, pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    seen: list[ev.ProviderStreamEvent] = []
    updates: list[int] = []

    class Watcher:
        @hookimpl
        def provider_stream_event(self, event: ev.ProviderStreamEvent) -> None:
            seen.append(event)

        @hookimpl
        def message_update(self) -> None:
            updates.append(len(seen))

    pi_llm_server.add(text_turn("hello there"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[Watcher()], api=api) as pi:
        await pi.prompt("hi")
    assert seen and {(e.provider, e.api, e.model) for e in seen} == {
        (pi.session.model.provider, api, pi.session.model.id)
    }
    assert all(isinstance(e.data, dict) for e in seen)
    assert updates and updates[0] >= 1  # the raw event arrives before the update it becomes
    assert len(seen) >= len(updates)  # every update comes from at least one SDK event


async def test_hook_mcp_servers_change(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, recorder: Recorder
) -> None:
    async with PiSession(pi_llm_server, tmp_path, plugins=[recorder]) as pi:
        mine = pi.session.extension_context(acting=("mine", "test"))
        other = pi.session.extension_context(acting=("other", "test"))
        mine.register_mcp_server("docs", {"url": "http://127.0.0.1:9/mcp"})
        other.register_mcp_server("time", {"command": "mcp-server-time"})
        with pytest.raises(ValueError, match="already registered by plugin 'mine'"):
            other.register_mcp_server("docs", {"command": "x"})
        with pytest.raises(ValueError, match="invalid MCP server name"):
            mine.register_mcp_server("no spaces", {"command": "x"})
        with pytest.raises(ValueError, match="must be an object"):
            mine.register_mcp_server("bad", "npx server")
        assert other.unregister_mcp_server("docs") is False  # not its server: nothing changes
        mine.register_mcp_server("docs", {"url": "http://127.0.0.1:10/mcp"})  # a replacement
        assert mine.unregister_mcp_server("docs") is True
        await settle(pi)
        assert recorder.of("mcp_servers_change") == [
            [("docs", "mine")],
            [("docs", "mine"), ("time", "other")],
            [("time", "other"), ("docs", "mine")],
            [("time", "other")],
        ]
        assert [s.config for s in mine.get_mcp_servers()] == [{"command": "mcp-server-time"}]


class SystemEditor:
    """``context_with_system``: rewrites the prompt, hides a tool, keeps the last user message."""

    def __init__(self) -> None:
        self.heads: list[Any] = []

    @hookimpl
    def context_with_system(self, event: ev.ContextWithSystemEvent) -> dict[str, Any]:
        from pi_core.ai.messages import SystemMessage, ToolReference

        head, *rest = event.messages
        assert isinstance(head, SystemMessage)
        self.heads.append((head.content, [t.name for t in head.tools_added or []]))
        patch = SystemMessage(
            content="", sections={"rule": "Answer in French."}, tools_removed=[ToolReference(name="bash")]
        )
        users = [m for m in rest if m.role == "user"]
        return {"messages": [head, patch, users[-1]]}


class HeadDropper:
    @hookimpl
    def context_with_system(self, event: ev.ContextWithSystemEvent) -> dict[str, Any]:
        return {"messages": event.messages[1:]}


async def test_hook_context_with_system(pi_llm_server: LoopbackLLMServer, tmp_path: Path) -> None:
    editor = SystemEditor()
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[editor], builtin_tools=True) as pi:
        prompt = pi.session.system_prompt
        await pi.prompt("first")
        await pi.prompt("second")
        body = pi.requests[-1].body
        system = body["messages"][0]
        assert system["role"] == "system" and system["content"] == f"{prompt}\n\nAnswer in French."
        assert [m["role"] for m in body["messages"][1:]] == ["user"]
        assert "second" in str(body["messages"][1]["content"])
        sent = [tool["function"]["name"] for tool in body["tools"]]
        assert "bash" not in sent and "read" in sent
        # The head is the request as it would have been: the session's prompt and every tool.
        assert editor.heads[-1][0] == prompt and "bash" in editor.heads[-1][1]
        # For the request only: the session keeps its messages and tools.
        assert [m.role for m in pi.session.messages if m.role != "system"] == ["user", "assistant"] * 2
        assert "bash" in [t.name for t in pi.session.agent.state.tools]


async def test_context_with_system_without_its_head_is_reported_and_sent_bare(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    pi_llm_server.add(text_turn("one"))
    async with PiSession(
        pi_llm_server, tmp_path, plugins=[HeadDropper()], builtin_tools=True, strict=False
    ) as pi:
        await pi.prompt("first")
        body = pi.requests[-1].body
        assert [m["role"] for m in body["messages"]] == ["user"] and "tools" not in body
        [error] = pi.errors
        assert error.hook == "context_with_system" and "no system message at index 0" in str(error.error)


class ConversationWatcher:
    """``context``: records the roles it is shown; from the second request on, keeps only the
    last user message (a list of its own, in place of the one it was given)."""

    def __init__(self) -> None:
        self.roles: list[list[str]] = []

    @hookimpl
    def context(self, event: ev.ContextEvent) -> dict[str, Any] | None:
        self.roles.append([m.role for m in event.messages])
        if len(self.roles) == 1:
            return None
        return {"messages": [m for m in event.messages if m.role == "user"][-1:]}


async def test_context_handlers_see_no_system_messages(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path
) -> None:
    # pi 1.6.0 leaves the transcript's system messages (prompt and tool state) out of what
    # `context` handlers see; a list they return is sent under the current system message.
    watcher = ConversationWatcher()
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    async with PiSession(pi_llm_server, tmp_path, plugins=[watcher], builtin_tools=True) as pi:
        await pi.prompt("first")
        assert "system" in [m.role for m in pi.session.messages]  # the transcript records the prompt
        await pi.prompt("second")
        assert watcher.roles == [["user"], ["user", "assistant", "user"]]
        body = pi.requests[-1].body
        assert body["messages"][0] == {"role": "system", "content": pi.session.system_prompt}
        assert [m["role"] for m in body["messages"][1:]] == ["user"]
        assert "second" in str(body["messages"][1]["content"])
        assert "read" in [tool["function"]["name"] for tool in body["tools"]]
