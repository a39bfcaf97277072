"""How requests name this client to providers, in the shape pi 1.6.0 gives its own (pi-ai's
client identity): a ``User-Agent`` of ``name/version (platform; runtime; arch)`` on every request,
and, while attribution is on, the app-credit headers of the services that rank apps (OpenRouter,
NVIDIA NIM, OpenCode). The values are ours — this program's name and version, Python as the
runtime — except OpenRouter's category, a fixed word from OpenRouter's list.

Identity headers sit below everything else: a model's or provider's configured headers and the
request's own replace them (names compared without case).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cache
from urllib.parse import urlsplit

from pi_core.ai.provider import Model

#: The name requests carry: pi for Python (not the TypeScript pi, which sends ``pi``).
CLIENT_NAME = "pi-python"
#: OpenRouter's app category for a command-line coding agent, as pi 1.6.0 sends it.
OPENROUTER_CATEGORIES = ("cli-agent",)
#: ``PI_TELEMETRY`` overrides ``enableInstallTelemetry``, which gates the attribution headers.
TELEMETRY_ENV = "PI_TELEMETRY"

_NVIDIA_NIM_HOST = "integrate.api.nvidia.com"
_OPENCODE_HOST = "opencode.ai"
#: Python's machine names → the short forms pi's user agent uses.
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "i386": "ia32", "i686": "ia32"}


@cache
def user_agent() -> str:
    """``pi-python/1.6.0 (linux; python/3.11.7; x64)``."""
    import platform

    from pi_core import __version__

    machine = platform.machine().lower()
    runtime = f"python/{platform.python_version()}"
    return f"{CLIENT_NAME}/{__version__} ({sys.platform}; {runtime}; {_ARCH.get(machine, machine)})"


def attribution_enabled(setting: bool, env: Mapping[str, str] | None = None) -> bool:
    """pi 1.6.0's rule: ``PI_TELEMETRY`` (``1``/``true``/``yes`` on) when set, else the
    ``enableInstallTelemetry`` setting."""
    value = (os.environ if env is None else env).get(TELEMETRY_ENV)
    if value is None:
        return setting
    return value.strip().lower() in ("1", "true", "yes")


def _host(base_url: str) -> str:
    try:
        return urlsplit(base_url).hostname or ""
    except ValueError:
        return ""


def attribution_headers(model: Model) -> dict[str, str]:
    """The app-credit headers of the service ``model`` is reached at (none for most)."""
    base_url = model.base_url or ""
    if model.provider == "openrouter" or "openrouter.ai" in base_url:
        # OpenRouter credits an app by its site; pi for Python has none of its own to name.
        return {"X-OpenRouter-Title": CLIENT_NAME, "X-OpenRouter-Categories": ",".join(OPENROUTER_CATEGORIES)}
    if model.provider == "nvidia" or _host(base_url) == _NVIDIA_NIM_HOST:
        return {"X-BILLING-INVOKE-ORIGIN": CLIENT_NAME[:1].upper() + CLIENT_NAME[1:]}
    if is_opencode(model):
        return {"x-opencode-client": CLIENT_NAME}
    return {}


def is_opencode(model: Model) -> bool:
    """OpenCode by provider name or by its base URL's host."""
    return model.provider in ("opencode", "opencode-go") or _host(model.base_url or "") == _OPENCODE_HOST


def opencode_session_headers(model: Model, session_id: str | None) -> dict[str, str]:
    """``x-opencode-session``: the session id OpenCode routes one conversation's requests by,
    which pi 1.6.0 sends it (with or without attribution); nothing for other services."""
    return {"x-opencode-session": session_id} if session_id and is_opencode(model) else {}


def identity_headers(model: Model, *, attribution: bool) -> dict[str, str]:
    """``User-Agent``, plus the attribution headers when ``attribution`` is on."""
    headers = {"User-Agent": user_agent()}
    if attribution:
        headers.update(attribution_headers(model))
    return headers


def merge_headers(*layers: Mapping[str, str | None] | None) -> dict[str, str | None]:
    """Header layers, later ones winning; a name given again in another case replaces the
    earlier spelling instead of being sent twice. A ``None`` stays in the result: it removes the
    header, the SDK's own of that name too (:func:`pi_core.ai.providers._base.sdk_headers`)."""
    merged: dict[str, str | None] = {}
    spelled: dict[str, str] = {}
    for layer in layers:
        for name, value in (layer or {}).items():
            previous = spelled.get(name.lower())
            if previous is not None and previous != name:
                del merged[previous]
            spelled[name.lower()] = name
            merged[name] = value
    return merged
