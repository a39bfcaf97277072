"""Usage cost: the model's per-million-token prices times the token counts."""

from __future__ import annotations

from pi_core.ai.messages import Cost, Usage
from pi_core.ai.provider import Model, ModelCost, ModelCostTier


def request_rates(prices: ModelCost, usage: Usage) -> ModelCost | ModelCostTier:
    """The rates that apply to this request: the tier with the highest threshold its input exceeds.

    The input counted is every prompt token (fresh, read from the cache and written to it), and the
    tier's rates then apply to all of the request's tokens, output included.
    """
    prompt = usage.input + usage.cache_read + usage.cache_write
    rates: ModelCost | ModelCostTier = prices
    threshold = -1.0
    for tier in prices.tiers or ():
        if prompt > tier.input_tokens_above > threshold:
            rates, threshold = tier, tier.input_tokens_above
    return rates


def calculate_cost(model: Model, usage: Usage) -> Cost:
    """Fill ``usage.cost`` in place from ``model.cost`` and return it."""
    rates = request_rates(model.cost, usage)
    cost = usage.cost
    cost.input = rates.input / 1_000_000 * usage.input
    cost.output = rates.output / 1_000_000 * usage.output
    cost.cache_read = rates.cache_read / 1_000_000 * usage.cache_read
    # One-hour cache writes cost twice the input price (Anthropic); the rest the cache-write price.
    long_write = usage.cache_write_1h or 0
    cost.cache_write = (
        rates.cache_write * (usage.cache_write - long_write) + rates.input * 2 * long_write
    ) / 1_000_000
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    cost.total_from_provider = False
    return cost
