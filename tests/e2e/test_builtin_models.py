"""The built-in model catalogue in a real ``pi`` run: built-in providers pointed at the loopback
server through a models.json ``baseUrl`` override (as pi allows), keys from the environment,
``--api-key`` and auth.json, pi's ``--model`` resolution, the initial model choice and plugin providers."""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING

from pi_core.testing import text_turn

if TYPE_CHECKING:
    from conftest import PiEnv


def _point_builtins_at_loopback(pi_env: PiEnv) -> None:
    path = pi_env.agent_dir / "models.json"
    data = json.loads(path.read_text())
    data["providers"]["anthropic"] = {"baseUrl": pi_env.server.base_url("anthropic-messages")}
    data["providers"]["openai"] = {"baseUrl": pi_env.server.base_url("openai-responses")}
    path.write_text(json.dumps(data))


def _anthropic_key(headers: dict[str, str]) -> str:
    """The key as the Anthropic SDK sent it (``x-api-key``, or a bearer header in newer SDKs)."""
    return headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ")


def _session_entries(pi_env: PiEnv) -> list[dict[str, object]]:
    (session_file,) = pi_env.session_files()
    return [json.loads(line) for line in session_file.read_text().splitlines()]


def test_builtin_model_by_provider_and_id_with_env_key(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    pi_env.server.add(text_turn("hello from the built-in sonnet"))
    result = pi_env.run("-p", "hi", model="anthropic/claude-sonnet-4-5")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from the built-in sonnet\n"
    (request,) = pi_env.server.requests
    assert request.api == "anthropic-messages"
    assert request.body["model"] == "claude-sonnet-4-5"
    assert _anthropic_key(request.headers) == "sk-ant-from-env"
    # The catalogue's values reach the request: a reasoning model at pi's default level (medium):
    # min(32000 + the 8192-token medium budget, maxTokens 64000).
    assert request.body["thinking"]["budget_tokens"] == 8192
    assert request.body["max_tokens"] == 40192
    change = next(e for e in _session_entries(pi_env) if e["type"] == "model_change")
    assert (change["provider"], change["modelId"]) == ("anthropic", "claude-sonnet-4-5")


def test_fuzzy_model_pattern_picks_the_newest_alias(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    pi_env.server.add(text_turn("fuzzy"))
    result = pi_env.run("-p", "hi", model="sonnet")
    assert result.returncode == 0, result.stderr
    # Among the models of the provider with a key (pi 1.6.0's catalogue), the newest sonnet alias.
    assert pi_env.server.requests[-1].body["model"] == "claude-sonnet-5-5"


def test_thinking_suffix_sets_the_level(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    pi_env.server.add(text_turn("thought about it"))
    result = pi_env.run("-p", "hi", model="anthropic/claude-sonnet-4-5:high")
    assert result.returncode == 0, result.stderr
    body = pi_env.server.requests[-1].body
    assert body["model"] == "claude-sonnet-4-5"
    assert (body["thinking"]["type"], body["thinking"]["budget_tokens"]) == ("enabled", 16384)
    levels = [e["thinkingLevel"] for e in _session_entries(pi_env) if e["type"] == "thinking_level_change"]
    assert levels == ["high"]


def test_thinking_suffix_on_an_openai_builtin(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["OPENAI_API_KEY"] = "sk-openai-from-env"
    pi_env.server.add(text_turn("reasoned"))
    result = pi_env.run("-p", "hi", model="openai/gpt-5.4:low")
    assert result.returncode == 0, result.stderr
    request = pi_env.server.requests[-1]
    assert request.api == "openai-responses" and request.body["model"] == "gpt-5.4"
    assert request.body["reasoning"]["effort"] == "low"
    assert request.headers["authorization"] == "Bearer sk-openai-from-env"


def test_unknown_model_is_a_usage_error(pi_env: PiEnv) -> None:
    unknown = pi_env.run("-p", "hi", model="no-such-model-anywhere")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        'Error: Model "no-such-model-anywhere" not found. Use --list-models to see available models.'
    )
    provider = pi_env.run("--provider", "nope", "-p", "hi", model="x")
    assert provider.returncode == 2
    assert 'Unknown provider "nope". Use --list-models to see available providers/models.' in provider.stderr
    assert pi_env.server.requests == []


def test_unknown_id_of_a_builtin_provider_is_a_custom_model_with_a_warning(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    pi_env.server.add(text_turn("custom id"))
    result = pi_env.run("-p", "hi", model="anthropic/claude-future-9")
    assert result.returncode == 0, result.stderr
    assert (
        'Model "claude-future-9" not found for provider "anthropic". Using custom model id.' in result.stderr
    )
    assert pi_env.server.requests[-1].body["model"] == "claude-future-9"


def test_missing_key_names_the_environment_variable(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    result = pi_env.run("-p", "hi", model="anthropic/claude-sonnet-4-5")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("No API key found for anthropic.\n")
    assert "ANTHROPIC_API_KEY" in result.stderr and "--api-key" in result.stderr
    assert pi_env.server.requests == []


def test_api_key_flag_bootstraps_a_builtin_provider(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.server.add(text_turn("keyed by flag"))
    result = pi_env.run("--api-key", "sk-from-flag", "-p", "hi", model="claude-haiku-4-5")
    assert result.returncode == 0, result.stderr
    request = pi_env.server.requests[-1]
    assert request.body["model"] == "claude-haiku-4-5" and _anthropic_key(request.headers) == "sk-from-flag"


def test_auth_json_key_makes_a_builtin_available(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    (pi_env.agent_dir / "auth.json").write_text(json.dumps({"openai": {"type": "api_key", "key": "sk-auth"}}))
    pi_env.server.add(text_turn("from auth.json"))
    result = pi_env.run("-p", "hi", model="gpt-4o")
    assert result.returncode == 0, result.stderr
    request = pi_env.server.requests[-1]
    assert request.body["model"] == "gpt-4o" and request.headers["authorization"] == "Bearer sk-auth"


def test_initial_model_follows_pi_provider_order(pi_env: PiEnv) -> None:
    """No --model, no saved default: anthropic's default (pi 1.6.0's) comes before any custom provider."""
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    pi_env.server.add(text_turn("opus by default"))
    result = pi_env.run("-p", "hi", model=None)
    assert result.returncode == 0, result.stderr
    assert pi_env.server.requests[-1].body["model"] == "claude-opus-5-5"


def test_saved_default_model_wins_over_provider_order(pi_env: PiEnv) -> None:
    _point_builtins_at_loopback(pi_env)
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    settings_path = pi_env.agent_dir / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings.update(defaultProvider="loop", defaultModel="fake-model")
    settings_path.write_text(json.dumps(settings))
    pi_env.server.add(text_turn("the saved default"))
    result = pi_env.run("-p", "hi", model=None)
    assert result.returncode == 0, result.stderr
    assert pi_env.server.requests[-1].api == "openai-completions"
    assert pi_env.server.requests[-1].body["model"] == "fake-model"


def test_list_models_includes_builtins_with_a_key(pi_env: PiEnv) -> None:
    pi_env.extra_env["ANTHROPIC_API_KEY"] = "sk-ant-from-env"
    result = pi_env.run("--list-models", "sonnet 4-5", model=None)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0] == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert ["anthropic", "claude-sonnet-4-5", "200K", "64K", "yes", "yes"] in rows[1:]
    assert all(row[0] == "anthropic" for row in rows[1:])
    everything = pi_env.run("--list-models", model=None).stdout
    assert "openai" not in everything  # no key, not available
    assert "loop " in everything and "claude-opus-4-7" in everything


def test_list_models_reports_a_broken_models_json(pi_env: PiEnv) -> None:
    (pi_env.agent_dir / "models.json").write_text("{ nope")
    pi_env.extra_env["OPENAI_API_KEY"] = "sk-openai-from-env"
    result = pi_env.run("--list-models", "gpt-4o", model=None)
    assert result.returncode == 0
    assert result.stderr.startswith("Warning: errors loading models.json:\nFailed to parse models.json:")
    assert "openai    gpt-4o " in result.stdout


PROVIDER_PLUGIN = """
from pi_core import hookimpl
from pi_core.ai.provider import ProviderConfig


@hookimpl
def register_providers(register):
    register(
        ProviderConfig(
            id="plugged",
            base_url={base_url!r},
            api="openai-completions",
            api_key="PLUGGED_KEY",
            models=[{{"id": "plug-model", "contextWindow": 64000}}],
        )
    )
"""


def test_plugin_registered_provider(pi_env: PiEnv) -> None:
    plugin = pi_env.root / "provider_plugin.py"
    plugin.write_text(
        textwrap.dedent(PROVIDER_PLUGIN.format(base_url=pi_env.server.base_url("openai-completions")))
    )
    pi_env.extra_env["PLUGGED_KEY"] = "sk-plugged"
    pi_env.server.add(text_turn("from the plugin provider"))
    result = pi_env.run("-e", str(plugin), "-p", "hi", model="plugged/plug-model")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "from the plugin provider\n"
    request = pi_env.server.requests[-1]
    assert request.body["model"] == "plug-model" and request.headers["authorization"] == "Bearer sk-plugged"
    listed = pi_env.run("-e", str(plugin), "--list-models", "plug", model=None)
    assert [line.split() for line in listed.stdout.splitlines()][1] == [
        "plugged", "plug-model", "64K", "16.4K", "no", "no"
    ]  # fmt: skip


def test_models_json_headers_and_auth_header_reach_the_request(pi_env: PiEnv) -> None:
    path = pi_env.agent_dir / "models.json"
    data = json.loads(path.read_text())
    data["providers"]["loop"].update(
        headers={"x-team": "TEAM_NAME", "x-site": "north"}, authHeader=True, apiKey="!echo sk-cmd"
    )
    # pi 1.6.0: a model's headers go over its provider's, whatever the case
    data["providers"]["loop"]["models"][0]["headers"] = {"X-Team": "MODEL_TEAM"}
    path.write_text(json.dumps(data))
    pi_env.extra_env.update(TEAM_NAME="blue", MODEL_TEAM="red")
    pi_env.server.add(text_turn("with headers"))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    headers = pi_env.server.requests[-1].headers
    assert (headers["x-team"], headers["x-site"]) == ("red", "north")
    assert headers["authorization"] == "Bearer sk-cmd"
