"""Where the agent loop meets the plugin hooks: loop callbacks and agent-event → hook-event mapping.

The loop knows nothing of plugins; AgentSession plugs these callbacks into its config so that
``tool_call`` can block, ``tool_result`` can patch, ``context`` can rewrite the messages and the
provider hooks see the payload and the response. Hooks with no handler cost nothing: each
callback checks ``hooks.has`` first (``message_update`` fires for every streamed delta).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pi_core.agent import events as agent_events
from pi_core.agent.loop import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    RequestParts,
)
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import (
    AgentMessage,
    SystemMessage,
    ToolDeclaration,
    current_system_message,
    system_message_text,
)
from pi_core.ai.provider import Model, ProviderResponseInfo, ToolSpec
from pi_core.plugins import events as hook_events
from pi_core.plugins.dispatch import Hooks


class HookBridge:
    """Callbacks for :class:`~pi_core.agent.loop.AgentLoopConfig` that dispatch plugin hooks."""

    def __init__(self, hooks: Hooks, context: Callable[[], Any]) -> None:
        self.hooks = hooks
        self._context = context
        self.turn_index = 0
        #: Fills in what only the session knows about a turn (entry ids, outcome, context rebuild).
        self.describe_turn: Callable[[hook_events.TurnEndEvent], None] | None = None
        #: The final ``turn_end`` proposal of the last turn, until the session takes it.
        self.turn_proposal: hook_events.TurnEndResult | None = None

    async def before_tool_call(
        self, call: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        if not self.hooks.has("tool_call"):
            return None
        args = call.args if isinstance(call.args, dict) else _as_dict(call.args)
        event = hook_events.ToolCallEvent(
            tool_call_id=call.tool_call.id,
            tool_name=call.tool_call.name,
            input=args,
            parent_tool_call_id=call.parent_tool_call_id,
        )
        result = await self.hooks.tool_call(event, self._context())
        if result is not None and result.block:
            return BeforeToolCallResult(block=True, reason=result.reason, terminate=result.terminate)
        # Handlers edit ``event.input`` in place to change the arguments (pi's rule). The event holds
        # its own copy, and a tool with a pydantic parameter model gets a model, so hand edits back.
        if event.input != args:
            return BeforeToolCallResult(args=_with_edits(call.args, event.input))
        return None

    async def after_tool_call(
        self, call: AfterToolCallContext, signal: AbortSignal | None
    ) -> AfterToolCallResult | None:
        if not self.hooks.has("tool_result"):
            return None
        args = call.args if isinstance(call.args, dict) else _as_dict(call.args)
        event = hook_events.ToolResultEvent(
            tool_call_id=call.tool_call.id,
            tool_name=call.tool_call.name,
            input=args,
            content=list(call.result.content),
            details=call.result.details,
            is_error=call.is_error,
            structured_content=call.result.structured_content,
            parent_tool_call_id=call.parent_tool_call_id,
        )
        patch = await self.hooks.tool_result(event, self._context())
        if patch is None:
            return None
        return AfterToolCallResult(
            content=patch.content,
            details=patch.details,
            is_error=patch.is_error,
            structured_content=patch.structured_content,
        )

    async def transform_context(
        self, messages: list[AgentMessage], signal: AbortSignal | None
    ) -> list[AgentMessage]:
        """``context``: handlers see the conversation only, as in pi 1.6.0 — the transcript's
        system messages (the prompt and tool state pi records) are left out. A list they return
        in place of it is sent led by the current system message; an unchanged one keeps every
        system message where it was."""
        if not self.hooks.has("context"):
            return messages
        visible = [m for m in messages if not isinstance(m, SystemMessage)]
        event = hook_events.ContextEvent(messages=visible)
        shown = list(event.messages)
        result = await self.hooks.context(event, self._context())
        returned = result.messages if result is not None and result.messages is not None else event.messages
        if len(returned) == len(shown) and all(a is b for a, b in zip(returned, shown, strict=True)):
            return messages
        head = current_system_message(messages)
        return [head, *returned] if head is not None else list(returned)

    async def transform_request(self, parts: RequestParts, signal: AbortSignal | None) -> RequestParts | None:
        """``context_with_system``: the request as messages led by its system message; the
        request is then what the returned messages say (prompt and tools replayed from theirs)."""
        if not self.hooks.has("context_with_system"):
            return None
        head = SystemMessage(
            content=parts.system_prompt,
            tools_added=[
                ToolDeclaration(name=t.name, description=t.description, parameters=t.parameters)
                for t in parts.tools
            ]
            or None,
        )
        conversation = [m.model_copy(deep=True) for m in parts.messages if not isinstance(m, SystemMessage)]
        event = hook_events.ContextWithSystemEvent(messages=[head, *conversation])
        result = await self.hooks.context_with_system(event, self._context())
        if result is None or result.messages is None:
            return None
        messages = list(result.messages)
        replayed = current_system_message(messages)
        tools = [
            ToolSpec(name=d.name, description=d.description, parameters=d.parameters)
            if isinstance(d.parameters, dict)
            else ToolSpec(name=d.name, description=d.description)
            for d in (replayed.tools_added or [] if replayed is not None else [])
        ]
        return RequestParts(
            messages=[m for m in messages if not isinstance(m, SystemMessage)],
            system_prompt=system_message_text(replayed) if replayed is not None else "",
            tools=tools,
        )

    async def on_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
        if not self.hooks.has("before_provider_request"):
            return None
        event = hook_events.BeforeProviderRequestEvent(payload=payload)
        result = await self.hooks.before_provider_request(event, self._context())
        return result.payload if result is not None else None

    async def on_response(self, response: ProviderResponseInfo, model: Model) -> None:
        if not self.hooks.has("after_provider_response"):
            return
        event = hook_events.AfterProviderResponseEvent(status=response.status, headers=response.headers)
        await self.hooks.after_provider_response(event, self._context())

    async def on_stream_event(self, data: Any, model: Model) -> None:
        dump = getattr(data, "model_dump", None)
        event = hook_events.ProviderStreamEvent(
            provider=model.provider,
            api=str(model.api),
            model=model.id,
            data=dump(mode="json", exclude_unset=True) if callable(dump) else data,
        )
        await self.hooks.provider_stream_event(event, self._context())

    async def agent_event(self, event: agent_events.AgentEvent) -> AgentMessage | None:
        """Dispatch the plugin hook for ``event``; returns a replacement message from ``message_end``."""
        hooks, kind = self.hooks, event.type
        if not hooks.has(kind):
            if kind == "turn_end":
                self.turn_index += 1
            elif kind == "agent_start":
                self.turn_index = 0
            return None
        ctx = self._context()
        match event:
            case agent_events.AgentStartEvent():
                self.turn_index = 0
                await hooks.agent_start(hook_events.AgentStartEvent(), ctx)
            case agent_events.AgentEndEvent():
                await hooks.agent_end(hook_events.AgentEndEvent(messages=event.messages), ctx)
            case agent_events.TurnStartEvent():
                stamp = int(time.time() * 1000)
                await hooks.turn_start(
                    hook_events.TurnStartEvent(turn_index=self.turn_index, timestamp=stamp), ctx
                )
            case agent_events.TurnEndEvent():
                turn = hook_events.TurnEndEvent(
                    turn_index=self.turn_index, message=event.message, tool_results=list(event.tool_results)
                )
                self.turn_index += 1
                if self.describe_turn is not None:
                    self.describe_turn(turn)
                self.turn_proposal = await hooks.turn_end(turn, ctx)
            case agent_events.MessageStartEvent():
                await hooks.message_start(hook_events.MessageStartEvent(message=event.message), ctx)
            case agent_events.MessageUpdateEvent():
                update = hook_events.MessageUpdateEvent(
                    message=event.message, assistant_message_event=event.assistant_message_event
                )
                await hooks.message_update(update, ctx)
            case agent_events.MessageEndEvent():
                result = await hooks.message_end(hook_events.MessageEndEvent(message=event.message), ctx)
                if result is not None and result.message is not None:
                    return result.message
            case agent_events.ToolExecutionStartEvent():
                start = hook_events.ToolExecutionStartEvent(
                    tool_call_id=event.tool_call_id,
                    tool_name=event.tool_name,
                    args=event.args,
                    parent_tool_call_id=event.parent_tool_call_id,
                )
                await hooks.tool_execution_start(start, ctx)
            case agent_events.ToolExecutionUpdateEvent():
                update_event = hook_events.ToolExecutionUpdateEvent(
                    tool_call_id=event.tool_call_id,
                    tool_name=event.tool_name,
                    args=event.args,
                    partial_result=event.partial_result,
                    parent_tool_call_id=event.parent_tool_call_id,
                )
                await hooks.tool_execution_update(update_event, ctx)
            case agent_events.ToolExecutionEndEvent():
                end = hook_events.ToolExecutionEndEvent(
                    tool_call_id=event.tool_call_id,
                    tool_name=event.tool_name,
                    result=event.result,
                    is_error=event.is_error,
                    duration_ms=event.duration_ms,
                    parent_tool_call_id=event.parent_tool_call_id,
                )
                await hooks.tool_execution_end(end, ctx)
        return None


def _with_edits(original: Any, edited: dict[str, Any]) -> Any:
    """The edited arguments in the form the tool takes: the dict itself (pi does not re-validate),
    or the tool's parameter model built from it (an edit that does not fit fails the call)."""
    if isinstance(original, dict):
        return edited
    return type(original).model_validate(edited)


def _as_dict(args: Any) -> dict[str, Any]:
    """Tool arguments validated into a pydantic model, back as the dict plugins see."""
    dump = getattr(args, "model_dump", None)
    if callable(dump):
        value = dump(mode="json", by_alias=True)
        return value if isinstance(value, dict) else {}
    return {}
