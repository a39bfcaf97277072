"""pi's built-in providers as data: every OpenAI- and Anthropic-compatible service pi 1.6.0 knows,
with its environment variables, base URL and model catalogue, plus local servers by base URL.

The data is ``providers.json`` (made from the TypeScript pi's catalogue by
``scripts/catalogue_from_pi.mjs``); the plugin entry module (``pi_builtin_providers.plugin``)
registers each provider as a :class:`pi_core.ai.provider.ProviderDefinition`.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from pi_core.ai.provider import ProviderDefinition

__all__ = ["catalogue_source", "markdown_table", "provider_definitions"]


@cache
def _data() -> dict[str, Any]:
    text = resources.files(__name__).joinpath("providers.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def catalogue_source() -> str:
    """Where the catalogue's facts come from (``@earendil-works/pi-coding-agent 1.6.0``)."""
    return str(_data()["source"])


def provider_definitions() -> list[ProviderDefinition]:
    """Fresh definitions of every built-in provider, in the order a first run looks for a key."""
    return [ProviderDefinition.model_validate(entry) for entry in _data()["providers"]]


def markdown_table() -> str:
    """The provider table of docs/providers.md (a test keeps the two in step)."""
    lines = ["| provider | name | key in | base URL | models |", "| --- | --- | --- | --- | --- |"]
    for d in provider_definitions():
        key = ", ".join(f"`{name}`" for name in d.env) if d.env else "none needed"
        if not d.env and d.oauth:
            key = f"`/login {d.id}`"
        models = "what the server has loaded" if d.local else str(len(d.models))
        lines.append(f"| `{d.id}` | {d.name or d.id} | {key} | `{d.base_url}` | {models} |")
    return "\n".join(lines)
