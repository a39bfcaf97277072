"""A scripted stand-in for GitHub's device flow and Copilot's token exchange, on loopback.

It answers as github.com and api.github.com do (the shapes pi 1.6.0 reads): ``POST
/login/device/code``, ``POST /login/oauth/access_token`` (``pending`` times
``authorization_pending`` first) and ``GET /copilot_internal/v2/token``. Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class LoginScript:
    user_code: str = "WDJB-MJHT"
    device_code: str = "device-123"
    github_token: str = "gho_github_token"
    #: How many polls get ``authorization_pending`` before the token.
    pending: int = 1
    #: The poll answer instead of the token (e.g. ``access_denied``).
    poll_error: str | None = None
    copilot_tokens: list[str] = field(default_factory=lambda: ["tid=1;exp=9;sku=free;8kp=1"])
    #: Seconds until each Copilot token expires.
    lifetime: int = 1800
    token_status: int = 200
    seen: list[Seen] = field(default_factory=list)
    issued: int = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _answer(self, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self) -> dict[str, str]:
        length = int(self.headers.get("content-length") or 0)
        form = dict(parse_qsl(self.rfile.read(length).decode())) if length else {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.server.lock:
            self.server.script.seen.append(Seen(self.command, self.path, headers, form))
        return form

    def do_POST(self) -> None:
        self._record()
        script = self.server.script
        if self.path == "/login/device/code":
            self._answer(
                200,
                {
                    "device_code": script.device_code,
                    "user_code": script.user_code,
                    "verification_uri": "https://github.com/login/device",
                    "expires_in": 900,
                    "interval": 1,
                },
            )
        elif self.path == "/login/oauth/access_token":
            polls = sum(1 for s in script.seen if s.path == self.path)
            if script.poll_error is not None:
                self._answer(200, {"error": script.poll_error, "error_description": "The user said no."})
            elif polls <= script.pending:
                self._answer(200, {"error": "authorization_pending"})
            else:
                self._answer(200, {"access_token": script.github_token, "token_type": "bearer"})
        else:
            self._answer(404, {"message": "Not Found"})

    def do_GET(self) -> None:
        self._record()
        script = self.server.script
        if self.path != "/copilot_internal/v2/token":
            self._answer(404, {"message": "Not Found"})
        elif script.token_status != 200:
            self._answer(script.token_status, {"message": "Bad credentials"})
        else:
            token = script.copilot_tokens[min(script.issued, len(script.copilot_tokens) - 1)]
            script.issued += 1
            self._answer(200, {"token": token, "expires_at": int(time.time()) + script.lifetime})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: LoginScript) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.lock = threading.Lock()


class GitHubLoginServer:
    def __init__(self, script: LoginScript | None = None) -> None:
        self.script = script or LoginScript()
        self._server = _Server(self.script)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.01,), daemon=True)

    def __enter__(self) -> GitHubLoginServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def paths(self) -> list[str]:
        return [s.path for s in self.script.seen]
