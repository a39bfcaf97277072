"""Usage cost: the model's per-million-token prices times the token counts."""

from __future__ import annotations

from pi_core.ai.messages import Cost, Usage
from pi_core.ai.provider import Model


def calculate_cost(model: Model, usage: Usage) -> Cost:
    """Fill ``usage.cost`` in place from ``model.cost`` and return it."""
    prices = model.cost
    cost = usage.cost
    cost.input = prices.input / 1_000_000 * usage.input
    cost.output = prices.output / 1_000_000 * usage.output
    cost.cache_read = prices.cache_read / 1_000_000 * usage.cache_read
    cost.cache_write = prices.cache_write / 1_000_000 * usage.cache_write
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost
