"""The stateful ``Agent`` (pi-agent-core ``Agent``, spec §3.6): transcript, tools, queues, abort, listeners.

Each run builds a loop config from the current state. Events first update the state (the reducer),
then every listener is awaited in subscription order; ``wait_for_idle`` resolves only after the
``agent_end`` listeners finished.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pi_core.agent.events import AgentEndEvent, AgentEvent
from pi_core.agent.loop import (
    AgentContext,
    AgentLoopConfig,
    default_convert_to_llm,
    run_agent_loop,
    run_agent_loop_continue,
)
from pi_core.agent.tools import AgentTool
from pi_core.ai.abort import AbortController, AbortSignal
from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    UserMessage,
)
from pi_core.ai.provider import Model, ThinkingLevel

QueueMode = Literal["one-at-a-time", "all"]
Listener = Callable[[AgentEvent, AbortSignal], Awaitable[None] | None]

UNKNOWN_MODEL = Model(
    id="unknown", name="unknown", api="unknown", provider="unknown", input=[], context_window=0, max_tokens=0
)


class PendingMessageQueue:
    """A steering or follow-up queue; ``one-at-a-time`` drains the first message, ``all`` everything."""

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self.messages: list[AgentMessage] = []

    def enqueue(self, message: AgentMessage) -> None:
        self.messages.append(message)

    def has_items(self) -> bool:
        return bool(self.messages)

    def drain(self) -> list[AgentMessage]:
        if self.mode == "all":
            drained, self.messages = self.messages, []
            return drained
        if not self.messages:
            return []
        return [self.messages.pop(0)]

    def clear(self) -> None:
        self.messages = []


@dataclass
class AgentState:
    system_prompt: str = ""
    model: Model = field(default_factory=lambda: UNKNOWN_MODEL.model_copy())
    thinking_level: ThinkingLevel = "off"
    tools: list[AgentTool] = field(default_factory=list)
    messages: list[AgentMessage] = field(default_factory=list)
    is_streaming: bool = False
    streaming_message: AgentMessage | None = None
    pending_tool_calls: set[str] = field(default_factory=set)
    error_message: str | None = None


class Agent:
    """Owns the transcript and runs the loop; see pi's ``Agent`` for the semantics copied here.

    ``loop_config`` supplies everything that is not state (convert_to_llm, callbacks, stream_fn, ...);
    ``model`` and ``reasoning`` in it are overwritten from the state on every run.
    """

    def __init__(
        self,
        state: AgentState | None = None,
        loop_config: AgentLoopConfig | None = None,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
    ) -> None:
        self.state = state or AgentState()
        self.loop_config = loop_config or AgentLoopConfig(
            model=self.state.model, convert_to_llm=default_convert_to_llm
        )
        self.steering_queue = PendingMessageQueue(steering_mode)
        self.follow_up_queue = PendingMessageQueue(follow_up_mode)
        self._listeners: list[Listener] = []
        self._controller: AbortController | None = None
        self._idle: asyncio.Event = asyncio.Event()
        self._idle.set()

    # --- listeners and queues ---------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener (awaited in subscription order); returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def steering_mode(self) -> QueueMode:
        return self.steering_queue.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self.steering_queue.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self.follow_up_queue.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self.follow_up_queue.mode = mode

    def steer(self, message: AgentMessage) -> None:
        """Deliver after the current tool batch (before the next model call)."""
        self.steering_queue.enqueue(message)

    def follow_up(self, message: AgentMessage) -> None:
        """Deliver only when the agent would otherwise stop."""
        self.follow_up_queue.enqueue(message)

    def clear_steering_queue(self) -> None:
        self.steering_queue.clear()

    def clear_follow_up_queue(self) -> None:
        self.follow_up_queue.clear()

    def clear_all_queues(self) -> None:
        self.clear_steering_queue()
        self.clear_follow_up_queue()

    def has_queued_messages(self) -> bool:
        return self.steering_queue.has_items() or self.follow_up_queue.has_items()

    # --- runs -------------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._controller is not None

    @property
    def signal(self) -> AbortSignal | None:
        return self._controller.signal if self._controller else None

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    async def wait_for_idle(self) -> None:
        await self._idle.wait()

    def reset(self) -> None:
        self.state.messages = []
        self.state.is_streaming = False
        self.state.streaming_message = None
        self.state.pending_tool_calls = set()
        self.state.error_message = None
        self.clear_all_queues()

    async def prompt(
        self, message: str | AgentMessage | Sequence[AgentMessage], images: Sequence[ImageContent] = ()
    ) -> None:
        if self._controller is not None:
            raise RuntimeError(
                "Agent is already processing a prompt. Use steer() or followUp() to queue messages, "
                "or wait for completion."
            )
        if isinstance(message, str):
            content: list[TextContent | ImageContent] = [TextContent(text=message), *images]
            messages: list[AgentMessage] = [UserMessage(content=content)]
        elif isinstance(message, list | tuple):
            messages = list(message)
        else:
            messages = [message]  # type: ignore[list-item]  # a single message (Sequence excluded above)
        await self._run_prompt(messages)

    async def continue_(self) -> None:
        if self._controller is not None:
            raise RuntimeError("Agent is already processing. Wait for completion before continuing.")
        if not self.state.messages:
            raise RuntimeError("No messages to continue from")
        if self.state.messages[-1].role == "assistant":
            steering = self.steering_queue.drain()
            if steering:
                await self._run_prompt(steering, skip_initial_steering_poll=True)
                return
            follow_ups = self.follow_up_queue.drain()
            if follow_ups:
                await self._run_prompt(follow_ups)
                return
            raise RuntimeError("Cannot continue from message role: assistant")
        await self._run(
            lambda config, signal: run_agent_loop_continue(self._snapshot(), config, self._process, signal)
        )

    async def _run_prompt(
        self, messages: list[AgentMessage], skip_initial_steering_poll: bool = False
    ) -> None:
        await self._run(
            lambda config, signal: run_agent_loop(messages, self._snapshot(), config, self._process, signal),
            skip_initial_steering_poll,
        )

    def _snapshot(self) -> AgentContext:
        return AgentContext(self.state.system_prompt, list(self.state.messages), list(self.state.tools))

    def _config(self, skip_initial_steering_poll: bool) -> AgentLoopConfig:
        skip = [skip_initial_steering_poll]

        def steering() -> list[AgentMessage]:
            if skip[0]:
                skip[0] = False
                return []
            return self.steering_queue.drain()

        level = self.state.thinking_level
        return replace(
            self.loop_config,
            model=self.state.model,
            reasoning=None if level == "off" else level,
            get_steering_messages=steering,
            get_follow_up_messages=self.follow_up_queue.drain,
        )

    async def _run(
        self,
        executor: Callable[[AgentLoopConfig, AbortSignal], Awaitable[Any]],
        skip_initial_steering_poll: bool = False,
    ) -> None:
        if self._controller is not None:
            raise RuntimeError("Agent is already processing.")
        controller = AbortController()
        self._controller = controller
        self._idle.clear()
        self.state.is_streaming = True
        self.state.streaming_message = None
        self.state.error_message = None
        try:
            await executor(self._config(skip_initial_steering_poll), controller.signal)
        except Exception as error:
            await self._handle_failure(error, controller.signal.aborted)
        finally:
            self.state.is_streaming = False
            self.state.streaming_message = None
            self.state.pending_tool_calls = set()
            self._controller = None
            self._idle.set()

    async def _handle_failure(self, error: Exception, aborted: bool) -> None:
        """The loop raised (e.g. no API key): record a synthetic assistant message, emit only agent_end."""
        model = self.state.model
        failure = AssistantMessage(
            content=[TextContent(text="")],
            api=model.api,
            provider=model.provider,
            model=model.id,
            stop_reason="aborted" if aborted else "error",
            error_message=str(error) or type(error).__name__,
        )
        self.state.messages.append(failure)
        self.state.error_message = failure.error_message
        await self._process(AgentEndEvent(messages=[failure]))

    async def _process(self, event: AgentEvent) -> None:
        state = self.state
        kind = event.type
        if kind == "message_start" or kind == "message_update":
            state.streaming_message = event.message  # type: ignore[union-attr]
        elif kind == "message_end":
            state.streaming_message = None
            state.messages.append(event.message)  # type: ignore[union-attr]
        elif kind == "tool_execution_start":
            state.pending_tool_calls = {*state.pending_tool_calls, event.tool_call_id}  # type: ignore[union-attr]
        elif kind == "tool_execution_end":
            state.pending_tool_calls = state.pending_tool_calls - {event.tool_call_id}  # type: ignore[union-attr]
        elif kind == "turn_end":
            message = event.message  # type: ignore[union-attr]
            if isinstance(message, AssistantMessage) and message.error_message:
                state.error_message = message.error_message
        elif kind == "agent_end":
            state.streaming_message = None
        controller = self._controller
        if controller is None:
            raise RuntimeError("Agent listener invoked outside active run")
        for listener in list(self._listeners):
            outcome = listener(event, controller.signal)
            if outcome is not None:
                await outcome
