"""Thinking levels: which a model supports, clamping, and the budget-token defaults (spec §9)."""

from __future__ import annotations

from pi_core.ai.provider import THINKING_LEVELS, Model, ThinkingLevel

DEFAULT_THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_OUTPUT_TOKENS = 1024


def supported_thinking_levels(model: Model) -> list[ThinkingLevel]:
    """``off`` only for non-reasoning models; ``xhigh`` and ``max`` only if the model's map names them."""
    if not model.reasoning:
        return ["off"]
    level_map = model.thinking_level_map or {}
    levels: list[ThinkingLevel] = []
    for level in THINKING_LEVELS:
        if level in level_map and level_map[level] is None:
            continue
        if level in ("xhigh", "max") and level not in level_map:
            continue
        levels.append(level)
    return levels


def clamp_thinking_level(model: Model, level: str) -> ThinkingLevel:
    """The level itself if supported, else the next supported one upward, else downward."""
    available = supported_thinking_levels(model)
    if level in available:
        return level
    if level not in THINKING_LEVELS:
        return available[0] if available else "off"
    index = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[index:]:
        if candidate in available:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:index]):
        if candidate in available:
            return candidate
    return available[0] if available else "off"


def default_max_tokens(model: Model, requested: int | None) -> int | None:
    """pi's common default: the caller's value, else ``min(model.maxTokens, 32000)``."""
    if requested is not None:
        return requested
    return min(model.max_tokens, 32000) if model.max_tokens > 0 else None


def adjust_max_tokens_for_thinking(
    base_max_tokens: int, model_max_tokens: int, level: str, budgets: dict[str, int] | None
) -> tuple[int, int]:
    """(max_tokens, thinking_budget) for budget-based thinking; ``xhigh`` and ``max`` count as ``high``."""
    merged = {**DEFAULT_THINKING_BUDGETS, **(budgets or {})}
    key = "high" if level in ("xhigh", "max") else level
    budget = merged[key]
    max_tokens = min(base_max_tokens + budget, model_max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - MIN_OUTPUT_TOKENS)
    return max_tokens, budget
