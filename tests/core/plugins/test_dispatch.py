from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pi_core.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_core.errors import PluginError
from pi_core.plugins.dispatch import Hooks
from pi_core.plugins.events import (
    AgentStartEvent,
    BeforeAgentStartEvent,
    BeforeProviderRequestEvent,
    ContextEvent,
    InputEvent,
    MessageEndEvent,
    ResourcesDiscoverEvent,
    SessionBeforeCompactEvent,
    SessionBeforeSwitchEvent,
    ThinkingLevelSelectEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserBashEvent,
)
from pi_core.testing.plugins import HookRecorder, PluginHarness

from pi_core import hookimpl


def tool_call_event(**input: Any) -> ToolCallEvent:
    return ToolCallEvent(tool_call_id="c1", tool_name="bash", input=dict(input) or {"command": "ls"})


# --- order ----------------------------------------------------------------------------------------


async def test_dispatch_calls_handlers_in_load_order_not_lifo(harness: PluginHarness) -> None:
    seen: list[str] = []
    for name in ("first", "second", "third"):
        harness.add(name, agent_start=lambda name=name: seen.append(name))
    await Hooks(harness.dispatcher).agent_start(AgentStartEvent(), harness.ctx)
    assert seen == ["first", "second", "third"]


async def test_dispatch_honours_tryfirst_and_trylast(harness: PluginHarness) -> None:
    seen: list[str] = []
    harness.add("late", agent_start=hookimpl(trylast=True)(lambda: seen.append("late")))
    harness.add("plain", agent_start=lambda: seen.append("plain"))
    harness.add("early", agent_start=hookimpl(tryfirst=True)(lambda: seen.append("early")))
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    assert seen == ["early", "plain", "late"]


async def test_dispatch_awaits_each_async_handler_before_the_next(harness: PluginHarness) -> None:
    seen: list[str] = []

    async def slow(event: Any, ctx: Any) -> None:
        seen.append("slow-start")
        await asyncio.sleep(0.01)
        seen.append("slow-end")

    harness.add("a", agent_start=slow)
    harness.add("b", agent_start=lambda event: seen.append("sync"))
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    assert seen == ["slow-start", "slow-end", "sync"]


async def test_dispatch_passes_the_same_ctx_to_every_handler(harness: PluginHarness) -> None:
    ctxs: list[Any] = []
    harness.add("a", agent_start=lambda ctx: ctxs.append(ctx))
    harness.add("b", agent_start=lambda event, ctx: ctxs.append(ctx))
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    assert ctxs == [harness.ctx, harness.ctx]


async def test_dispatch_sees_plugins_registered_later(harness: PluginHarness) -> None:
    seen: list[str] = []
    harness.add("a", agent_start=lambda: seen.append("a"))
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    harness.add("b", agent_start=lambda: seen.append("b"))
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    assert seen == ["a", "a", "b"]


# --- NOTIFY and error isolation -------------------------------------------------------------------


async def test_notify_isolates_a_raising_handler_and_reports_it(harness: PluginHarness) -> None:
    seen: list[str] = []

    def broken(event: Any) -> None:
        raise RuntimeError("kaput")

    harness.add("broken", agent_start=broken)
    harness.add("fine", agent_start=lambda: seen.append("fine"))
    assert await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx) is None
    assert seen == ["fine"]
    [record] = harness.errors
    assert (record.plugin, record.hook, str(record.error)) == ("broken", "agent_start", "kaput")
    assert "RuntimeError: kaput" in record.traceback
    assert "broken" in record.summary()


async def test_strict_mode_reraises_with_attribution(
    harness: PluginHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_STRICT_PLUGINS", "1")
    from pi_core.plugins.dispatch import Dispatcher

    strict = Dispatcher(harness.pm)

    async def broken() -> None:
        raise ValueError("bad")

    harness.add("broken", agent_start=broken)
    with pytest.raises(PluginError, match="'broken' failed in hook 'agent_start'") as info:
        await strict.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    assert isinstance(info.value.__cause__, ValueError)
    assert info.value.plugin == "broken"


async def test_invalid_dict_result_is_reported_against_the_plugin(harness: PluginHarness) -> None:
    harness.add("sloppy", session_before_switch=lambda: {"cancel": "not-a-bool-at-all"})
    harness.add("fine", session_before_switch=lambda: {"cancel": False})
    result = await harness.dispatcher.dispatch(
        "session_before_switch", SessionBeforeSwitchEvent(reason="new"), harness.ctx
    )
    assert result is not None and result.cancel is False
    assert [r.plugin for r in harness.errors] == ["sloppy"]


# --- CANCEL_OR_LAST -------------------------------------------------------------------------------


async def test_cancel_or_last_stops_at_cancel(harness: PluginHarness) -> None:
    seen: list[str] = []

    async def cancel(event: Any) -> dict[str, Any]:
        seen.append("cancel")
        return {"cancel": True}

    harness.add("a", session_before_switch=lambda: seen.append("a"))
    harness.add("b", session_before_switch=cancel)
    harness.add("c", session_before_switch=lambda: seen.append("c") or {"cancel": False})
    result = await Hooks(harness.dispatcher).session_before_switch(
        SessionBeforeSwitchEvent(reason="resume", target_session_file="/x.jsonl"), harness.ctx
    )
    assert result is not None and result.cancel is True
    assert seen == ["a", "cancel"]


async def test_cancel_or_last_replaces_earlier_results_whole(harness: PluginHarness) -> None:
    compaction = {"summary": "S", "firstKeptEntryId": "e1", "tokensBefore": 10}

    async def supplies(event: Any) -> dict[str, Any]:
        return {"compaction": compaction}

    harness.add("a", session_before_compact=supplies)
    harness.add("b", session_before_compact=lambda: {"cancel": False})
    event = SessionBeforeCompactEvent.model_validate({"preparation": {"firstKeptEntryId": "e1"}})
    result = await Hooks(harness.dispatcher).session_before_compact(event, harness.ctx)
    assert result is not None and result.compaction is None  # replaced, not merged (spec §11.4 point 2)


async def test_cancel_or_last_returns_none_without_results(harness: PluginHarness) -> None:
    harness.add("a", session_before_switch=lambda: None)
    assert (
        await harness.dispatcher.dispatch(
            "session_before_switch", SessionBeforeSwitchEvent(reason="new"), None
        )
        is None
    )


# --- BLOCK_OR_LAST (tool_call) --------------------------------------------------------------------


async def test_tool_call_block_short_circuits_and_input_mutation_chains(harness: PluginHarness) -> None:
    seen: list[str] = []

    def rewrite(event: ToolCallEvent) -> None:
        event.input["command"] = "ls -la"

    async def gate(event: ToolCallEvent) -> dict[str, Any] | None:
        seen.append(event.input["command"])
        return {"block": True, "reason": "no"}

    harness.add("rewrite", tool_call=rewrite)
    harness.add("gate", tool_call=gate)
    harness.add("never", tool_call=lambda: seen.append("never"))
    event = tool_call_event()
    result = await Hooks(harness.dispatcher).tool_call(event, harness.ctx)
    assert result is not None and (result.block, result.reason) == (True, "no")
    assert seen == ["ls -la"]
    assert event.input == {"command": "ls -la"}


async def test_tool_call_last_result_wins_without_block(harness: PluginHarness) -> None:
    harness.add("a", tool_call=lambda: {"block": False, "reason": "first"})
    harness.add("b", tool_call=lambda: {"reason": "second"})
    result = await harness.dispatcher.dispatch("tool_call", tool_call_event(), harness.ctx)
    assert result.reason == "second" and not result.block


async def test_tool_call_error_fails_closed_and_is_reported(harness: PluginHarness) -> None:
    seen: list[str] = []

    async def crashing(event: Any) -> None:
        raise PermissionError("gate crashed")

    harness.add("gate", tool_call=crashing)
    harness.add("after", tool_call=lambda: seen.append("after"))
    result = await Hooks(harness.dispatcher).tool_call(tool_call_event(), harness.ctx)
    assert result is not None and result.block is True
    assert result.reason == "Tool call blocked: plugin 'gate' failed in tool_call: gate crashed"
    assert seen == []
    assert [(r.plugin, r.hook, type(r.error).__name__) for r in harness.errors] == [
        ("gate", "tool_call", "PermissionError")
    ]


async def test_tool_call_result_with_an_unknown_key_blocks(harness: PluginHarness) -> None:
    harness.add("gate", tool_call=lambda: {"blocked": True})  # a typo of "block"
    result = await Hooks(harness.dispatcher).tool_call(tool_call_event(), harness.ctx)
    assert result is not None and result.block is True
    assert "unknown key 'blocked'" in (result.reason or "") and "ToolCallResult takes" in (
        result.reason or ""
    )
    assert [r.plugin for r in harness.errors] == ["gate"]


async def test_unknown_result_keys_are_a_plugin_error_for_every_hook(harness: PluginHarness) -> None:
    harness.add("typo", session_before_switch=lambda: {"cancelled": True})
    result = await harness.dispatcher.dispatch(
        "session_before_switch", SessionBeforeSwitchEvent(reason="new"), harness.ctx
    )
    assert result is None
    (record,) = harness.errors
    assert (record.plugin, record.hook) == ("typo", "session_before_switch")
    assert "unknown key 'cancelled'" in str(record.error)


# --- FIRST (user_bash) ----------------------------------------------------------------------------


async def test_first_result_wins_and_stops(harness: PluginHarness) -> None:
    seen: list[str] = []

    def broken() -> None:
        raise OSError("no ssh")

    async def answer(event: UserBashEvent) -> dict[str, Any]:
        return {"result": {"output": f"ran {event.command}", "exitCode": 0}}

    harness.add("broken", user_bash=broken)
    harness.add("nothing", user_bash=lambda: None)
    harness.add("answer", user_bash=answer)
    harness.add("late", user_bash=lambda: seen.append("late") or {"result": {"output": "late"}})
    result = await Hooks(harness.dispatcher).user_bash(UserBashEvent(command="ls", cwd="/"), harness.ctx)
    assert result is not None and result.result is not None
    assert (result.result.output, result.result.exit_code) == ("ran ls", 0)
    assert seen == []
    assert [r.plugin for r in harness.errors] == ["broken"]


# --- CHAIN ----------------------------------------------------------------------------------------


async def test_context_chain_each_handler_sees_previous_list(harness: PluginHarness) -> None:
    lengths: list[int] = []

    def add_one(event: ContextEvent) -> dict[str, Any]:
        lengths.append(len(event.messages))
        return {"messages": [*event.messages, UserMessage(content="extra")]}

    async def drop_first(event: ContextEvent) -> dict[str, Any]:
        lengths.append(len(event.messages))
        return {"messages": event.messages[1:]}

    harness.add("a", context=add_one)
    harness.add("b", context=lambda: None)
    harness.add("c", context=drop_first)
    event = ContextEvent(messages=[UserMessage(content="hi")])
    result = await Hooks(harness.dispatcher).context(event, harness.ctx)
    assert lengths == [1, 2]
    assert result is not None and [m.content for m in result.messages or []] == ["extra"]


async def test_context_chain_returns_none_when_unchanged(harness: PluginHarness) -> None:
    harness.add("a", context=lambda: None)
    assert await harness.dispatcher.dispatch("context", ContextEvent(messages=[]), harness.ctx) is None


async def test_before_provider_request_accepts_bare_replacement_values(harness: PluginHarness) -> None:
    harness.add("a", before_provider_request=lambda event: {**event.payload, "temperature": 0})

    async def wrap(event: BeforeProviderRequestEvent) -> Any:
        from pi_core.plugins.events import BeforeProviderRequestResult

        return BeforeProviderRequestResult(payload={"wrapped": event.payload})

    harness.add("b", before_provider_request=wrap)
    result = await Hooks(harness.dispatcher).before_provider_request(
        BeforeProviderRequestEvent(payload={"model": "m"}), harness.ctx
    )
    assert result is not None and result.payload == {"wrapped": {"model": "m", "temperature": 0}}


async def test_message_end_chain_rejects_role_change(harness: PluginHarness) -> None:
    original = AssistantMessage(content=[TextContent(text="hi")], api="x", provider="p", model="m")

    def to_user() -> dict[str, Any]:
        return {"message": {"role": "user", "content": "sneaky"}}

    async def redact(event: MessageEndEvent) -> dict[str, Any]:
        message = event.message.model_copy(update={"content": [TextContent(text="[redacted]")]})
        return {"message": message}

    harness.add("bad", message_end=to_user)
    harness.add("redact", message_end=redact)
    event = MessageEndEvent(message=original)
    result = await Hooks(harness.dispatcher).message_end(event, harness.ctx)
    assert result is not None and result.message is not None
    assert result.message.content[0].text == "[redacted]"  # type: ignore[union-attr]
    assert event.message is result.message
    [record] = harness.errors
    assert record.plugin == "bad" and "changes the role" in str(record.error)


# --- PATCH_CHAIN ----------------------------------------------------------------------------------


async def test_tool_result_patches_only_the_fields_set(harness: PluginHarness) -> None:
    details_seen: list[Any] = []

    def mark_error(event: ToolResultEvent) -> dict[str, Any]:
        return {"isError": True}

    async def replace_content(event: ToolResultEvent) -> dict[str, Any]:
        details_seen.append((event.is_error, event.details))
        return {"content": [{"type": "text", "text": "patched"}]}

    harness.add("a", tool_result=mark_error)
    harness.add("b", tool_result=replace_content)
    harness.add("c", tool_result=lambda: {"details": None})  # None = unchanged
    event = ToolResultEvent(
        tool_call_id="c", tool_name="bash", content=[TextContent(text="orig")], details={"k": 1}
    )
    result = await Hooks(harness.dispatcher).tool_result(event, harness.ctx)
    assert details_seen == [(True, {"k": 1})]
    assert result is not None and result.is_error is True and result.details is None
    assert event.details == {"k": 1} and event.content[0].text == "patched"  # type: ignore[union-attr]


# --- input: CHAIN of transforms + FIRST handled ---------------------------------------------------


async def test_input_transforms_chain_then_handled_stops(harness: PluginHarness) -> None:
    seen: list[str] = []
    harness.add("a", input=lambda event: {"action": "transform", "text": event.text.upper()})

    async def handle(event: InputEvent) -> dict[str, Any] | None:
        seen.append(event.text)
        return {"action": "handled"} if event.text == "PING" else None

    harness.add("b", input=handle)
    harness.add("c", input=lambda: seen.append("c"))
    result = await Hooks(harness.dispatcher).input(InputEvent(text="ping"), harness.ctx)
    assert result.action == "handled"
    assert seen == ["PING"]


async def test_input_outcome_is_transform_or_continue(harness: PluginHarness) -> None:
    harness.add("a", input=lambda event: {"action": "transform", "text": event.text + "!"})
    harness.add("b", input=lambda: {"action": "continue"})
    hooks = Hooks(harness.dispatcher)
    changed = await hooks.input(InputEvent(text="hi"), harness.ctx)
    assert (changed.action, changed.text) == ("transform", "hi!")
    empty = PluginHarness(strict=False)
    assert (await Hooks(empty.dispatcher).input(InputEvent(text="x"), empty.ctx)).action == "continue"


# --- ACCUMULATE -----------------------------------------------------------------------------------


async def test_before_agent_start_accumulates_messages_and_chains_system_prompt(
    harness: PluginHarness,
) -> None:
    prompts: list[str] = []

    def pirate(event: BeforeAgentStartEvent) -> dict[str, Any]:
        prompts.append(event.system_prompt)
        return {"systemPrompt": event.system_prompt + " arr", "message": {"customType": "a", "content": "A"}}

    async def second(event: BeforeAgentStartEvent) -> dict[str, Any]:
        prompts.append(event.system_prompt)
        return {"systemPrompt": "", "message": {"customType": "b", "content": "B", "display": False}}

    harness.add("a", before_agent_start=pirate)
    harness.add("b", before_agent_start=second)
    event = BeforeAgentStartEvent(prompt="hi", system_prompt="base")
    outcome = await Hooks(harness.dispatcher).before_agent_start(event, harness.ctx)
    assert prompts == ["base", "base arr"]
    assert outcome.system_prompt == "base arr"  # the empty replacement meant "no change"
    assert [(m.custom_type, m.display) for m in outcome.messages] == [("a", True), ("b", False)]


async def test_resources_discover_accumulates_paths_with_provenance(harness: PluginHarness) -> None:
    harness.add("a", resources_discover=lambda: {"skillPaths": ["/s1"], "promptPaths": ["/p1"]})

    async def more(event: ResourcesDiscoverEvent) -> dict[str, Any]:
        return {"skill_paths": [f"{event.cwd}/s2"]}

    harness.add("b", resources_discover=more)
    outcome = await Hooks(harness.dispatcher).resources_discover(
        ResourcesDiscoverEvent(cwd="/w", reason="startup"), harness.ctx
    )
    assert [(p.path, p.plugin) for p in outcome.skill_paths] == [("/s1", "a"), ("/w/s2", "b")]
    assert [(p.path, p.plugin) for p in outcome.prompt_paths] == [("/p1", "a")]
    assert outcome.theme_paths == []


# --- fire-and-forget, monitoring ------------------------------------------------------------------


async def test_thinking_level_select_is_not_awaited_but_tracked(harness: PluginHarness) -> None:
    release = asyncio.Event()
    done: list[str] = []

    async def slow(event: ThinkingLevelSelectEvent) -> None:
        await release.wait()
        done.append(event.level)

    harness.add("a", thinking_level_select=slow)
    await Hooks(harness.dispatcher).thinking_level_select(
        ThinkingLevelSelectEvent(level="high", previous_level="off"), harness.ctx
    )
    assert done == []
    release.set()
    await harness.dispatcher.drain()
    assert done == ["high"]


async def test_monitor_sees_every_handler_call_with_outcome(harness: PluginHarness) -> None:
    def broken() -> None:
        raise KeyError("x")

    harness.add("a", agent_start=lambda: None)
    harness.add("b", agent_start=broken)
    harness.add("c", tool_call=lambda: {"block": True})
    recorder = HookRecorder(harness.dispatcher)
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    await harness.dispatcher.dispatch("tool_call", tool_call_event(), harness.ctx)
    recorder.assert_sequence(("agent_start", "a"), ("agent_start", "b"), "tool_call")
    assert isinstance(recorder.calls("agent_*")[1].exception, KeyError)
    assert recorder.calls("tool_call")[0].result == {"block": True}
    recorder.close()
    await harness.dispatcher.dispatch("agent_start", AgentStartEvent(), harness.ctx)
    assert len(recorder.calls()) == 3
    with pytest.raises(AssertionError, match="not found in order"):
        recorder.assert_sequence("tool_call", "agent_start")


async def test_has_handlers(harness: PluginHarness) -> None:
    assert not harness.dispatcher.has_handlers("tool_result")
    harness.add("a", tool_result=lambda: None)
    assert Hooks(harness.dispatcher).has("tool_result")


async def test_unexpected_return_type_is_reported(harness: PluginHarness) -> None:
    harness.add("odd", tool_call=lambda: "yes")  # a string is no ToolCallResult: fail closed
    result = await harness.dispatcher.dispatch("tool_call", tool_call_event(), harness.ctx)
    assert result.block is True and "expects None, ToolCallResult or a dict" in result.reason
    harness.add("odd2", session_before_switch=lambda: 42)
    await harness.dispatcher.dispatch("session_before_switch", SessionBeforeSwitchEvent(reason="new"), None)
    assert [r.plugin for r in harness.errors] == ["odd", "odd2"]


async def test_background_dispatch_errors_surface_in_drain_when_strict() -> None:
    strict = PluginHarness(strict=True)

    def broken(event: ThinkingLevelSelectEvent) -> None:
        raise RuntimeError("late")

    strict.add("late", thinking_level_select=broken)
    await strict.hooks.thinking_level_select(
        ThinkingLevelSelectEvent(level="high", previous_level="off"), None
    )
    with pytest.raises(PluginError, match="'late' failed in hook 'thinking_level_select'"):
        await strict.dispatcher.drain()
