"""``--model`` resolution over a small hand-made model list (moved from the runtime's stand-in resolver)."""

from __future__ import annotations

import pytest
from pi_core.ai.provider import Model
from pi_core.ai.resolve import ModelNotFoundError, parse_model_pattern, resolve_cli_model


def _m(provider: str, model_id: str, name: str = "") -> Model:
    return Model(id=model_id, name=name or model_id, api="openai-completions", provider=provider)


MODELS = [
    _m("anthropic", "claude-sonnet-4-5"),
    _m("anthropic", "claude-sonnet-4-5-20250929"),
    _m("anthropic", "claude-haiku-4-5-20251001"),
    _m("openai", "gpt-4o"),
    _m("loop", "fake-model"),
    _m("openrouter", "qwen/qwen3:exacto"),
]


def test_provider_prefix_and_thinking_suffix() -> None:
    found = resolve_cli_model("openai/gpt-4o:high", MODELS)
    assert found.model.id == "gpt-4o" and found.thinking_level == "high"


def test_substring_prefers_aliases_then_latest_dated() -> None:
    sonnet = parse_model_pattern("sonnet", MODELS)
    haiku = parse_model_pattern("haiku", MODELS)
    assert sonnet is not None and sonnet.model.id == "claude-sonnet-4-5"
    assert haiku is not None and haiku.model.id == "claude-haiku-4-5-20251001"


def test_colon_inside_ids_is_kept() -> None:
    assert resolve_cli_model("openrouter/qwen/qwen3:exacto", MODELS).model.id == "qwen/qwen3:exacto"


def test_unknown_provider_and_model_errors() -> None:
    with pytest.raises(ModelNotFoundError) as unknown_provider:
        resolve_cli_model("x", MODELS, cli_provider="nope")
    assert str(unknown_provider.value) == (
        'Unknown provider "nope". Use --list-models to see available providers/models.'
    )
    with pytest.raises(ModelNotFoundError) as unknown_model:
        resolve_cli_model("zzz", MODELS)
    assert str(unknown_model.value) == 'Model "zzz" not found. Use --list-models to see available models.'


def test_unknown_id_of_known_provider_becomes_custom_model() -> None:
    found = resolve_cli_model("other-model", MODELS, cli_provider="loop")
    assert found.model.id == "other-model" and found.model.provider == "loop"
    assert found.warning == 'Model "other-model" not found for provider "loop". Using custom model id.'
