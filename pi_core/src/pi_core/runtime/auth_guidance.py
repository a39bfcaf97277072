"""The texts pi shows when no model is usable: no model chosen, no API key, expired login."""

from __future__ import annotations

from pathlib import Path

UNKNOWN_PROVIDER = "unknown"
API_KEY_NEEDS_MODEL = "--api-key needs a model: name one with --model, --provider/--model or --models"
#: The first line of the help shown when no provider is usable.
LOGIN_HINT = "Log into a provider with /login (OAuth or an API key). See:"


def docs_path() -> Path:
    """Where the user docs live: the workspace's ``docs/`` (pi points at its bundled docs the same way)."""
    return Path(__file__).resolve().parents[4] / "docs"


def provider_login_help() -> str:
    docs = docs_path()
    return "\n".join(
        [
            LOGIN_HINT,
            # pi adds a second line for its models.md; here providers.md covers models.json too.
            f"  {docs / 'providers.md'}",
        ]
    )


def no_models_available_message() -> str:
    return f"No models available. {provider_login_help()}"


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
