from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry, builtin_models, strip_json_comments
from pi_core.ai.provider import ProviderConfig
from pi_core.ai.resolve import (
    ModelNotFoundError,
    format_model_list,
    fuzzy_filter,
    parse_model_pattern,
    resolve_cli_model,
    resolve_model_scope,
)
from pi_core.ai.thinking import clamp_thinking_level, supported_thinking_levels


def registry(agent_dir: Path, data: object | None = None, text: str | None = None) -> ModelRegistry:
    path = agent_dir / "models.json"
    if text is not None:
        path.write_text(text)
    elif data is not None:
        path.write_text(json.dumps(data))
    return ModelRegistry(AuthStorage(agent_dir / "auth.json"), path)


def test_builtin_catalogue_values() -> None:
    models = {f"{m.provider}/{m.id}": m for m in builtin_models()}
    opus = models["anthropic/claude-opus-4-7"]
    assert opus.api == "anthropic-messages" and opus.base_url == "https://api.anthropic.com"
    assert opus.context_window == 1_000_000 and opus.max_tokens == 128000 and opus.reasoning
    assert opus.thinking_level_map and opus.thinking_level_map.get("xhigh") == "xhigh"
    gpt = models["openai/gpt-5.4"]
    assert gpt.api == "openai-responses" and gpt.input == ["text", "image"]
    assert models["openai/gpt-4o"].cost.input == 2.5


def test_models_json_custom_provider(pi_agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LOCAL_KEY", "from-env")
    text = """{
      // local server
      "providers": {
        "ollama": {
          "baseUrl": "http://localhost:11434/v1",
          "api": "openai-completions",
          "apiKey": "MY_LOCAL_KEY",
          "headers": {"x-extra": "literal"},
          "compat": {"supportsDeveloperRole": false},
          "models": [{"id": "llama3.1:8b"}, {"id": "qwen", "reasoning": true, "contextWindow": 32000,},],
        },
      },
    }"""
    reg = registry(pi_agent_dir, text=text)
    assert reg.error is None
    llama = reg.find("ollama", "llama3.1:8b")
    assert llama is not None
    assert (llama.name, llama.context_window, llama.max_tokens, llama.input) == (
        "llama3.1:8b",
        128000,
        16384,
        ["text"],
    )
    assert llama.compat == {"supportsDeveloperRole": False}
    assert reg.get_api_key(llama) == "from-env"
    assert reg.request_headers(llama) == {"x-extra": "literal"}
    assert llama in reg.available()
    assert reg.find("ollama", "qwen").context_window == 32000  # type: ignore[union-attr]


def test_models_json_command_key_and_overrides(pi_agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN", raising=False)
    data = {
        "providers": {
            "anthropic": {
                "baseUrl": "http://proxy.local",
                "apiKey": "!echo from-command",
                "modelOverrides": {"claude-opus-4-7": {"name": "Opus via proxy", "cost": {"input": 1}}},
            }
        }
    }
    reg = registry(pi_agent_dir, data)
    opus = reg.find("anthropic", "claude-opus-4-7")
    assert opus is not None and opus.base_url == "http://proxy.local" and opus.name == "Opus via proxy"
    assert opus.cost.input == 1 and opus.cost.output == 25
    assert reg.get_api_key(opus) == "from-command"


@pytest.mark.parametrize(
    ("provider", "message"),
    [
        (
            {"api": "openai-completions"},
            'Provider p: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".',
        ),
        (
            {"models": [{"id": "m"}], "apiKey": "k", "api": "openai-completions"},
            '"baseUrl" is required when defining custom models.',
        ),
        (
            {"models": [{"id": "m"}], "baseUrl": "http://x", "api": "openai-completions"},
            '"apiKey" is required',
        ),
        ({"models": [{"id": "m"}], "baseUrl": "http://x", "apiKey": "k"}, 'no "api" specified'),
        (
            {"models": [{"id": "m", "maxTokens": 0}], "baseUrl": "http://x", "apiKey": "k", "api": "a"},
            "invalid maxTokens",
        ),
    ],
)
def test_models_json_validation_errors_keep_builtins(
    pi_agent_dir: Path, provider: dict[str, object], message: str
) -> None:
    reg = registry(pi_agent_dir, {"providers": {"p": provider}})
    assert reg.error is not None and message in reg.error
    assert reg.find("anthropic", "claude-opus-4-7") is not None
    assert all(m.provider != "p" for m in reg.all())


def test_models_json_syntax_and_schema_errors(pi_agent_dir: Path) -> None:
    reg = registry(pi_agent_dir, text="{ not json")
    assert reg.error is not None and reg.error.startswith("Failed to parse models.json:")
    reg = registry(pi_agent_dir, {"providers": {"p": {"models": "nope", "baseUrl": "x"}}})
    assert reg.error is not None and reg.error.startswith(
        "Invalid models.json schema:\n  - providers.p.models:"
    )
    assert reg.error.endswith(f"File: {pi_agent_dir / 'models.json'}")


def test_models_json_compat_values_are_checked_one_line_each(pi_agent_dir: Path) -> None:
    # As pi 1.6.0: a known compat field with a value of the wrong kind makes models.json invalid
    # (unknown fields are allowed); here each bad value is named once, with what it may be.
    provider = {
        "baseUrl": "http://127.0.0.1:9/v1",
        "api": "openai-completions",
        "apiKey": "k",
        "compat": {"supportsStore": "nope", "maxTokensField": "max_tokens", "myOwnKnob": [1]},
        "models": [{"id": "m", "compat": {"thinkingFormat": "weird", "openRouterRouting": {"order": [3]}}}],
        "modelOverrides": {"x": {"compat": {"vllmPriority": True}}},
    }
    reg = registry(pi_agent_dir, {"providers": {"p": provider}})
    assert reg.error is not None
    lines = reg.error.splitlines()
    assert lines[:2] == [
        "Invalid models.json schema:",
        "  - providers.p.compat.supportsStore: must be boolean",
    ]
    assert lines[2].startswith('  - providers.p.models.0.compat.thinkingFormat: must be one of "openai", ')
    assert lines[3:6] == [
        "  - providers.p.models.0.compat.openRouterRouting.order.0: must be string",
        "  - providers.p.modelOverrides.x.compat.vllmPriority: must be number",
        "",
    ]
    assert all(m.provider != "p" for m in reg.all())
    provider["compat"] = {"supportsStore": False, "maxTokensField": "max_tokens", "myOwnKnob": [1]}
    provider["models"] = [
        {"id": "m", "compat": {"thinkingFormat": "qwen", "openRouterRouting": {"order": ["a"]}}}
    ]
    provider["modelOverrides"] = {"x": {"compat": {"vllmPriority": 2}}}
    assert registry(pi_agent_dir, {"providers": {"p": provider}}).error is None


def test_strip_json_comments_keeps_urls() -> None:
    assert json.loads(strip_json_comments('{"u": "http://x//y", // c\n "a": [1,2,],}')) == {
        "u": "http://x//y",
        "a": [1, 2],
    }


def test_plugin_provider_config(pi_agent_dir: Path) -> None:
    reg = registry(pi_agent_dir)
    reg.register_provider(
        ProviderConfig(
            id="mine", base_url="http://h/v1", api="openai-completions", api_key="lit", models=[{"id": "m1"}]
        )  # type: ignore[list-item]
    )
    model = reg.find("mine", "m1")
    assert model is not None and model.api == "openai-completions"
    assert reg.get_api_key(model) == "lit"


def test_resolve_cli_model_rules(pi_agent_dir: Path) -> None:
    models = registry(pi_agent_dir).all()
    assert resolve_cli_model("claude-opus-4-7", models).model.id == "claude-opus-4-7"
    assert resolve_cli_model("anthropic/claude-opus-4-7", models).model.provider == "anthropic"
    # substring: prefer aliases (no -YYYYMMDD), highest id
    assert resolve_cli_model("sonnet", models).model.id == "claude-sonnet-5-5"
    assert resolve_cli_model("opus-4-5", models).model.id == "claude-opus-4-5"  # not -20251101
    resolved = resolve_cli_model("sonnet:high", models)
    assert resolved.model.id == "claude-sonnet-5-5" and resolved.thinking_level == "high"
    with pytest.raises(ModelNotFoundError, match='Model "sonnet:bogus" not found'):
        resolve_cli_model("sonnet:bogus", models)
    fallback = resolve_cli_model("claude-future-9", models, cli_provider="anthropic")
    assert fallback.model.id == "claude-future-9" and fallback.model.api == "anthropic-messages"
    assert (
        fallback.warning
        == 'Model "claude-future-9" not found for provider "anthropic". Using custom model id.'
    )
    with pytest.raises(ModelNotFoundError, match='Unknown provider "nope"'):
        resolve_cli_model("x", models, cli_provider="nope")
    with pytest.raises(ModelNotFoundError, match=r'Model "zzz-nothing" not found\. Use --list-models'):
        resolve_cli_model("zzz-nothing", models)


def test_scope_patterns_with_globs_and_levels(pi_agent_dir: Path) -> None:
    models = registry(pi_agent_dir).all()
    scoped = resolve_model_scope(["anthropic/claude-opus-4-*:low", "gpt-5.4"], models)
    ids = [(r.model.id, r.thinking_level) for r in scoped]
    assert ("claude-opus-4-7", "low") in ids and ("gpt-5.4", None) in ids
    invalid = parse_model_pattern("gpt-5.4:turbo", models)
    assert invalid is not None and invalid.warning and "Invalid thinking level" in invalid.warning


def test_list_models_output_and_fuzzy(pi_agent_dir: Path) -> None:
    models = builtin_models()
    text = format_model_list(models, "sonnet 4-6")
    lines = text.splitlines()
    assert lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert lines[1].split() == ["anthropic", "claude-sonnet-4-6", "1M", "128K", "yes", "yes"]
    assert format_model_list(models, "qqqqq") == 'No models matching "qqqqq"'
    assert format_model_list([]).startswith("No models available. Save an API key with /login")
    assert format_model_list([], docs_dir="/d").endswith("See:\n  /d/providers.md")
    assert "o4-mini" in {m.id for m in fuzzy_filter(models, "o4mini")}


def test_thinking_levels_and_clamping() -> None:
    models = {m.id: m for m in builtin_models()}
    assert supported_thinking_levels(models["gpt-4o"]) == ["off"]
    assert supported_thinking_levels(models["claude-opus-4-7"])[-2:] == ["xhigh", "max"]
    assert "xhigh" not in supported_thinking_levels(models["claude-sonnet-4-5"])
    assert clamp_thinking_level(models["claude-sonnet-4-5"], "xhigh") == "high"
    assert clamp_thinking_level(models["gpt-4o"], "high") == "off"


def test_list_models_text_uses_available_models(pi_agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_core.ai.models import list_models_text

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    reg = registry(pi_agent_dir)
    assert list_models_text(reg).startswith("No models available.")
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    text = list_models_text(reg, "gpt-5.4")
    assert "anthropic" not in text and "gpt-5.4" in text


def test_plugin_provider_with_models_replaces_the_provider_after_models_json(
    pi_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    data = {"providers": {"openai": {"baseUrl": "http://json.local/v1", "apiKey": "json-key"}}}
    reg = registry(pi_agent_dir, data)
    assert reg.find("openai", "gpt-4o") is not None
    reg.register_provider(
        ProviderConfig(
            id="openai",
            base_url="http://plugin.local/v1",
            api="openai-completions",
            api_key="plugin-key",
            models=[{"id": "only-this"}],  # type: ignore[list-item]
        )
    )
    assert [m.id for m in reg.get_all() if m.provider == "openai"] == ["only-this"]
    only = reg.find("openai", "only-this")
    assert only is not None and only.base_url == "http://plugin.local/v1"
    assert reg.get_api_key(only) == "plugin-key"  # the plugin's key, set after models.json's
    reg.unregister_provider("openai")
    gpt = reg.find("openai", "gpt-4o")
    assert (
        gpt is not None and gpt.base_url == "http://json.local/v1" and reg.find("openai", "only-this") is None
    )
    assert reg.get_api_key(gpt) == "json-key"


def test_plugin_provider_without_models_moves_builtins(pi_agent_dir: Path) -> None:
    reg = registry(pi_agent_dir)
    reg.register_provider(ProviderConfig(id="anthropic", base_url="http://proxy.local"))
    assert {m.base_url for m in reg.get_all() if m.provider == "anthropic"} == {"http://proxy.local"}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"id": "p", "apiKey": "k", "api": "a", "models": [{"id": "m"}]},
            'Provider p: "baseUrl" is required when defining models.',
        ),
        (
            {"id": "p", "baseUrl": "http://x", "api": "a", "models": [{"id": "m"}]},
            'Provider p: "apiKey" is required when defining models.',
        ),
        (
            {"id": "p", "baseUrl": "http://x", "apiKey": "k", "models": [{"id": "m"}]},
            'Provider p, model m: no "api" specified.',
        ),
        ({"baseUrl": "http://x"}, "ProviderConfig.id (the provider name) is required"),
    ],
)
def test_plugin_provider_validation(pi_agent_dir: Path, config: dict[str, object], message: str) -> None:
    reg = registry(pi_agent_dir)
    with pytest.raises(ValueError, match=re.escape(message)):
        reg.register_provider(ProviderConfig.model_validate(config))
    assert reg.providers() == ["anthropic", "openai"]


def test_register_sorts_wire_apis_from_providers(pi_agent_dir: Path) -> None:
    from pi_core.ai.provider import get_api_provider, unregister_api_providers
    from pi_core.testing.faux import FauxProvider

    reg = registry(pi_agent_dir)
    wire = FauxProvider(api="registered-by-test")
    try:
        reg.register(wire, source_id="test-register")
        assert get_api_provider("registered-by-test") is wire
    finally:
        unregister_api_providers("test-register")
    with pytest.raises(TypeError, match="a ProviderDefinition or an OAuthProvider, got str"):
        reg.register("nonsense")  # type: ignore[arg-type]


async def test_request_auth_resolves_key_and_headers(
    pi_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROXY_TOKEN", "tok-123")
    data = {
        "providers": {
            "proxy": {
                "baseUrl": "http://proxy.local/v1",
                "api": "openai-completions",
                "apiKey": "!echo cmd-key",
                "authHeader": True,
                "headers": {"x-proxy-token": "PROXY_TOKEN"},
                "models": [{"id": "m"}],
            }
        }
    }
    reg = registry(pi_agent_dir, data)
    model = reg.find("proxy", "m")
    assert model is not None and reg.has_configured_auth(model) and not reg.is_using_oauth(model)
    auth = await reg.get_api_key_and_headers(model)
    assert auth.api_key == "cmd-key"
    assert auth.headers == {"x-proxy-token": "tok-123", "Authorization": "Bearer cmd-key"}
    assert reg.get_error() is None


def test_model_headers_go_over_the_provider_headers_and_the_auth_header(pi_agent_dir: Path) -> None:
    """pi 1.6.0's provider composer: provider ``headers``, then ``authHeader``'s Authorization,
    then the model's headers (its modelOverrides entry's under its definition's), a name in
    another case replacing the earlier spelling."""
    data = {
        "providers": {
            "proxy": {
                "baseUrl": "http://proxy.local/v1",
                "api": "openai-completions",
                "apiKey": "sk-proxy",
                "authHeader": True,
                "headers": {"X-Team": "provider", "X-Site": "north", "authorization": "provider"},
                "modelOverrides": {"m": {"headers": {"X-Level": "override", "X-Note": "override"}}},
                "models": [
                    {"id": "m", "headers": {"x-team": "model", "X-Note": "definition"}},
                    {"id": "keyed", "headers": {"AUTHORIZATION": "Bearer the-models"}},
                ],
            }
        }
    }
    reg = registry(pi_agent_dir, data)
    model, keyed = reg.find("proxy", "m"), reg.find("proxy", "keyed")
    assert model is not None and keyed is not None
    assert reg.request_headers(model) == {
        "X-Site": "north",
        "Authorization": "Bearer sk-proxy",
        "X-Level": "override",
        "x-team": "model",
        "X-Note": "definition",
    }
    assert reg.request_headers(keyed) == {
        "X-Team": "provider",
        "X-Site": "north",
        "AUTHORIZATION": "Bearer the-models",
    }


def test_model_overrides_patch_the_providers_own_models_too(pi_agent_dir: Path) -> None:
    """pi 1.6.0 applies ``modelOverrides`` last, over a model ``models[]`` defines as well."""
    data = {
        "providers": {
            "proxy": {
                "baseUrl": "http://proxy.local/v1",
                "api": "openai-completions",
                "apiKey": "sk-proxy",
                "modelOverrides": {
                    "m": {"contextWindow": 1234, "name": "Renamed", "compat": {"supportsStore": False}}
                },
                "models": [
                    {"id": "m", "contextWindow": 200000, "compat": {"supportsDeveloperRole": False}},
                    {"id": "n"},
                ],
            }
        }
    }
    reg = registry(pi_agent_dir, data)
    model, other = reg.find("proxy", "m"), reg.find("proxy", "n")
    assert reg.error is None and model is not None and other is not None
    assert (model.context_window, model.name) == (1234, "Renamed")
    assert model.compat == {"supportsDeveloperRole": False, "supportsStore": False}
    assert (other.context_window, other.name) == (128000, "n")


def test_oauth_entries_count_as_oauth(pi_agent_dir: Path) -> None:
    (pi_agent_dir / "auth.json").write_text(json.dumps({"anthropic": {"type": "oauth", "access": "a"}}))
    reg = registry(pi_agent_dir)
    opus = reg.find("anthropic", "claude-opus-4-7")
    assert opus is not None and reg.is_using_oauth(opus) and opus in reg.get_available()


def test_loading_the_catalogue_imports_no_sdk(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pi_core.ai.models import ModelRegistry\n"
        "import pi_core.ai.resolve, pi_core.runtime.host\n"
        "registry = ModelRegistry()\n"
        "assert registry.find('anthropic', 'claude-sonnet-4-5') is not None\n"
        "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))\n"
    )
    env = {"PI_CODING_AGENT_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "[]"


def test_documented_models_json_example_loads(pi_agent_dir: Path) -> None:
    """The example in docs/providers.md (where the no-model messages point) is a valid models.json."""
    doc = (Path(__file__).resolve().parents[3] / "docs/providers.md").read_text(encoding="utf-8")
    example = doc.split("```jsonc\n", 1)[1].split("```", 1)[0]
    reg = registry(pi_agent_dir, text=example)
    from pi_builtin_providers import provider_definitions  # the example's "ollama" is one of them

    for definition in provider_definitions():
        reg.register(definition)
    assert reg.error is None
    custom = reg.find("my-server", "qwen3:8b")
    assert custom is not None and custom.base_url == "http://10.0.0.5:9000/v1"
    ollama = reg.find("ollama", "qwen3:8b")
    assert ollama is not None and ollama.context_window == 32768 and ollama.max_tokens == 16384
    assert ollama.base_url == "http://localhost:11434/v1" and ollama.api == "openai-completions"
    sonnet = reg.find("anthropic", "claude-sonnet-4-6")
    assert sonnet is not None and sonnet.max_tokens == 32000
    assert sonnet.base_url == "https://proxy.example/anthropic"


def test_the_core_catalogue_holds_the_default_model_of_each_of_its_providers() -> None:
    from pi_core.ai.resolve import DEFAULT_MODEL_PER_PROVIDER

    ids = {(m.provider, m.id) for m in builtin_models()}
    assert ("anthropic", DEFAULT_MODEL_PER_PROVIDER["anthropic"]) in ids
    assert ("openai", DEFAULT_MODEL_PER_PROVIDER["openai"]) in ids
    assert DEFAULT_MODEL_PER_PROVIDER["anthropic"] == "claude-opus-5-5"  # pi 1.6.0's, not 0.73's
