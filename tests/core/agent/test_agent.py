from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pi_core.agent.agent import Agent, AgentState
from pi_core.agent.events import AgentEvent
from pi_core.agent.loop import AgentLoopConfig
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AssistantMessage, UserMessage
from pi_core.testing.faux import FauxProvider, faux_model, text_message


def make_agent(responses: list[Any], delay: float = 0.0, **state: Any) -> tuple[Agent, FauxProvider]:
    provider = FauxProvider(responses=responses, delay=delay)
    model = faux_model()
    agent = Agent(AgentState(model=model, **state), AgentLoopConfig(model=model, stream_fn=provider.stream))
    return agent, provider


async def test_agent_prompt_appends_transcript_and_awaits_listeners() -> None:
    agent, _ = make_agent([text_message("hello")])
    seen: list[str] = []

    async def slow(event: AgentEvent, signal: AbortSignal) -> None:
        await asyncio.sleep(0)
        seen.append(f"a:{event.type}")

    def fast(event: AgentEvent, signal: AbortSignal) -> None:
        seen.append(f"b:{event.type}")

    agent.subscribe(slow)
    unsubscribe = agent.subscribe(fast)
    await agent.prompt("hi")
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert seen[:2] == ["a:agent_start", "b:agent_start"]
    assert seen[-1] == "b:agent_end"
    assert not agent.state.is_streaming and agent.signal is None
    unsubscribe()
    assert fast not in agent._listeners


async def test_agent_refuses_concurrent_prompt_and_bad_continue() -> None:
    agent, _ = make_agent([text_message("slow reply " * 5)], delay=0.01)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.sleep(0.02)
    with pytest.raises(RuntimeError, match=r"Agent is already processing a prompt\. Use steer"):
        await agent.prompt("again")
    with pytest.raises(RuntimeError, match=r"Agent is already processing\. Wait for completion"):
        await agent.continue_()
    await task
    with pytest.raises(RuntimeError, match="Cannot continue from message role: assistant"):
        await agent.continue_()
    agent.reset()
    with pytest.raises(RuntimeError, match="No messages to continue from"):
        await agent.continue_()


async def test_agent_steer_and_follow_up_queues() -> None:
    agent, provider = make_agent(
        [text_message("one " * 20), text_message("two"), text_message("three")], delay=0.005
    )
    agent.follow_up_mode = "all"
    task = asyncio.create_task(agent.prompt("start"))
    await asyncio.sleep(0.01)
    agent.steer(UserMessage(content="steer-1"))
    agent.follow_up(UserMessage(content="fu-1"))
    agent.follow_up(UserMessage(content="fu-2"))
    await task
    texts = [m.content for m in agent.state.messages if isinstance(m, UserMessage)]
    assert texts[1:] == ["steer-1", "fu-1", "fu-2"]
    assert [m.role for m in agent.state.messages].count("assistant") == 3
    # the follow-ups arrived together ("all" mode) in the third request
    assert [m.content for m in provider.requests[2][0].messages[-2:]] == ["fu-1", "fu-2"]  # type: ignore[union-attr]
    assert not agent.has_queued_messages()


async def test_agent_abort_during_streaming_records_aborted_message() -> None:
    agent, _ = make_agent([text_message("x" * 400)], delay=0.01)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.sleep(0.05)
    agent.abort()
    await task
    await agent.wait_for_idle()
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    assert last.content and 0 < len(last.content[0].text) < 400  # type: ignore[union-attr]
    assert agent.state.error_message == "Request was aborted"


async def test_agent_loop_failure_becomes_synthetic_message() -> None:
    agent, _ = make_agent([])  # the provider raises: no scripted response
    events: list[str] = []
    agent.subscribe(lambda event, signal: events.append(event.type))
    await agent.prompt("hi")
    assert events[-1] == "agent_end"
    last = agent.state.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert last.error_message == "FauxProvider has no scripted response left"


async def test_agent_continue_from_assistant_uses_queued_steering() -> None:
    agent, provider = make_agent([text_message("a"), text_message("b")])
    await agent.prompt("hi")
    agent.steer(UserMessage(content="more"))
    await agent.continue_()
    assert [m.role for m in agent.state.messages] == ["user", "assistant", "user", "assistant"]
    assert len(provider.requests) == 2


async def test_agent_thinking_level_reaches_provider() -> None:
    agent, provider = make_agent([text_message("a")], thinking_level="high")
    await agent.prompt("hi")
    assert provider.requests[0][1].reasoning == "high"
