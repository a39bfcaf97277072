"""Resolving ``--model`` / ``--provider`` to a model, as pi's model-resolver does (spec agent-loop §11.3).

Pure functions over a list of models (all known models, not only those with a key, so that
``--api-key`` can bootstrap). Patterns match an exact ``provider/id`` or id, else a substring of
id or name (aliases preferred over dated ids, highest first); a ``:level`` suffix sets the thinking
level; a known provider with an unknown id yields a custom model based on that provider's default.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pi_core.ai.provider import Model

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")

#: pi's default model per provider, used for synthesised custom ids and the initial choice.
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-4-6-v1",
    "anthropic": "claude-opus-4-7",
    "openai": "gpt-5.4",
    "azure-openai-responses": "gpt-5.4",
    "openai-codex": "gpt-5.5",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-3.1-pro-preview",
    "google-vertex": "gemini-3.1-pro-preview",
    "github-copilot": "gpt-5.4",
    "openrouter": "moonshotai/kimi-k2.6",
    "vercel-ai-gateway": "zai/glm-5.1",
    "xai": "grok-4.20-0309-reasoning",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "zai-glm-4.7",
    "zai": "glm-5.1",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M2.7",
    "minimax-cn": "MiniMax-M2.7",
    "moonshotai": "kimi-k2.6",
    "moonshotai-cn": "kimi-k2.6",
    "huggingface": "moonshotai/Kimi-K2.6",
    "fireworks": "accounts/fireworks/models/kimi-k2p6",
    "opencode": "kimi-k2.6",
    "opencode-go": "kimi-k2.6",
    "kimi-coding": "kimi-for-coding",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.6",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.6",
    "xiaomi": "mimo-v2.5-pro",
    "xiaomi-token-plan-cn": "mimo-v2.5-pro",
    "xiaomi-token-plan-ams": "mimo-v2.5-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.5-pro",
}

_DATED = re.compile(r"-\d{8}$")


@dataclass(frozen=True)
class Resolved:
    """Outcome of a resolution: a model (maybe with a level), and/or a warning or an error."""

    model: Model | None = None
    thinking_level: str | None = None
    warning: str | None = None
    error: str | None = None


def _is_alias(model_id: str) -> bool:
    return model_id.endswith("-latest") or not _DATED.search(model_id)


def find_exact(reference: str, models: Sequence[Model]) -> Model | None:
    """An unambiguous exact ``provider/id`` or id match (case-insensitive)."""
    ref = reference.strip().lower()
    if not ref:
        return None
    canonical = [m for m in models if f"{m.provider}/{m.id}".lower() == ref]
    if canonical:
        return canonical[0] if len(canonical) == 1 else None
    by_id = [m for m in models if m.id.lower() == ref]
    return by_id[0] if len(by_id) == 1 else None


def _match(pattern: str, models: Sequence[Model]) -> Model | None:
    exact = find_exact(pattern, models)
    if exact is not None:
        return exact
    needle = pattern.lower()
    found = [m for m in models if needle in m.id.lower() or needle in (m.name or "").lower()]
    if not found:
        return None
    aliases = [m for m in found if _is_alias(m.id)]
    pool = aliases or found
    return sorted(pool, key=lambda m: m.id, reverse=True)[0]


def parse_model_pattern(
    pattern: str, models: Sequence[Model], *, allow_invalid_level: bool = True
) -> Resolved:
    """Match ``pattern``; when nothing matches, try a trailing ``:level`` suffix."""
    model = _match(pattern, models)
    if model is not None:
        return Resolved(model)
    prefix, colon, suffix = pattern.rpartition(":")
    if not colon:
        return Resolved()
    if suffix in THINKING_LEVELS:
        inner = parse_model_pattern(prefix, models, allow_invalid_level=allow_invalid_level)
        if inner.model is not None:
            return Resolved(inner.model, None if inner.warning else suffix, inner.warning)
        return inner
    if not allow_invalid_level:
        return Resolved()
    inner = parse_model_pattern(prefix, models, allow_invalid_level=allow_invalid_level)
    if inner.model is not None:
        warning = f'Invalid thinking level "{suffix}" in pattern "{pattern}". Using default instead.'
        return Resolved(inner.model, None, warning)
    return inner


def _fallback(provider: str, model_id: str, models: Sequence[Model]) -> Model | None:
    mine = [m for m in models if m.provider == provider]
    if not mine:
        return None
    default = DEFAULT_MODEL_PER_PROVIDER.get(provider)
    base = next((m for m in mine if m.id == default), mine[0])
    return base.model_copy(update={"id": model_id, "name": model_id})


def resolve_cli_model(cli_provider: str | None, cli_model: str | None, models: Sequence[Model]) -> Resolved:
    """``--provider``/``--model`` → a model, with pi's warnings and errors."""
    if not cli_model:
        return Resolved()
    if not models:
        return Resolved(error="No models available. Check your installation or add models to models.json.")
    providers = {m.provider.lower(): m.provider for m in models}
    provider = providers.get(cli_provider.lower()) if cli_provider else None
    if cli_provider and provider is None:
        return Resolved(
            error=f'Unknown provider "{cli_provider}". Use --list-models to see available providers/models.'
        )
    pattern, inferred = cli_model, False
    if provider is None and "/" in cli_model:
        maybe, _, rest = cli_model.partition("/")
        if maybe.lower() in providers:
            provider, pattern, inferred = providers[maybe.lower()], rest, True
    lower = cli_model.lower()
    if provider is None:
        exact = next((m for m in models if lower in (m.id.lower(), f"{m.provider}/{m.id}".lower())), None)
        if exact is not None:
            return Resolved(exact)
    if cli_provider and provider and lower.startswith(f"{provider}/".lower()):
        pattern = cli_model[len(provider) + 1 :]
    candidates = [m for m in models if m.provider == provider] if provider else list(models)
    found = parse_model_pattern(pattern, candidates, allow_invalid_level=False)
    if found.model is not None:
        return found
    if inferred:
        exact = next((m for m in models if lower in (m.id.lower(), f"{m.provider}/{m.id}".lower())), None)
        if exact is not None:
            return Resolved(exact)
        retry = parse_model_pattern(cli_model, models, allow_invalid_level=False)
        if retry.model is not None:
            return retry
    if provider is not None:
        model_id, level = pattern, None
        head, colon, tail = pattern.rpartition(":")
        if colon and tail in THINKING_LEVELS:
            model_id, level = head, tail
        custom = _fallback(provider, model_id, models)
        if custom is not None:
            warning = f'Model "{model_id}" not found for provider "{provider}". Using custom model id.'
            return Resolved(custom, level, warning)
    return Resolved(error=f'Model "{cli_model}" not found. Use --list-models to see available models.')
