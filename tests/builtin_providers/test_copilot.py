"""GitHub Copilot: the device-flow login, the token refresh and the per-request headers, against a
scripted GitHub (tests/builtin_providers/copilot_login_server.py) and the loopback LLM server."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from pi_builtin_providers.copilot import EDITOR_HEADERS, LOGIN_URL_ENV, CopilotLogin, api_base_url
from pi_core.ai import builtin_providers
from pi_core.ai.auth import AuthStorage
from pi_core.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_core.ai.models import ModelRegistry
from pi_core.ai.provider import Context, OAuthError, OAuthProvider, StreamOptions
from pi_core.ai.stream import complete_simple
from pi_core.testing import LoopbackLLMServer, text_turn

from pi_builtin_providers import provider_definitions
from tests.builtin_providers.copilot_login_server import GitHubLoginServer, LoginScript

ACCOUNT_MODELS = [
    {"id": "claude-haiku-4.5", "model_picker_enabled": True, "policy": {"state": "enabled"}},
    {"id": "gpt-5.4-nano", "model_picker_enabled": True, "policy": {"state": "unconfigured"}},
    {"id": "no-tools", "model_picker_enabled": True, "capabilities": {"supports": {"tool_calls": False}}},
    {"id": "switched-off", "model_picker_enabled": True, "policy": {"state": "disabled"}},
    {"id": "hidden", "model_picker_enabled": False, "policy": {"state": "enabled"}},
]


class ScriptedIO:
    def __init__(self, answer: str | None = "") -> None:
        self.answer = answer
        self.prompts: list[str] = []
        self.notes: list[str] = []

    async def prompt(self, message: str, placeholder: str = "") -> str | None:
        self.prompts.append(message)
        return self.answer

    def notify(self, message: str) -> None:
        self.notes.append(message)


def test_copilot_login_is_an_oauth_provider_named_by_the_definition() -> None:
    (definition,) = [d for d in provider_definitions() if d.id == "github-copilot"]
    assert definition.oauth == CopilotLogin.oauth_id and definition.env == ["COPILOT_GITHUB_TOKEN"]
    assert isinstance(CopilotLogin(), OAuthProvider)
    apis = {m["id"]: m.get("api", definition.api) for m in definition.models}
    assert apis["claude-haiku-4.5"] == "anthropic-messages" and apis["gpt-5.4-nano"] == "openai-responses"
    assert all(m["headers"] == EDITOR_HEADERS for m in definition.models)


async def test_login_runs_the_device_flow_and_returns_pis_credential(
    pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pi_llm_server.model_list = ACCOUNT_MODELS
    io = ScriptedIO("")
    with GitHubLoginServer() as github:
        monkeypatch.setenv(LOGIN_URL_ENV, github.url)
        before = time.time()
        credential = await CopilotLogin().login(io, pi_llm_server.url)
    assert io.prompts == ["GitHub Enterprise URL/domain (blank for github.com)"]
    assert "Open https://github.com/login/device and enter the code WDJB-MJHT" in io.notes
    expires = credential.pop("expires")
    assert (before + 1800) * 1000 - 300_000 - 5000 < expires <= (time.time() + 1800) * 1000 - 300_000
    assert credential == {
        "type": "oauth",
        "refresh": "gho_github_token",
        "access": "tid=1;exp=9;sku=free;8kp=1",
        "availableModelIds": ["claude-haiku-4.5", "gpt-5.4-nano"],
    }
    device, pending, granted, exchange = github.script.seen
    assert device.form == {"client_id": "Iv1.b507a08c87ecfe98", "scope": "read:user"}
    assert pending.form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"
    assert pending.form["device_code"] == granted.form["device_code"] == "device-123"
    assert exchange.headers["authorization"] == "Bearer gho_github_token"
    assert exchange.headers["editor-version"] == "vscode/1.107.0"
    (models,) = pi_llm_server.get_requests
    assert models.headers["authorization"] == "Bearer tid=1;exp=9;sku=free;8kp=1"
    assert models.headers["x-github-api-version"] == "2026-06-01"
    # The unconfigured catalogue model was switched on (the loopback server refuses, so it stays
    # listed only because the account's picker lists it).
    (policy,) = pi_llm_server.requests
    assert policy.path == "/models/gpt-5.4-nano/policy" and policy.body == {"state": "enabled"}
    assert "Enabling models..." in io.notes


@pytest.mark.parametrize(
    ("script", "answer", "message"),
    [
        (LoginScript(poll_error="access_denied"), "", "Device flow failed: access_denied: The user said no."),
        (LoginScript(), None, "Login cancelled"),
        (LoginScript(), "https://", "Invalid GitHub Enterprise URL/domain"),
        (LoginScript(token_status=401), "", '401 Unauthorized: {"message": "Bad credentials"}'),
    ],
)
async def test_login_failures_say_why(
    script: LoginScript, answer: str | None, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with GitHubLoginServer(script) as github:
        monkeypatch.setenv(LOGIN_URL_ENV, github.url)
        with pytest.raises(OAuthError) as caught:
            await CopilotLogin().login(ScriptedIO(answer), "http://127.0.0.1:9")
    assert str(caught.value) == message


def test_requests_go_to_the_endpoint_the_token_names() -> None:
    token = "tid=1;exp=9;proxy-ep=proxy.business.githubcopilot.com;sku=x"
    assert api_base_url(token, None, None) == "https://api.business.githubcopilot.com"
    assert api_base_url("tid=1", "company.ghe.com", "x") == "https://copilot-api.company.ghe.com"
    assert api_base_url("tid=1", None, "https://configured") == "https://configured"
    login = CopilotLogin()
    auth = login.to_auth({"type": "oauth", "access": token, "enterpriseUrl": "https://company.ghe.com/"})
    assert (auth.api_key, auth.base_url) == (token, "https://api.business.githubcopilot.com")


def _registry(root: Path, server: LoopbackLLMServer, credential: dict[str, Any]) -> ModelRegistry:
    (root / "auth.json").write_text(json.dumps({"github-copilot": credential}))
    (root / "models.json").write_text(json.dumps({"providers": {"github-copilot": {"baseUrl": server.url}}}))
    registry = ModelRegistry(AuthStorage(root / "auth.json"), root / "models.json")
    for definition in provider_definitions():
        registry.register(definition)
    registry.register(CopilotLogin())
    return registry


async def test_an_expiring_token_is_refreshed_and_written_back(
    tmp_path: Path, pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pi_llm_server.model_list = ACCOUNT_MODELS[:1]
    old = {"type": "oauth", "refresh": "gho_github_token", "access": "tid=old", "expires": 0}
    registry = _registry(tmp_path, pi_llm_server, old)
    model = registry.find("github-copilot", "claude-haiku-4.5")
    assert model is not None
    with GitHubLoginServer(LoginScript(copilot_tokens=["tid=new"])) as github:
        monkeypatch.setenv(LOGIN_URL_ENV, github.url)
        first = await registry.get_api_key_and_headers(model)
        second = await registry.get_api_key_and_headers(model)
    assert (first.api_key, second.api_key, first.base_url) == ("tid=new", "tid=new", None)
    assert github.script.issued == 1  # the second request found the fresh token
    stored = json.loads((tmp_path / "auth.json").read_text())["github-copilot"]
    assert stored["access"] == "tid=new" and stored["expires"] > time.time() * 1000
    assert stored["availableModelIds"] == ["claude-haiku-4.5"]
    # The account's list narrows what is available, and the default model follows it.
    assert [m.id for m in registry.available() if m.provider == "github-copilot"] == ["claude-haiku-4.5"]
    assert (registry.default_model_of("github-copilot") or model).id == "claude-haiku-4.5"


async def test_a_failed_refresh_names_the_provider_and_keeps_the_record(
    tmp_path: Path, pi_llm_server: LoopbackLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = {"type": "oauth", "refresh": "gho_revoked", "access": "tid=old", "expires": 0}
    registry = _registry(tmp_path, pi_llm_server, old)
    model = registry.find("github-copilot", "claude-haiku-4.5")
    assert model is not None
    with GitHubLoginServer(LoginScript(token_status=401)) as github:
        monkeypatch.setenv(LOGIN_URL_ENV, github.url)
        with pytest.raises(RuntimeError) as caught:
            await registry.get_api_key_and_headers(model)
    assert str(caught.value).startswith("OAuth refresh failed for github-copilot: 401 Unauthorized")
    assert "/login github-copilot" in str(caught.value) and "gho_revoked" not in str(caught.value)
    assert json.loads((tmp_path / "auth.json").read_text()) == {"github-copilot": old}


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions", "openai-responses"])
async def test_copilot_headers_on_every_wire_api(pi_llm_server: LoopbackLLMServer, api: str) -> None:
    builtin_providers.register_builtin_api_providers()
    model = pi_llm_server.model(api, id="copilot-model", provider="github-copilot", headers=EDITOR_HEADERS)
    pi_llm_server.add(text_turn("one"), text_turn("two"))
    options = StreamOptions(api_key="tid=copilot", max_retries=0)
    asked = [UserMessage(content="hi")]
    await complete_simple(model, Context(messages=asked), options)
    call = ToolCall(id="call_1", name="read", arguments={})
    answered = [
        *asked,
        AssistantMessage(content=[call], api=api, provider="github-copilot", model="copilot-model"),
        ToolResultMessage(
            tool_call_id="call_1",
            tool_name="read",
            content=[TextContent(text="a picture"), ImageContent(data="aGk=", mime_type="image/png")],
        ),
    ]
    await complete_simple(model, Context(messages=answered), options)
    first, second = (request.headers for request in pi_llm_server.requests)
    for headers in (first, second):
        assert headers["authorization"] == "Bearer tid=copilot" and "x-api-key" not in headers
        assert headers["openai-intent"] == "conversation-edits"
        assert headers["editor-version"] == "vscode/1.107.0"
        assert headers["copilot-integration-id"] == "vscode-chat"
    assert (first["x-initiator"], second["x-initiator"]) == ("user", "agent")
    assert "copilot-vision-request" not in first and second["copilot-vision-request"] == "true"
