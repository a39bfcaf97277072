"""OpenAI Codex's ChatGPT sign-in against a loopback authorization server, and the refresh the
model registry runs with it before a request."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from pi_builtin_providers.codex import CodexLogin, parse_pasted
from pi_core.ai.abort import AbortSignal
from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry
from pi_core.ai.provider import OAuthError, OAuthProvider
from pi_core.testing.codex import ACCOUNT_ID, LoopbackAuthServer, codex_credential

from pi_builtin_providers import provider_definitions


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def auth_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackAuthServer]:
    with LoopbackAuthServer() as server:
        monkeypatch.setenv("PI_OPENAI_CODEX_LOGIN_URL", server.url)
        monkeypatch.setenv("PI_OPENAI_CODEX_CALLBACK_PORT", str(free_port()))
        yield server


class BrowserIO:
    """Picks a method; a "browser" follows the authorize URL the login shows (or only reads where
    it would be redirected, for the user to paste); the paste prompt answers ``paste``."""

    def __init__(self, method: int = 0, follow: bool = True, paste: str | None = None) -> None:
        self.method = method
        self.follow = follow
        self.paste = paste
        self.notes: list[str] = []
        self.redirect: str | None = None
        self.redirected = asyncio.Event()
        self.withdrawn = False
        self.tasks: list[asyncio.Task[None]] = []

    async def select(self, message: str, options: list[str]) -> int | None:
        assert options[0].startswith("Browser") and options[1].startswith("Device")
        return self.method

    def notify(self, message: str) -> None:
        self.notes.append(message)
        url = next((line for line in message.splitlines() if "/oauth/authorize?" in line), None)
        if url is not None:
            self.tasks.append(asyncio.ensure_future(self._browse(url)))

    async def _browse(self, url: str) -> None:
        async with httpx.AsyncClient(follow_redirects=self.follow) as client:
            response = await client.get(url)
            self.redirect = response.headers.get("location")
            self.redirected.set()

    async def prompt(
        self, message: str, placeholder: str = "", *, signal: AbortSignal | None = None
    ) -> str | None:
        if self.paste is None and not self.follow:
            await self.redirected.wait()
            return self.redirect
        if self.paste is not None:
            return self.paste
        assert signal is not None
        taken_back = asyncio.Event()  # the user never pastes: the browser's callback must win
        signal.add_listener(taken_back.set)
        await taken_back.wait()
        self.withdrawn = True
        return None


def test_codex_is_a_catalogue_provider_with_its_own_login() -> None:
    (definition,) = [d for d in provider_definitions() if d.id == "openai-codex"]
    assert definition.api == "openai-codex-responses" and definition.oauth == CodexLogin.oauth_id
    assert definition.base_url == "https://chatgpt.com/backend-api" and definition.env == []
    assert definition.default_model == "gpt-6.2-sol"
    assert "gpt-6.2-sol" in {m["id"] for m in definition.models}
    assert isinstance(CodexLogin(), OAuthProvider)


async def test_browser_login_takes_the_code_from_the_callback(auth_server: LoopbackAuthServer) -> None:
    io = BrowserIO()
    credential = await CodexLogin().login(io)
    assert credential["type"] == "oauth" and credential["accountId"] == ACCOUNT_ID
    assert credential["refresh"] == "rt-loopback-1"
    assert credential["expires"] > time.time() * 1000 + 3000 * 1000
    assert io.withdrawn  # the paste prompt was taken back once the browser came back
    authorize = next(params for method, path, params in auth_server.requests if path == "/oauth/authorize")
    assert authorize["scope"] == "openid profile email offline_access"
    assert authorize["originator"] == "pi" and authorize["codex_cli_simplified_flow"] == "true"
    assert urlsplit(authorize["redirect_uri"]).hostname == "localhost"
    exchange = next(params for method, path, params in auth_server.requests if path == "/oauth/token")
    assert exchange["grant_type"] == "authorization_code" and exchange["code_verifier"]


async def test_a_pasted_redirect_url_works_when_the_port_is_taken(auth_server: LoopbackAuthServer) -> None:
    import os

    with socket.socket() as squatter:  # another login (or the Codex CLI) holds the callback port
        squatter.bind(("127.0.0.1", int(os.environ["PI_OPENAI_CODEX_CALLBACK_PORT"])))
        squatter.listen()
        io = BrowserIO(follow=False)
        credential = await CodexLogin().login(io)
    assert credential["accountId"] == ACCOUNT_ID


async def test_failed_logins_say_why(auth_server: LoopbackAuthServer) -> None:
    with pytest.raises(OAuthError, match=r"^State mismatch$"):
        await CodexLogin().login(BrowserIO(follow=False, paste="code-x#not-the-state"))
    with pytest.raises(
        OAuthError, match=r"OpenAI Codex token exchange failed \(400\): .*bad authorization code"
    ):
        await CodexLogin().login(BrowserIO(follow=False, paste="code-made-up"))
    with pytest.raises(OAuthError, match=r"^Login cancelled$"):
        await CodexLogin().login(CancellingIO())


class CancellingIO(BrowserIO):
    """The user never opens the URL and presses Esc at the paste prompt."""

    def notify(self, message: str) -> None:
        self.notes.append(message)

    async def prompt(
        self, message: str, placeholder: str = "", *, signal: AbortSignal | None = None
    ) -> str | None:
        return None


async def test_device_code_login(auth_server: LoopbackAuthServer) -> None:
    io = BrowserIO(method=1)
    credential = await CodexLogin().login(io)
    assert credential["accountId"] == ACCOUNT_ID
    assert any("/codex/device" in note and "ABCD-1234" in note for note in io.notes)
    exchange = [params for method, path, params in auth_server.requests if path == "/oauth/token"][-1]
    assert exchange["redirect_uri"] == f"{auth_server.url}/deviceauth/callback"


def test_pasted_input_forms() -> None:
    assert parse_pasted("http://localhost:1455/auth/callback?code=c1&state=s1") == ("c1", "s1")
    assert parse_pasted("c2#s2") == ("c2", "s2")
    assert parse_pasted("code=c3&state=s3") == ("c3", "s3")
    assert parse_pasted("  c4 ") == ("c4", None)
    assert parse_pasted("") == (None, None)


def registry_with(tmp_path: Path, credential: dict[str, Any]) -> ModelRegistry:
    from pi_builtin_providers.plugin import register_providers

    auth = AuthStorage(tmp_path / "auth.json")
    auth.set_oauth("openai-codex", credential)
    registry = ModelRegistry(auth, tmp_path / "models.json")
    register_providers(registry.register)
    return registry


async def test_an_expiring_token_is_refreshed_and_written_back(
    tmp_path: Path, auth_server: LoopbackAuthServer
) -> None:
    registry = registry_with(tmp_path, codex_credential(expires_in_s=60))  # inside the 5-minute margin
    model = registry.find("openai-codex", "gpt-6.2-sol")
    assert model is not None and model in registry.available()
    request = await registry.get_api_key_and_headers(model)
    stored = json.loads((tmp_path / "auth.json").read_text())["openai-codex"]
    assert stored["refresh"] == "rt-loopback-1" and stored["access"] == request.api_key
    assert stored["accountId"] == ACCOUNT_ID and stored["expires"] > time.time() * 1000 + 3000 * 1000
    refresh = next(params for method, path, params in auth_server.requests if path == "/oauth/token")
    assert refresh == {
        "grant_type": "refresh_token",
        "refresh_token": "rt-loopback-0",
        "client_id": "app_EMoamEEZ73f0CkXaXp7hrann",
    }
    # A valid token is used as it is: no second refresh.
    assert (await registry.get_api_key_and_headers(model)).api_key == request.api_key
    assert len([r for r in auth_server.requests if r[1] == "/oauth/token"]) == 1


async def test_a_revoked_refresh_token_asks_for_a_new_login(
    tmp_path: Path, auth_server: LoopbackAuthServer
) -> None:
    auth_server.state.refresh_fails = True
    before = codex_credential(expires_in_s=-10)
    registry = registry_with(tmp_path, before)
    model = registry.find("openai-codex", "gpt-6.2-sol")
    assert model is not None
    with pytest.raises(RuntimeError) as failure:
        await registry.get_api_key_and_headers(model)
    message = str(failure.value)
    assert message.startswith(
        "OAuth refresh failed for openai-codex: OpenAI Codex token refresh failed (401)"
    )
    assert "refresh_token_reused" in message and message.endswith("Run /login openai-codex again.")
    assert json.loads((tmp_path / "auth.json").read_text())["openai-codex"]["refresh"] == before["refresh"]


async def test_two_processes_refresh_a_rotating_token_once(
    tmp_path: Path, auth_server: LoopbackAuthServer
) -> None:
    first = registry_with(tmp_path, codex_credential(expires_in_s=-10))
    from pi_builtin_providers.plugin import register_providers

    second = ModelRegistry(AuthStorage(tmp_path / "auth.json"), tmp_path / "models.json")
    register_providers(second.register)  # another pi on the same auth.json
    model = first.find("openai-codex", "gpt-6.2-sol")
    assert model is not None
    a, b = await asyncio.gather(first.get_api_key_and_headers(model), second.get_api_key_and_headers(model))
    assert a.api_key == b.api_key
    assert len([r for r in auth_server.requests if r[1] == "/oauth/token"]) == 1
    assert not (tmp_path / "auth.json.lock").exists()


async def test_the_refresh_waits_for_pi16s_lock_and_takes_over_a_stale_one(
    tmp_path: Path, auth_server: LoopbackAuthServer
) -> None:
    import os

    registry = registry_with(tmp_path, codex_credential(expires_in_s=-10))
    model = registry.find("openai-codex", "gpt-6.2-sol")
    assert model is not None
    lock = tmp_path / "auth.json.lock"
    lock.mkdir()  # pi 1.6.0 (proper-lockfile) holds auth.json

    async def release_later() -> None:
        await asyncio.sleep(0.3)
        lock.rmdir()

    releaser = asyncio.ensure_future(release_later())
    started = time.monotonic()
    await registry.get_api_key_and_headers(model)
    assert time.monotonic() - started >= 0.3
    await releaser
    registry.auth.set_oauth("openai-codex", codex_credential(expires_in_s=-10, refresh="rt-loopback-1"))
    lock.mkdir()
    os.utime(lock, (time.time() - 60, time.time() - 60))  # its holder died a minute ago
    await registry.get_api_key_and_headers(model)
    assert len([r for r in auth_server.requests if r[1] == "/oauth/token"]) == 2
    assert not lock.exists()


async def test_an_unreachable_token_server_reads_as_pi_words_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_OPENAI_CODEX_LOGIN_URL", f"http://127.0.0.1:{free_port()}")
    registry = registry_with(tmp_path, codex_credential(expires_in_s=-10))
    model = registry.find("openai-codex", "gpt-6.2-sol")
    assert model is not None
    with pytest.raises(
        RuntimeError, match=r"^OAuth refresh failed for openai-codex: OpenAI Codex token refresh error: "
    ):
        await registry.get_api_key_and_headers(model)
