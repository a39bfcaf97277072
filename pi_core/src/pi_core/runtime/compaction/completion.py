"""Bind a model and its credentials into the ``CompleteFn`` strategies receive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import AssistantMessage

from .strategy import CompleteFn, SummaryRequest

if TYPE_CHECKING:
    from pi_core.ai.provider import Model


def model_completion(
    model: Model,
    *,
    api_key: str | None = None,
    headers: dict[str, str | None] | None = None,
    thinking_level: str = "off",
) -> CompleteFn:
    """Summary calls through ``complete_simple`` on the session's model.

    Compaction requests ask for the session's thinking level when the model reasons and the
    level is not ``off`` (pi 0.73.1); branch-summary requests never ask for reasoning.
    """

    async def complete(request: SummaryRequest, signal: AbortSignal) -> AssistantMessage:
        from pi_core.ai.provider import Context, StreamOptions
        from pi_core.ai.stream import complete_simple

        reasoning = None
        if request.use_reasoning and model.reasoning and thinking_level != "off":
            reasoning = thinking_level
        options = StreamOptions(
            max_tokens=request.max_tokens,
            signal=signal,
            api_key=api_key,
            headers=headers,
            reasoning=reasoning,  # type: ignore[arg-type]
        )
        context = Context(system_prompt=request.system_prompt, messages=list(request.messages))
        return await complete_simple(model, context, options)

    return complete
