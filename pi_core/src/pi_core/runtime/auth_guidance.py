"""The texts pi shows when no model is usable: no model chosen, no API key, expired login."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_core.ai.models import ModelRegistry
    from pi_core.ai.provider import Model

UNKNOWN_PROVIDER = "unknown"
API_KEY_NEEDS_MODEL = "--api-key needs a model: name one with --model, --provider/--model or --models"
#: The first line of the help shown when no provider is usable.
LOGIN_HINT = "Save an API key with /login, or set the provider's environment variable. See:"


def docs_path() -> Path:
    """Where the user docs live: the workspace's ``docs/`` (pi points at its bundled docs the same way)."""
    return Path(__file__).resolve().parents[4] / "docs"


def provider_login_help() -> str:
    providers_md = docs_path() / "providers.md"
    if not providers_md.is_file():  # an installed wheel has no docs/ next to it
        providers_md = Path("docs/providers.md (in pi for Python's repository)")
    return "\n".join(
        [
            LOGIN_HINT,
            # pi adds a second line for its models.md; here providers.md covers models.json too.
            f"  {providers_md}",
        ]
    )


def no_models_available_message() -> str:
    return f"No models available. {provider_login_help()}"


#: Shown first: the keys most people have.
COMMON_KEY_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "XAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "MISTRAL_API_KEY",
)


def key_variables(registry: ModelRegistry) -> list[str]:
    """The environment variables that hold a provider's key, in the order a first run tries them."""
    from pi_core.ai.auth import ENV_API_KEYS

    names: list[str] = []
    for definition in registry.definitions():
        names.extend(definition.env)
    for provider in registry.providers():
        if registry.definition(provider) is None:
            names.extend(ENV_API_KEYS.get(provider, ()))
    first = [name for name in COMMON_KEY_VARIABLES if name in names]
    return list(dict.fromkeys([*first, *names]))


def no_model_message(registry: ModelRegistry) -> str:
    """Why a run without the REPL cannot start, and the three ways out (one message)."""
    names = key_variables(registry)
    lines = ["No model to use: pi has no API key for any provider. Either"]
    if names:
        lines.append("  - set a key in the environment, one of:")
        lines.extend(f"      {row}" for row in textwrap.wrap(", ".join(names), 92))
    lines.append("  - or run `pi` on a terminal and type /login to save a key in")
    lines.append(f"      {registry.auth.path}")
    lines.append(f"  - or describe a local server or your own models in {registry.models_json_path}")
    lines.append("then name a model with --model PROVIDER/ID, or let pi take the first provider with a key.")
    providers_md = docs_path() / "providers.md"
    if providers_md.is_file():
        lines.append(f"See {providers_md}")
    return "\n".join(lines)


def repl_no_model_notice(registry: ModelRegistry) -> str:
    """What the REPL says when it opens without a model."""
    return (
        "No model yet. Type /login to choose a provider and save its API key, or set the key's "
        "environment variable and start pi again; local servers and your own models go in "
        f"{registry.models_json_path}."
    )


def no_model_selected_message() -> str:
    return f"No model selected.\n\n{provider_login_help()}\n\nThen use /model to select a model."


def api_key_hint(provider: str) -> str:
    """Where a key for ``provider`` can come from: its environment variable(s), models.json, --api-key."""
    from pi_core.ai.auth import ENV_API_KEYS

    names = ENV_API_KEYS.get(provider, ())
    if names:
        # pi reads them in this order; the last one is the plain API key most people set.
        shown = " or ".join(reversed(names))
        return f"Set {shown} in the environment, or pass --api-key."
    return f'Set "apiKey" for provider "{provider}" in models.json, or pass --api-key.'


def no_api_key_message(provider: str) -> str:
    shown = "the selected model" if provider == UNKNOWN_PROVIDER else provider
    message = f"No API key found for {shown}.\n\n{provider_login_help()}"
    if provider != UNKNOWN_PROVIDER:
        message += f"\n\n{api_key_hint(provider)}"
    return message


def oauth_failed_message(provider: str) -> str:
    return (
        f'Authentication failed for "{provider}". '
        "Credentials may have expired or network is unavailable. "
        f"Run '/login {provider}' to re-authenticate."
    )


_REJECTED = re.compile(r"^(401|403)\b")


def rejected_key_hint(registry: ModelRegistry, model: Model | None, error_message: str | None) -> str | None:
    """For a 401/403 answer: which key was sent (where it came from) and how to give another."""
    if model is None or not error_message or not _REJECTED.match(error_message):
        return None
    source = registry.key_source(model.provider)
    return (
        f"The {model.provider} server refused the API key from {source}. Check the key, or save "
        f"another with /login {model.provider} (it is then used before environment variables).\n"
    )
