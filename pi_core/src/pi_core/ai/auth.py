"""API keys: ``--api-key`` override, ``<agentDir>/auth.json``, pi's environment variables, models.json.

Order for a provider (spec §12): runtime override → auth.json ``api_key`` entry (``!command`` / env
name / literal) → the provider's environment variable(s) → the models.json ``apiKey``. OAuth
entries are kept in the file; the model registry refreshes those of providers with a login flow.
Keys never appear in logs, errors or events: anything that may echo one goes through
:func:`redact`.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_core._files import replace_file
from pi_core._jsonfile import loads, read_json_text
from pi_core._paths import agent_dir

ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
}

COMMAND_TIMEOUT_S = 10.0
REDACTED = "[redacted]"


def env_api_key(provider: str, names: Sequence[str] | None = None) -> str | None:
    """The first set environment variable of ``names`` (default: the ones pi reads for ``provider``)."""
    for name in ENV_API_KEYS.get(provider, ()) if names is None else names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def redact(text: str, secrets: list[str] | tuple[str, ...]) -> str:
    """``text`` with every secret (longer than 3 characters) replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and len(secret) > 3 and secret in text:
            text = text.replace(secret, REDACTED)
    return text


def run_key_command(command: str) -> str:
    """Run a ``!command`` key source (shell, 10 s timeout) and return its trimmed stdout."""
    try:
        done = subprocess.run(
            command,
            shell=True,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            start_new_session=True,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ValueError(f"API key command timed out after {COMMAND_TIMEOUT_S:g}s: {command}") from None
    if done.returncode != 0:
        raise ValueError(f"API key command failed with exit code {done.returncode}: {command}")
    return done.stdout.strip()


def resolve_config_value(value: str, cache: dict[str, str] | None = None) -> str:
    """``!command`` → its stdout; the name of a set environment variable → its value; else the literal."""
    if value.startswith("!"):
        if cache is not None and value in cache:
            return cache[value]
        result = run_key_command(value[1:])
        if cache is not None:
            cache[value] = result
        return result
    from_env = os.environ.get(value)
    return from_env if from_env else value


class AuthStorage:
    """``<agentDir>/auth.json``: provider id → ``{"type":"api_key","key":...}`` or an OAuth record."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else agent_dir() / "auth.json"
        self._runtime: dict[str, str] = {}
        self._command_cache: dict[str, str] = {}

    # --- file -------------------------------------------------------------------------------------

    def ensure_file(self) -> None:
        """Create the file as ``{}`` with mode 0600 (directory 0700) if it does not exist."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.path.exists():
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write("{}")

    def read(self) -> dict[str, Any]:
        try:
            text = read_json_text(self.path)
            data = loads(text) if text.strip() else {}  # an empty file holds no credentials, as in pi
        except FileNotFoundError:
            return {}
        except json.JSONDecodeError as error:
            raise ValueError(f"Failed to parse {self.path}: {error}") from None
        except OSError as error:
            raise ValueError(f"Failed to read {self.path}: {error.strerror or error}") from None
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        self.ensure_file()
        replace_file(self.path, json.dumps(data, indent=2), mode=0o600)

    def set_api_key(self, provider: str, key: str) -> None:
        data = self.read()
        data[provider] = {"type": "api_key", "key": key}
        self._write(data)

    def set_oauth(self, provider: str, credential: dict[str, Any]) -> None:
        """Store an OAuth record (``refresh``, ``access``, ``expires``, ...) as pi does."""
        data = self.read()
        data[provider] = {"type": "oauth", **{k: v for k, v in credential.items() if k != "type"}}
        self._write(data)

    def remove(self, provider: str) -> None:
        data = self.read()
        if data.pop(provider, None) is not None:
            self._write(data)

    # --- lookups ----------------------------------------------------------------------------------

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """The ``--api-key`` override for one provider (never written to disk)."""
        self._runtime[provider] = key

    def has_runtime_key(self, provider: str) -> bool:
        return provider in self._runtime

    def has_auth(
        self, provider: str, models_json_key: str | None = None, env: Sequence[str] | None = None
    ) -> bool:
        """Whether some source is configured; runs no commands (used for "available" models).

        ``env`` names the variables that hold the key (default: pi's table for ``provider``).
        """
        if provider in self._runtime or env_api_key(provider, env):
            return True
        entry = self.read().get(provider)
        return isinstance(entry, dict) or bool(models_json_key)

    def key_source(
        self, provider: str, models_json_key: str | None = None, env: Sequence[str] | None = None
    ) -> str | None:
        """Which source :meth:`get_api_key` takes the key from (a variable name, never a key)."""
        if provider in self._runtime:
            return "--api-key"
        entry = self.read().get(provider)
        if isinstance(entry, dict):
            return str(self.path)
        for name in ENV_API_KEYS.get(provider, ()) if env is None else env:
            if os.environ.get(name):
                return name
        return "models.json" if models_json_key else None

    def get_api_key(
        self, provider: str, models_json_key: str | None = None, env: Sequence[str] | None = None
    ) -> str | None:
        if provider in self._runtime:
            return self._runtime[provider]
        entry = self.read().get(provider)
        if isinstance(entry, dict):
            if entry.get("type") == "api_key" and isinstance(entry.get("key"), str):
                return resolve_config_value(entry["key"], self._command_cache)
            if entry.get("type") == "oauth" and isinstance(entry.get("access"), str):
                return str(entry["access"])
        from_env = env_api_key(provider, env)
        if from_env:
            return from_env
        if models_json_key:
            # models.json commands run at request time and are not cached (pi's rule).
            return resolve_config_value(models_json_key)
        return None
