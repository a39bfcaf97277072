"""The providers plugin's data: every definition is usable by pi for Python as it stands."""

from __future__ import annotations

import json

import pytest
from pi_core.ai.builtin_providers import builtin_api_providers
from pi_core.ai.models import ModelRegistry, definition_base_url, definition_models
from pi_core.ai.provider import Model

from pi_builtin_providers import catalogue_source, provider_definitions

WIRE_APIS = {provider.api for provider in builtin_api_providers()}


def test_catalogue_comes_from_pi_1_6() -> None:
    assert catalogue_source() == "@earendil-works/pi-coding-agent 1.6.0"


def test_every_definition_speaks_an_implemented_wire_api_and_names_its_key() -> None:
    definitions = provider_definitions()
    ids = [d.id for d in definitions]
    assert len(ids) == len(set(ids))
    for definition in definitions:
        models = definition_models(definition)
        assert {m.api for m in models} <= WIRE_APIS, definition.id
        assert all(isinstance(m, Model) and m.provider == definition.id for m in models)
        if definition.local:
            assert models == [] and definition.base_url.startswith("http://localhost:")
            continue
        assert models, definition.id
        # A key comes from the environment, or (OpenAI Codex) only from the provider's own login.
        assert definition.env or definition.oauth, definition.id
        assert all(name.isupper() for name in definition.env), definition.id
        assert all(m.base_url.startswith("https://") for m in models if "{" not in m.base_url)
        assert definition.default_model is None or definition.default_model in {m.id for m in models}


@pytest.mark.parametrize(
    ("provider", "env", "base_url"),
    [
        ("openrouter", "OPENROUTER_API_KEY", "https://openrouter.ai/api/v1"),
        ("groq", "GROQ_API_KEY", "https://api.groq.com/openai/v1"),
        ("xai", "XAI_API_KEY", "https://api.x.ai/v1"),
        ("deepseek", "DEEPSEEK_API_KEY", "https://api.deepseek.com"),
        ("mistral", "MISTRAL_API_KEY", "https://api.mistral.ai/v1"),
        ("cerebras", "CEREBRAS_API_KEY", "https://api.cerebras.ai/v1"),
        ("together", "TOGETHER_API_KEY", "https://api.together.ai/v1"),
        ("google", "GEMINI_API_KEY", "https://generativelanguage.googleapis.com/v1beta/openai"),
        ("moonshotai", "MOONSHOT_API_KEY", "https://api.moonshot.ai/v1"),
        ("zai", "ZAI_API_KEY", "https://api.z.ai/api/coding/paas/v4"),
        ("qwen-token-plan", "QWEN_TOKEN_PLAN_API_KEY", None),
        ("azure", "AZURE_OPENAI_API_KEY", None),
    ],
)
def test_the_providers_the_issue_names_are_there(provider: str, env: str, base_url: str | None) -> None:
    definition = next(d for d in provider_definitions() if d.id == provider)
    assert env in definition.env
    if base_url is not None:
        assert definition.base_url == base_url


def test_catalogue_facts_reach_the_models() -> None:
    groq = next(d for d in provider_definitions() if d.id == "groq")
    model = next(m for m in definition_models(groq) if m.id == "llama-3.3-70b-versatile")
    assert (model.api, model.context_window, model.max_tokens) == ("openai-completions", 131072, 32768)
    assert (model.cost.input, model.cost.output, model.reasoning, model.input) == (
        0.59,
        0.79,
        False,
        ["text"],
    )


def test_base_url_placeholders_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    azure = next(d for d in provider_definitions() if d.id == "azure")
    monkeypatch.delenv("AZURE_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_RESOURCE_NAME", raising=False)
    assert definition_base_url(azure) == "https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com/openai/v1"
    monkeypatch.setenv("AZURE_OPENAI_RESOURCE_NAME", "acme")
    assert definition_base_url(azure) == "https://acme.openai.azure.com/openai/v1"
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", "https://proxy.example/v1")
    assert definition_base_url(azure) == "https://proxy.example/v1"
    # A resource's root URL (as the Azure portal shows it) gets the v1 API path.
    roots = ("https://acme.ai.azure.com", "https://acme.ai.azure.com/openai/", " https://acme.ai.azure.com/ ")
    for given in roots:
        monkeypatch.setenv("AZURE_OPENAI_BASE_URL", given)
        assert definition_base_url(azure) == "https://acme.ai.azure.com/openai/v1"
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", "https://acme.openai.azure.com/openai/v1/responses")
    assert definition_base_url(azure) == "https://acme.openai.azure.com/openai/v1"
    # Any other host (a proxy, a loopback server) is taken as it is, as pi 1.6.0 does.
    for given in ("http://127.0.0.1:9/openai", "https://proxy.example"):
        monkeypatch.setenv("AZURE_OPENAI_BASE_URL", given)
        assert definition_base_url(azure) == given


def test_azure_environment_outranks_a_models_json_base_url(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pi 1.6.0 takes AZURE_OPENAI_BASE_URL, then AZURE_OPENAI_RESOURCE_NAME, then the model's baseUrl.
    for name in ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME"):
        monkeypatch.delenv(name, raising=False)
    models_json = json.dumps(
        {
            "providers": {
                "azure": {
                    "baseUrl": "https://from-json.openai.azure.com",
                    "models": [{"id": "my-own", "api": "azure-openai-responses"}],
                }
            }
        }
    )

    def urls() -> set[str]:
        registry = _registry(tmp_path, models_json)
        return {m.base_url for m in registry.all() if m.provider == "azure"} | {
            (registry.unlisted_model("azure", "other") or registry.all()[0]).base_url
        }

    assert urls() == {"https://from-json.openai.azure.com/openai/v1"}
    monkeypatch.setenv("AZURE_OPENAI_RESOURCE_NAME", "acme")
    assert urls() == {"https://acme.openai.azure.com/openai/v1"}
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", "https://proxy.example/az")
    assert urls() == {"https://proxy.example/az"}


def _registry(tmp_path: object, models_json: str | None = None) -> ModelRegistry:
    from pathlib import Path

    from pi_core.ai.auth import AuthStorage

    root = Path(str(tmp_path))
    if models_json is not None:
        (root / "models.json").write_text(models_json)
    registry = ModelRegistry(AuthStorage(root / "auth.json"), root / "models.json")
    for definition in provider_definitions():
        registry.register(definition)
    return registry


def test_a_key_in_the_environment_makes_that_provider_available(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    for definition in provider_definitions():
        for name in definition.env:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    registry = _registry(tmp_path)
    assert registry.available() == []
    monkeypatch.setenv("TOGETHER_API_KEY", "tk")
    assert {m.provider for m in registry.available()} == {"together"}
    assert registry.get_api_key(registry.available()[0]) == "tk"
    assert registry.default_model_ids()["together"] == "moonshotai/Kimi-K3"


def test_models_json_patches_a_definition_and_adds_models_to_a_local_server(tmp_path: object) -> None:
    registry = _registry(
        tmp_path,
        '{"providers": {"groq": {"baseUrl": "http://127.0.0.1:9/v1"},'
        ' "ollama": {"models": [{"id": "qwen3:8b", "contextWindow": 32768}]}}}',
    )
    assert registry.error is None
    assert {m.base_url for m in registry.all() if m.provider == "groq"} == {"http://127.0.0.1:9/v1"}
    local = registry.find("ollama", "qwen3:8b")
    assert local is not None
    assert (local.api, local.base_url, local.context_window) == (
        "openai-completions",
        "http://localhost:11434/v1",
        32768,
    )
    # A local server needs no key: the definition's stand-in one makes its models available.
    assert local in registry.available() and registry.get_api_key(local)
    unlisted = registry.unlisted_model("lm-studio", "some-model")
    assert unlisted is not None and unlisted.base_url == "http://localhost:1234/v1"


def test_docs_table_matches_the_data() -> None:
    from pathlib import Path

    from pi_builtin_providers import markdown_table

    docs = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
    assert markdown_table() in docs.read_text(encoding="utf-8")


def test_tiered_prices_come_from_the_catalogue_and_price_a_long_request() -> None:
    from pi_core.ai.cost import calculate_cost
    from pi_core.ai.messages import Usage

    openai = next(d for d in provider_definitions() if d.id == "openai")
    model = next(m for m in definition_models(openai) if m.id == "gpt-5.4")
    # pi 1.6.0's catalogue: 2.5/15 per million tokens, 5/22.5 once a request's input passes 272,000.
    assert (model.cost.input, model.cost.output) == (2.5, 15)
    assert model.cost.tiers is not None
    assert [(t.input_tokens_above, t.input, t.output) for t in model.cost.tiers] == [(272000, 5, 22.5)]
    short = calculate_cost(model, Usage(input=1_000_000, output=1_000_000))
    assert (short.input, short.output) == (pytest.approx(5.0), pytest.approx(22.5))
    assert calculate_cost(model, Usage(input=200_000, output=1_000_000)).output == pytest.approx(15)


def test_models_json_models_carry_tiered_prices(tmp_path: object) -> None:
    registry = _registry(
        tmp_path,
        '{"providers": {"ollama": {"models": [{"id": "big", "cost": {"input": 1, "output": 2,'
        ' "tiers": [{"inputTokensAbove": 100, "input": 3, "output": 4}]}}]}}}',
    )
    assert registry.error is None
    model = registry.find("ollama", "big")
    assert model is not None and model.cost.tiers is not None
    assert (model.cost.tiers[0].input_tokens_above, model.cost.tiers[0].output) == (100, 4)
    broken = _registry(tmp_path, '{"providers": {"ollama": {"models": [{"id": "x", "cost": {"tiers": 5}}]}}}')
    assert broken.error is not None and "providers.ollama.models.0.cost.tiers" in broken.error
