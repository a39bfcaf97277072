"""Finding models by what a user typed (pi's model-resolver, spec §11.3) and ``--list-models`` output."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TypeVar

from pi_core.ai.provider import THINKING_LEVELS, Model, ThinkingLevel

_T = TypeVar("_T")

#: pi 1.6.0's default model of each provider (``defaultModelPerProvider``), in the order a first
#: run looks for one with a key; a provider definition's ``default_model`` wins over it.
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "amazon-bedrock": "us.anthropic.claude-opus-5-5",
    "ant-ling": "Ring-2.6-1T",
    "anthropic": "claude-opus-5-5",
    "openai": "gpt-6.2-sol",
    "azure": "gpt-6.2-sol",
    "openai-codex": "gpt-6.2-sol",
    "radius": "balanced",
    "nvidia": "nvidia/nemotron-3.5-super-vl-120b-a12b",
    "deepseek": "deepseek-v4-pro",
    "google": "gemini-4-argon",
    "google-vertex": "gemini-4-argon",
    "github-copilot": "gpt-6.1-sol",
    "openrouter": "moonshotai/kimi-k2.7-code",
    "vercel-ai-gateway": "zai/glm-5.3",
    "xai": "grok-4.7",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "gpt-oss-120b",
    "zai": "glm-5.3",
    "zai-coding-cn": "glm-5.3",
    "mistral": "devstral-medium-latest",
    "minimax": "MiniMax-M3",
    "minimax-cn": "MiniMax-M3",
    "moonshotai": "kimi-k2.7-code",
    "moonshotai-cn": "kimi-k2.7-code",
    "huggingface": "moonshotai/Kimi-K2.7-Code",
    "fireworks": "accounts/fireworks/models/kimi-k3",
    "together": "moonshotai/Kimi-K3",
    "baseten": "zai-org/GLM-5.3",
    "opencode": "kimi-k2.7-code",
    "opencode-go": "kimi-k3.1-pro",
    "kimi-coding": "kimi-for-coding",
    "meta": "muse-spark-1.3",
    "cloudflare-workers-ai": "@cf/moonshotai/kimi-k2.7-code",
    "cloudflare-ai-gateway": "workers-ai/@cf/moonshotai/kimi-k2.7-code",
    "qwen-token-plan": "qwen3.8-max",
    "qwen-token-plan-cn": "qwen3.8-max",
    "qwen-token-plan-individual": "qwen3.8-max",
    "qwen-token-plan-individual-cn": "qwen3.8-max",
    "xiaomi": "mimo-v2.6-pro",
    "xiaomi-token-plan-cn": "mimo-v2.6-pro",
    "xiaomi-token-plan-ams": "mimo-v2.6-pro",
    "xiaomi-token-plan-sgp": "mimo-v2.6-pro",
}

_DATED = re.compile(r"-\d{8}$")


class ModelNotFoundError(LookupError):
    pass


@dataclass
class ResolvedModel:
    model: Model
    thinking_level: ThinkingLevel | None = None
    warning: str | None = None


def _is_alias(model_id: str) -> bool:
    return model_id.endswith("-latest") or not _DATED.search(model_id)


def find_exact_model(reference: str, models: list[Model]) -> Model | None:
    """``provider/id`` or a bare id (case-insensitive); an ambiguous bare id matches nothing."""
    ref = reference.strip()
    if not ref:
        return None
    lower = ref.lower()
    canonical = [m for m in models if f"{m.provider}/{m.id}".lower() == lower]
    if len(canonical) == 1:
        return canonical[0]
    if canonical:
        return None
    if "/" in ref:
        provider, _, model_id = ref.partition("/")
        provider, model_id = provider.strip().lower(), model_id.strip().lower()
        if provider and model_id:
            hits = [m for m in models if m.provider.lower() == provider and m.id.lower() == model_id]
            if len(hits) == 1:
                return hits[0]
            if hits:
                return None
    ids = [m for m in models if m.id.lower() == lower]
    return ids[0] if len(ids) == 1 else None


def _match(pattern: str, models: list[Model]) -> Model | None:
    exact = find_exact_model(pattern, models)
    if exact is not None:
        return exact
    needle = pattern.lower()
    hits = [m for m in models if needle in m.id.lower() or needle in (m.name or "").lower()]
    if not hits:
        return None
    aliases = [m for m in hits if _is_alias(m.id)]
    pool = aliases or hits
    return max(pool, key=lambda m: m.id)


def parse_model_pattern(
    pattern: str, models: list[Model], allow_invalid_level: bool = True
) -> ResolvedModel | None:
    """Match ``pattern`` (optionally ``pattern:level``); ``None`` when nothing matches."""
    model = _match(pattern, models)
    if model is not None:
        return ResolvedModel(model)
    if ":" not in pattern:
        return None
    prefix, _, suffix = pattern.rpartition(":")
    if suffix in THINKING_LEVELS:
        inner = parse_model_pattern(prefix, models, allow_invalid_level)
        if inner is None:
            return None
        return ResolvedModel(inner.model, None if inner.warning else suffix, inner.warning)
    if not allow_invalid_level:
        return None
    inner = parse_model_pattern(prefix, models, allow_invalid_level)
    if inner is None:
        return None
    return ResolvedModel(
        inner.model, None, f'Invalid thinking level "{suffix}" in pattern "{pattern}". Using default instead.'
    )


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` Did you mean: a, b?`` for the names closest to ``word`` (case-insensitive), else ``""``."""
    by_lower: dict[str, str] = {}
    for name in candidates:
        by_lower.setdefault(name.lower(), name)
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=3, cutoff=0.7)
    if not close:
        lower = word.lower()
        close = sorted(name for name in by_lower if lower in name)[:3]
    return f" Did you mean: {', '.join(by_lower[c] for c in close)}?" if close else ""


def resolve_cli_model(
    cli_model: str,
    models: list[Model],
    cli_provider: str | None = None,
    unlisted: Callable[[str, str], Model | None] | None = None,
    known_providers: Iterable[str] = (),
) -> ResolvedModel:
    """``--model`` (and ``--provider``) against *all* models; raises with pi's messages.

    ``unlisted(provider, id)`` makes a model for a provider that has no catalogue (a local server),
    ``known_providers`` names such providers; unknown names get close ones suggested.
    """
    extra = [p for p in known_providers if p not in {m.provider for m in models}]
    if unlisted is not None:
        for name in extra:
            if cli_provider and cli_provider.lower() == name.lower():
                model = unlisted(name, cli_model.removeprefix(f"{name}/"))
                if model is not None:
                    return ResolvedModel(model)
            if not cli_provider and cli_model.lower().startswith(f"{name.lower()}/"):
                model = unlisted(name, cli_model[len(name) + 1 :])
                if model is not None:
                    return ResolvedModel(model)
    if not models:
        raise ModelNotFoundError("No models available. Check your installation or add models to models.json.")
    providers = {m.provider.lower(): m.provider for m in models}
    provider = providers.get(cli_provider.lower()) if cli_provider else None
    if cli_provider and provider is None:
        raise ModelNotFoundError(
            f'Unknown provider "{cli_provider}". Use --list-models to see available providers/models.'
            + did_you_mean(cli_provider, [*providers.values(), *extra])
        )
    pattern = cli_model
    inferred = False
    if provider is None and "/" in cli_model:
        maybe = providers.get(cli_model.split("/", 1)[0].lower())
        if maybe:
            provider, pattern, inferred = maybe, cli_model.split("/", 1)[1], True
    lower = cli_model.lower()

    def exact_anywhere() -> Model | None:
        return next(
            (m for m in models if m.id.lower() == lower or f"{m.provider}/{m.id}".lower() == lower), None
        )

    if provider is None and (hit := exact_anywhere()) is not None:
        return ResolvedModel(hit)
    if cli_provider and provider and lower.startswith(f"{provider.lower()}/"):
        pattern = cli_model[len(provider) + 1 :]
    candidates = [m for m in models if m.provider == provider] if provider else models
    found = parse_model_pattern(pattern, candidates, allow_invalid_level=False)
    if found is not None:
        return found
    if inferred:
        if (hit := exact_anywhere()) is not None:
            return ResolvedModel(hit)
        fallback = parse_model_pattern(cli_model, models, allow_invalid_level=False)
        if fallback is not None:
            return fallback
    if provider:
        own = [m for m in models if m.provider == provider]
        if own:
            default_id = DEFAULT_MODEL_PER_PROVIDER.get(provider)
            base = next((m for m in own if m.id == default_id), own[0])
            return ResolvedModel(
                base.model_copy(update={"id": pattern, "name": pattern, "request_id": None}),
                None,
                f'Model "{pattern}" not found for provider "{provider}". Using custom model id.',
            )
    display = f"{provider}/{pattern}" if provider else cli_model
    pool = [m.id for m in models if m.provider == provider] if provider else [m.id for m in models]
    raise ModelNotFoundError(
        f'Model "{display}" not found. Use --list-models to see available models.'
        + did_you_mean(pattern if provider else cli_model, pool)
    )


def resolve_model_scope(patterns: list[str], models: list[Model]) -> list[ResolvedModel]:
    """``--models`` / ``enabledModels``: globs (``*?[``) or patterns, each optionally ``:level``."""
    resolved: list[ResolvedModel] = []
    for raw in patterns:
        if any(c in raw for c in "*?["):
            glob, level = raw, None
            head, _, tail = raw.rpartition(":")
            if head and tail in THINKING_LEVELS:
                glob, level = head, tail
            glob_lower = glob.lower()
            for m in models:
                if (
                    fnmatchcase(f"{m.provider}/{m.id}".lower(), glob_lower)
                    or fnmatchcase(m.id.lower(), glob_lower)
                ) and all(r.model is not m for r in resolved):
                    resolved.append(ResolvedModel(m, level))
            continue
        found = parse_model_pattern(raw, models)
        if found is not None and all(r.model is not found.model for r in resolved):
            resolved.append(found)
    return resolved


# --- fuzzy search and --list-models ---------------------------------------------------------------

_BOUNDARY = re.compile(r"[\s\-_./:]")


def _alignment_score(text: str, positions: Sequence[int]) -> float:
    """Lower is better: runs of adjacent characters and word starts help, gaps and lateness cost."""
    score, last, run = 0.0, -1, 0
    for i in positions:
        if last == i - 1:
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or _BOUNDARY.match(text[i - 1]):
            score -= 10
        score += i * 0.1
        last = i
    return score


def _fuzzy_score(query: str, text: str) -> float | None:
    """pi-tui 1.6.0's fuzzy match: the query's characters in order; the score of the greedy
    alignment or of any place the query occurs whole, whichever is better."""
    q, t = query.lower(), text.lower()

    def score_of(needle: str) -> float | None:
        if not needle:
            return 0.0
        if len(needle) > len(t):
            return None
        positions: list[int] = []
        for ch in needle:
            found = t.find(ch, positions[-1] + 1 if positions else 0)
            if found < 0:
                return None
            positions.append(found)
        score = _alignment_score(t, positions)
        start = t.find(needle)
        while start >= 0:
            score = min(score, _alignment_score(t, range(start, start + len(needle))))
            start = t.find(needle, start + 1)
        return score - 100 if needle == t else score

    primary = score_of(q)
    if primary is not None:
        return primary
    swap = re.fullmatch(r"([a-z]+)([0-9]+)", q) or re.fullmatch(r"([0-9]+)([a-z]+)", q)
    if swap is None:
        return None
    swapped = score_of(swap.group(2) + swap.group(1))
    return None if swapped is None else swapped + 5


def fuzzy_filter(
    models: list[Model], query: str, text_of: Callable[[Model], str] | None = None
) -> list[Model]:
    """pi-tui's fuzzy filter over ``"provider id"`` (or ``text_of(model)``): every token must
    match (tokens are split at spaces and slashes); best score first."""
    return fuzzy_rank(models, query, text_of or (lambda model: f"{model.provider} {model.id}"))


def fuzzy_rank(items: Sequence[_T], query: str, text_of: Callable[[_T], str]) -> list[_T]:
    """:func:`fuzzy_filter` over any items, each searched as ``text_of(item)``."""
    tokens = [token for token in re.split(r"[\s/]+", query.strip()) if token]
    if not tokens:
        return list(items)
    scored: list[tuple[float, int, _T]] = []
    for index, item in enumerate(items):
        text = text_of(item)
        total = 0.0
        for token in tokens:
            score = _fuzzy_score(token, text)
            if score is None:
                break
            total += score
        else:
            scored.append((total, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]


def format_token_count(count: int) -> str:
    def fmt(value: float, unit: str) -> str:
        return f"{int(value)}{unit}" if value == int(value) else f"{value:.1f}{unit}"

    if count >= 1_000_000:
        return fmt(count / 1_000_000, "M")
    if count >= 1_000:
        return fmt(count / 1_000, "K")
    return str(count)


def format_model_list(models: list[Model], search: str | None = None, docs_dir: str = "docs") -> str:
    """The text ``pi --list-models [search]`` prints (no trailing newline)."""
    if not models:
        return (
            "No models available. Save an API key with /login, or set the provider's environment "
            "variable. See:\n"
            f"  {docs_dir}/providers.md"
        )
    chosen = fuzzy_filter(models, search) if search else list(models)
    if not chosen:
        return f'No models matching "{search}"'
    chosen.sort(key=lambda m: (m.provider, m.id))
    header = ("provider", "model", "context", "max-out", "thinking", "images")
    rows = [
        (
            m.provider,
            m.id,
            format_token_count(m.context_window),
            format_token_count(m.max_tokens),
            "yes" if m.reasoning else "no",
            "yes" if "image" in m.input else "no",
        )
        for m in chosen
    ]
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in [header, *rows]]
    return "\n".join(lines)
