"""Import the configured provider's SDK in the background while the user types the first prompt.

The built-in wire APIs import their SDK on the first request (so that ``pi --help`` never pays
for it); in the REPL that would put the import — a few hundred milliseconds for ``openai`` or
``anthropic`` and their ``pydantic`` models — between Enter and the first token. A daemon thread
imports the modules the first request needs (only those: ``pi_core.ai.sdk_import``) as soon as
the REPL is up; Python's import lock makes a request that arrives meanwhile wait for the import to
finish instead of doing it twice.
"""

from __future__ import annotations

import importlib
import threading

#: Per built-in wire API: its SDK, and pi's provider module (the SDK's request modules are
#: :func:`pi_core.ai.sdk_import.import_client_modules`'s; the Responses API's types come on top).
SDK_MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "anthropic-messages": ("anthropic", ("pi_core.ai.providers.anthropic",)),
    "openai-completions": ("openai", ("pi_core.ai.providers.openai_completions",)),
    "openai-responses": (
        "openai",
        ("openai.types.responses.response", "pi_core.ai.providers.openai_responses"),
    ),
    "azure-openai-responses": (
        "openai",
        ("openai.lib.azure", "openai.types.responses.response", "pi_core.ai.providers.openai_responses"),
    ),
}

_started: set[str] = set()


def warm_up(api: str | None) -> threading.Thread | None:
    """Start importing ``api``'s SDK in a daemon thread (once per API); ``None`` when there is
    nothing to import."""
    entry = SDK_MODULES.get(api or "")
    if entry is None or api in _started:
        return None
    _started.add(api or "")
    from pi_core.ai.sdk_import import install

    install()  # in this thread, before the other one imports (see install)
    thread = threading.Thread(target=_import_all, args=entry, name=f"pi-warm-{api}", daemon=True)
    thread.start()
    return thread


def _import_all(sdk: str, modules: tuple[str, ...]) -> None:
    from pi_core.ai.sdk_import import import_client_modules

    try:
        import_client_modules(sdk)
        for name in modules:
            importlib.import_module(name)
    except Exception:  # an SDK that fails to import fails again, with its message, on the request
        return
