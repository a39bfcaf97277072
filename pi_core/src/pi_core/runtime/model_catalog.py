"""The models a run can use and how to authenticate them: ``models.json`` providers, plugin
providers, and API keys from ``--api-key``, auth.json, the environment or models.json.

This is the runtime's view that AgentSession and the CLI need (``get_all``, ``get_available``,
``find``, ``has_configured_auth``, ``is_using_oauth``, ``get_api_key``). It reads custom providers
the way pi documents ``models.json`` (JSON with ``//`` comments and trailing commas; spec
agent-loop §11.2); errors leave the file out and are reported, built-ins stay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import ValidationError

from pi_core.ai.auth import AuthStorage
from pi_core.ai.provider import Model, ModelCost, ProviderConfig
from pi_core.runtime.jsonc import parse_jsonc


class ModelsJsonError(ValueError):
    """models.json could not be used; the message says why and names the file."""


def _models_of(name: str, config: ProviderConfig) -> list[Model]:
    models: list[Model] = []
    for entry in config.models or []:
        api = entry.api or config.api
        if not api:
            raise ModelsJsonError(f'Provider {name}: no "api" specified. Set at provider or model level.')
        base_url = entry.base_url or config.base_url
        if not base_url:
            raise ModelsJsonError(f'Provider {name}: "baseUrl" is required when defining custom models.')
        context_window = entry.context_window if entry.context_window is not None else 128000
        max_tokens = entry.max_tokens if entry.max_tokens is not None else 16384
        if context_window <= 0:
            raise ModelsJsonError(f"Provider {name}: model {entry.id}: invalid contextWindow")
        if max_tokens <= 0:
            raise ModelsJsonError(f"Provider {name}: model {entry.id}: invalid maxTokens")
        headers = {**(config.headers or {}), **(entry.headers or {})} or None
        compat = {**(config.compat or {}), **(entry.compat or {})} or None
        models.append(
            Model(
                id=entry.id,
                name=entry.name or entry.id,
                api=api,
                provider=name,
                base_url=base_url,
                reasoning=bool(entry.reasoning),
                thinking_level_map=entry.thinking_level_map,
                input=entry.input or ["text"],
                cost=ModelCost.model_validate(entry.cost or {}),
                context_window=context_window,
                max_tokens=max_tokens,
                headers=headers,
                compat=compat,
            )
        )
    return models


def load_models_json(path: Path) -> tuple[dict[str, ProviderConfig], list[str]]:
    """The providers of ``path`` (empty when missing) and the errors that made it unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, []
    try:
        raw = parse_jsonc(text)
    except json.JSONDecodeError as error:
        return {}, [f"Failed to parse models.json: {error}\n\nFile: {path}"]
    providers = raw.get("providers") if isinstance(raw, dict) else None
    if not isinstance(providers, dict):
        return {}, [f"Invalid models.json schema:\n  - providers: must be an object\n\nFile: {path}"]
    parsed: dict[str, ProviderConfig] = {}
    problems: list[str] = []
    for name, value in providers.items():
        try:
            parsed[name] = ProviderConfig.model_validate(
                {**(value if isinstance(value, dict) else {}), "id": name}
            )
        except ValidationError as error:
            details = "\n".join(
                f"  - providers.{name}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                for e in error.errors()
            )
            problems.append(f"Invalid models.json schema:\n{details}\n\nFile: {path}")
    return parsed, problems


class ModelCatalog:
    """Known models plus their credentials."""

    def __init__(
        self, auth: AuthStorage, providers: Iterable[ProviderConfig] = (), models: Sequence[Model] = ()
    ):
        self.auth = auth
        self._configs: dict[str, ProviderConfig] = {}
        self._models: list[Model] = list(models)
        self.errors: list[str] = []
        for config in providers:
            self.add_provider(config)

    @classmethod
    def load(
        cls, agent_dir: Path, auth: AuthStorage, plugin_providers: Iterable[ProviderConfig] = ()
    ) -> ModelCatalog:
        """Plugin providers first, then ``<agent_dir>/models.json`` (a same-named entry replaces)."""
        catalog = cls(auth)
        for config in plugin_providers:
            catalog.add_provider(config)
        configs, problems = load_models_json(agent_dir / "models.json")
        catalog.errors.extend(problems)
        for config in configs.values():
            try:
                catalog.add_provider(config)
            except ModelsJsonError as error:
                catalog.errors.append(f"{error}\n\nFile: {agent_dir / 'models.json'}")
        return catalog

    def add_provider(self, config: ProviderConfig) -> None:
        name = config.id
        models = _models_of(name, config)
        if models and not config.api_key and not self.auth.has_auth(name):
            raise ModelsJsonError(f'Provider {name}: "apiKey" is required when defining custom models.')
        self._configs[name] = config
        keep = [m for m in self._models if not (m.provider == name and any(n.id == m.id for n in models))]
        self._models = keep + models

    def get_all(self) -> list[Model]:
        return list(self._models)

    def get_available(self) -> list[Model]:
        return [m for m in self._models if self.has_configured_auth(m)]

    def find(self, provider: str, model_id: str) -> Model | None:
        return next((m for m in self._models if m.provider == provider and m.id == model_id), None)

    def _provider_key(self, provider: str) -> str | None:
        config = self._configs.get(provider)
        return config.api_key if config is not None else None

    def has_configured_auth(self, model: Model) -> bool:
        return self.auth.has_auth(model.provider, self._provider_key(model.provider))

    def is_using_oauth(self, model: Model) -> bool:
        entry = self.auth.read().get(model.provider)
        return isinstance(entry, dict) and entry.get("type") == "oauth"

    async def get_api_key(self, model: Model) -> str | None:
        """The key for a request (may run a ``!command``, so off the event loop)."""
        return await asyncio.to_thread(
            self.auth.get_api_key, model.provider, self._provider_key(model.provider)
        )
