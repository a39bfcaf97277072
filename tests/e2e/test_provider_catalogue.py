"""The providers plugin in a real ``pi`` run: a key in the environment and a models.json base URL
pointed at the loopback server are all a provider of the catalogue needs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pi_core.testing import text_turn

if TYPE_CHECKING:
    from conftest import PiEnv


def _patch_models_json(pi_env: PiEnv, **providers: dict[str, object]) -> None:
    path = pi_env.agent_dir / "models.json"
    data = json.loads(path.read_text())
    data["providers"].update(providers)
    path.write_text(json.dumps(data))


def test_first_provider_with_a_key_gives_the_default_model(pi_env: PiEnv) -> None:
    _patch_models_json(pi_env, groq={"baseUrl": pi_env.server.base_url("openai-completions")})
    pi_env.extra_env["GROQ_API_KEY"] = "gsk-from-env"
    pi_env.server.add(text_turn("hello from groq"))
    result = pi_env.run("-p", "hi", model=None)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from groq\n"
    (request,) = pi_env.server.requests
    assert request.body["model"] == "openai/gpt-oss-120b"  # pi 1.6.0's default for groq
    assert request.headers["authorization"] == "Bearer gsk-from-env"


def test_a_local_server_takes_any_model_name(pi_env: PiEnv) -> None:
    _patch_models_json(pi_env, ollama={"baseUrl": pi_env.server.base_url("openai-completions")})
    pi_env.server.add(text_turn("hello from ollama"))
    result = pi_env.run("--provider", "ollama", "-p", "hi", model="qwen3:8b")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from ollama\n"
    assert pi_env.server.requests[-1].body["model"] == "qwen3:8b"


def test_unknown_provider_and_model_suggest_close_names(pi_env: PiEnv) -> None:
    result = pi_env.run("--provider", "openruter", "-p", "hi", model="x")
    assert result.returncode != 0
    assert 'Unknown provider "openruter"' in result.stderr and "Did you mean: openrouter?" in result.stderr
    assert "Traceback" not in result.stderr
    result = pi_env.run("-p", "hi", model="fake-modle")
    assert result.returncode != 0
    assert 'Model "fake-modle" not found' in result.stderr and "fake-model" in result.stderr


def test_list_models_shows_the_catalogue_of_providers_with_a_key(pi_env: PiEnv) -> None:
    pi_env.extra_env["MOONSHOT_API_KEY"] = "mk"
    result = pi_env.run("--list-models", "kimi", model=None)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert rows and {row[0] for row in rows} == {"moonshotai", "moonshotai-cn"}
    assert any(row[1].startswith("kimi-") for row in rows)


def test_azure_sends_api_key_and_api_version_to_the_mapped_deployment(pi_env: PiEnv) -> None:
    # As pi 1.6.0 (checked side by side against this server): the key in an api-key header, no
    # Authorization, ?api-version=v1 unless AZURE_OPENAI_API_VERSION says otherwise, the base URL
    # of a non-Azure host taken as given, and the catalogue id gpt-5.4 asked for under the
    # deployment name AZURE_OPENAI_DEPLOYMENT_NAME_MAP gives it.
    pi_env.extra_env.update(
        AZURE_OPENAI_API_KEY="az-key",
        AZURE_OPENAI_BASE_URL=pi_env.server.base_url("openai-responses"),
        AZURE_OPENAI_DEPLOYMENT_NAME_MAP="gpt-4.1=other, gpt-5.4=my-gpt-deployment",
    )
    pi_env.server.add(text_turn("hello from azure"), text_turn("again"))
    result = pi_env.run("--provider", "azure", "-p", "hi", model="gpt-5.4")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from azure\n"
    pi_env.extra_env["AZURE_OPENAI_API_VERSION"] = "2025-04-01-preview"
    assert pi_env.run("--provider", "azure", "-p", "hi", model="gpt-5.4").returncode == 0
    first, second = pi_env.server.requests
    assert first.path == "/v1/responses"
    assert first.body["model"] == "my-gpt-deployment"
    assert first.headers["api-key"] == "az-key"
    assert "authorization" not in first.headers
    assert (first.query, second.query) == ({"api-version": "v1"}, {"api-version": "2025-04-01-preview"})
    assert "prompt_cache_key" in first.body and "session_id" not in first.headers


def test_azure_chat_completions_model_goes_as_bearer_without_api_version(pi_env: PiEnv) -> None:
    # deepseek-v4-pro is the one Azure model on Chat Completions: pi 1.6.0 sends it through the
    # plain OpenAI client, and AZURE_OPENAI_BASE_URL still outranks models.json's baseUrl.
    _patch_models_json(pi_env, azure={"baseUrl": "http://127.0.0.1:9/not-used"})
    pi_env.extra_env.update(
        AZURE_OPENAI_API_KEY="az-key", AZURE_OPENAI_BASE_URL=pi_env.server.base_url("openai-completions")
    )
    pi_env.server.add(text_turn("hello from deepseek on azure"))
    result = pi_env.run("--provider", "azure", "-p", "hi", model="deepseek-v4-pro")
    assert result.returncode == 0, result.stderr
    (request,) = pi_env.server.requests
    assert request.path == "/v1/chat/completions" and request.query == {}
    assert request.headers["authorization"] == "Bearer az-key"
    assert "api-key" not in request.headers


def test_openrouter_credits_this_client_while_install_telemetry_is_on(pi_env: PiEnv) -> None:
    # pi 1.6.0 (side by side at this server) sends User-Agent pi/1.6.0 (linux; node/…; x64),
    # HTTP-Referer, X-OpenRouter-Title and X-OpenRouter-Categories: cli-agent, and only the
    # User-Agent with enableInstallTelemetry false or PI_TELEMETRY=0.
    models = json.loads((pi_env.agent_dir / "models.json").read_text())
    models["providers"]["openrouter"] = {"baseUrl": pi_env.server.base_url("openai-completions")}
    (pi_env.agent_dir / "models.json").write_text(json.dumps(models))
    pi_env.extra_env["OPENROUTER_API_KEY"] = "or-key"
    pi_env.server.add(text_turn("one"), text_turn("two"), text_turn("three"))
    model = "openrouter/moonshotai/kimi-k2.7-code"
    assert pi_env.run("-p", "hi", model=model).returncode == 0
    pi_env.extra_env["PI_TELEMETRY"] = "0"
    assert pi_env.run("-p", "hi", model=model).returncode == 0
    del pi_env.extra_env["PI_TELEMETRY"]
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    (pi_env.agent_dir / "settings.json").write_text(json.dumps({**settings, "enableInstallTelemetry": False}))
    assert pi_env.run("-p", "hi", model=model).returncode == 0
    credited, *quiet = (request.headers for request in pi_env.server.requests)
    assert credited["user-agent"].startswith("pi-python/")
    assert (credited["x-openrouter-title"], credited["x-openrouter-categories"]) == ("pi-python", "cli-agent")
    for headers in quiet:
        assert headers["user-agent"] == credited["user-agent"] and "x-openrouter-title" not in headers
