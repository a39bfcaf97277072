"""An in-process provider scripted with responses, for loop/runtime tests that need no HTTP.

Each response is an :class:`AssistantMessage` (or a callable building one from the context); the
provider streams it as pi's events (text/thinking/toolcall start, delta(s), end) and finishes with
``done`` or, for ``stopReason`` error/aborted, ``error``. It honours abort between deltas and can
wait ``delay`` seconds per delta to leave room for steering/abort in tests.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from pi_core.ai.event_stream import AssistantMessageEventStream
from pi_core.ai.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from pi_core.ai.provider import (
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

FAUX_API = "faux"

Response = AssistantMessage | Callable[[Context], AssistantMessage]


def faux_model(id: str = "faux-1", provider: str = "faux", **fields: object) -> Model:
    return Model(id=id, api=FAUX_API, provider=provider, **fields)


def text_message(text: str, **fields: object) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api=FAUX_API, provider="faux", model="faux-1", **fields
    )


def tool_call_message(
    *calls: tuple[str, str, dict[str, object]], text: str | None = None
) -> AssistantMessage:
    """A ``toolUse`` message with (id, name, arguments) calls."""
    content: list[TextContent | ThinkingContent | ToolCall] = [TextContent(text=text)] if text else []
    content.extend(ToolCall(id=cid, name=name, arguments=dict(args)) for cid, name, args in calls)
    return AssistantMessage(
        content=content, api=FAUX_API, provider="faux", model="faux-1", stop_reason="toolUse"
    )


@dataclass
class FauxProvider:
    """Streams scripted responses in order; records every request context."""

    responses: list[Response] = field(default_factory=list)
    delay: float = 0.0
    chunk_size: int = 4
    api: str = FAUX_API
    requests: list[tuple[Context, StreamOptions]] = field(default_factory=list)
    #: The model of each request, in the same order (its ``base_url`` is where it would go).
    request_models: list[Model] = field(default_factory=list)

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        self.requests.append((context, options))
        self.request_models.append(model)
        out = AssistantMessageEventStream()
        if not self.responses:
            raise RuntimeError("FauxProvider has no scripted response left")
        scripted = self.responses.pop(0)
        message = scripted(context) if callable(scripted) else scripted
        out.producer = asyncio.get_running_loop().create_task(self._play(model, message, options, out))
        return out

    async def _play(
        self, model: Model, target: AssistantMessage, options: StreamOptions, out: AssistantMessageEventStream
    ) -> None:
        signal = options.signal
        partial = AssistantMessage(api=model.api, provider=model.provider, model=model.id, usage=Usage())

        def aborted() -> bool:
            return signal is not None and signal.aborted

        async def tick() -> bool:
            if self.delay:
                await asyncio.sleep(self.delay)
            else:
                await asyncio.sleep(0)
            return aborted()

        def abort_now() -> None:
            partial.stop_reason = "aborted"
            partial.error_message = "Request was aborted"
            out.push(ErrorEvent(reason="aborted", error=partial))

        if aborted():
            abort_now()
            return
        out.push(StartEvent(partial=partial))
        size = self.chunk_size
        for block in target.content:
            index = len(partial.content)
            if isinstance(block, TextContent):
                current = TextContent(text="")
                partial.content.append(current)
                out.push(TextStartEvent(content_index=index, partial=partial))
                for i in range(0, len(block.text), size):
                    if await tick():
                        return abort_now()
                    piece = block.text[i : i + size]
                    current.text += piece
                    out.push(TextDeltaEvent(content_index=index, delta=piece, partial=partial))
                out.push(TextEndEvent(content_index=index, content=current.text, partial=partial))
            elif isinstance(block, ThinkingContent):
                thinking = ThinkingContent(thinking="", thinking_signature=block.thinking_signature)
                partial.content.append(thinking)
                out.push(ThinkingStartEvent(content_index=index, partial=partial))
                for i in range(0, len(block.thinking), size):
                    if await tick():
                        return abort_now()
                    piece = block.thinking[i : i + size]
                    thinking.thinking += piece
                    out.push(ThinkingDeltaEvent(content_index=index, delta=piece, partial=partial))
                out.push(ThinkingEndEvent(content_index=index, content=thinking.thinking, partial=partial))
            else:
                call = ToolCall(id=block.id, name=block.name, arguments={})
                partial.content.append(call)
                out.push(ToolCallStartEvent(content_index=index, partial=partial))
                raw = json.dumps(block.arguments)
                if await tick():
                    return abort_now()
                call.arguments = dict(block.arguments)
                out.push(ToolCallDeltaEvent(content_index=index, delta=raw, partial=partial))
                out.push(ToolCallEndEvent(content_index=index, tool_call=call, partial=partial))
        partial.usage = target.usage
        partial.stop_reason = target.stop_reason
        partial.error_message = target.error_message
        if target.stop_reason in ("error", "aborted"):
            out.push(ErrorEvent(reason=target.stop_reason, error=partial))
        else:
            out.push(DoneEvent(reason=target.stop_reason, message=partial))
