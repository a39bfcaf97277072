"""Import the configured provider's SDK in the background while the user types the first prompt.

The built-in wire APIs import their SDK on the first request (so that ``pi --help`` never pays
for it); in the REPL that would put the import — a few hundred milliseconds for ``openai`` or
``anthropic`` and their ``pydantic`` models — between Enter and the first token. A daemon thread
imports the modules the first request needs as soon as the REPL is up; Python's import lock
makes a request that arrives meanwhile wait for the import to finish instead of doing it twice.
"""

from __future__ import annotations

import importlib
import threading

#: The modules each built-in wire API imports when it makes its first request.
SDK_MODULES: dict[str, tuple[str, ...]] = {
    "anthropic-messages": ("anthropic", "anthropic.types", "pi_core.ai.providers.anthropic"),
    "openai-completions": ("openai", "openai.types.chat", "pi_core.ai.providers.openai_completions"),
    "openai-responses": ("openai", "openai.types.responses", "pi_core.ai.providers.openai_responses"),
}

_started: set[str] = set()


def warm_up(api: str | None) -> threading.Thread | None:
    """Start importing ``api``'s SDK in a daemon thread (once per API); ``None`` when there is
    nothing to import."""
    modules = SDK_MODULES.get(api or "")
    if not modules or api in _started:
        return None
    _started.add(api or "")
    thread = threading.Thread(target=_import_all, args=(modules,), name=f"pi-warm-{api}", daemon=True)
    thread.start()
    return thread


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # an SDK that fails to import fails again, with its message, on the request
            return
