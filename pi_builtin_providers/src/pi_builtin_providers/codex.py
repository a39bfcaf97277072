"""OpenAI Codex's login: a ChatGPT subscription's OAuth sign-in (PKCE), by browser or device code.

The browser login opens OpenAI's authorize page; the page sends the browser back to
``http://localhost:1455/auth/callback``, where a small server of ours waits for the code. When that
port is taken (the Codex CLI uses it too) or the browser runs on another machine, the user pastes
the final redirect URL (or the bare code) instead. The device-code login shows a code to enter at
``https://auth.openai.com/codex/device`` and polls until it is confirmed. Either way the code is
exchanged for tokens.

The auth.json record is pi 1.6.0's: ``{"type": "oauth", "access": <JWT>, "refresh": <refresh
token>, "expires": <ms>, "accountId": <ChatGPT account id from the token's claims>}``; a refresh
posts the refresh token and stores the new pair (OpenAI rotates refresh tokens).

``PI_OPENAI_CODEX_LOGIN_URL`` (e.g. ``http://127.0.0.1:8766``) sends every login and refresh
request to that server instead of ``https://auth.openai.com`` (a proxy, or the scripted stand-in
the tests use); ``PI_OPENAI_CODEX_CALLBACK_PORT`` moves the callback server off port 1455 (the
redirect URI follows it); ``PI_OAUTH_CALLBACK_HOST`` is the address it listens on (pi's variable,
default ``127.0.0.1``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import html
import json
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from pi_core.ai.provider import OAuthAuth, OAuthError, OAuthLoginIO

OAUTH_ID = "openai-codex"
LOGIN_URL_ENV = "PI_OPENAI_CODEX_LOGIN_URL"
CALLBACK_PORT_ENV = "PI_OPENAI_CODEX_CALLBACK_PORT"
CALLBACK_HOST_ENV = "PI_OAUTH_CALLBACK_HOST"
#: The public OAuth client the Codex CLI and pi sign in with.
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
AUTH_BASE_URL = "https://auth.openai.com"
SCOPE = "openid profile email offline_access"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
JWT_CLAIM = "https://api.openai.com/auth"
DEVICE_TIMEOUT_S = 15 * 60
MIN_POLL_INTERVAL_S = 1.0
SLOW_DOWN_STEP_S = 5.0
HTTP_TIMEOUT_S = 30.0
METHODS = ("Browser login (default)", "Device code login (headless)")


def auth_base_url() -> str:
    return os.environ.get(LOGIN_URL_ENV, "").strip().rstrip("/") or AUTH_BASE_URL


def callback_port() -> int:
    value = os.environ.get(CALLBACK_PORT_ENV, "").strip()
    return int(value) if value.isdigit() else CALLBACK_PORT


def redirect_uri() -> str:
    return f"http://localhost:{callback_port()}{CALLBACK_PATH}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge)."""
    verifier = _b64url(secrets.token_bytes(32))
    return verifier, _b64url(hashlib.sha256(verifier.encode()).digest())


def authorize_url(challenge: str, state: str) -> str:
    params = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect_uri(),
        "scope": SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "originator": "pi",
    }
    return f"{auth_base_url()}/oauth/authorize?{urlencode(params)}"


def parse_pasted(text: str) -> tuple[str | None, str | None]:
    """(code, state) from what the user pasted: the redirect URL, ``code#state``, a query string,
    or the bare code."""
    value = text.strip()
    if not value:
        return None, None
    parts = urlsplit(value)
    if parts.scheme and parts.netloc:
        query = dict(parse_qsl(parts.query))
        return query.get("code"), query.get("state")
    if "#" in value:
        code, state = value.split("#", 1)
        return code, state
    if "code=" in value:
        query = dict(parse_qsl(value))
        return query.get("code"), query.get("state")
    return value, None


def token_account_id(token: str) -> str | None:
    """The ChatGPT account id in an access token's claims, ``None`` if it names none."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        value = claims[JWT_CLAIM]["chatgpt_account_id"]
    except (ValueError, KeyError, TypeError):
        return None
    return value if isinstance(value, str) and value else None


class CodexLogin:
    """The :class:`pi_core.ai.provider.OAuthProvider` of ``openai-codex``."""

    oauth_id = OAUTH_ID
    name = "OpenAI (ChatGPT Plus/Pro)"

    async def login(self, io: OAuthLoginIO, base_url: str | None = None) -> dict[str, Any]:
        choice = await io.select("Select OpenAI Codex login method:", list(METHODS))
        if choice is None:
            raise OAuthError("Login cancelled")
        if choice == 1:
            return await _device_login(io)
        return await _browser_login(io)

    async def refresh(self, credential: dict[str, Any], base_url: str | None = None) -> dict[str, Any]:
        refresh_token = credential.get("refresh")
        if not isinstance(refresh_token, str) or not refresh_token:
            raise OAuthError("the stored credential has no refresh token")
        body = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": CLIENT_ID}
        return await _token_request(body, "refresh")

    def to_auth(self, credential: dict[str, Any]) -> OAuthAuth:
        access = credential.get("access")
        if not isinstance(access, str) or not access:
            raise OAuthError("no access token in the stored credential")
        return OAuthAuth(access)


# --- token endpoint -------------------------------------------------------------------------------


async def _post(
    url: str, *, data: dict[str, str] | None = None, json_body: Any = None, failure: str | None = None
) -> Any:
    """POST; a network failure raises ``OAuthError`` as ``failure: reason`` (default: naming the URL)."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as client:
            return await client.post(url, data=data, json=json_body)
    except httpx.HTTPError as error:
        reason = str(error) or type(error).__name__
        raise OAuthError(f"{failure}: {reason}" if failure else f"cannot reach {url}: {reason}") from None


async def _token_request(body: dict[str, str], operation: str) -> dict[str, Any]:
    """POST the token endpoint and turn its answer into pi's auth.json record."""
    # pi's words for a refresh that could not reach the server (the exchange names the URL).
    failure = "OpenAI Codex token refresh error" if operation == "refresh" else None
    response = await _post(f"{auth_base_url()}/oauth/token", data=body, failure=failure)
    if response.status_code >= 400:
        detail = response.text.strip() or response.reason_phrase
        raise OAuthError(f"OpenAI Codex token {operation} failed ({response.status_code}): {detail}")
    try:
        data = response.json()
    except ValueError:
        data = None
    fields = data if isinstance(data, dict) else {}
    access, refresh, expires_in = (
        fields.get("access_token"),
        fields.get("refresh_token"),
        fields.get("expires_in"),
    )
    if not access or not refresh or not isinstance(expires_in, (int, float)) or isinstance(expires_in, bool):
        raise OAuthError(f"OpenAI Codex token {operation} response missing fields: {response.text[:500]}")
    account = token_account_id(str(access))
    if account is None:
        raise OAuthError("Failed to extract accountId from token")
    return {
        "type": "oauth",
        "access": str(access),
        "refresh": str(refresh),
        "expires": int(time.time() * 1000 + expires_in * 1000),
        "accountId": account,
    }


async def _exchange(code: str, verifier: str, redirect: str) -> dict[str, Any]:
    body = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect,
    }
    return await _token_request(body, "exchange")


# --- browser login --------------------------------------------------------------------------------


def _page(status: int, heading: str, message: str) -> bytes:
    body = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(heading)}</title></head>"
        f"<body><h1>{html.escape(heading)}</h1><p>{html.escape(message)}</p></body></html>"
    ).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 409: "Conflict"}.get(status, "Error")
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\n"
        f"cache-control: no-store\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


class CallbackServer:
    """The loopback server the browser is redirected to; :attr:`code` resolves with the code of
    the first callback whose ``state`` matches (an ``error`` callback fails it)."""

    def __init__(self, state: str) -> None:
        self._state = state
        self.code: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._handle, host, port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None
        if not self.code.done():
            self.code.cancel()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
            method, _, rest = head.decode("latin-1").partition(" ")
            target = rest.split(" ", 1)[0]
            writer.write(self._answer(method, target))
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        finally:
            writer.close()

    def _answer(self, method: str, target: str) -> bytes:
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query))
        if method != "GET" or parts.path != CALLBACK_PATH:
            return _page(404, "Authentication failed", "Callback route not found.")
        if query.get("state") != self._state:
            return _page(400, "Authentication failed", "State mismatch.")
        if self.code.done():
            return _page(409, "Authentication failed", "This sign-in has already been handled.")
        if query.get("error"):
            description = query.get("error_description") or query["error"]
            self.code.set_exception(OAuthError(f"OpenAI authorization failed: {description}"))
            return _page(400, "Authentication failed", f"OpenAI authorization failed. {description}")
        code = query.get("code")
        if not code:
            return _page(400, "Authentication failed", "Missing authorization code.")
        self.code.set_result(code)
        return _page(200, "Authentication successful", "Signed in to OpenAI. You may now close this page.")


async def _browser_login(io: OAuthLoginIO) -> dict[str, Any]:
    verifier, challenge = pkce_pair()
    state = secrets.token_hex(16)
    callback: CallbackServer | None = CallbackServer(state)
    host = os.environ.get(CALLBACK_HOST_ENV, "").strip() or "127.0.0.1"
    try:
        await callback.start(host, callback_port())  # type: ignore[union-attr]
    except OSError:
        # The port is taken (the Codex CLI listens there too): pasting the redirect URL still works.
        callback = None
    try:
        io.notify(f"Open this URL in your browser to sign in to ChatGPT:\n{authorize_url(challenge, state)}")
        code = await _wait_for_code(io, callback, state)
        io.notify("Exchanging authorization code for tokens...")
        return await _exchange(code, verifier, redirect_uri())
    finally:
        if callback is not None:
            await callback.close()


async def _wait_for_code(io: OAuthLoginIO, callback: CallbackServer | None, state: str) -> str:
    """The code from the browser's callback, or from what the user pastes, whichever comes first."""
    from pi_core.ai.abort import AbortController

    stop_prompt = AbortController()
    pasted = asyncio.ensure_future(
        io.prompt(
            "Complete login in your browser, or paste the authorization code / redirect URL here:",
            redirect_uri(),
            signal=stop_prompt.signal,
        )
    )
    waiting: set[asyncio.Future[Any]] = {pasted}
    if callback is not None:
        waiting.add(callback.code)
    try:
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if callback is not None and callback.code in done:
            return callback.code.result()
        answer = pasted.result()
    finally:
        if not pasted.done():
            stop_prompt.abort()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(pasted, 2.0)
    if answer is None:
        raise OAuthError("Login cancelled")
    code, pasted_state = parse_pasted(answer)
    if pasted_state and pasted_state != state:
        raise OAuthError("State mismatch")
    if not code:
        raise OAuthError("Missing authorization code")
    return code


# --- device-code login ----------------------------------------------------------------------------


async def _device_login(io: OAuthLoginIO) -> dict[str, Any]:
    base = auth_base_url()
    response = await _post(f"{base}/api/accounts/deviceauth/usercode", json_body={"client_id": CLIENT_ID})
    if response.status_code == 404:
        raise OAuthError(
            "OpenAI Codex device code login is not enabled for this server. "
            "Use browser login or verify the server URL."
        )
    if response.status_code >= 400:
        detail = response.text.strip()
        raise OAuthError(
            f"OpenAI Codex device code request failed with status {response.status_code}"
            + (f": {detail}" if detail else "")
        )
    try:
        data = response.json()
    except ValueError:
        data = None
    fields = data if isinstance(data, dict) else {}
    interval: Any = fields.get("interval")
    if isinstance(interval, str):
        try:
            interval = float(interval.strip())
        except ValueError:
            interval = None
    device_id, user_code = fields.get("device_auth_id"), fields.get("user_code")
    if not device_id or not user_code or not isinstance(interval, (int, float)) or interval < 0:
        raise OAuthError(f"Invalid OpenAI Codex device code response: {response.text[:500]}")
    io.notify(f"Open {base}/codex/device and enter the code {user_code}")

    async def poll() -> tuple[str, Any]:
        answer = await _post(
            f"{base}/api/accounts/deviceauth/token",
            json_body={"device_auth_id": device_id, "user_code": user_code},
        )
        if answer.status_code < 400:
            try:
                result = answer.json()
            except ValueError:
                result = None
            if isinstance(result, dict) and result.get("authorization_code") and result.get("code_verifier"):
                return "complete", result
            return "failed", f"Invalid OpenAI Codex device auth token response: {answer.text[:500]}"
        if answer.status_code in (403, 404):
            return "pending", None
        try:
            error = answer.json().get("error")
        except (ValueError, AttributeError):
            error = None
        code = error.get("code") if isinstance(error, dict) else error
        if code == "deviceauth_authorization_pending":
            return "pending", None
        if code == "slow_down":
            return "slow_down", None
        text = answer.text.strip()
        return "failed", f"OpenAI Codex device auth failed with status {answer.status_code}" + (
            f": {text}" if text else ""
        )

    result = await _poll_device(poll, float(interval))
    return await _exchange(
        str(result["authorization_code"]), str(result["code_verifier"]), f"{base}/deviceauth/callback"
    )


async def _poll_device(poll: Callable[[], Awaitable[tuple[str, Any]]], interval: float) -> dict[str, Any]:
    """RFC 8628 polling: ask, wait the interval (longer after ``slow_down``), until the deadline."""
    deadline = time.monotonic() + DEVICE_TIMEOUT_S
    wait = max(MIN_POLL_INTERVAL_S, interval)
    slowed = False
    while time.monotonic() < deadline:
        status, value = await poll()
        if status == "complete":
            return dict(value)
        if status == "failed":
            raise OAuthError(str(value))
        if status == "slow_down":
            slowed = True
            wait = max(MIN_POLL_INTERVAL_S, wait + SLOW_DOWN_STEP_S)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        await asyncio.sleep(min(wait, remaining))
    raise OAuthError(
        "Device flow timed out" + (" after slow_down responses (check the clock)" if slowed else "")
    )
