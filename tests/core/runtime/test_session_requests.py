"""runtime/session_requests.py: the key, headers and base URL each provider request of a session
carries (models.json on disk, ``before_provider_headers`` handlers), and the stream they reach."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry
from pi_core.testing import LOOPBACK_API_KEY, LoopbackLLMServer, text_turn
from pi_core.testing.faux import FAUX_API, text_message
from pi_core.testing.session import PiSession

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness


class EditsHeaders:
    @hookimpl
    def before_provider_headers(self, event: Any) -> None:
        event.headers["X-Team"] = "red"  # overrides models.json's
        event.headers["X-Drop"] = None  # removed
        event.headers["X-Trace"] = "on"  # added


def _with_models_json(harness: Harness, name: str = "local") -> None:
    """Provider ``name`` from ``agent/models.json``, with headers, on the in-process faux API."""
    provider = {
        "baseUrl": "faux://local",
        "api": FAUX_API,
        "apiKey": "local-key",
        "headers": {"X-Team": "blue", "X-Drop": "gone soon"},
        "models": [{"id": "local-1"}],
    }
    agent = harness.tmp / "agent"
    (agent / "models.json").write_text(json.dumps({"providers": {name: provider}}), encoding="utf-8")
    harness.registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")


async def test_the_request_carries_the_key_and_the_headers_handlers_leave(harness: Harness) -> None:
    _with_models_json(harness)
    model = harness.registry.find("local", "local-1")
    assert model is not None
    harness.provider.responses.append(text_message("hi"))
    session = harness.build(model=model, plugins=[EditsHeaders()])
    requests = session._requests
    assert await requests.api_key_for("local") == "local-key"
    # the dropped header stays as None: the request leaves it out, the SDK's own of that name too
    assert requests.headers == {"X-Team": "red", "X-Drop": None, "X-Trace": "on"}
    await session.prompt("hello")
    (_, options) = harness.provider.requests[-1]
    assert options.api_key == "local-key"
    assert {k: v for k, v in (options.headers or {}).items() if k.startswith("X-")} == {
        "X-Team": "red",
        "X-Drop": None,
        "X-Trace": "on",
    }


async def test_opencode_requests_carry_the_session_id(harness: Harness) -> None:
    """pi 1.6.0 sends OpenCode ``x-opencode-session`` (the session id), under the configured
    headers, where ``before_provider_headers`` handlers see it; other services get none."""
    _with_models_json(harness, "opencode")
    model = harness.registry.find("opencode", "local-1")
    assert model is not None
    session = harness.build(model=model)
    assert await session._requests.api_key_for("opencode") == "local-key"
    assert session._requests.headers == {
        "x-opencode-session": session.session_manager.get_session_id(),
        "X-Team": "blue",
        "X-Drop": "gone soon",
    }
    _with_models_json(harness)
    local = harness.registry.find("local", "local-1")
    assert local is not None
    other = harness.build(model=local)
    await other._requests.api_key_for("local")
    assert other._requests.headers == {"X-Team": "blue", "X-Drop": "gone soon"}


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


class EditsTheWire:
    """Edits headers the request gets from elsewhere: the SDK's, the client identity's, the key's."""

    @hookimpl
    def before_provider_headers(self, event: Any) -> None:
        event.headers["x-stainless-os"] = None  # the SDK's own
        event.headers["USER-AGENT"] = "gateway/1"  # the identity's, in another case
        event.headers["x-stainless-lang"] = "cobol"
        event.headers["X-Trace"] = "on"


class DropsTheKey:
    @hookimpl
    def before_provider_headers(self, event: Any) -> None:
        event.headers["Authorization"] = None
        event.headers["X-Api-Key"] = None


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "anthropic-messages"])
async def test_handlers_edit_the_headers_the_sdk_sends(
    pi_llm_server: LoopbackLLMServer, tmp_path: Path, api: str
) -> None:
    """pi 1.6.0: what ``before_provider_headers`` sets goes over the SDK's and the identity's
    headers, and a ``None`` leaves that header out of the request, whoever would have set it."""
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    async with PiSession(pi_llm_server, tmp_path / "edit", plugins=[EditsTheWire()], api=api) as pi:
        await pi.prompt("hello")
        sent = pi.requests[-1].headers
    assert "x-stainless-os" not in sent
    assert (sent["user-agent"], sent["x-stainless-lang"], sent["x-trace"]) == ("gateway/1", "cobol", "on")
    async with PiSession(pi_llm_server, tmp_path / "drop", plugins=[DropsTheKey()], api=api) as pi:
        await pi.prompt("hello")
        sent = pi.requests[-1].headers
    assert not {"authorization", "x-api-key"} & set(sent), sent
    assert LOOPBACK_API_KEY not in json.dumps(sent)
