from __future__ import annotations

import asyncio
from typing import Any

from pi_core.agent.events import AgentEvent
from pi_core.agent.loop import (
    AgentContext,
    AgentLoopConfig,
    BeforeToolCallResult,
    agent_loop,
    run_agent_loop,
)
from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError
from pi_core.ai.abort import AbortController, AbortSignal
from pi_core.ai.messages import AgentMessage, TextContent, ToolResultMessage, UserMessage
from pi_core.testing.faux import FauxProvider, faux_model, text_message, tool_call_message
from pydantic import BaseModel


class SleepArgs(BaseModel):
    seconds: float
    label: str


def sleep_tool(name: str = "sleep", log: list[str] | None = None) -> AgentTool:
    async def execute(
        tool_call_id: str, params: Any, signal: AbortSignal | None, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        if log is not None:
            log.append(f"start {params.label}")
        if on_update is not None:
            on_update(AgentToolResult(content=[TextContent(text=f"working {params.label}")]))
        try:
            if signal is not None:
                await asyncio.wait_for(signal.wait(), timeout=params.seconds)
                raise ToolError("Operation aborted")
            await asyncio.sleep(params.seconds)
        except TimeoutError:
            pass
        if log is not None:
            log.append(f"end {params.label}")
        return AgentToolResult(
            content=[TextContent(text=f"slept {params.label}")], details={"label": params.label}
        )

    return AgentTool(name=name, label=name, description="sleep", parameters=SleepArgs, execute=execute)


def user(text: str) -> UserMessage:
    return UserMessage(content=text)


def setup(responses: list[Any], **config: Any) -> tuple[FauxProvider, AgentLoopConfig]:
    provider = FauxProvider(responses=responses)
    return provider, AgentLoopConfig(model=faux_model(), stream_fn=provider.stream, **config)


async def run(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
) -> tuple[list[AgentEvent], list[AgentMessage]]:
    events: list[AgentEvent] = []

    async def emit(event: AgentEvent) -> None:
        events.append(event)

    added = await run_agent_loop(prompts, context, config, emit, signal)
    return events, added


async def test_loop_text_reply_event_order() -> None:
    _, config = setup([text_message("hello there")])
    events, added = await run([user("hi")], AgentContext(), config)
    kinds = [e.type for e in events]
    assert kinds[:4] == ["agent_start", "turn_start", "message_start", "message_end"]
    assert kinds[-3:] == ["message_end", "turn_end", "agent_end"]
    assert "message_update" in kinds
    assert [m.role for m in added] == ["user", "assistant"]
    assert added[1].content[0].text == "hello there"  # type: ignore[union-attr]


async def test_loop_parallel_tools_results_in_call_order() -> None:
    log: list[str] = []
    calls = tool_call_message(
        ("c1", "sleep", {"seconds": 0.15, "label": "one"}),
        ("c2", "sleep", {"seconds": 0.01, "label": "two"}),
        ("c3", "missing", {}),
    )
    _, config = setup([calls, text_message("done")])
    events, added = await run([user("go")], AgentContext(tools=[sleep_tool(log=log)]), config)
    starts = [e.tool_call_id for e in events if e.type == "tool_execution_start"]
    ends = [e.tool_call_id for e in events if e.type == "tool_execution_end"]
    assert starts == ["c1", "c2", "c3"]
    assert ends == ["c3", "c2", "c1"]  # immediate error first, then completion order
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["c1", "c2", "c3"]
    assert results[2].is_error and results[2].content[0].text == "Tool missing not found"  # type: ignore[union-attr]
    assert log[:2] == ["start one", "start two"]
    assert any(e.type == "tool_execution_update" for e in events)


async def test_loop_schema_validation_error_result() -> None:
    calls = tool_call_message(("c1", "sleep", {"seconds": "soon"}))
    _, config = setup([calls, text_message("ok")])
    _, added = await run([user("go")], AgentContext(tools=[sleep_tool()]), config)
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    # A pydantic tool is checked against its JSON schema, with pi 1.6.0's wording: the missing
    # required field first, then the properties in the schema's order.
    assert text.startswith('Validation failed for tool "sleep":\n  - label: missing\n  - seconds: expected ')
    assert text.endswith('Received arguments:\n{\n  "seconds": "soon"\n}')


async def test_loop_json_schema_dict_coerces_and_validates() -> None:
    seen: list[Any] = []

    async def execute(
        tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        seen.append(params)
        return AgentToolResult(content=[TextContent(text="ok")])

    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "mode": {"type": "string", "enum": ["a", "b"]}},
        "required": ["n"],
        "additionalProperties": False,
    }
    tool = AgentTool(name="t", label="t", description="t", parameters=schema, execute=execute)
    calls = tool_call_message(("c1", "t", {"n": "5", "mode": "a"}), ("c2", "t", {"mode": "z", "x": 1}))
    _, config = setup([calls, text_message("ok")])
    _, added = await run([user("go")], AgentContext(tools=[tool]), config)
    assert seen == [{"n": 5, "mode": "a"}]
    bad = [m for m in added if isinstance(m, ToolResultMessage)][1]
    text = bad.content[0].text  # type: ignore[union-attr]
    assert '  - n: missing\n  - mode: expected one of ["a","b"]\n  - x: unknown field\n' in text


async def test_loop_before_tool_call_blocks_and_after_patches() -> None:
    async def before(ctx: Any, signal: Any) -> BeforeToolCallResult | None:
        if ctx.args.label == "blocked":
            return BeforeToolCallResult(block=True, reason="nope")
        return None

    async def after(ctx: Any, signal: Any) -> Any:
        from pi_core.agent.loop import AfterToolCallResult

        return AfterToolCallResult(content=[TextContent(text="patched")])

    calls = tool_call_message(
        ("c1", "sleep", {"seconds": 0, "label": "blocked"}), ("c2", "sleep", {"seconds": 0, "label": "x"})
    )
    _, config = setup([calls, text_message("ok")], before_tool_call=before, after_tool_call=after)
    _, added = await run([user("go")], AgentContext(tools=[sleep_tool()]), config)
    r1, r2 = [m for m in added if isinstance(m, ToolResultMessage)]
    assert r1.is_error and r1.content[0].text == "nope"  # type: ignore[union-attr]
    assert not r2.is_error and r2.content[0].text == "patched"  # type: ignore[union-attr]


async def test_loop_steering_after_tool_batch_and_follow_up_when_stopping() -> None:
    steering: list[AgentMessage] = []
    follow: list[AgentMessage] = []
    provider, config = setup(
        [
            tool_call_message(
                ("c1", "sleep", {"seconds": 0.05, "label": "a"}),
                ("c2", "sleep", {"seconds": 0.0, "label": "b"}),
            ),
            text_message("after steer"),
            text_message("after follow-up"),
        ],
        get_steering_messages=lambda: [steering.pop(0)] if steering else [],
        get_follow_up_messages=lambda: [follow.pop(0)] if follow else [],
    )
    order: list[str] = []

    async def emit(event: AgentEvent) -> None:
        if event.type == "tool_execution_start" and event.tool_call_id == "c1":
            steering.append(user("steer now"))
            follow.append(user("later"))
        if event.type in ("message_end", "turn_end", "tool_execution_end"):
            label = event.type
            if event.type == "message_end":
                label += f":{event.message.role}"
            order.append(label)

    await run_agent_loop([user("go")], AgentContext(tools=[sleep_tool()]), config, emit)
    # Both tools finish (no skipping), then turn_end, then the steering message, then the next call.
    i_turn_end = order.index("turn_end")
    assert order[:i_turn_end].count("tool_execution_end") == 2
    assert order[i_turn_end + 1] == "message_end:user"
    # Second request saw the steering message; third saw the follow-up.
    second_ctx = provider.requests[1][0]
    assert second_ctx.messages[-1].content == "steer now"  # type: ignore[union-attr]
    third_ctx = provider.requests[2][0]
    assert third_ctx.messages[-1].content == "later"  # type: ignore[union-attr]


async def test_loop_abort_during_running_tool() -> None:
    controller = AbortController()
    calls = tool_call_message(("c1", "sleep", {"seconds": 5, "label": "long"}))
    _, config = setup([calls, text_message("never")])

    async def emit(event: AgentEvent) -> None:
        if event.type == "tool_execution_start":
            asyncio.get_running_loop().call_later(0.05, controller.abort)

    added = await asyncio.wait_for(
        run_agent_loop([user("go")], AgentContext(tools=[sleep_tool()]), config, emit, controller.signal), 2
    )
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert result.is_error and result.content[0].text == "Operation aborted"  # type: ignore[union-attr]
    last = added[-1]
    assert last.role == "assistant" and last.stop_reason == "aborted"  # type: ignore[union-attr]
    assert last.content == []  # type: ignore[union-attr]


async def test_agent_loop_iterator_yields_events() -> None:
    _, config = setup([text_message("x")])
    kinds = [e.type async for e in agent_loop([user("hi")], AgentContext(), config)]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"


async def test_loop_sequential_mode_and_terminate() -> None:
    log: list[str] = []

    async def stop_tool(
        tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        log.append(f"run {tool_call_id}")
        return AgentToolResult(content=[TextContent(text="stop")], terminate=True)

    tool = AgentTool(
        name="halt",
        label="halt",
        description="halt",
        parameters={"type": "object", "properties": {}},
        execute=stop_tool,
        execution_mode="sequential",
    )
    calls = tool_call_message(("c1", "halt", {}), ("c2", "halt", {}))
    provider, config = setup([calls])
    events, added = await run([user("go")], AgentContext(tools=[tool]), config)
    kinds = [e.type for e in events if e.type.startswith("tool_execution") or e.type == "message_end"]
    # sequential: start, end, result message for c1 before c2 starts
    assert kinds[kinds.index("tool_execution_start") :][:4] == [
        "tool_execution_start",
        "tool_execution_end",
        "message_end",
        "tool_execution_start",
    ]
    assert log == ["run c1", "run c2"]
    # every result asked to terminate: no second model call
    assert len(provider.requests) == 1 and added[-1].role == "toolResult"
    assert events[-1].type == "agent_end"


async def test_loop_continue_preconditions() -> None:
    import pytest
    from pi_core.agent.loop import agent_loop_continue
    from pi_core.ai.messages import AssistantMessage

    _, config = setup([])
    with pytest.raises(ValueError, match="Cannot continue: no messages in context"):
        agent_loop_continue(AgentContext(), config)
    done = AssistantMessage(api="faux", provider="faux", model="faux-1")
    with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
        agent_loop_continue(AgentContext(messages=[user("x"), done]), config)


async def test_message_start_is_a_snapshot_taken_before_anything_streamed() -> None:
    # pi's message_start carries the assistant message as it was when the stream opened
    # (content: [], zero usage); a consumer that keeps the event must not see it grow afterwards.
    _, config = setup([text_message("hello there")])
    events, added = await run([user("hi")], AgentContext(), config)
    start = next(e for e in events if e.type == "message_start" and e.message.role == "assistant")  # type: ignore[union-attr]
    assert start.message.content == []  # type: ignore[union-attr]
    assert start.message.usage.output == 0  # type: ignore[union-attr]
    assert start.message is not added[1]  # type: ignore[union-attr]
    end = next(e for e in events if e.type == "message_end" and e.message.role == "assistant")  # type: ignore[union-attr]
    assert end.message is added[1]  # type: ignore[union-attr]
    assert added[1].content[0].text == "hello there"  # type: ignore[union-attr]


async def test_before_tool_call_can_replace_the_arguments() -> None:
    async def before(ctx: Any, signal: Any) -> BeforeToolCallResult | None:
        return BeforeToolCallResult(args=SleepArgs(seconds=0, label=ctx.args.label + "-rewritten"))

    calls = tool_call_message(("c1", "sleep", {"seconds": 0, "label": "orig"}))
    _, config = setup([calls, text_message("ok")], before_tool_call=before)
    log: list[str] = []
    _, added = await run([user("go")], AgentContext(tools=[sleep_tool(log=log)]), config)
    (result,) = [m for m in added if isinstance(m, ToolResultMessage)]
    assert log == ["start orig-rewritten", "end orig-rewritten"]
    assert result.content[0].text == "slept orig-rewritten"  # type: ignore[union-attr]


async def test_a_tool_returning_text_or_nonsense_never_ends_the_run() -> None:
    async def says(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        return "plain text" if params["kind"] == "str" else 42

    schema = {"type": "object", "properties": {"kind": {"type": "string"}}}
    tool = AgentTool(name="says", label="says", description="d", parameters=schema, execute=says)
    calls = tool_call_message(("c1", "says", {"kind": "str"}), ("c2", "says", {"kind": "int"}))
    _, config = setup([calls, text_message("done")])
    _, added = await run([user("go")], AgentContext(tools=[tool]), config)
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert [(r.is_error, r.content[0].text) for r in results] == [  # type: ignore[union-attr]
        (False, "plain text"),
        (True, "Tool says returned int; execute must return an AgentToolResult or a str"),
    ]
    assert added[-1].content[0].text == "done"  # type: ignore[union-attr]


def test_tool_json_schema_is_made_once_per_parameter_model() -> None:
    made: list[str] = []

    class Args(BaseModel):
        path: str

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            made.append(cls.__name__)
            return super().model_json_schema(*args, **kwargs)

    first, second = sleep_tool("a"), sleep_tool("b")
    first.parameters = second.parameters = Args
    schema = first.json_schema()
    assert schema["properties"]["path"]["type"] == "string"
    assert second.json_schema() is schema and first.json_schema() is schema
    assert made == ["Args"]
    assert sleep_tool().json_schema() == SleepArgs.model_json_schema()


async def test_loop_gives_the_event_loop_a_turn_during_a_burst_of_ready_events() -> None:
    """A read holding many events is handed over without waiting; handling them must still let
    other callbacks (a key, a redraw) run every STREAM_SLICE seconds, not only after the burst."""
    import time

    from pi_core.ai.event_stream import AssistantMessageEventStream
    from pi_core.ai.messages import AssistantMessage, Usage
    from pi_core.ai.provider import DoneEvent, StartEvent, TextDeltaEvent, TextEndEvent, TextStartEvent

    def burst(model: Any, context: Any, options: Any) -> AssistantMessageEventStream:
        out = AssistantMessageEventStream()
        partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id, usage=Usage())
        current = TextContent(text="")
        partial.content.append(current)
        out.push(StartEvent(partial=partial))
        out.push(TextStartEvent(content_index=0, partial=partial))
        for _ in range(40):
            current.text += "tok "
            out.push(TextDeltaEvent(content_index=0, delta="tok ", partial=partial))
        out.push(TextEndEvent(content_index=0, content=current.text, partial=partial))
        out.push(DoneEvent(reason="stop", message=partial))
        return out

    updates = 0
    seen_at: list[int] = []

    async def emit(event: AgentEvent) -> None:
        nonlocal updates
        if event.type == "message_update":
            updates += 1
            busy_until = time.monotonic() + 0.001  # each event costs the loop work, as drawing does
            while time.monotonic() < busy_until:
                pass

    def other_callback() -> None:
        seen_at.append(updates)

    config = AgentLoopConfig(model=faux_model(), stream_fn=burst)
    asyncio.get_running_loop().call_later(0.001, other_callback)
    await run_agent_loop([user("hi")], AgentContext("", [], []), config, emit)
    assert updates == 42 and seen_at and seen_at[0] < 10
