"""runtime/session_requests.py: the key, headers and base URL each provider request of a session
carries (models.json on disk, ``before_provider_headers`` handlers), and the stream they reach."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry
from pi_core.testing.faux import FAUX_API, text_message

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness


class EditsHeaders:
    @hookimpl
    def before_provider_headers(self, event: Any) -> None:
        event.headers["X-Team"] = "red"  # overrides models.json's
        event.headers["X-Drop"] = None  # removed
        event.headers["X-Trace"] = "on"  # added


def _with_models_json(harness: Harness) -> None:
    """Provider ``local`` from ``agent/models.json``, with headers, on the in-process faux API."""
    provider = {
        "baseUrl": "faux://local",
        "api": FAUX_API,
        "apiKey": "local-key",
        "headers": {"X-Team": "blue", "X-Drop": "gone soon"},
        "models": [{"id": "local-1"}],
    }
    agent = harness.tmp / "agent"
    (agent / "models.json").write_text(json.dumps({"providers": {"local": provider}}), encoding="utf-8")
    harness.registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")


async def test_the_request_carries_the_key_and_the_headers_handlers_leave(harness: Harness) -> None:
    _with_models_json(harness)
    model = harness.registry.find("local", "local-1")
    assert model is not None
    harness.provider.responses.append(text_message("hi"))
    session = harness.build(model=model, plugins=[EditsHeaders()])
    requests = session._requests
    assert await requests.api_key_for("local") == "local-key"
    assert requests.headers == {"X-Team": "red", "X-Trace": "on"}
    await session.prompt("hello")
    (_, options) = harness.provider.requests[-1]
    assert options.api_key == "local-key"
    assert {k: v for k, v in (options.headers or {}).items() if k.startswith("X-")} == {
        "X-Team": "red",
        "X-Trace": "on",
    }


async def test_without_handlers_or_headers_nothing_extra_is_sent(harness: Harness) -> None:
    session = harness.build()
    requests = session._requests
    assert await requests.api_key_for("faux") == "test-key"
    assert requests.headers is None and requests.base_url is None
    model = session.model
    assert model is not None and requests.at_auth_base_url(model) is model
    requests.base_url = "https://business.example/v1"  # as a Copilot business login names it
    moved = requests.at_auth_base_url(model)
    assert moved.base_url == "https://business.example/v1" and model.base_url == "faux://in-process"
