"""The loop end to end on a real SDK provider (loopback server): tool round trip and abort."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_core.agent.agent import Agent, AgentState
from pi_core.agent.loop import AgentLoopConfig
from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.builtin_providers import register_builtin_api_providers
from pi_core.ai.messages import AssistantMessage, TextContent, ToolResultMessage
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, Text, ToolUse, Turn, text_turn, tool_turn


async def echo(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=f"echo {params['text']}")])


ECHO = AgentTool(
    name="echo",
    label="echo",
    description="Echo text",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=echo,
)


def agent_for(server: LoopbackLLMServer, api: str) -> Agent:
    register_builtin_api_providers()
    model = server.model(api)
    config = AgentLoopConfig(model=model, api_key=LOOPBACK_API_KEY, max_retries=0)
    return Agent(AgentState(model=model, tools=[ECHO], system_prompt="sys"), config)


async def test_loop_tool_round_trip_on_each_api(pi_llm_server: LoopbackLLMServer) -> None:
    for api in ("anthropic-messages", "openai-completions", "openai-responses"):
        pi_llm_server.add(
            tool_turn(ToolUse("echo", {"text": "a"}, id="call_1"), ToolUse("echo", {"bad": 1}, id="call_2")),
            text_turn("all done"),
        )
        agent = agent_for(pi_llm_server, api)
        await agent.prompt("go")
        roles = [m.role for m in agent.state.messages]
        assert roles == ["user", "assistant", "toolResult", "toolResult", "assistant"], api
        ok, bad = (m for m in agent.state.messages if isinstance(m, ToolResultMessage))
        assert ok.content[0].text == "echo a" and not ok.is_error  # type: ignore[union-attr]
        assert bad.is_error and "Validation failed" in bad.content[0].text  # type: ignore[union-attr]
        follow_up_body = pi_llm_server.requests[-1].body
        assert "echo a" in str(follow_up_body)


async def test_loop_abort_mid_stream_on_real_provider(pi_llm_server: LoopbackLLMServer) -> None:
    pi_llm_server.add(Turn(blocks=[Text("z" * 300, chunks=150)], delay=0.01))
    agent = agent_for(pi_llm_server, "openai-completions")
    task = asyncio.create_task(agent.prompt("go"))
    await asyncio.sleep(0.3)
    agent.abort()
    await asyncio.wait_for(task, 5)
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    assert last.content[0].text.startswith("z")  # type: ignore[union-attr]


async def test_kept_message_start_does_not_grow_on_each_api(pi_llm_server: LoopbackLLMServer) -> None:
    # As in pi's captures: message_start of an assistant reply has content [] and zero usage.
    for api in ("anthropic-messages", "openai-completions", "openai-responses"):
        pi_llm_server.add(text_turn("Hello world"))
        agent = agent_for(pi_llm_server, api)
        starts: list[AssistantMessage] = []

        def keep(event: Any, *_: Any, starts: list[AssistantMessage] = starts) -> None:
            if event.type == "message_start" and event.message.role == "assistant":
                starts.append(event.message)

        agent.subscribe(keep)
        await agent.prompt("go")
        (start,) = starts
        assert start.content == [] and start.usage.total_tokens == 0, api
        final = agent.state.messages[-1]
        assert isinstance(final, AssistantMessage) and final.content[0].text == "Hello world"  # type: ignore[union-attr]


async def test_broken_tool_arguments_get_a_validation_error_and_the_run_goes_on(
    pi_llm_server: LoopbackLLMServer,
) -> None:
    # pi 1.6.0: a cut-off object, text that is not JSON and an array each get an error result the
    # model can act on; the run does not stop with stopReason "error".
    for api in ("anthropic-messages", "openai-completions", "openai-responses"):
        pi_llm_server.add(
            tool_turn(
                ToolUse("echo", '{"text": "a"', id="call_1"),
                ToolUse("echo", "not json", id="call_2"),
                ToolUse("echo", '["a"]', id="call_3"),
            ),
            text_turn("understood"),
        )
        agent = agent_for(pi_llm_server, api)
        await agent.prompt("go")
        roles = [m.role for m in agent.state.messages]
        assert roles == ["user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"], api
        results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
        texts = [m.content[0].text for m in results]  # type: ignore[union-attr]
        assert all(m.is_error for m in results)
        assert all(text.startswith('Invalid arguments for tool "echo": ') for text in texts), texts
        assert texts[0].endswith('Received arguments:\n{"text": "a"')
        assert texts[2].startswith('Invalid arguments for tool "echo": Tool arguments must be a JSON object')
        last = agent.state.messages[-1]
        assert isinstance(last, AssistantMessage) and last.stop_reason == "stop"


async def test_tool_calls_cut_by_the_output_limit_are_not_run(pi_llm_server: LoopbackLLMServer) -> None:
    ran: list[Any] = []

    async def record(
        tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> AgentToolResult:
        ran.append(params)
        return AgentToolResult(content=[TextContent(text="ran")])

    pi_llm_server.add(
        Turn(blocks=[ToolUse("echo", {"text": "complete-looking"}, id="call_1")], stop_reason="length"),
        text_turn("again"),
    )
    agent = agent_for(pi_llm_server, "openai-completions")
    agent.state.tools = [AgentTool(**{**ECHO.__dict__, "execute": record})]
    await agent.prompt("go")
    assert ran == []
    result = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
    assert result.is_error
    assert result.content[0].text.startswith('Tool call "echo" was not executed: the response hit the output')  # type: ignore[union-attr]
    assert [m.role for m in agent.state.messages][-1] == "assistant"
