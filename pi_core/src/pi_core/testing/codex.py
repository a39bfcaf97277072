"""A loopback stand-in for OpenAI's authorization server, for the ``openai-codex`` sign-in.

It plays the parts of ``https://auth.openai.com`` a ChatGPT sign-in uses — the browser's authorize
page (which approves at once and redirects to the client's ``redirect_uri``), the token endpoint
(authorization code with PKCE, refresh token with rotation) and the device-code endpoints — and
hands out access tokens that are JWTs naming a ChatGPT account, as the real ones do. Point pi at it
with ``PI_OPENAI_CODEX_LOGIN_URL`` (see :attr:`LoopbackAuthServer.url`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

ACCOUNT_ID = "acct-loopback-0001"
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def access_token(account_id: str | None = ACCOUNT_ID, expires_in: float = 3600.0) -> str:
    """An unsigned JWT shaped like a ChatGPT access token (the account in the auth claim)."""
    claims: dict[str, Any] = {"exp": int(time.time() + expires_in), "jti": secrets.token_hex(8)}
    if account_id is not None:
        claims["https://api.openai.com/auth"] = {"chatgpt_account_id": account_id}
    head = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{head}.{_b64(json.dumps(claims).encode())}.loopback"


def codex_credential(expires_in_s: float = 3600.0, refresh: str = "rt-loopback-0") -> dict[str, Any]:
    """An auth.json record as pi 1.6.0 writes it after an ``openai-codex`` login."""
    return {
        "type": "oauth",
        "access": access_token(expires_in=max(expires_in_s, 1.0)),
        "refresh": refresh,
        "expires": int((time.time() + expires_in_s) * 1000),
        "accountId": ACCOUNT_ID,
    }


@dataclass
class _AuthState:
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: code → (code_challenge, redirect_uri) of the authorize request that issued it.
    codes: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: The refresh token that is still valid (each refresh rotates it).
    refresh_token: str = "rt-loopback-0"
    refresh_fails: bool = False
    expires_in: int = 3600
    device_pending: int = 1
    device_verifier: str = ""
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    issued: int = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, payload: Any = None, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode() if payload is not None else b""
        self.send_response(status)
        if payload is not None:
            self.send_header("content-type", "application/json")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        params = dict(parse_qsl(query))
        state = self.server.state
        with state.lock:
            state.requests.append(("GET", path, params))
        if path != "/oauth/authorize":
            self._send(404, {"error": "not found"})
            return
        if params.get("client_id") != CLIENT_ID or params.get("code_challenge_method") != "S256":
            self._send(400, {"error": "invalid_request"})
            return
        code = f"code-{secrets.token_hex(6)}"
        redirect = params.get("redirect_uri", "")
        with state.lock:
            state.codes[code] = (params.get("code_challenge", ""), redirect)
        self._send(
            302,
            None,
            {"location": f"{redirect}?{urlencode({'code': code, 'state': params.get('state', '')})}"},
        )

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length).decode() if length else ""
        if "json" in (self.headers.get("content-type") or ""):
            params = {k: str(v) for k, v in (json.loads(raw or "{}")).items()}
        else:
            params = dict(parse_qsl(raw))
        path = urlsplit(self.path).path
        state = self.server.state
        with state.lock:
            state.requests.append(("POST", path, params))
        if path == "/oauth/token":
            self._token(params)
        elif path == "/api/accounts/deviceauth/usercode":
            self._send(200, {"device_auth_id": "dev-auth-1", "user_code": "ABCD-1234", "interval": "0"})
        elif path == "/api/accounts/deviceauth/token":
            with state.lock:
                pending = state.device_pending > 0
                state.device_pending -= 1
                if not pending:
                    verifier = state.device_verifier = _b64(secrets.token_bytes(32))
                    challenge = _b64(hashlib.sha256(verifier.encode()).digest())
                    state.codes["device-code-1"] = (challenge, f"{self.server.url}/deviceauth/callback")
            if pending:
                self._send(403, {"error": {"code": "deviceauth_authorization_pending"}})
            else:
                self._send(
                    200, {"authorization_code": "device-code-1", "code_verifier": state.device_verifier}
                )
        else:
            self._send(404, {"error": "not found"})

    def _token(self, params: dict[str, str]) -> None:
        state = self.server.state
        if params.get("client_id") != CLIENT_ID:
            self._send(401, {"error": "invalid_client"})
            return
        grant = params.get("grant_type")
        with state.lock:
            if grant == "authorization_code":
                issued = state.codes.pop(params.get("code", ""), None)
                verifier = params.get("code_verifier", "")
                challenge = _b64(hashlib.sha256(verifier.encode()).digest())
                if issued is None or issued != (challenge, params.get("redirect_uri")):
                    self._send(400, {"error": "invalid_grant", "error_description": "bad authorization code"})
                    return
            elif grant == "refresh_token":
                if state.refresh_fails or params.get("refresh_token") != state.refresh_token:
                    self._send(
                        401,
                        {
                            "error": {
                                "message": "Your refresh token has already been used.",
                                "type": "invalid_request_error",
                                "code": "refresh_token_reused",
                            }
                        },
                    )
                    return
            else:
                self._send(400, {"error": "unsupported_grant_type"})
                return
            state.issued += 1
            state.refresh_token = f"rt-loopback-{state.issued}"
            body = {
                "access_token": access_token(expires_in=state.expires_in),
                "refresh_token": state.refresh_token,
                "id_token": access_token(),
                "expires_in": state.expires_in,
                "token_type": "Bearer",
            }
        self._send(200, body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, state: _AuthState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class LoopbackAuthServer:
    """Start with :meth:`start` (or as a context manager). ``refresh_fails`` makes every refresh
    fail as a revoked refresh token does; ``expires_in`` sets the lifetime of new tokens."""

    def __init__(self) -> None:
        self.state = _AuthState()
        self._server: _Server | None = None

    def start(self) -> LoopbackAuthServer:
        self._server = _Server(self.state)
        server = self._server
        threading.Thread(
            target=lambda: server.serve_forever(poll_interval=0.01), name="pi-loopback-auth", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> LoopbackAuthServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("loopback auth server is not running")
        return self._server.url

    @property
    def requests(self) -> list[tuple[str, str, dict[str, str]]]:
        with self.state.lock:
            return list(self.state.requests)
