"""Start importing the provider SDK a run will need, in a background thread, as early as possible.

``import openai`` / ``import anthropic`` are the largest single costs of a print-mode run (half a
second and more). The SDK a run uses is known cheaply before anything else is loaded: from
``--model``/``--provider`` and models.json, or the saved default provider. Importing it in a thread
while the main thread loads plugins, settings and the session lets the two overlap; the
provider's own ``import`` then finds the module ready (or waits on the import lock for the rest).

A bare pattern such as ``--model sonnet`` names no provider; it is resolved with pi's own resolver
against the built-in catalogue and models.json. That needs pydantic and the model modules (about
0.12 s to import), which the run imports anyway, so it happens in the same background thread, just
before the SDK import: the main thread is not held up.
Nothing here may fail a run: any problem just means no prefetch.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from pi_core._paths import agent_dir

#: Built-in providers whose wire API is known without loading the model catalogue.
_PROVIDER_API = {
    "anthropic": "anthropic-messages",
    "openai": "openai-responses",
    "openai-codex": "openai-codex-responses",
}


def _sdk_for_api(api: str | None) -> str | None:
    if api is None:
        return None
    if api.startswith("anthropic"):
        return "anthropic"
    if api.startswith(("openai", "azure-openai")):
        return "openai"
    return None


def _read_json(path: Path) -> dict[str, object]:
    try:
        from pi_core._files import read_regular
        from pi_core.runtime.jsonc import parse_jsonc

        data = parse_jsonc(read_regular(path).decode("utf-8"))  # a named pipe is not waited on
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _flag(args: Sequence[str], name: str) -> str | None:
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def bare_model_pattern(args: Sequence[str]) -> str | None:
    """``--model`` when it names no provider (no ``--provider``, no ``provider/`` prefix), else None."""
    model = _flag(args, "--model")
    if not model or "/" in model or _flag(args, "--provider") is not None:
        return None
    return model


def sdk_for_model_pattern(pattern: str) -> str | None:
    """The SDK of the model pi's resolver picks for ``pattern`` (built-ins + models.json), or None.

    Imports the model modules (pydantic): call it off the main thread.
    """
    from pi_core.ai.auth import AuthStorage
    from pi_core.ai.models import ModelRegistry
    from pi_core.ai.resolve import ModelNotFoundError, resolve_cli_model

    agent = agent_dir()
    registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")
    try:
        resolved = resolve_cli_model(pattern, registry.all())
    except ModelNotFoundError:
        return None
    return _sdk_for_api(resolved.model.api)


def guess_sdk(args: Sequence[str]) -> str | None:
    """The SDK module (``openai``/``anthropic``) the run will most likely use, from the flags and
    files alone (no model catalogue), or None. See :func:`sdk_for_model_pattern` for bare patterns.
    """
    agent = agent_dir()
    model = _flag(args, "--model")
    provider = _flag(args, "--provider")
    if provider is None and model and "/" in model:
        provider = model.split("/", 1)[0]
    if provider is None and model is None:
        settings = _read_json(agent / "settings.json")
        default = settings.get("defaultProvider")
        provider = default if isinstance(default, str) else None
    if provider is None:
        return None
    providers = _read_json(agent / "models.json").get("providers")
    if isinstance(providers, dict) and isinstance(providers.get(provider), dict):
        config = providers[provider]
        api = config.get("api")
        if not isinstance(api, str):
            models = config.get("models")
            first = models[0] if isinstance(models, list) and models and isinstance(models[0], dict) else {}
            api = first.get("api") if isinstance(first.get("api"), str) else None
        if api is not None:
            return _sdk_for_api(api)
    # A models.json entry that names no API (a baseUrl override) keeps the provider's own.
    return _sdk_for_api(_PROVIDER_API.get(provider.lower()))


_NON_INTERACTIVE_FLAGS = ("-p", "--print", "--mode")


def prefetch_for_argv(args: Sequence[str], *, stdin_is_tty: bool) -> threading.Thread | None:
    """Called first thing by ``pi``: prefetch for non-interactive runs of the agent.

    Those are the runs where start-up time is the whole cost (``-p``, ``--mode``, piped stdin).
    Subcommands such as ``pi plugins`` are left alone: a background import racing interpreter
    shutdown is not worth it there.
    """
    if args and args[0] in ("plugins", "trust", "untrust"):
        return None
    if stdin_is_tty and not any(a in _NON_INTERACTIVE_FLAGS or a.startswith("--mode=") for a in args):
        return None
    return prefetch_sdk(args)


def prefetch_sdk(args: Sequence[str]) -> threading.Thread | None:
    """Import the guessed SDK in a daemon thread; returns the thread (None when nothing to do)."""
    if "-h" in args or "--help" in args or "--version" in args or "--export" in args:
        return None
    try:
        module = guess_sdk(args)
        pattern = bare_model_pattern(args) if module is None else None
    except Exception:  # a guess must never break a run
        return None
    if module is None and pattern is None:
        return None

    from pi_core.ai.sdk_import import import_client_modules, install

    install()  # in this thread, before the other one imports (see install)

    def load() -> None:
        try:
            name = module or (sdk_for_model_pattern(pattern) if pattern else None)
            if name is not None:
                import_client_modules(name)
        except Exception:  # the provider reports a missing or broken SDK itself, at request time
            return

    thread = threading.Thread(target=load, name=f"pi-prefetch-{module or 'model'}", daemon=True)
    thread.start()
    return thread
