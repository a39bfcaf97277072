from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from pi_core.ai.auth import AuthStorage, agent_dir, env_api_key, redact, resolve_config_value


def test_agent_dir_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    assert agent_dir() == tmp_path
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert agent_dir() == Path.home() / ".pi" / "agent"


def test_auth_json_created_0600(pi_agent_dir: Path) -> None:
    storage = AuthStorage()
    storage.set_api_key("anthropic", "sk-ant-secret")
    path = pi_agent_dir / "auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"anthropic": {"type": "api_key", "key": "sk-ant-secret"}}
    storage.remove("anthropic")
    assert json.loads(path.read_text()) == {}


def test_key_resolution_order(pi_agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    storage = AuthStorage()
    assert storage.get_api_key("openai") == "env-key"
    storage.set_api_key("openai", "!echo from-file-command")
    assert storage.get_api_key("openai") == "from-file-command"
    storage.set_runtime_api_key("openai", "cli-key")
    assert storage.get_api_key("openai") == "cli-key"
    assert storage.get_api_key("nobody") is None
    assert storage.get_api_key("nobody", "literal-from-models-json") == "literal-from-models-json"


def test_env_vars_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "api")
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "oauth")
    assert env_api_key("anthropic") == "oauth"
    monkeypatch.setenv("HF_TOKEN", "hf")
    assert env_api_key("huggingface") == "hf"
    # pi 1.6.0 reads only COPILOT_GITHUB_TOKEN for Copilot (a GitHub CLI token is no Copilot token).
    monkeypatch.setenv("GH_TOKEN", "gh")
    monkeypatch.setenv("GITHUB_TOKEN", "gh")
    assert env_api_key("github-copilot") is None
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az")
    assert env_api_key("azure") == "az"


def test_resolve_config_value_and_command_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_NAME", "value")
    assert resolve_config_value("SOME_NAME") == "value"
    assert resolve_config_value("plain-literal") == "plain-literal"
    with pytest.raises(ValueError, match="exit code 3"):
        resolve_config_value("!exit 3")


def test_redact() -> None:
    assert redact("401 bad key sk-abc123 given", ["sk-abc123"]) == "401 bad key [redacted] given"
    assert redact("short", ["ab"]) == "short"
