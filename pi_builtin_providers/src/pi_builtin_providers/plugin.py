"""Entry point of the providers plugin (entry-point group ``pi``, name ``catalogue``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core import hookimpl


@hookimpl
def register_providers(register: Callable[[Any], None]) -> None:
    """Offer every built-in provider definition (models.json can patch any of them) and the
    GitHub Copilot and OpenAI Codex logins."""
    from pi_builtin_providers import provider_definitions
    from pi_builtin_providers.codex import CodexLogin
    from pi_builtin_providers.copilot import CopilotLogin

    for definition in provider_definitions():
        register(definition)
    register(CopilotLogin())
    register(CodexLogin())
