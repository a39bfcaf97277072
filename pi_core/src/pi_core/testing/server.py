"""A loopback HTTP server that speaks Anthropic Messages, OpenAI Chat Completions and OpenAI Responses.

It runs in a background thread (so it serves sync and async tests, and code that runs its own event
loop), plays a script of entries in order — one per request, whichever API is called — and records
every request. Responses stream with chunked transfer encoding, so a dropped connection looks to the
client exactly like a real one dropping mid-body.

Paths: ``POST /v1/messages`` (Anthropic), ``POST /v1/chat/completions``, ``POST /v1/responses``,
and ``POST /codex/responses`` (the Responses API as the ChatGPT backend serves it to OpenAI Codex; a
body sent zstd-compressed, as pi 1.6.0 sends it there, is decompressed with the ``zstd`` command).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

from pi_core.ai.provider import Model
from pi_core.testing.script import HttpError, ScriptEntry, Turn
from pi_core.testing.wire import (
    DROP,
    anthropic_error,
    anthropic_stream,
    completions_stream,
    openai_error,
    responses_stream,
)

LOOPBACK_API_KEY = "sk-loopback-test-key-0123456789"

_API_BY_PATH = {
    "/v1/messages": "anthropic-messages",
    "/v1/chat/completions": "openai-completions",
    "/v1/responses": "openai-responses",
    "/codex/responses": "openai-codex-responses",
}


def _decompress_zstd(raw: bytes) -> bytes:
    """The body of a request sent with ``content-encoding: zstd`` (as is when ``zstd`` is missing)."""
    command = shutil.which("zstd")
    if command is None:
        return raw
    done = subprocess.run([command, "-dc"], input=raw, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else raw


@dataclass
class RecordedRequest:
    method: str
    path: str
    api: str
    headers: dict[str, str]
    body: Any
    #: The query string's parameters (the last value of a repeated one), e.g. Azure's ``api-version``.
    query: dict[str, str] = field(default_factory=dict)


@dataclass
class _State:
    script: list[ScriptEntry] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Set when a streaming response stopped because the client went away (abort tests).
    client_disconnects: int = 0
    #: What ``GET …/models`` lists (``{"data": [...]}``), e.g. GitHub Copilot's account models.
    model_list: list[dict[str, Any]] = field(default_factory=list)
    gets: list[RecordedRequest] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read requests, not logs
        return

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        state = self.server.state
        with state.lock:
            state.gets.append(
                RecordedRequest(
                    "GET", path, "models", {k.lower(): v for k, v in self.headers.items()}, None,
                    dict(parse_qsl(query, keep_blank_values=True)),
                )
            )  # fmt: skip
            listed = list(state.model_list)
        if path.endswith("/models"):
            self._json(200, {"object": "list", "data": listed})
        else:
            self._json(404, {"error": {"message": f"loopback server: unknown path {path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("content-encoding", "").lower() == "zstd":
            raw = _decompress_zstd(raw)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        path, _, query = self.path.partition("?")
        # Under any prefix, as services that put the API below their own path serve it (Azure's /openai/v1).
        api = next((api for suffix, api in _API_BY_PATH.items() if path.endswith(suffix)), "unknown")
        state = self.server.state
        with state.lock:
            state.requests.append(
                RecordedRequest(
                    "POST",
                    path,
                    api,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    dict(parse_qsl(query, keep_blank_values=True)),
                )
            )
            entry = state.script.pop(0) if state.script else None
        if api == "unknown":
            self._json(404, {"error": {"message": f"loopback server: unknown path {path}"}})
        elif entry is None:
            self._json(500, {"error": {"message": "loopback server: no scripted response left"}})
        elif isinstance(entry, HttpError):
            payload = anthropic_error(entry) if api == "anthropic-messages" else openai_error(entry)
            self._json(entry.status, payload, entry.headers)
        else:
            model = body.get("model", "loopback") if isinstance(body, dict) else "loopback"
            self._stream(entry, self._frames(api, entry, model, len(state.requests), body))

    def _frames(self, api: str, turn: Turn, model: str, seq: int, body: Any) -> Iterator[bytes]:
        if api == "anthropic-messages":
            return anthropic_stream(turn, model, seq)
        if api in ("openai-responses", "openai-codex-responses"):
            return responses_stream(turn, model, seq)
        include_usage = isinstance(body, dict) and bool(
            (body.get("stream_options") or {}).get("include_usage")
        )
        return completions_stream(turn, model, seq, include_usage)

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_loopback")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, turn: Turn, frames: Iterator[bytes]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_loopback")
        self.end_headers()
        try:
            for data in frames:
                if turn.delay:
                    time.sleep(turn.delay)
                if data is DROP:
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with self.server.state.lock:
                self.server.state.client_disconnects += 1
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, state: _State) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gives up on a kept-alive connection (an aborted or failed stream) resets it
        # while the handler waits for the next request line: normal for an SDK, not a server fault.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class LoopbackLLMServer:
    """Start with :meth:`start` (or use as a context manager); script with :meth:`add`."""

    def __init__(self) -> None:
        self._state = _State()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle --------------------------------------------------------------------------------

    def start(self) -> LoopbackLLMServer:
        self._server = _Server(self._state)
        server = self._server
        # A short poll interval keeps shutdown (once per test) fast.
        self._thread = threading.Thread(
            target=lambda: server.serve_forever(poll_interval=0.01), name="pi-loopback-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> LoopbackLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- script and records -----------------------------------------------------------------------

    def add(self, *entries: ScriptEntry) -> LoopbackLLMServer:
        with self._state.lock:
            self._state.script.extend(entries)
        return self

    @property
    def remaining(self) -> int:
        return len(self._state.script)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def model_list(self) -> list[dict[str, Any]]:
        """The entries ``GET …/models`` answers with (set it to script an account's models)."""
        return self._state.model_list

    @model_list.setter
    def model_list(self, entries: list[dict[str, Any]]) -> None:
        with self._state.lock:
            self._state.model_list = list(entries)

    @property
    def get_requests(self) -> list[RecordedRequest]:
        """The ``GET`` requests (model lists) received, apart from :attr:`requests`."""
        with self._state.lock:
            return list(self._state.gets)

    @property
    def client_disconnects(self) -> int:
        return self._state.client_disconnects

    # --- addresses --------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("loopback server is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def base_url(self, api: str) -> str:
        """The base URL the SDKs expect: Anthropic appends ``/v1/messages``, OpenAI only the path,
        OpenAI Codex ``/codex/responses``."""
        return self.url if api in ("anthropic-messages", "openai-codex-responses") else f"{self.url}/v1"

    def model(self, api: str, id: str | None = None, provider: str | None = None, **fields: Any) -> Model:
        """A :class:`Model` pointing at this server (default provider ``anthropic``/``openai``)."""
        default_provider = {"anthropic-messages": "anthropic", "openai-codex-responses": "openai-codex"}.get(
            api, "openai"
        )
        return Model(
            id=id or f"loopback-{api}",
            api=api,
            provider=provider or default_provider,
            base_url=self.base_url(api),
            **fields,
        )
