"""OAuth for streamable HTTP servers, on the ``mcp`` SDK's ``OAuthClientProvider``.

An HTTP server whose entry sets no ``Authorization`` header (nor ``bearerTokenEnvVar``) may ask for
OAuth. A connection only ever uses what is stored: it sends the access token, refreshes it when it
expired or the server answers 401, and otherwise stops with :class:`SignInRequired` (the server is
then shown as needing a sign-in). Only a sign-in (``pi mcp login``, ``/mcp login``) runs the
browser step: the SDK discovers the authorization server, registers a client when none is stored
or configured, and exchanges the code the loopback :class:`CallbackListener` receives.

Credentials live in ``<agent dir>/mcp-auth.json`` (mode 0600) in pi 1.6.0's layout: one object per
``mcp__<server>|<url>`` key with ``serverUrl``, ``clientInformation``, ``tokens``,
``tokensExpireAt`` (milliseconds) and ``discovery``; fields this port does not use are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import shutil
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse, urlunparse

from pi_core._files import replace_file

#: The SDK logs a failed flow with its traceback before raising; the caller reports it in one line.
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
REGISTRATIONS = ("auto", "dcr", "cimd")
DEFAULT_CALLBACK = "http://127.0.0.1/callback"
SIGN_IN_TIMEOUT = 300.0


class SignInRequired(Exception):
    """The server wants OAuth and no stored credential (or refresh) satisfies it."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f'MCP server "{server}" requires sign-in: run /mcp login {server} or pi mcp login {server}'
        )
        self.server = server


class SignInError(Exception):
    """A sign-in that failed or was not completed (the message is for the user)."""


# --- configuration --------------------------------------------------------------------------------


def _loopback_uri(value: str) -> bool:
    parsed = urlparse(value)
    host = f"[{parsed.hostname}]" if parsed.hostname and ":" in parsed.hostname else parsed.hostname
    return parsed.scheme == "http" and host in LOOPBACK_HOSTS and not parsed.query and not parsed.fragment


def validate_oauth(value: Any) -> str | None:
    """Why an entry's ``oauth`` object is unusable, or ``None`` (pi 1.6.0's checks and wording)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "oauth must be an object"
    for key in ("clientId", "clientSecret", "scope"):
        if key in value and not isinstance(value[key], str):
            return f"oauth.{key} must be a string"
    port = value.get("callbackPort")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        return "oauth.callbackPort must be a port number"
    url = value.get("callbackUrl")
    if url is not None:
        if not isinstance(url, str) or not _loopback_uri(url):
            return (
                "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] "
                "without query or fragment"
            )
        url_port = urlparse(url).port
        if url_port is not None and port is not None and url_port != port:
            return "oauth.callbackUrl and oauth.callbackPort name different ports"
    name = value.get("clientName")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return "oauth.clientName must be a non-empty string"
    registration = value.get("clientRegistration")
    if registration is not None and registration not in REGISTRATIONS:
        return 'oauth.clientRegistration must be "auto", "dcr", or "cimd"'
    if registration == "cimd":
        # pi signs in with its Client ID Metadata Documents on pi.dev; this port publishes none.
        return 'oauth.clientRegistration "cimd" is not supported: there are no Client ID Metadata Documents'
    if "authServerMetadataUrl" in value:
        # The SDK always discovers the authorization server through the MCP server.
        return "oauth.authServerMetadataUrl is not supported (the authorization server is discovered)"
    return None


def uses_oauth(raw: dict[str, Any], kind: str) -> bool:
    """HTTP servers may ask for OAuth unless their entry brings its own ``Authorization``."""
    if kind != "http":
        return False
    if raw.get("bearerTokenEnvVar"):
        return False
    return not any(k.lower() == "authorization" for k in (raw.get("headers") or {}))


@dataclass
class OAuthSettings:
    client_id: str | None = None
    client_secret: str | None = None
    callback_port: int | None = None
    callback_url: str | None = None
    scope: str | None = None
    client_name: str | None = None

    @classmethod
    async def of(cls, server: str, raw: dict[str, Any]) -> OAuthSettings:
        """The entry's ``oauth`` settings; ``clientSecret`` may use ``${VAR}`` or ``!command``."""
        from pi_mcp.config import resolve_value

        oauth = raw.get("oauth") or {}
        secret = oauth.get("clientSecret")
        if secret is not None:
            secret = await resolve_value(secret, f'MCP server "{server}" oauth.clientSecret')
        return cls(
            client_id=oauth.get("clientId"),
            client_secret=secret,
            callback_port=oauth.get("callbackPort"),
            callback_url=oauth.get("callbackUrl"),
            scope=oauth.get("scope"),
            client_name=oauth.get("clientName"),
        )


# --- the credential file --------------------------------------------------------------------------


def canonical_url(url: str) -> str:
    """The URL as a WHATWG parser prints it (lower-case scheme and host, no default port, ``/`` path)."""
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    host = (parsed.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parsed.port
    netloc = host if port is None or (scheme, port) in (("http", 80), ("https", 443)) else f"{host}:{port}"
    if parsed.username:
        cred = parsed.username + (f":{parsed.password}" if parsed.password else "")
        netloc = f"{cred}@{netloc}"
    return urlunparse((scheme, netloc, parsed.path or "/", parsed.params, parsed.query, parsed.fragment))


def store_key(server: str, url: str) -> str:
    """pi 1.6.0's key: the server's namespace and URL, so one URL can hold several accounts."""
    return f"mcp__{server.replace('-', '_')}|{canonical_url(url)}"


class CredentialStore:
    """``mcp-auth.json``: read and changed under a ``<file>.lock`` directory, as pi locks it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def _locked(self) -> Any:
        lock = self.path.with_name(self.path.name + ".lock")
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for attempt in range(100):
            try:
                lock.mkdir()
                break
            except FileExistsError:
                with contextlib.suppress(OSError):
                    if time.time() - lock.stat().st_mtime > 10:  # left by a process that died
                        lock.rmdir()
                        continue
                if attempt == 99:
                    raise OSError(f"{self.path} is locked by another process") from None
                time.sleep(0.02)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                lock.rmdir()

    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        if not text.strip():
            return {}
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise OSError(f"{self.path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}") from None
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        replace_file(self.path, json.dumps(data, indent=2) + "\n", mode=0o600)

    def load_sync(self, server: str, url: str) -> dict[str, Any]:
        """The server's state; a state stored for another URL under that key counts as none."""
        with self._locked():
            state = self._read().get(store_key(server, url))
        own = isinstance(state, dict) and state.get("serverUrl") == canonical_url(url)
        return dict(state) if own and isinstance(state, dict) else {"serverUrl": canonical_url(url)}

    def update_sync(self, server: str, url: str, change: Callable[[dict[str, Any]], None]) -> None:
        with self._locked():
            data = self._read()
            key = store_key(server, url)
            state = data.get(key)
            if not (isinstance(state, dict) and state.get("serverUrl") == canonical_url(url)):
                state = {"serverUrl": canonical_url(url)}
            change(state)
            data[key] = state
            self._write(data)

    def remove_sync(self, server: str, url: str) -> bool:
        """Forget the server's credentials; False when none were stored."""
        with self._locked():
            data = self._read()
            if data.pop(store_key(server, url), None) is None:
                return False
            self._write(data)
            return True

    async def load(self, server: str, url: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.load_sync, server, url)

    async def update(self, server: str, url: str, change: Callable[[dict[str, Any]], None]) -> None:
        await asyncio.to_thread(self.update_sync, server, url, change)

    async def remove(self, server: str, url: str) -> bool:
        return await asyncio.to_thread(self.remove_sync, server, url)


def credential_store(agent_dir: Path) -> CredentialStore:
    return CredentialStore(agent_dir / "mcp-auth.json")


# --- the SDK's provider, fed from the file --------------------------------------------------------


class ServerTokens:
    """The SDK's ``TokenStorage`` for one server, over :class:`CredentialStore`."""

    def __init__(
        self, store: CredentialStore, server: str, url: str, settings: OAuthSettings, redirect_url: str
    ) -> None:
        self.store = store
        self.server = server
        self.url = url
        self.settings = settings
        self.redirect_url = redirect_url
        #: Set by the provider: what discovery found, saved with the tokens for later refreshes.
        self.discovery: Callable[[], dict[str, Any] | None] = lambda: None
        #: A sign-in keeps a stored client only while it was registered for this redirect URI.
        self.require_redirect = False

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        tokens = (await self.store.load(self.server, self.url)).get("tokens")
        try:
            return OAuthToken.model_validate(tokens) if isinstance(tokens, dict) else None
        except ValidationError:
            return None

    async def set_tokens(self, tokens: Any) -> None:
        data = tokens.model_dump(mode="json", exclude_none=True)
        expires = tokens.expires_in
        discovery = self.discovery()

        def change(state: dict[str, Any]) -> None:
            state["tokens"] = data
            if expires is None:
                state.pop("tokensExpireAt", None)
            else:
                state["tokensExpireAt"] = int((time.time() + float(expires)) * 1000)
            if discovery is not None:
                state["discovery"] = {**(state.get("discovery") or {}), **discovery}

        await self.store.update(self.server, self.url, change)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        if self.settings.client_id:
            secret = self.settings.client_secret
            return OAuthClientInformationFull(
                client_id=self.settings.client_id,
                client_secret=secret,
                redirect_uris=[self.redirect_url],
                token_endpoint_auth_method="client_secret_post" if secret else "none",
            )
        stored = (await self.store.load(self.server, self.url)).get("clientInformation")
        if not isinstance(stored, dict):
            return None
        try:
            client = OAuthClientInformationFull.model_validate(stored)
        except ValidationError:
            return None
        if self.require_redirect and self.redirect_url not in [str(u) for u in client.redirect_uris or []]:
            return None  # registered for another callback: register again
        return client

    async def set_client_info(self, client_info: Any) -> None:
        if self.settings.client_id:
            return
        data = client_info.model_dump(mode="json", exclude_none=True)

        def change(state: dict[str, Any]) -> None:
            state["clientInformation"] = data

        await self.store.update(self.server, self.url, change)

    def registered_redirect(self) -> str | None:
        """The redirect URI of the stored client (its port is preferred for the next sign-in)."""
        if self.settings.client_id:
            return None
        stored = self.store.load_sync(self.server, self.url).get("clientInformation") or {}
        uris = stored.get("redirect_uris") if isinstance(stored, dict) else None
        return uris[0] if isinstance(uris, list) and uris and isinstance(uris[0], str) else None


def make_provider(
    tokens: ServerTokens,
    *,
    redirect_handler: Callable[[str], Awaitable[None]] | None = None,
    callback_handler: Callable[[], Awaitable[tuple[str, str | None]]] | None = None,
) -> Any:
    """An ``OAuthClientProvider`` for the server. Without handlers it never starts a browser flow:
    a 401 it cannot answer with a refresh raises :class:`SignInRequired`."""
    import httpx
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import MCP_PROTOCOL_VERSION
    from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata
    from pydantic import ValidationError

    interactive = redirect_handler is not None

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            # The SDK loads tokens and client but not when the tokens expire nor where the
            # authorization server is: both come from the file too, so a refresh after a restart
            # reaches the right token endpoint.
            await super()._initialize()
            state = await tokens.store.load(tokens.server, tokens.url)
            expires = state.get("tokensExpireAt")
            ctx = self.context
            if isinstance(expires, int | float) and ctx.current_tokens is not None:
                ctx.token_expiry_time = expires / 1000
            discovery = state.get("discovery") or {}
            with contextlib.suppress(ValidationError, TypeError):
                server_metadata = discovery.get("authorizationServerMetadata")
                if isinstance(server_metadata, dict):
                    ctx.oauth_metadata = OAuthMetadata.model_validate(server_metadata)
                if isinstance(discovery.get("resourceMetadata"), dict):
                    ctx.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                        discovery["resourceMetadata"]
                    )
                if isinstance(discovery.get("authorizationServerUrl"), str):
                    ctx.auth_server_url = discovery["authorizationServerUrl"]

        async def _perform_authorization(self) -> httpx.Request:
            # The SDK requests what the server advertises; a configured scope joins it.
            configured = (tokens.settings.scope or "").split()
            if configured:
                chosen = (self.context.client_metadata.scope or "").split()
                self.context.client_metadata.scope = " ".join(dict.fromkeys([*configured, *chosen]))
            return await super()._perform_authorization()

        async def _auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
            if interactive:
                flow = super()._auth_flow(request)
                outgoing = await flow.__anext__()
                while True:
                    incoming = yield outgoing
                    try:
                        outgoing = await flow.asend(incoming)
                    except StopAsyncIteration:
                        return
            async with self.context.lock:
                ctx = self.context
                if not self._initialized:
                    await self._initialize()
                ctx.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION)
                refreshed = False
                if not ctx.is_token_valid() and ctx.can_refresh_token():
                    refreshed = True
                    await self._handle_refresh_response((yield await self._refresh_token()))
                if ctx.is_token_valid():
                    self._add_auth_header(request)
                response = yield request
                retry = response.status_code == 401 and not refreshed and ctx.can_refresh_token()
                if retry and await self._handle_refresh_response((yield await self._refresh_token())):
                    self._add_auth_header(request)
                    response = yield request
                scope_step_up = response.status_code == 403 and "insufficient_scope" in response.headers.get(
                    "www-authenticate", ""
                )
                if response.status_code == 401 or scope_step_up:
                    raise SignInRequired(tokens.server)

    metadata = OAuthClientMetadata(
        redirect_uris=[tokens.redirect_url],
        client_name=tokens.settings.client_name or "pi",
        scope=tokens.settings.scope,
        token_endpoint_auth_method="client_secret_post" if tokens.settings.client_secret else "none",
    )
    provider = Provider(
        tokens.url,
        metadata,
        tokens,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        timeout=SIGN_IN_TIMEOUT,
    )

    def discovery() -> dict[str, Any] | None:
        ctx = provider.context
        found: dict[str, Any] = {}
        if ctx.auth_server_url:
            found["authorizationServerUrl"] = ctx.auth_server_url
        if ctx.oauth_metadata is not None:
            found["authorizationServerMetadata"] = ctx.oauth_metadata.model_dump(
                mode="json", exclude_none=True
            )
        if ctx.protected_resource_metadata is not None:
            found["resourceMetadata"] = ctx.protected_resource_metadata.model_dump(
                mode="json", exclude_none=True
            )
        return found or None

    tokens.discovery = discovery
    return provider


async def connection_auth(store: CredentialStore, server: str, raw: dict[str, Any]) -> Any:
    """The auth of a connection: stored credentials only, never a browser."""
    settings = await OAuthSettings.of(server, raw)
    tokens = ServerTokens(store, server, raw["url"], settings, settings.callback_url or DEFAULT_CALLBACK)
    return make_provider(tokens)


# --- the sign-in ----------------------------------------------------------------------------------

PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>pi</title></head>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body></html>"
)


class CallbackListener:
    """A loopback HTTP listener for the authorization response (``code`` and ``state``)."""

    def __init__(self, host: str, port: int, redirect_host: str, path: str) -> None:
        self.host = host
        self.port = port
        self.redirect_host = redirect_host
        self.path = path
        self.redirect_url = ""
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[tuple[str, str | None]] | None = None

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_url = f"http://{self.redirect_host}:{port}{self.path}"

    async def wait(self) -> tuple[str, str | None]:
        assert self._result is not None
        return await asyncio.shield(self._result)

    def deliver(self, url: str) -> str | None:
        """A redirect URL pasted by the user: ``None`` when taken, else why it does not fit."""
        parsed = urlparse(url.strip())
        if parsed.path != self.path or parsed.port != urlparse(self.redirect_url).port or not parsed.query:
            return "that is not the URL of this sign-in's redirect"
        return self._take(parse_qs(parsed.query))

    def cancel(self) -> None:
        """The user gave up: the sign-in ends with :class:`SignInError`."""
        if self._result is not None and not self._result.done():
            self._result.set_exception(SignInError("cancelled"))

    def _take(self, query: dict[str, list[str]]) -> str | None:
        result = self._result
        if result is None or result.done():
            return "the sign-in already received an answer"
        if "error" in query:
            detail = query.get("error_description", query["error"])[0]
            result.set_exception(SignInError(f"the authorization server refused: {detail}"))
            return None
        code = query.get("code", [""])[0]
        if not code:
            return "the URL carries no authorization code"
        result.set_result((code, query.get("state", [None])[0]))
        return None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            target = urlparse(parts[1]) if len(parts) >= 2 else urlparse("/")
            if parts and parts[0] == "GET" and target.path == self.path:
                problem = self._take(parse_qs(target.query))
                result = self._result
                settled = result is not None and result.done() and not result.cancelled()
                failed = settled and result is not None and result.exception()
                if problem is None and not failed:
                    page, status = PAGE.format(title="Signed in", text="You can close this tab."), "200 OK"
                else:
                    text = problem or str(failed)
                    page, status = PAGE.format(title="Sign-in failed", text=text), "400 Bad Request"
            else:
                page, status = PAGE.format(title="Not found", text=""), "404 Not Found"
            body = page.encode()
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def close(self) -> None:
        if self._result is not None and not self._result.done():
            self._result.cancel()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


def listener_for(settings: OAuthSettings, registered: str | None) -> tuple[CallbackListener, bool]:
    """Where to listen: ``callbackUrl``/``callbackPort``, else the stored client's port (preferred,
    not required), else any free port. The flag says whether the port is fixed."""
    parsed = urlparse(settings.callback_url or DEFAULT_CALLBACK)
    hostname = parsed.hostname or "127.0.0.1"
    redirect_host = f"[{hostname}]" if ":" in hostname else hostname
    host = "127.0.0.1" if hostname == "localhost" else hostname
    port = parsed.port or settings.callback_port
    if port is not None:
        return CallbackListener(host, port, redirect_host, parsed.path or "/"), True
    preferred = urlparse(registered).port if registered else None
    return CallbackListener(host, preferred or 0, redirect_host, parsed.path or "/"), False


async def open_browser(url: str) -> asyncio.subprocess.Process | None:
    """Open ``url``: the ``BROWSER`` command when set (``%s`` stands for the URL), else the desktop's
    opener. Returns the process (or ``None`` when there is nothing to open it with)."""
    command: list[str] | None = None
    chosen = os.environ.get("BROWSER", "").split(os.pathsep)[0]
    if chosen:
        parts = shlex.split(chosen)
        command = [p.replace("%s", url) for p in parts] if "%s" in chosen else [*parts, url]
    elif sys.platform == "darwin":
        command = ["open", url]
    elif sys.platform == "win32":
        with contextlib.suppress(OSError):
            os.startfile(url)  # type: ignore[attr-defined]
        return None
    elif (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and shutil.which("xdg-open"):
        command = ["xdg-open", url]
    if command is None:
        return None
    try:
        return await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None


async def sign_in(
    store: CredentialStore,
    server: str,
    raw: dict[str, Any],
    *,
    show_url: Callable[[str], None],
    paste: Callable[[CallbackListener], Coroutine[Any, Any, None]] | None = None,
    limit: float = SIGN_IN_TIMEOUT,
) -> None:
    """The browser sign-in: the SDK's discovery, client registration (unless a client is configured
    or stored for this redirect URI), authorization with PKCE and token exchange; the tokens land in
    ``store``. ``paste`` may feed a redirect URL the user copied (when the browser cannot reach the
    listener). Raises :class:`SignInError` with a one-line reason."""
    import httpx

    from pi_mcp.config import McpValueError

    try:
        settings = await OAuthSettings.of(server, raw)
    except McpValueError as error:
        raise SignInError(str(error)) from None
    probe_tokens = ServerTokens(store, server, raw["url"], settings, DEFAULT_CALLBACK)
    try:
        registered = await asyncio.to_thread(probe_tokens.registered_redirect)
    except OSError as error:
        raise SignInError(str(error)) from None
    listener, fixed = listener_for(settings, registered)
    try:
        await listener.start()
    except OSError as error:
        if fixed:
            raise SignInError(f"cannot listen for the callback on port {listener.port}: {error}") from None
        listener.port = 0
        await listener.start()
    redirect = listener.redirect_url
    if settings.callback_url and urlparse(settings.callback_url).port:
        redirect = settings.callback_url  # sent exactly as configured
    tokens = ServerTokens(store, server, raw["url"], settings, redirect)
    tokens.require_redirect = True
    browser: list[asyncio.subprocess.Process] = []
    helpers: list[asyncio.Task[None]] = []

    async def on_redirect(url: str) -> None:
        show_url(url)
        process = await open_browser(url)
        if process is not None:
            browser.append(process)
        if paste is not None:
            helpers.append(asyncio.get_running_loop().create_task(paste(listener)))

    provider = make_provider(tokens, redirect_handler=on_redirect, callback_handler=listener.wait)
    ping = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    try:
        async with httpx.AsyncClient(auth=provider, timeout=30) as client:
            response = await asyncio.wait_for(client.post(raw["url"], json=ping, headers=headers), limit)
    except TimeoutError:
        raise SignInError(f"not completed within {limit:g} seconds") from None
    except SignInError:
        raise
    except httpx.HTTPError as error:
        raise SignInError(f"cannot reach {raw['url']}: {error}") from None
    except Exception as error:
        raise SignInError(str(error).splitlines()[0] if str(error) else type(error).__name__) from None
    finally:
        for helper in helpers:
            helper.cancel()
        await listener.close()
        for process in browser:
            with contextlib.suppress(TimeoutError, ProcessLookupError):
                await asyncio.wait_for(process.wait(), 5)
    if response.status_code in (401, 403):
        raise SignInError(f"the server still refuses the credentials (HTTP {response.status_code})")
