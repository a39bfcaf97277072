"""One test per event hook: a realistic event through the typed facade, sync and async handlers mixed."""

from __future__ import annotations

from typing import Any

import pytest
from pi_core.ai.abort import AbortController
from pi_core.ai.messages import AssistantMessage, ImageContent, TextContent, ToolResultMessage, UserMessage
from pi_core.plugins import events as ev
from pi_core.testing.plugins import PluginHarness


@pytest.fixture
def h() -> PluginHarness:
    return PluginHarness(strict=True, ctx=object())


def assistant(text: str = "hi") -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api="anthropic-messages", provider="p", model="m"
    )


async def notify_both(h: PluginHarness, hook: str, event: Any) -> list[tuple[str, Any]]:
    """Register a sync and an async handler on a NOTIFY hook; return what they saw, in order."""
    seen: list[tuple[str, Any]] = []

    async def async_handler(event: Any, ctx: Any) -> dict[str, Any]:
        seen.append(("async", event))
        return {"ignored": True}

    h.add("sync", **{hook: lambda event, ctx: seen.append(("sync", event))})
    h.add("async", **{hook: async_handler})
    result = await getattr(h.hooks, hook)(event, h.ctx)
    assert result is None  # NOTIFY: return values are ignored
    return seen


async def test_hook_session_start(h: PluginHarness) -> None:
    event = ev.SessionStartEvent(reason="resume", previous_session_file="/s/old.jsonl")
    seen = await notify_both(h, "session_start", event)
    assert [who for who, _ in seen] == ["sync", "async"]
    assert event.to_json_dict()["previousSessionFile"] == "/s/old.jsonl"


async def test_hook_resources_discover(h: PluginHarness) -> None:
    h.add("a", resources_discover=lambda event: {"themePaths": [f"{event.cwd}/themes"]})

    async def b(event: Any) -> ev.ResourcesDiscoverResult:
        return ev.ResourcesDiscoverResult(theme_paths=["/t2"], skill_paths=["/s"])

    h.add("b", resources_discover=b)
    outcome = await h.hooks.resources_discover(ev.ResourcesDiscoverEvent(cwd="/w", reason="reload"), h.ctx)
    assert [(p.path, p.plugin) for p in outcome.theme_paths] == [("/w/themes", "a"), ("/t2", "b")]
    assert [p.path for p in outcome.skill_paths] == ["/s"]


async def test_hook_session_before_switch(h: PluginHarness) -> None:
    h.add("a", session_before_switch=lambda event: {"cancel": event.reason == "new"})

    async def b(event: Any) -> None:
        raise AssertionError("not reached after a cancel")

    h.add("b", session_before_switch=b)
    result = await h.hooks.session_before_switch(ev.SessionBeforeSwitchEvent(reason="new"), h.ctx)
    assert result is not None and result.cancel is True


async def test_hook_session_before_fork(h: PluginHarness) -> None:
    async def a(event: ev.SessionBeforeForkEvent) -> dict[str, Any]:
        return {"skipConversationRestore": True}

    h.add("a", session_before_fork=a)
    h.add("b", session_before_fork=lambda event: {"cancel": event.position == "at"})
    clone = await h.hooks.session_before_fork(ev.SessionBeforeForkEvent(entry_id="e1", position="at"), h.ctx)
    assert clone is not None and clone.cancel is True and clone.skip_conversation_restore is None
    fork = await h.hooks.session_before_fork(ev.SessionBeforeForkEvent(entry_id="e1"), h.ctx)
    assert fork is not None and fork.cancel is False


async def test_hook_session_before_compact(h: PluginHarness) -> None:
    controller = AbortController()

    async def summarise(event: ev.SessionBeforeCompactEvent) -> dict[str, Any]:
        assert event.signal is controller.signal
        prep = event.preparation
        return {
            "compaction": {
                "summary": f"{len(prep.messages_to_summarize)} messages",
                "firstKeptEntryId": prep.first_kept_entry_id,
                "tokensBefore": prep.tokens_before,
            }
        }

    h.add("a", session_before_compact=lambda event: None)
    h.add("b", session_before_compact=summarise)
    event = ev.SessionBeforeCompactEvent(
        preparation=ev.CompactionPreparation(
            first_kept_entry_id="k", messages_to_summarize=[UserMessage(content="x")], tokens_before=500
        ),
        signal=controller.signal,
    )
    result = await h.hooks.session_before_compact(event, h.ctx)
    assert result is not None and result.compaction is not None
    assert (result.compaction.summary, result.compaction.tokens_before) == ("1 messages", 500)


async def test_hook_session_compact(h: PluginHarness) -> None:
    seen = await notify_both(h, "session_compact", ev.SessionCompactEvent(compaction_entry={"id": "c"}))
    assert seen[1][1].compaction_entry == {"id": "c"}


async def test_hook_session_before_tree(h: PluginHarness) -> None:
    h.add("a", session_before_tree=lambda event: {"label": "first"})

    async def b(event: ev.SessionBeforeTreeEvent) -> dict[str, Any]:
        return {"summary": {"summary": "branch"}, "label": event.preparation.target_id}

    h.add("b", session_before_tree=b)
    event = ev.SessionBeforeTreeEvent(preparation=ev.TreePreparation(target_id="t9", user_wants_summary=True))
    result = await h.hooks.session_before_tree(event, h.ctx)
    assert result is not None and result.label == "t9" and result.summary is not None
    assert result.summary.summary == "branch"


async def test_hook_session_tree(h: PluginHarness) -> None:
    seen = await notify_both(h, "session_tree", ev.SessionTreeEvent(new_leaf_id="n", old_leaf_id="o"))
    assert [e.new_leaf_id for _, e in seen] == ["n", "n"]


async def test_hook_session_shutdown(h: PluginHarness) -> None:
    seen = await notify_both(h, "session_shutdown", ev.SessionShutdownEvent(reason="quit"))
    assert len(seen) == 2


async def test_hook_input(h: PluginHarness) -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")
    h.add("a", input=lambda event: {"action": "transform", "text": event.text.strip(), "images": [image]})

    async def b(event: ev.InputEvent) -> dict[str, Any] | None:
        if event.source == "extension":
            return None
        return {"action": "transform", "text": f"[{event.text}]"}

    h.add("b", input=b)
    result = await h.hooks.input(ev.InputEvent(text="  hi  ", source="rpc"), h.ctx)
    assert (result.action, result.text, result.images) == ("transform", "[hi]", [image])


async def test_hook_before_agent_start(h: PluginHarness) -> None:
    async def a(event: ev.BeforeAgentStartEvent) -> dict[str, Any]:
        assert event.system_prompt_options is not None
        return {"systemPrompt": f"{event.system_prompt} (cwd {event.system_prompt_options.cwd})"}

    h.add("a", before_agent_start=a)
    h.add("b", before_agent_start=lambda event: {"message": {"customType": "note", "content": event.prompt}})
    event = ev.BeforeAgentStartEvent(
        prompt="do it", system_prompt="base", system_prompt_options=ev.SystemPromptOptions(cwd="/w")
    )
    outcome = await h.hooks.before_agent_start(event, h.ctx)
    assert outcome.system_prompt == "base (cwd /w)" and event.system_prompt == "base (cwd /w)"
    assert [(m.custom_type, m.content) for m in outcome.messages] == [("note", "do it")]


async def test_hook_agent_start(h: PluginHarness) -> None:
    assert len(await notify_both(h, "agent_start", ev.AgentStartEvent())) == 2


async def test_hook_agent_end(h: PluginHarness) -> None:
    seen = await notify_both(
        h, "agent_end", ev.AgentEndEvent(messages=[UserMessage(content="q"), assistant()])
    )
    assert [m.role for m in seen[0][1].messages] == ["user", "assistant"]


async def test_hook_turn_start(h: PluginHarness) -> None:
    seen = await notify_both(h, "turn_start", ev.TurnStartEvent(turn_index=2, timestamp=1))
    assert seen[0][1].to_json_dict()["turnIndex"] == 2


async def test_hook_turn_end(h: PluginHarness) -> None:
    """BOUNDARY: each handler sees the proposal so far; a field it returns replaces that field."""
    result = ToolResultMessage(tool_call_id="c", tool_name="bash")
    note = ev.SettleEntry(type="custom", custom_type="note", data=1)
    seen: list[tuple[list[str | None], bool]] = []

    def first(event: ev.TurnEndEvent) -> dict[str, Any]:
        seen.append(([e.custom_type for e in event.entries], event.continue_))
        return {"entries": [note], "continue": True}

    async def second(event: ev.TurnEndEvent) -> ev.TurnEndResult:
        seen.append(([e.custom_type for e in event.entries], event.continue_))
        assert event.tool_results[0].tool_call_id == "c"
        return ev.TurnEndResult(continue_=False)  # entries left out: kept

    h.add("first", turn_end=first)
    h.add("second", turn_end=second)
    event = ev.TurnEndEvent(turn_index=0, message=assistant(), tool_results=[result])
    outcome = await h.hooks.turn_end(event, h.ctx)
    assert seen == [([], False), (["note"], True)]
    assert outcome.entries == [note] and outcome.continue_ is False


async def test_hook_message_start(h: PluginHarness) -> None:
    seen = await notify_both(h, "message_start", ev.MessageStartEvent(message=UserMessage(content="x")))
    assert seen[0][1].message.role == "user"


async def test_hook_message_update(h: PluginHarness) -> None:
    event = ev.MessageUpdateEvent(message=assistant("par"), assistant_message_event={"type": "text_delta"})
    seen = await notify_both(h, "message_update", event)
    assert seen[1][1].assistant_message_event == {"type": "text_delta"}


async def test_hook_message_end(h: PluginHarness) -> None:
    h.add("a", message_end=lambda event: {"message": assistant("one")})

    async def b(event: ev.MessageEndEvent) -> ev.MessageEndResult:
        text = event.message.content[0].text  # type: ignore[union-attr]
        return ev.MessageEndResult(message=assistant(text + " two"))

    h.add("b", message_end=b)
    result = await h.hooks.message_end(ev.MessageEndEvent(message=assistant("zero")), h.ctx)
    assert result is not None and result.message.content[0].text == "one two"  # type: ignore[union-attr]


async def test_hook_context(h: PluginHarness) -> None:
    async def drop_custom(event: ev.ContextEvent) -> dict[str, Any]:
        return {"messages": [m for m in event.messages if m.role != "custom"]}

    h.add(
        "a",
        context=lambda event: {
            "messages": [*event.messages, {"role": "custom", "customType": "x", "content": "c"}]
        },
    )
    h.add("b", context=drop_custom)
    result = await h.hooks.context(ev.ContextEvent(messages=[UserMessage(content="u")]), h.ctx)
    assert result is not None and [m.role for m in result.messages or []] == ["user"]


async def test_hook_before_provider_request(h: PluginHarness) -> None:
    async def a(event: ev.BeforeProviderRequestEvent) -> dict[str, Any]:
        return {**event.payload, "max_tokens": 10}

    h.add("a", before_provider_request=a)
    h.add("b", before_provider_request=lambda event: None)
    result = await h.hooks.before_provider_request(ev.BeforeProviderRequestEvent(payload={"m": 1}), h.ctx)
    assert result is not None and result.payload == {"m": 1, "max_tokens": 10}


async def test_hook_provider_stream_event(h: PluginHarness) -> None:
    event = ev.ProviderStreamEvent(provider="p", api="anthropic-messages", model="m", data={"type": "ping"})
    seen = await notify_both(h, "provider_stream_event", event)
    assert [who for who, _ in seen] == ["sync", "async"] and seen[0][1].data == {"type": "ping"}


async def test_hook_after_provider_response(h: PluginHarness) -> None:
    event = ev.AfterProviderResponseEvent(status=429, headers={"retry-after": "3"})
    seen = await notify_both(h, "after_provider_response", event)
    assert seen[0][1].headers["retry-after"] == "3"


async def test_hook_tool_execution_start(h: PluginHarness) -> None:
    event = ev.ToolExecutionStartEvent(tool_call_id="c", tool_name="nope", args={"x": 1})
    assert len(await notify_both(h, "tool_execution_start", event)) == 2


async def test_hook_tool_call(h: PluginHarness) -> None:
    async def gate(event: ev.ToolCallEvent) -> dict[str, Any] | None:
        if "sudo" in event.input.get("command", ""):
            return {"block": True, "reason": "sudo is not allowed"}
        return None

    h.add("normalise", tool_call=lambda event: event.input.update(command=event.input["command"].strip()))
    h.add("gate", tool_call=gate)
    allowed = ev.ToolCallEvent(tool_call_id="1", tool_name="bash", input={"command": " ls "})
    assert await h.hooks.tool_call(allowed, h.ctx) is None and allowed.input["command"] == "ls"
    blocked = await h.hooks.tool_call(
        ev.ToolCallEvent(tool_call_id="2", tool_name="bash", input={"command": "sudo rm"}), h.ctx
    )
    assert blocked is not None and blocked.block and blocked.reason == "sudo is not allowed"


async def test_hook_tool_execution_update(h: PluginHarness) -> None:
    event = ev.ToolExecutionUpdateEvent(tool_call_id="c", tool_name="bash", partial_result={"content": []})
    assert len(await notify_both(h, "tool_execution_update", event)) == 2


async def test_hook_tool_result(h: PluginHarness) -> None:
    async def a(event: ev.ToolResultEvent) -> dict[str, Any]:
        return {"details": {"exit": 1}}

    h.add("a", tool_result=a)
    h.add("b", tool_result=lambda event: {"isError": event.details == {"exit": 1}})
    event = ev.ToolResultEvent(tool_call_id="c", tool_name="bash", content=[TextContent(text="out")])
    result = await h.hooks.tool_result(event, h.ctx)
    assert result is not None and result.is_error is True and result.details == {"exit": 1}
    assert result.content is None  # not patched


async def test_hook_tool_execution_end(h: PluginHarness) -> None:
    event = ev.ToolExecutionEndEvent(
        tool_call_id="c", tool_name="bash", result={"content": []}, is_error=True
    )
    seen = await notify_both(h, "tool_execution_end", event)
    assert seen[0][1].is_error


async def test_hook_model_select(h: PluginHarness) -> None:
    event = ev.ModelSelectEvent(model={"id": "m2"}, previous_model={"id": "m1"}, source="cycle")
    seen = await notify_both(h, "model_select", event)
    assert seen[1][1].source == "cycle"


async def test_hook_thinking_level_select(h: PluginHarness) -> None:
    seen: list[str] = []

    async def b(event: ev.ThinkingLevelSelectEvent) -> None:
        seen.append(f"async {event.level}")

    h.add("a", thinking_level_select=lambda event: seen.append(f"sync {event.previous_level}"))
    h.add("b", thinking_level_select=b)
    await h.hooks.thinking_level_select(
        ev.ThinkingLevelSelectEvent(level="low", previous_level="high"), h.ctx
    )
    await h.dispatcher.drain()
    assert seen == ["sync high", "async low"]


async def test_hook_user_bash(h: PluginHarness) -> None:
    class Remote:
        async def exec(self, command: str, cwd: str, **options: Any) -> dict[str, int]:
            return {"exitCode": 0}

    remote = Remote()
    h.add("a", user_bash=lambda event: None if event.exclude_from_context else {"operations": remote})

    async def b(event: ev.UserBashEvent) -> dict[str, Any]:
        return {"result": {"output": "local", "exitCode": 0}}

    h.add("b", user_bash=b)
    result = await h.hooks.user_bash(ev.UserBashEvent(command="ls", cwd="/"), h.ctx)
    assert result is not None and result.operations is remote and result.result is None
    hidden = await h.hooks.user_bash(
        ev.UserBashEvent(command="ls", cwd="/", exclude_from_context=True), h.ctx
    )
    assert hidden is not None and hidden.result is not None and hidden.result.output == "local"
