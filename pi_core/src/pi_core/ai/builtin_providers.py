"""The built-in wire APIs, registered through the same ``register_providers`` hook a plugin uses.

Importing this module is cheap: the provider classes import their SDKs only when they stream.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_core._markers import hookimpl
from pi_core.ai.provider import ApiProvider, ProviderConfig, register_api_provider

BUILTIN_SOURCE = "builtin"


def builtin_api_providers() -> list[ApiProvider]:
    from pi_core.ai.providers.anthropic import AnthropicMessagesProvider
    from pi_core.ai.providers.openai_codex import OpenAICodexResponsesProvider
    from pi_core.ai.providers.openai_completions import OpenAICompletionsProvider
    from pi_core.ai.providers.openai_responses import AzureOpenAIResponsesProvider, OpenAIResponsesProvider

    return [
        AnthropicMessagesProvider(),
        OpenAICompletionsProvider(),
        OpenAIResponsesProvider(),
        AzureOpenAIResponsesProvider(),
        OpenAICodexResponsesProvider(),
    ]


@hookimpl
def register_providers(register: Callable[[ApiProvider | ProviderConfig], None]) -> None:
    """Register ``anthropic-messages``, ``openai-completions``, ``openai-responses``,
    ``azure-openai-responses`` and ``openai-codex-responses``."""
    for provider in builtin_api_providers():
        register(provider)


def register_builtin_api_providers() -> None:
    """Put the built-ins straight into the api registry (for callers without a plugin manager)."""
    for provider in builtin_api_providers():
        register_api_provider(provider, BUILTIN_SOURCE)
