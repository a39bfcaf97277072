"""Context transformation before a request (spec §10.4), shared by every provider.

- images become placeholders for models without image input;
- assistant messages of another model lose their signatures, thinking becomes plain text, and
  tool-call ids are normalised for the target API (tool results follow the renaming);
- errored and aborted assistant messages are dropped;
- a tool call left without a result gets a synthetic ``No result provided`` error result.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    LlmMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from pi_core.ai.provider import Model

USER_IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"
TOOL_IMAGE_PLACEHOLDER = "(tool image omitted: model does not support images)"
NO_RESULT_TEXT = "No result provided"

NormalizeToolCallId = Callable[[str, Model, AssistantMessage], str]


def _replace_images(
    content: list[TextContent | ImageContent], placeholder: str
) -> list[TextContent | ImageContent]:
    result: list[TextContent | ImageContent] = []
    previous_was_placeholder = False
    for block in content:
        if isinstance(block, ImageContent):
            if not previous_was_placeholder:
                result.append(TextContent(text=placeholder))
            previous_was_placeholder = True
            continue
        result.append(block)
        previous_was_placeholder = block.text == placeholder
    return result


def _has_image(content: list[TextContent | ImageContent]) -> bool:
    # A loop, not any(<generator>): this runs for every message of the history, and setting up
    # a generator costs more than checking the usual one or two blocks.
    for block in content:  # noqa: SIM110
        if block.type == "image":
            return True
    return False


def _transform_assistant(
    msg: AssistantMessage, model: Model, normalize: NormalizeToolCallId | None, id_map: dict[str, str]
) -> AssistantMessage:
    same_model = msg.provider == model.provider and msg.api == model.api and msg.model == model.id
    if same_model and not any(
        isinstance(block, ThinkingContent)
        and not block.redacted
        and not block.thinking_signature
        and not (block.thinking and block.thinking.strip())
        for block in msg.content
    ):
        # The model's own reply, with no empty thinking to drop: sent as it is (the common
        # case, once per message of a long session).
        return msg
    blocks: list[TextContent | ThinkingContent | ToolCall] = []
    for block in msg.content:
        if isinstance(block, ThinkingContent):
            if block.redacted:
                if same_model:
                    blocks.append(block)
                continue
            if same_model and block.thinking_signature:
                blocks.append(block)
                continue
            if not block.thinking or not block.thinking.strip():
                continue
            blocks.append(block if same_model else TextContent(text=block.thinking))
        elif isinstance(block, TextContent):
            plain = same_model or block.text_signature is None
            blocks.append(block if plain else TextContent(text=block.text))
        else:
            call = block
            if not same_model and call.thought_signature:
                call = call.model_copy(update={"thought_signature": None})
            if not same_model and normalize is not None:
                new_id = normalize(call.id, model, msg)
                if new_id != call.id:
                    id_map[call.id] = new_id
                    call = call.model_copy(update={"id": new_id})
            blocks.append(call)
    if len(blocks) == len(msg.content) and all(a is b for a, b in zip(blocks, msg.content, strict=True)):
        return msg  # nothing changed: no copy
    return msg.model_copy(update={"content": blocks})


def transform_messages(
    messages: list[LlmMessage], model: Model, normalize_tool_call_id: NormalizeToolCallId | None = None
) -> list[LlmMessage]:
    """The messages as ``model`` receives them (see the module's docstring), in one pass: each
    message's transformation depends only on the messages before it.

    This runs over the whole history before every request: one loop over an assistant message's
    blocks finds its tool calls and any thinking to drop (no generators), and messages and blocks
    are told apart by their ``role``/``type`` tags. For a 100k-message history that took the pass
    from 0.21 s to 0.14 s of CPU (0.16 s with ``isinstance`` checks in the same loop).
    """
    downgrade = "image" not in model.input
    provider, api, model_id = model.provider, model.api, model.id
    id_map: dict[str, str] = {}
    result: list[LlmMessage] = []
    append = result.append
    pending: list[ToolCall] = []
    seen_results: set[str] = set()

    def flush_orphans() -> None:
        for call in pending:
            if call.id not in seen_results:
                append(
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        content=[TextContent(text=NO_RESULT_TEXT)],
                        is_error=True,
                    )
                )

    for msg in messages:
        if msg.role == "assistant":
            calls: list[ToolCall] = []
            # The model's own reply with no empty thinking to drop is sent as it is (the common
            # case, once per message of a long session); anything else is rebuilt.
            unchanged = msg.provider == provider and msg.api == api and msg.model == model_id
            for block in msg.content:
                if block.type == "toolCall":
                    calls.append(block)
                elif (
                    block.type == "thinking"
                    and not block.redacted
                    and not block.thinking_signature
                    and not (block.thinking and block.thinking.strip())
                ):
                    unchanged = False
            if not unchanged:
                msg = _transform_assistant(msg, model, normalize_tool_call_id, id_map)
                calls = [block for block in msg.content if block.type == "toolCall"]
            if pending:
                flush_orphans()
                pending = []
            if msg.stop_reason in ("error", "aborted"):
                continue
            if calls:
                pending = calls
                seen_results = set()
            append(msg)
        elif msg.role == "toolResult":
            if downgrade and _has_image(msg.content):
                msg = msg.model_copy(update={"content": _replace_images(msg.content, TOOL_IMAGE_PLACEHOLDER)})
            if id_map and msg.tool_call_id in id_map:
                msg = msg.model_copy(update={"tool_call_id": id_map[msg.tool_call_id]})
            seen_results.add(msg.tool_call_id)
            append(msg)
        else:
            if downgrade and isinstance(msg.content, list) and _has_image(msg.content):
                msg = msg.model_copy(update={"content": _replace_images(msg.content, USER_IMAGE_PLACEHOLDER)})
            if pending:
                flush_orphans()
                pending = []
            append(msg)
    if pending:
        flush_orphans()
    return result
