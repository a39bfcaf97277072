"""The stateless agent loop (pi-agent-core ``agentLoop``, spec §3): context in, events out.

A *turn* is: injected pending messages, one assistant response, its tool executions. Steering
messages are polled only after a whole tool batch (and ``turn_end``); follow-ups only when the agent
would otherwise stop. An errored or aborted assistant message ends the run at once. Every event is
awaited through ``emit`` before the loop goes on. The loop knows nothing of sessions or plugins: the
runtime plugs those in through the callbacks of :class:`AgentLoopConfig`.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pi_core.agent.events import (
    AgentEndEvent,
    AgentEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_core.agent.tools import AgentTool, AgentToolResult, ToolError
from pi_core.agent.validation import validate_tool_arguments
from pi_core.ai._fast import construct
from pi_core.ai.abort import AbortSignal
from pi_core.ai.event_stream import snapshot_message
from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    LlmMessage,
    NestedCall,
    NestedCalls,
    TextContent,
    ToolCall,
    ToolResultMessage,
)
from pi_core.ai.provider import (
    AssistantMessageStream,
    CacheRetention,
    Context,
    Model,
    OnPayload,
    OnResponse,
    StreamOptions,
    ThinkingLevel,
    ToolSpec,
)

logger = logging.getLogger("pi.agent")

Emit = Callable[[AgentEvent], Awaitable[None]]
StreamFn = Callable[[Model, Context, StreamOptions], AssistantMessageStream]
MessageSource = Callable[[], Awaitable[list[AgentMessage]] | list[AgentMessage]]


@dataclass
class AgentContext:
    """What the loop works on: system prompt, transcript (agent messages) and the active tools."""

    system_prompt: str = ""
    messages: list[AgentMessage] = field(default_factory=list)
    tools: list[AgentTool] = field(default_factory=list)


@dataclass
class BeforeToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    context: AgentContext
    #: Set for a nested call (another tool's ``ctx.execute_tool``): the calling tool's call id.
    parent_tool_call_id: str | None = None


@dataclass
class BeforeToolCallResult:
    """``block=True`` turns the call into an error result with ``reason``; ``args`` (when not
    ``None``) replaces the validated arguments ``execute`` receives (pi's in-place edits of the
    ``tool_call`` input, for tools whose arguments are a model rather than the dict a hook edits)."""

    block: bool = False
    reason: str | None = None
    args: Any = None
    #: With ``block``: the blocked call asks to end the run (honoured when the whole batch does).
    terminate: bool | None = None


@dataclass
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext
    parent_tool_call_id: str | None = None


@dataclass
class AfterToolCallResult:
    """Fields left ``None`` keep the executed result's value."""

    content: list[Any] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None
    structured_content: Any = None


@dataclass
class ShouldStopContext:
    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    new_messages: list[AgentMessage]


@dataclass
class AfterTurn:
    """What an ``after_turn`` callback decided at the end of a turn (pi 1.6.0's actionable
    ``turn_end``): the transcript to go on with (``None``: unchanged), the messages it added
    (announced with ``message_start``/``message_end``), and whether one more request must follow."""

    transcript: list[AgentMessage] | None = None
    added: list[AgentMessage] = field(default_factory=list)
    continue_: bool = False


def _default_stream_fn(model: Model, context: Context, options: StreamOptions) -> AssistantMessageStream:
    from pi_core.ai.stream import stream_simple

    return stream_simple(model, context, options)


def default_convert_to_llm(messages: Sequence[AgentMessage]) -> list[LlmMessage]:
    """Keep the LLM roles only (pi-agent-core's default; the coding agent passes pi's convertToLlm)."""
    return [m for m in messages if m.role in ("user", "assistant", "toolResult")]


@dataclass
class RequestParts:
    """What one provider request is made of, before the messages are converted for the LLM."""

    messages: list[AgentMessage]
    system_prompt: str
    tools: list[ToolSpec]


@dataclass
class AgentLoopConfig:
    """Everything a run needs besides the context. Callbacks may be sync or async."""

    model: Model
    convert_to_llm: Callable[[list[AgentMessage]], Any] = default_convert_to_llm
    reasoning: ThinkingLevel | None = None
    session_id: str | None = None
    transport: str | None = None
    thinking_budgets: dict[str, int] | None = None
    max_retry_delay_ms: int | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    max_retries: int | None = None
    timeout_ms: int | None = None
    headers: dict[str, str | None] | None = None
    cache_retention: CacheRetention | None = None
    #: Rewrite the agent messages before each provider call (the ``context`` hook).
    transform_context: Callable[[list[AgentMessage], AbortSignal | None], Any] | None = None
    #: After ``transform_context``: ``(messages, system_prompt, tools, signal)`` of the request
    #: → a replacement ``RequestParts`` or ``None`` (the ``context_with_system`` hook).
    transform_request: Callable[[RequestParts, AbortSignal | None], Any] | None = None
    #: Resolve the API key per call (expiring tokens); falls back to ``api_key``.
    get_api_key: Callable[[str], Any] | None = None
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    tool_execution: Literal["parallel", "sequential"] = "parallel"
    before_tool_call: Callable[[BeforeToolCallContext, AbortSignal | None], Any] | None = None
    after_tool_call: Callable[[AfterToolCallContext, AbortSignal | None], Any] | None = None
    should_stop_after_turn: Callable[[ShouldStopContext], Any] | None = None
    #: Called after each ``turn_end``; may change the transcript and ask for one more request.
    after_turn: Callable[[ShouldStopContext], Awaitable[AfterTurn | None]] | None = None
    on_payload: OnPayload | None = None
    on_response: OnResponse | None = None
    #: Passed to every tool's ``execute`` as ``ctx`` (the runtime's tool context, e.g. with ``cwd``).
    tool_context: Any = None
    #: The tools to declare, read before every request (tools registered or removed mid-run count).
    get_tools: Callable[[], Sequence[AgentTool]] | None = None
    #: Messages to record before a request that is not the run's first (read after ``get_tools``):
    #: pi 1.6.0's system message declaring the tools registered or removed since the last one.
    get_context_updates: Callable[[], Sequence[AgentMessage]] | None = None
    #: The system prompt of a request that is not the run's first (read after
    #: ``get_context_updates``): pi 1.6.0 rebuilds it when the active tools changed mid-run.
    get_system_prompt: Callable[[], str] | None = None
    #: The tools ``ctx.execute_tool`` may call (default: the active ``direct`` ones).
    get_callable_tools: Callable[[], Sequence[AgentTool]] | None = None
    #: Builds the ``ctx`` of one ``execute`` call from the call and a :data:`NestedRunner` for
    #: nested calls; without it every call gets ``tool_context``.
    make_tool_context: Callable[[ToolCall, NestedRunner], Any] | None = None
    stream_fn: StreamFn = _default_stream_fn


class NestedRunner(Protocol):
    """Runs a tool call on behalf of another tool: validation, hooks and events as a model's call."""

    async def __call__(
        self,
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[AgentToolResult], None] | None = None,
    ) -> tuple[AgentToolResult, bool]: ...


async def _await(value: Awaitable[None]) -> None:
    await value


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _emit_complete_message(message: AgentMessage, emit: Emit) -> None:
    """``message_start`` and ``message_end`` for a message that arrives whole (prompts, tool results)."""
    await emit(MessageStartEvent.model_construct(message=message))
    await emit(MessageEndEvent.model_construct(message=message))


# --- entry points ---------------------------------------------------------------------------------


async def run_agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
) -> list[AgentMessage]:
    """Start a run with new prompt message(s); returns the messages added during the run."""
    new_messages: list[AgentMessage] = list(prompts)
    current = AgentContext(context.system_prompt, [*context.messages, *prompts], list(context.tools))
    await emit(AgentStartEvent())
    await emit(TurnStartEvent())
    for prompt in prompts:
        await _emit_complete_message(prompt, emit)
    await _run_loop(current, new_messages, config, signal, emit)
    return new_messages


def check_can_continue(context: AgentContext) -> None:
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    if context.messages[-1].role == "assistant":
        raise ValueError("Cannot continue from message role: assistant")


async def run_agent_loop_continue(
    context: AgentContext, config: AgentLoopConfig, emit: Emit, signal: AbortSignal | None = None
) -> list[AgentMessage]:
    """Resume from the transcript without adding a message (retries, overflow recovery)."""
    check_can_continue(context)
    new_messages: list[AgentMessage] = []
    current = AgentContext(context.system_prompt, list(context.messages), list(context.tools))
    await emit(AgentStartEvent())
    await emit(TurnStartEvent())
    await _run_loop(current, new_messages, config, signal, emit)
    return new_messages


async def _iterate(runner: Callable[[Emit], Awaitable[Any]]) -> AsyncIterator[AgentEvent]:
    queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()

    async def emit(event: AgentEvent) -> None:
        await queue.put(event)

    async def drive() -> None:
        try:
            await runner(emit)
        finally:
            await queue.put(None)

    task = asyncio.get_running_loop().create_task(drive())
    try:
        while (event := await queue.get()) is not None:
            yield event
        await task
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def agent_loop(
    prompts: list[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
) -> AsyncIterator[AgentEvent]:
    """:func:`run_agent_loop` as an async iterator of events ending with ``agent_end``."""
    return _iterate(lambda emit: run_agent_loop(prompts, context, config, emit, signal))


def agent_loop_continue(
    context: AgentContext, config: AgentLoopConfig, signal: AbortSignal | None = None
) -> AsyncIterator[AgentEvent]:
    """:func:`run_agent_loop_continue` as an async iterator; raises at once if it cannot continue."""
    check_can_continue(context)
    return _iterate(lambda emit: run_agent_loop_continue(context, config, emit, signal))


# --- the loop -------------------------------------------------------------------------------------


async def _poll(source: MessageSource | None) -> list[AgentMessage]:
    if source is None:
        return []
    return list(await _maybe(source()) or [])


async def _after_turn(config: AgentLoopConfig, turn: ShouldStopContext, emit: Emit) -> bool:
    """Apply what ``after_turn`` decided; True when it asked for one more request."""
    if config.after_turn is None:
        return False
    decision = await config.after_turn(turn)
    if decision is None:
        return False
    for message in decision.added:
        await _emit_complete_message(message, emit)
        turn.new_messages.append(message)
    if decision.transcript is not None:
        turn.context.messages[:] = decision.transcript
    else:
        turn.context.messages.extend(decision.added)
    return decision.continue_


async def _run_loop(
    current: AgentContext,
    new_messages: list[AgentMessage],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> None:
    first_turn = True
    first_request = True  # the prompt brought the run's first system message, when one was due
    pending = await _poll(config.get_steering_messages)
    while True:
        has_more_tool_calls = True
        requested = False
        while has_more_tool_calls or pending or requested:
            if not first_turn:
                await emit(TurnStartEvent())
            first_turn = False
            for message in pending:
                await _emit_complete_message(message, emit)
                current.messages.append(message)
                new_messages.append(message)
            pending = []
            if not first_request and config.get_context_updates is not None:
                for message in config.get_context_updates():
                    await _emit_complete_message(message, emit)
                    current.messages.append(message)
                    new_messages.append(message)
            if not first_request and config.get_system_prompt is not None:
                current.system_prompt = config.get_system_prompt()
            first_request = False

            message = await _stream_assistant_response(current, config, signal, emit)
            new_messages.append(message)
            if message.stop_reason in ("error", "aborted"):
                await emit(TurnEndEvent.model_construct(message=message, tool_results=[]))
                await _after_turn(config, ShouldStopContext(message, [], current, new_messages), emit)
                await emit(AgentEndEvent.model_construct(messages=new_messages))
                return  # an error or an abort ends the run, whatever turn_end asked for

            calls = [block for block in message.content if isinstance(block, ToolCall)]
            results: list[ToolResultMessage] = []
            has_more_tool_calls = False
            if calls:
                if message.stop_reason == "length":
                    # Cut off by the output limit: any call's arguments may be incomplete.
                    results, terminate = await _fail_truncated_calls(calls, emit), False
                else:
                    results, terminate = await _execute_tool_calls(
                        current, message, calls, config, signal, emit
                    )
                has_more_tool_calls = not terminate
                current.messages.extend(results)
                new_messages.extend(results)
            await emit(TurnEndEvent.model_construct(message=message, tool_results=results))
            turn = ShouldStopContext(message, results, current, new_messages)
            requested = await _after_turn(config, turn, emit)
            if config.should_stop_after_turn is not None and await _maybe(
                config.should_stop_after_turn(ShouldStopContext(message, results, current, new_messages))
            ):
                await emit(AgentEndEvent.model_construct(messages=new_messages))
                return
            pending = await _poll(config.get_steering_messages)

        follow_ups = await _poll(config.get_follow_up_messages)
        if not follow_ups:
            break
        pending = follow_ups
    await emit(AgentEndEvent.model_construct(messages=new_messages))


def tool_specs(tools: Sequence[AgentTool]) -> list[ToolSpec]:
    return [ToolSpec(name=t.name, description=t.description, parameters=t.json_schema()) for t in tools]


async def _stream_assistant_response(
    current: AgentContext, config: AgentLoopConfig, signal: AbortSignal | None, emit: Emit
) -> AssistantMessage:
    if config.get_tools is not None:
        current.tools = list(config.get_tools())
    messages: list[AgentMessage] = current.messages
    if config.transform_context is not None:
        messages = list(await _maybe(config.transform_context(messages, signal)))
    parts = RequestParts(messages, current.system_prompt, tool_specs(current.tools))
    if config.transform_request is not None:
        parts = await _maybe(config.transform_request(parts, signal)) or parts
    llm_messages = list(await _maybe(config.convert_to_llm(parts.messages)))
    llm_context = Context(
        system_prompt=parts.system_prompt or None,
        messages=llm_messages,
        tools=parts.tools or None,
    )
    api_key = None
    if config.get_api_key is not None:
        api_key = await _maybe(config.get_api_key(config.model.provider))
    options = StreamOptions(
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        signal=signal,
        api_key=api_key or config.api_key,
        transport=config.transport,
        session_id=config.session_id,
        on_payload=config.on_payload,
        on_response=config.on_response,
        headers=config.headers,
        cache_retention=config.cache_retention,
        timeout_ms=config.timeout_ms,
        max_retries=config.max_retries,
        max_retry_delay_ms=config.max_retry_delay_ms,
        reasoning=config.reasoning,
        thinking_budgets=config.thinking_budgets,
    )
    started = time.monotonic()
    response = config.stream_fn(config.model, llm_context, options)

    try:
        final = await _consume_response(response, current, emit, config.reasoning or "off", started)
    finally:
        # If this task is cancelled mid-stream, stop the provider's HTTP work too.
        closer = getattr(response, "aclose", None)
        if closer is not None:
            await closer()
    return final


#: Seconds of stream events handled in a row before the loop is given a turn.
STREAM_SLICE = 0.002


async def _consume_response(
    response: AssistantMessageStream, current: AgentContext, emit: Emit, thinking_level: str, started: float
) -> AssistantMessage:
    added_partial = False
    slice_began = time.monotonic()
    async for event in response:
        # A read may hold many events, which the stream hands over without waiting: give the
        # loop a turn every STREAM_SLICE seconds of them, so keys and redraws are not held
        # behind a burst (a terminal UI showed a key only after a read's worth of tokens).
        now = time.monotonic()
        if now - slice_began > STREAM_SLICE:
            await asyncio.sleep(0)
            slice_began = time.monotonic()
        kind = event.type
        if kind == "start":
            partial = event.partial  # type: ignore[union-attr]
            current.messages.append(partial)
            added_partial = True
            # pi's message_start shows the message as the stream opened (content [], zero usage), but
            # the partial is filled in place: a queue-fed stream has run ahead already, and anyone
            # keeping the event would see it grow. So it carries a detached copy (once per message).
            opened = getattr(response, "start_snapshot", None)
            await emit(MessageStartEvent.model_construct(message=opened or snapshot_message(partial)))
        elif kind == "done" or kind == "error":
            break
        elif added_partial:
            update = {"type": "message_update", "message": event.partial, "assistant_message_event": event}  # type: ignore[union-attr]
            await emit(construct(MessageUpdateEvent, update))
    final = await response.result()
    # pi 1.6.0 records the requested level and the response time on every reply.
    if final.thinking_level is None:
        final.thinking_level = thinking_level
    if final.duration_ms is None:
        final.duration_ms = int((time.monotonic() - started) * 1000)
    if added_partial:
        current.messages[-1] = final
    else:
        current.messages.append(final)
        await emit(MessageStartEvent.model_construct(message=snapshot_message(final)))
    await emit(MessageEndEvent.model_construct(message=final))
    return final


# --- tools ----------------------------------------------------------------------------------------


@dataclass
class _Prepared:
    call: ToolCall
    tool: AgentTool
    args: Any


@dataclass
class _Finalized:
    call: ToolCall
    result: AgentToolResult
    is_error: bool
    #: How long the tool ran (``None``: it never ran).
    duration_ms: int | None = None
    #: The calls the tool made through ``ctx.execute_tool`` (``None``: none).
    nested: NestedCalls | None = None


def _error_result(message: str) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=message)], details={})


def _exception_text(error: BaseException) -> str:
    if isinstance(error, ToolError):
        return str(error)
    text = str(error)
    return text if text else type(error).__name__


async def _execute_tool_calls(
    current: AgentContext,
    assistant: AssistantMessage,
    calls: list[ToolCall],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
) -> tuple[list[ToolResultMessage], bool]:
    by_name = {tool.name: tool for tool in current.tools}
    sequential = config.tool_execution == "sequential" or any(
        (tool := by_name.get(call.name)) is not None and tool.execution_mode == "sequential" for call in calls
    )
    finalized: list[_Finalized] = []
    messages: list[ToolResultMessage] = []
    if sequential:
        for call in calls:
            await emit(
                ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
            )
            prepared = await _prepare(current, assistant, call, by_name, config, signal)
            if isinstance(prepared, _Finalized):
                done = prepared
            else:
                done = await _run_prepared(current, assistant, prepared, config, signal, emit)
            await _emit_end(done, emit)
            message = _result_message(done)
            await _emit_complete_message(message, emit)
            finalized.append(done)
            messages.append(message)
    else:
        slots: list[_Finalized | _Prepared] = []
        for call in calls:
            await emit(
                ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
            )
            prepared = await _prepare(current, assistant, call, by_name, config, signal)
            if isinstance(prepared, _Finalized):
                await _emit_end(prepared, emit)
            slots.append(prepared)

        async def run(prepared: _Prepared) -> _Finalized:
            done = await _run_prepared(current, assistant, prepared, config, signal, emit)
            await _emit_end(done, emit)
            return done

        tasks: dict[int, asyncio.Task[_Finalized]] = {}
        async with asyncio.TaskGroup() as group:
            for index, slot in enumerate(slots):
                if isinstance(slot, _Prepared):
                    tasks[index] = group.create_task(run(slot))
        for index, slot in enumerate(slots):
            finalized.append(tasks[index].result() if index in tasks else slot)  # type: ignore[arg-type]
        for done in finalized:
            message = _result_message(done)
            await _emit_complete_message(message, emit)
            messages.append(message)
    terminate = bool(finalized) and all(done.result.terminate is True for done in finalized)
    return messages, terminate


def truncated_call_text(name: str) -> str:
    """The result of a tool call cut off by the output token limit (pi 1.6.0's wording)."""
    return (
        f'Tool call "{name}" was not executed: the response hit the output token limit, so its '
        "arguments may be truncated. Re-issue the tool call with complete arguments."
    )


async def _fail_truncated_calls(calls: list[ToolCall], emit: Emit) -> list[ToolResultMessage]:
    messages: list[ToolResultMessage] = []
    for call in calls:
        await emit(ToolExecutionStartEvent(tool_call_id=call.id, tool_name=call.name, args=call.arguments))
        done = _Finalized(call, _error_result(truncated_call_text(call.name)), True)
        await _emit_end(done, emit)
        message = _result_message(done)
        await _emit_complete_message(message, emit)
        messages.append(message)
    return messages


async def _prepare(
    current: AgentContext,
    assistant: AssistantMessage,
    call: ToolCall,
    by_name: dict[str, AgentTool],
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    parent: str | None = None,
) -> _Prepared | _Finalized:
    tool = by_name.get(call.name)
    if tool is None:
        return _Finalized(call, _error_result(f"Tool {call.name} not found"), True)
    if call.arguments_error:
        # The model's arguments were not a JSON object: tell it so, run nothing.
        text = f'Invalid arguments for tool "{call.name}": {call.arguments_error}'
        return _Finalized(call, _error_result(text), True)
    try:
        arguments = call.arguments
        if tool.prepare_arguments is not None:
            arguments = tool.prepare_arguments(arguments)
        args = validate_tool_arguments(tool, arguments)
        if config.before_tool_call is not None:
            context = BeforeToolCallContext(assistant, call, args, current, parent)
            verdict = await _maybe(config.before_tool_call(context, signal))
            if verdict is not None and getattr(verdict, "block", False):
                reason = getattr(verdict, "reason", None) or "Tool execution was blocked"
                done = _Finalized(call, _error_result(reason), True)
                if getattr(verdict, "terminate", None):
                    done.result.terminate = True
                return done
            replaced = getattr(verdict, "args", None)
            if replaced is not None:
                args = replaced
        return _Prepared(call, tool, args)
    except Exception as error:
        return _Finalized(call, _error_result(_exception_text(error)), True)


#: Bounds of the nested-call record on a tool result (pi 1.6.0's): calls kept, argument bytes
#: per call and per result, characters of an error.
NESTED_MAX_CALLS = 256
NESTED_MAX_ARGUMENT_BYTES = 8 * 1024
NESTED_MAX_ARGUMENT_BYTES_TOTAL = 32 * 1024
NESTED_MAX_ERROR_CHARS = 500


class NestedCallRecorder:
    """The calls made under one model-issued tool call (at any depth), bounded as pi bounds them."""

    def __init__(self) -> None:
        self.calls: list[NestedCall] = []
        self.complete = True
        self._argument_bytes = 0

    def start(self, call: ToolCall) -> tuple[NestedCall, float] | None:
        if len(self.calls) >= NESTED_MAX_CALLS:
            self.complete = False
            return None
        record = NestedCall(id=call.id, name=call.name)
        size = len(json.dumps(call.arguments, separators=(",", ":"), ensure_ascii=False).encode())
        if size > NESTED_MAX_ARGUMENT_BYTES or self._argument_bytes + size > NESTED_MAX_ARGUMENT_BYTES_TOTAL:
            record.arguments_bytes = size
            self.complete = False
        else:
            record.arguments = call.arguments
            self._argument_bytes += size
        self.calls.append(record)
        return record, time.monotonic()

    def finish(self, started: tuple[NestedCall, float] | None, done: _Finalized) -> None:
        if started is None:
            return
        record, at = started
        record.status = "error" if done.is_error else "ok"
        record.duration_ms = round((time.monotonic() - at) * 1000)
        if done.is_error:
            text = "\n".join(b.text for b in done.result.content if isinstance(b, TextContent))
            record.error = text[:NESTED_MAX_ERROR_CHARS] or None

    def snapshot(self) -> NestedCalls | None:
        if not self.calls and self.complete:
            return None
        calls = [call.model_copy() for call in self.calls]
        return NestedCalls(
            calls=calls, complete=self.complete and all(c.status != "unfinished" for c in calls)
        )


def _nested_runner(
    current: AgentContext,
    assistant: AssistantMessage,
    parent: ToolCall,
    config: AgentLoopConfig,
    emit: Emit,
    recorder: NestedCallRecorder,
) -> NestedRunner:
    """What ``ctx.execute_tool`` of the tool running ``parent`` calls: ids ``<parent id>/<n>``."""
    count = itertools.count(1)

    async def run(
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[AgentToolResult], None] | None = None,
    ) -> tuple[AgentToolResult, bool]:
        call = ToolCall(id=f"{parent.id}/{next(count)}", name=name, arguments=dict(args))
        if config.get_callable_tools is not None:
            tools = list(config.get_callable_tools())
        else:
            tools = [tool for tool in current.tools if tool.exposure == "direct"]
        by_name = {tool.name: tool for tool in tools}
        start = ToolExecutionStartEvent(
            tool_call_id=call.id, tool_name=name, args=call.arguments, parent_tool_call_id=parent.id
        )
        await emit(start)
        record = recorder.start(call)
        prepared = await _prepare(current, assistant, call, by_name, config, signal, parent.id)
        if isinstance(prepared, _Finalized):
            done = prepared
        else:
            done = await _run_prepared(
                current,
                assistant,
                prepared,
                config,
                signal,
                emit,
                parent=parent.id,
                also_update=on_update,
                recorder=recorder,
            )
        recorder.finish(record, done)
        await _emit_end(done, emit, parent.id)
        return done.result, done.is_error

    return run


async def _run_prepared(
    current: AgentContext,
    assistant: AssistantMessage,
    prepared: _Prepared,
    config: AgentLoopConfig,
    signal: AbortSignal | None,
    emit: Emit,
    *,
    parent: str | None = None,
    also_update: Callable[[AgentToolResult], None] | None = None,
    recorder: NestedCallRecorder | None = None,
) -> _Finalized:
    call = prepared.call
    updates: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()

    def on_update(partial: AgentToolResult) -> None:
        event = ToolExecutionUpdateEvent(
            tool_call_id=call.id,
            tool_name=call.name,
            args=call.arguments,
            partial_result=partial,
            parent_tool_call_id=parent,
        )
        updates.append(loop.create_task(_await(emit(event))))
        if also_update is not None:
            also_update(partial)

    # A model-issued call records the calls made under it, at any depth, on its own result.
    own_record = recorder is None and config.make_tool_context is not None
    if recorder is None:
        recorder = NestedCallRecorder()
    if config.make_tool_context is not None:
        runner = _nested_runner(current, assistant, call, config, emit, recorder)
        tool_ctx = config.make_tool_context(call, runner)
    else:
        tool_ctx = config.tool_context
    started = time.monotonic()
    try:
        result = _as_tool_result(
            call.name, await prepared.tool.execute(call.id, prepared.args, signal, on_update, tool_ctx)
        )
        is_error = result.is_error is True
    except Exception as error:
        if not isinstance(error, ToolError):
            logger.debug("tool %s raised", call.name, exc_info=True)
        result, is_error = _error_result(_exception_text(error)), True
    if updates:
        await asyncio.gather(*updates)

    if config.after_tool_call is not None:
        try:
            context = AfterToolCallContext(assistant, call, prepared.args, result, is_error, current, parent)
            patch = await _maybe(config.after_tool_call(context, signal))
            if patch is not None:
                result = AgentToolResult(
                    content=patch.content if patch.content is not None else result.content,
                    details=patch.details if patch.details is not None else result.details,
                    terminate=patch.terminate if patch.terminate is not None else result.terminate,
                    structured_content=(
                        patch.structured_content
                        if patch.structured_content is not None
                        else result.structured_content
                    ),
                )
                if patch.is_error is not None:
                    is_error = patch.is_error
        except Exception as error:
            result, is_error = _error_result(_exception_text(error)), True
    nested = recorder.snapshot() if own_record else None
    return _Finalized(call, result, is_error, int((time.monotonic() - started) * 1000), nested)


def _as_tool_result(name: str, value: Any) -> AgentToolResult:
    """What ``execute`` returned, as a result: a ``str`` is its text; anything else that does not fit
    fails the call with a message naming the tool (never an error that ends the run)."""
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return AgentToolResult(content=[TextContent(text=value)])
    if isinstance(value, dict):
        try:
            return AgentToolResult.model_validate(value)
        except ValueError as error:
            raise ToolError(f"Tool {name} returned a dict that is not a tool result: {error}") from None
    raise ToolError(
        f"Tool {name} returned {type(value).__name__}; execute must return an AgentToolResult or a str"
    )


async def _emit_end(done: _Finalized, emit: Emit, parent: str | None = None) -> None:
    await emit(
        ToolExecutionEndEvent(
            tool_call_id=done.call.id,
            tool_name=done.call.name,
            result=done.result,
            is_error=done.is_error,
            duration_ms=done.duration_ms,
            parent_tool_call_id=parent,
        )
    )


def _result_message(done: _Finalized) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=done.call.id,
        tool_name=done.call.name,
        content=list(done.result.content),
        details=done.result.details,
        is_error=done.is_error,
        duration_ms=done.duration_ms,
        nested_calls=done.nested,
    )
