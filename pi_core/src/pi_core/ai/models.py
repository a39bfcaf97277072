"""The model registry: the built-in catalogue plus ``<agentDir>/models.json`` (spec §11, pi docs/models.md).

``ModelRegistry.load()`` (re)reads models.json; a broken file is reported in ``error`` and ignored
(built-ins stay). Provider-level ``baseUrl``/``compat``/``headers`` apply to that provider's
built-in models, ``modelOverrides`` patch single built-ins, custom ``models`` are upserted by id.
Plugins add providers through :meth:`ModelRegistry.register_provider` with the same
:class:`ProviderConfig` shape.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from pi_core._jsonfile import loads, read_json_text
from pi_core.ai.auth import AuthStorage, agent_dir, resolve_config_value
from pi_core.ai.auth_lock import auth_file_lock
from pi_core.ai.provider import (
    ApiProvider,
    Model,
    ModelCost,
    OAuthAuth,
    OAuthError,
    OAuthProvider,
    ProviderConfig,
    ProviderDefinition,
    ProviderModelConfig,
    register_api_provider,
    unregister_api_providers,
)

MODEL_DEFAULTS: dict[str, Any] = {"context_window": 128000, "max_tokens": 16384}


@cache
def _catalogue() -> dict[str, list[dict[str, Any]]]:
    text = resources.files("pi_core.ai").joinpath("catalogue.json").read_text(encoding="utf-8")
    data: dict[str, list[dict[str, Any]]] = json.loads(text)
    return data


def builtin_models() -> list[Model]:
    """Fresh copies of the built-in Anthropic and OpenAI models (values from pi-ai's catalogue)."""
    return [Model.model_validate(entry) for entries in _catalogue().values() for entry in entries]


def builtin_providers() -> list[str]:
    return list(_catalogue())


# --- models.json ----------------------------------------------------------------------------------


def strip_json_comments(text: str) -> str:
    """Drop ``//`` line comments and trailing commas outside strings (pi accepts both since 0.73)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif ch in "}]":
            # A trailing comma before a closing bracket: remove it (and the whitespace after it).
            j = len(out) - 1
            while j >= 0 and out[j] in " \t\r\n":
                j -= 1
            if j >= 0 and out[j] == ",":
                del out[j]
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


class ModelsJsonError(ValueError):
    pass


def parse_models_json(text: str, path: Path, builtin_provider_ids: set[str]) -> dict[str, ProviderConfig]:
    """Validate a models.json text; raises :class:`ModelsJsonError` with pi's messages."""
    try:
        data = loads(strip_json_comments(text))
    except json.JSONDecodeError as error:
        raise ModelsJsonError(f"Failed to parse models.json: {error}\n\nFile: {path}") from None
    if not isinstance(data, dict) or not isinstance(data.get("providers", {}), dict):
        raise ModelsJsonError(
            f"Invalid models.json schema:\n  - providers: must be an object\n\nFile: {path}"
        )
    configs: dict[str, ProviderConfig] = {}
    problems: list[str] = []
    for name, raw in data.get("providers", {}).items():
        try:
            config = ProviderConfig.model_validate({**raw, "id": name} if isinstance(raw, dict) else raw)
        except ValidationError as error:
            for err in error.errors():
                where = ".".join(str(p) for p in ("providers", name, *err["loc"]))
                problems.append(f"  - {where}: {err['msg']}")
            continue
        problems.extend(_compat_problems(raw, f"providers.{name}"))
        configs[name] = config
    if problems:
        raise ModelsJsonError("Invalid models.json schema:\n" + "\n".join(problems) + f"\n\nFile: {path}")
    for name, config in configs.items():
        _check_provider(name, config, name in builtin_provider_ids)
    return configs


def _compat_problems(provider: dict[str, Any], where: str) -> list[str]:
    """The bad values of the provider's ``compat`` and of its models' and overrides' (pi checks
    them against pi-ai's schema; unknown fields are allowed)."""
    from pi_core.ai.compat_schema import compat_problems

    places: list[tuple[Any, str]] = [(provider.get("compat"), f"{where}.compat")]
    for index, model in enumerate(provider.get("models") or []):
        places.append((model.get("compat"), f"{where}.models.{index}.compat"))
    for model_id, override in (provider.get("modelOverrides") or {}).items():
        if isinstance(override, dict):
            places.append((override.get("compat"), f"{where}.modelOverrides.{model_id}.compat"))
    return [
        f"  - {problem}"
        for value, place in places
        if value is not None
        for problem in compat_problems(value, place)
    ]


def _check_provider(name: str, config: ProviderConfig, builtin: bool) -> None:
    if not (config.base_url or config.headers or config.compat or config.model_overrides or config.models):
        raise ModelsJsonError(
            f'Provider {name}: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".'
        )
    if config.models and not builtin:
        if not config.base_url:
            raise ModelsJsonError(f'Provider {name}: "baseUrl" is required when defining custom models.')
        if not config.api_key:
            raise ModelsJsonError(f'Provider {name}: "apiKey" is required when defining custom models.')
    for model in config.models or []:
        if not (model.api or config.api) and not builtin:
            raise ModelsJsonError(
                f'Provider {name}, model {model.id}: no "api" specified. Set at provider or model level.'
            )
        if model.context_window is not None and model.context_window <= 0:
            raise ModelsJsonError(f"Provider {name}, model {model.id}: invalid contextWindow")
        if model.max_tokens is not None and model.max_tokens <= 0:
            raise ModelsJsonError(f"Provider {name}, model {model.id}: invalid maxTokens")


def _apply_override(model: Model, override: dict[str, Any]) -> Model:
    patch = Model.model_validate(
        {
            **model.to_json_dict(),
            **{
                k: v
                for k, v in override.items()
                if k not in ("thinkingLevelMap", "cost", "compat", "headers")
            },
        }
    )
    if "thinkingLevelMap" in override:
        patch.thinking_level_map = {**(model.thinking_level_map or {}), **override["thinkingLevelMap"]}
    if "cost" in override:
        patch.cost = ModelCost.model_validate({**model.cost.to_json_dict(), **override["cost"]})
    if "compat" in override:
        patch.compat = {**(model.compat or {}), **override["compat"]}
    if "headers" in override:
        patch.headers = {**(model.headers or {}), **override["headers"]}
    patch.request_id = model.request_id
    return patch


def _custom_model(
    config: ProviderConfig,
    entry: ProviderModelConfig,
    base: Model | None,
    definition: ProviderDefinition | None = None,
) -> Model:
    # pi's model headers: its modelOverrides entry's, then the definition's own (which win).
    override = (config.model_overrides or {}).get(entry.id) or {}
    headers = {**(override.get("headers") or {}), **(entry.headers or {})}
    fields: dict[str, Any] = {
        "id": entry.id,
        "name": entry.name or (base.name if base else entry.id),
        "api": entry.api or config.api or (base.api if base else definition.api if definition else ""),
        "provider": config.id,
        "base_url": provider_base_url(definition, entry.base_url or config.base_url)
        or (base.base_url if base else definition_base_url(definition) if definition else ""),
        "reasoning": entry.reasoning if entry.reasoning is not None else False,
        "thinking_level_map": entry.thinking_level_map,
        "input": entry.input or ["text"],
        "cost": entry.cost or {},
        "context_window": entry.context_window or MODEL_DEFAULTS["context_window"],
        "max_tokens": entry.max_tokens or MODEL_DEFAULTS["max_tokens"],
        "headers": headers or None,
        "compat": {
            **((definition.compat or {}) if definition else {}),
            **(config.compat or {}),
            **(entry.compat or {}),
        }
        or None,
    }
    return Model.model_validate(fields)


# --- provider definitions (the providers plugin's data) -------------------------------------------

_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def definition_base_url(definition: ProviderDefinition) -> str:
    """The base URL with ``{NAME}`` taken from the environment (``base_url_env`` replaces it all).

    A placeholder whose variable is not set stays in the URL, so the error names what to set.
    """
    return definition_env_base_url(definition) or _PLACEHOLDER.sub(
        lambda m: os.environ.get(m.group(1)) or m.group(0), definition.base_url
    )


def definition_env_base_url(definition: ProviderDefinition) -> str | None:
    """The URL the environment gives a definition with ``base_url_env``, else ``None``.

    That variable's value, or the template once all its ``{NAME}`` variables are set. For such a
    provider (Azure) the environment outranks a models.json ``baseUrl``, as in pi 1.6.0.
    """
    if not definition.base_url_env:
        return None
    whole = os.environ.get(definition.base_url_env, "").strip()
    if whole:
        return _with_root_path(whole, definition)
    names = _PLACEHOLDER.findall(definition.base_url)
    if names and all(os.environ.get(name) for name in names):
        return _PLACEHOLDER.sub(lambda m: os.environ[m.group(1)], definition.base_url)
    return None


def provider_base_url(definition: ProviderDefinition | None, configured: str | None) -> str | None:
    """The base URL for a provider's model given a models.json/plugin ``configured`` one."""
    if definition is None or not definition.base_url_env:
        return configured
    from_env = definition_env_base_url(definition)
    if from_env:
        return from_env
    return _with_root_path(configured, definition) if configured else None


def _with_root_path(url: str, definition: ProviderDefinition) -> str:
    """``url`` without trailing slashes; a bare host of ``base_url_env_hosts`` (no path, or a
    leading part of ``base_url_env_path``, or that path + ``/responses``) gets ``base_url_env_path``."""
    url = url.strip().rstrip("/")
    root_path = definition.base_url_env_path
    if not root_path:
        return url
    parts = urlsplit(url)
    hosts = definition.base_url_env_hosts
    if hosts is not None and not any((parts.hostname or "").endswith(host) for host in hosts):
        return url
    path = parts.path.rstrip("/")
    if root_path.startswith(f"{path}/") or path == root_path.rstrip("/") + "/responses":
        return urlunsplit((parts.scheme, parts.netloc, root_path.rstrip("/"), "", ""))
    return url


def model_name_map(definition: ProviderDefinition) -> dict[str, str]:
    """Model id → the name requests use, from ``model_name_map_env`` (``id=name,id=name``)."""
    value = os.environ.get(definition.model_name_map_env or "", "") if definition.model_name_map_env else ""
    names: dict[str, str] = {}
    for pair in value.split(","):
        model_id, sep, name = pair.partition("=")
        if sep and model_id.strip() and name.strip():
            names[model_id.strip()] = name.strip()
    return names


def definition_models(definition: ProviderDefinition) -> list[Model]:
    """The catalogue of one definition as models (api, base URL and compat from the provider)."""
    base_url = definition_base_url(definition)
    models: list[Model] = []
    for entry in definition.models:
        fields = {"api": definition.api, "baseUrl": base_url, **entry, "provider": definition.id}
        if "baseUrl" in entry:
            fields["baseUrl"] = _PLACEHOLDER.sub(
                lambda m: os.environ.get(m.group(1)) or m.group(0), entry["baseUrl"]
            )
        if definition.compat:
            fields["compat"] = {**definition.compat, **(entry.get("compat") or {})}
        models.append(Model.model_validate(fields))
    names = model_name_map(definition)
    for model in models:
        model.request_id = names.get(model.id)
    return models


# --- the registry ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequestAuth:
    """What one request to a model needs from the registry: the API key, extra headers, and the
    base URL when an OAuth credential decides it."""

    api_key: str | None
    headers: dict[str, str] | None
    base_url: str | None = None


#: An OAuth access token with less time left than this is refreshed before a request (pi's rule).
OAUTH_REFRESH_MARGIN_MS = 5 * 60 * 1000


def check_plugin_provider(config: ProviderConfig) -> None:
    """pi's checks for a provider a plugin registers (``registerProvider``); raises ``ValueError``."""
    name = config.id
    if not name:
        raise ValueError("ProviderConfig.id (the provider name) is required to register a provider")
    if not config.models:
        return
    if not config.base_url:
        raise ValueError(f'Provider {name}: "baseUrl" is required when defining models.')
    if not config.api_key:
        raise ValueError(f'Provider {name}: "apiKey" is required when defining models.')
    for model in config.models:
        if not (model.api or config.api):
            raise ValueError(f'Provider {name}, model {model.id}: no "api" specified.')


def _has_request_config(config: ProviderConfig) -> bool:
    return bool(config.api_key or config.headers or config.auth_header)


class ModelRegistry:
    """All models (built-in, provider definitions, models.json, plugin providers) and their auth.

    The method names the runtime and plugins use follow pi's ``ModelRegistry``: ``get_all``,
    ``get_available``, ``find``, ``has_configured_auth``, ``is_using_oauth``,
    ``get_api_key_and_headers``, ``register_provider``, ``unregister_provider``, ``refresh``,
    ``get_error``. The model list is built on first use after a change, so registering the
    providers plugin's few dozen definitions costs one build, not one per definition.
    """

    def __init__(self, auth: AuthStorage | None = None, models_json: Path | None = None) -> None:
        self.auth = auth if auth is not None else AuthStorage()
        self.models_json_path = models_json if models_json is not None else agent_dir() / "models.json"
        self.error: str | None = None
        self._json_text: str | None = None
        self._json_configs: dict[str, ProviderConfig] = {}
        self._plugin_configs: dict[str, ProviderConfig] = {}
        self._definitions: dict[str, ProviderDefinition] = {}
        self._oauth: dict[str, OAuthProvider] = {}
        self._refreshing: dict[str, asyncio.Lock] = {}
        self._built: list[Model] | None = None
        self.load()

    # --- plugins ----------------------------------------------------------------------------------

    def register_provider(self, config: ProviderConfig) -> None:
        """A provider from a plugin, applied over built-ins and models.json (pi's ``registerProvider``).

        With ``models`` it replaces every model of that provider; without, its ``baseUrl`` (and
        ``compat``/``modelOverrides``) patch the provider's existing models. Raises ``ValueError``
        with pi's message for an unusable config.
        """
        check_plugin_provider(config)
        self._plugin_configs[config.id] = config
        self._built = None

    def register_definition(self, definition: ProviderDefinition) -> None:
        """A built-in provider as data; a later definition of the same id replaces the earlier one."""
        if not definition.id:
            raise ValueError("ProviderDefinition.id (the provider name) is required")
        self._definitions[definition.id] = definition
        if self._json_text is not None:
            self._parse_json()  # models.json may name this provider: check it against the definition
        self._built = None

    def unregister_provider(self, name: str) -> None:
        """Forget a plugin provider; built-in models it replaced come back."""
        if self._plugin_configs.pop(name, None) is not None:
            self._built = None

    def reset_plugin_providers(self, source_id: str = "plugins") -> None:
        """Forget every plugin provider, definition and plugin wire API (``/reload`` registers them again)."""
        unregister_api_providers(source_id)
        self._oauth.clear()
        if self._plugin_configs or self._definitions:
            self._plugin_configs.clear()
            self._definitions.clear()
            self._parse_json()
            self._built = None

    def register(
        self,
        item: ApiProvider | ProviderConfig | ProviderDefinition | OAuthProvider,
        source_id: str = "plugins",
    ) -> None:
        """One item of the ``register_providers`` hook: a wire API, a provider, a provider
        definition, or a login flow (:class:`OAuthProvider`)."""
        if isinstance(item, ProviderDefinition):
            self.register_definition(item)
        elif isinstance(item, ProviderConfig):
            self.register_provider(item)
        elif isinstance(item, OAuthProvider):
            self._oauth[item.oauth_id] = item
        elif isinstance(item, ApiProvider):
            register_api_provider(item, source_id)
        else:
            raise TypeError(
                "register_providers expects an ApiProvider, a ProviderConfig, a ProviderDefinition "
                f"or an OAuthProvider, got {type(item).__name__}"
            )

    def oauth_provider(self, provider: str) -> OAuthProvider | None:
        """The login flow of ``provider`` (its definition's ``oauth``), if one is registered."""
        definition = self._definitions.get(provider)
        return self._oauth.get(definition.oauth) if definition is not None and definition.oauth else None

    # --- loading ----------------------------------------------------------------------------------

    def load(self) -> None:
        """(Re)read models.json; its errors go to ``error`` and the file is ignored."""
        try:
            self._json_text = read_json_text(self.models_json_path)
        except FileNotFoundError:
            self._json_text = None
        except OSError as error:
            self._json_text = None
            self._parse_json()
            self.error = (
                f"Failed to read models.json: {error.strerror or error}\n\nFile: {self.models_json_path}"
            )
            self._built = None
            return
        self._parse_json()
        self._built = None

    refresh = load

    def _parse_json(self) -> None:
        self.error = None
        self._json_configs = {}
        if self._json_text is None:
            return
        known = set(builtin_providers()) | set(self._definitions)
        try:
            self._json_configs = parse_models_json(self._json_text, self.models_json_path, known)
        except ModelsJsonError as error:
            self.error = str(error)

    @property
    def _models(self) -> list[Model]:
        if self._built is None:
            self._built = self._build()
        return self._built

    def _build(self) -> list[Model]:
        models = [m for m in builtin_models() if m.provider not in self._definitions]
        for definition in self._definitions.values():
            models.extend(definition_models(definition))
        for config in self._json_configs.values():
            models = self._merge(models, config, self._definitions.get(config.id))
        for config in self._plugin_configs.values():
            if config.models:
                # A plugin provider with models owns that provider outright (pi's full replacement).
                models = [m for m in models if m.provider != config.id]
            models = self._merge(models, config, self._definitions.get(config.id))
        return models

    def get_error(self) -> str | None:
        return self.error

    @staticmethod
    def _merge(
        models: list[Model], config: ProviderConfig, definition: ProviderDefinition | None = None
    ) -> list[Model]:
        merged: list[Model] = []
        for model in models:
            if model.provider == config.id:
                if config.base_url:
                    model.base_url = provider_base_url(definition, config.base_url) or config.base_url
                if config.compat:
                    model.compat = {**(model.compat or {}), **config.compat}
                override = (config.model_overrides or {}).get(model.id)
                if override:
                    model = _apply_override(model, override)
            merged.append(model)
        for entry in config.models or []:
            base = next((m for m in merged if m.provider == config.id and m.id == entry.id), None)
            custom = _custom_model(config, entry, base, definition)
            override = (config.model_overrides or {}).get(entry.id)
            if override:
                # pi applies modelOverrides last, to the models the provider defines as well (their
                # headers already sit under the definition's, see _custom_model).
                custom = _apply_override(custom, {k: v for k, v in override.items() if k != "headers"})
            if definition is not None:
                custom.request_id = model_name_map(definition).get(custom.id)
            merged = [m for m in merged if not (m.provider == config.id and m.id == entry.id)]
            merged.append(custom)
        return merged

    # --- queries ----------------------------------------------------------------------------------

    def all(self) -> list[Model]:
        return list(self._models)

    get_all = all

    def providers(self) -> list[str]:
        return sorted({m.provider for m in self._models})

    def definitions(self) -> list[ProviderDefinition]:
        """The registered provider definitions, in registration order."""
        return list(self._definitions.values())

    def definition(self, provider: str) -> ProviderDefinition | None:
        return self._definitions.get(provider)

    def known_providers(self) -> list[str]:
        """Every provider name pi can use: those with models and defined ones without (local servers)."""
        return sorted({m.provider for m in self._models} | set(self._definitions))

    def default_model_ids(self) -> dict[str, str]:
        """provider → its default model id, in the order pi tries them for a first run."""
        from pi_core.ai.resolve import DEFAULT_MODEL_PER_PROVIDER

        defaults = {d.id: d.default_model for d in self._definitions.values() if d.default_model}
        for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
            defaults.setdefault(provider, model_id)
        return defaults

    def login_providers(self) -> list[tuple[str, str]]:
        """(provider, label) for ``/login``: every provider that takes a key, sorted by name."""
        from pi_core.ai.auth import ENV_API_KEYS

        rows: dict[str, str] = {}
        for provider in sorted({*self.providers(), *self._definitions}):
            definition = self._definitions.get(provider)
            if definition is not None and definition.local:
                continue
            env = definition.env if definition is not None else ENV_API_KEYS.get(provider, ())
            name = definition.name if definition is not None and definition.name else provider
            rows[provider] = f"{provider}  {name}" + (f"  ({env[-1]})" if env else "")
        return list(rows.items())

    def default_model_of(self, provider: str) -> Model | None:
        """The model a first run would take for ``provider``: its default, else its first model."""
        wanted = self.default_model_ids().get(provider)
        own = [m for m in self._models if m.provider == provider]
        allowed = self._account_models().get(provider)
        if allowed is not None:
            own = [m for m in own if m.id in allowed] or own
        return next((m for m in own if m.id == wanted), own[0] if own else None)

    def unlisted_model(self, provider: str, model_id: str) -> Model | None:
        """A model a defined provider has no catalogue entry for (a local server's model), or ``None``."""
        definition = self._definitions.get(provider)
        if definition is None:
            return None
        config = self._json_configs.get(provider)
        model = Model.model_validate(
            {
                "id": model_id,
                "name": model_id,
                "api": (config.api if config else None) or definition.api,
                "provider": provider,
                "baseUrl": provider_base_url(definition, config.base_url if config else None)
                or definition_base_url(definition),
                "compat": {**(definition.compat or {}), **((config.compat or {}) if config else {})} or None,
            }
        )
        model.request_id = model_name_map(definition).get(model_id)
        return model

    def find(self, provider: str, model_id: str) -> Model | None:
        return next((m for m in self._models if m.provider == provider and m.id == model_id), None)

    def provider_config(self, provider: str) -> ProviderConfig | None:
        """The config that authenticates ``provider``'s requests: a plugin's when it sets a key or
        headers, else models.json's (pi keeps one request config per provider, last writer wins)."""
        plugin = self._plugin_configs.get(provider)
        if plugin is not None and _has_request_config(plugin):
            return plugin
        return self._json_configs.get(provider) or plugin

    def _key_sources(self, provider: str) -> tuple[str | None, tuple[str, ...] | None]:
        """(configured key: models.json / plugin / definition fallback, the definition's env names)."""
        config = self.provider_config(provider)
        definition = self._definitions.get(provider)
        key = config.api_key if config and config.api_key else None
        if key is None and definition is not None:
            key = definition.api_key
        return key, (tuple(definition.env) if definition is not None else None)

    def key_source(self, provider: str) -> str:
        """Where ``provider``'s key comes from, for messages (``GROQ_API_KEY``, ``auth.json`` …)."""
        key, env = self._key_sources(provider)
        return self.auth.key_source(provider, key, env) or "nowhere (no key is set)"

    def has_auth(self, provider: str) -> bool:
        key, env = self._key_sources(provider)
        return self.auth.has_auth(provider, key, env)

    def has_configured_auth(self, model: Model) -> bool:
        """Whether a key is configured for ``model`` (runs no commands)."""
        return self.has_auth(model.provider)

    def is_using_oauth(self, model: Model) -> bool:
        entry = self.auth.read().get(model.provider)
        return isinstance(entry, dict) and entry.get("type") == "oauth"

    def available(self) -> list[Model]:
        """Models whose provider has configured auth (no commands are run to decide); a stored
        login that lists the account's models (``availableModelIds``) keeps only those."""
        ok = {p: self.has_auth(p) for p in {m.provider for m in self._models}}
        allowed = self._account_models()
        return [
            m
            for m in self._models
            if ok[m.provider] and (m.provider not in allowed or m.id in allowed[m.provider])
        ]

    def _account_models(self) -> dict[str, set[str]]:
        """provider → the model ids its stored OAuth login allows (providers with a login flow)."""
        if not self._oauth:
            return {}
        try:
            data = self.auth.read()
        except ValueError:
            return {}
        allowed: dict[str, set[str]] = {}
        for provider, entry in data.items():
            if (
                not isinstance(entry, dict)
                or entry.get("type") != "oauth"
                or self.oauth_provider(provider) is None
            ):
                continue
            ids = entry.get("availableModelIds")
            if isinstance(ids, list) and all(isinstance(i, str) for i in ids):
                allowed[provider] = set(ids)
        return allowed

    get_available = available

    def get_api_key(self, model: Model) -> str | None:
        """Auth storage / env first, then the models.json ``apiKey`` (resolved now, not cached)."""
        key, env = self._key_sources(model.provider)
        return self.auth.get_api_key(model.provider, key, env)

    def request_headers(self, model: Model) -> dict[str, str]:
        """The headers configured for ``model``'s requests, values resolved (``!cmd`` / env name /
        literal), in pi 1.6.0's order, later ones winning: the provider's ``headers`` (models.json's,
        then a plugin's), ``Authorization: Bearer KEY`` when ``authHeader`` is on, then the model's
        own ``headers`` (its ``modelOverrides`` entry's under its definition's), which replace a
        header of the same name whatever its case."""
        config = self.provider_config(model.provider)
        raw: dict[str, str] = {}
        for source in (self._json_configs.get(model.provider), self._plugin_configs.get(model.provider)):
            if source is not None and source.headers:
                raw.update(source.headers)
        headers = {key: resolve_config_value(value) for key, value in raw.items()}
        layers: list[dict[str, str]] = []
        if config and config.auth_header:
            api_key = self.get_api_key(model)
            if api_key:
                layers.append({"Authorization": f"Bearer {api_key}"})
        layers.append({key: resolve_config_value(value) for key, value in (model.headers or {}).items()})
        for layer in layers:
            for key, value in layer.items():
                for same in [name for name in headers if name.lower() == key.lower()]:
                    del headers[same]
                headers[key] = value
        return headers

    async def get_api_key_and_headers(self, model: Model) -> RequestAuth:
        """Key and headers for one request; ``!command`` values run off the event loop.

        A stored OAuth credential of a provider with a login flow is refreshed first when it is
        about to expire (the new one is written to auth.json), and may set the base URL.
        """
        oauth = await self.oauth_auth(model.provider)

        def resolve() -> RequestAuth:
            headers = self.request_headers(model) or None
            if oauth is not None:
                return RequestAuth(oauth.api_key, headers, oauth.base_url)
            return RequestAuth(self.get_api_key(model), headers)

        return await asyncio.to_thread(resolve)

    async def oauth_auth(self, provider: str) -> OAuthAuth | None:
        """The request auth of ``provider``'s stored OAuth credential (refreshed when it is about
        to expire), or ``None`` when another source (``--api-key``, an API key) applies.

        Raises ``RuntimeError`` naming the provider when the refresh fails; the stored
        credential is then left as it was.
        """
        flow = self.oauth_provider(provider)
        if flow is None or self.auth.has_runtime_key(provider):
            return None
        lock = self._refreshing.setdefault(provider, asyncio.Lock())
        async with lock:  # one refresh at a time; the next caller reads the refreshed record
            entry = (await asyncio.to_thread(self.auth.read)).get(provider)
            if not isinstance(entry, dict) or entry.get("type") != "oauth":
                return None
            if _expires_soon(entry):
                entry = await self._refresh_locked(provider, flow)
                if entry is None:
                    return None  # logged out meanwhile
            try:
                return flow.to_auth(entry)
            except OAuthError as error:
                raise RuntimeError(f"The stored {provider} login is unusable: {error}") from None

    async def _refresh_locked(self, provider: str, flow: OAuthProvider) -> dict[str, Any] | None:
        """Refresh ``provider``'s login under pi's lock on auth.json, checking again under it:
        another process (either pi) may have refreshed it first, and a refresh token OpenAI
        rotated must not be presented twice."""
        try:
            async with auth_file_lock(self.auth.path):
                entry = (await asyncio.to_thread(self.auth.read)).get(provider)
                if not isinstance(entry, dict) or entry.get("type") != "oauth":
                    return None
                if not _expires_soon(entry):
                    return entry
                model = self.default_model_of(provider)
                try:
                    entry = await flow.refresh(entry, model.base_url if model is not None else None)
                except OAuthError as error:
                    raise RuntimeError(
                        f"OAuth refresh failed for {provider}: {error}. Run /login {provider} again."
                    ) from None
                await asyncio.to_thread(self.auth.set_oauth, provider, entry)
                return entry
        except TimeoutError as error:
            raise RuntimeError(f"OAuth refresh failed for {provider}: {error}") from None


def _expires_soon(entry: dict[str, Any]) -> bool:
    expires = entry.get("expires")
    return not isinstance(expires, (int, float)) or time.time() * 1000 + OAUTH_REFRESH_MARGIN_MS >= expires


def list_models_text(registry: ModelRegistry, search: str | None = None) -> str:
    """What ``pi --list-models [search]`` prints on stdout: the *available* models as a table.

    A models.json problem is in ``registry.error``; pi prints it to stderr first as
    ``Warning: errors loading models.json:\n<error>``.
    """
    from pi_core.ai.resolve import format_model_list

    return format_model_list(registry.available(), search)
