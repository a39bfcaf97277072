"""One connection to an MCP server, owned by a task of its own.

The SDK's transports are async context managers whose cancel scopes must be entered and left in one
task, so each server gets a runner task that opens the transport and the client session, reports
``connected``, and waits until it is told to stop (or the connection dies). Calls from tools go
through the session from other tasks; every call is bounded by the server's timeout and fails
promptly once the connection is gone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import os
import time
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, TextIO, cast

from pi_core.ai.sdk_import import import_in_background

if TYPE_CHECKING:
    from pi_core.ai.abort import AbortSignal

    from pi_mcp.stdio import StderrTail

from pi_mcp.config import McpValueError, ServerConfig, resolve_value
from pi_mcp.oauth import (
    SIGN_IN_TIMEOUT,
    CallbackListener,
    CredentialStore,
    SignInError,
    SignInRequired,
    connection_auth,
    sign_in,
    uses_oauth,
)

logger = logging.getLogger(__name__)

State = Literal["connecting", "connected", "disconnected", "failed", "needs-auth", "disabled", "closed"]
#: States from which the next call connects again (pi 1.6.0 reconnects lazily, one attempt per call).
REOPENED_BY_CALL = ("disconnected", "failed", "needs-auth")
CONNECT_TIMEOUT = 30.0
#: Seconds before the second and third attempt to connect to an HTTP server (pi 1.6.0's).
HTTP_CONNECT_RETRIES = (0.25, 1.0)
LOG_LIMIT = 5 * 1024 * 1024
#: The ids of the requests a call sent, noted by the connection's write stream (:class:`_Sent`)
#: while the call's own task sends them.
_SENT: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("pi_mcp_sent", default=None)


class InvalidListError(Exception):
    """A ``tools/list`` answer that does not have the shape MCP gives it."""


class McpCallError(Exception):
    """A call that could not reach the server or got no answer (the message is for the model)."""


def open_log(agent_dir: Path) -> IO[str]:
    """``<agent dir>/mcp.log`` for appending (moved to ``mcp.log.1`` past 5 MB)."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    path = agent_dir / "mcp.log"
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_LIMIT:
            os.replace(path, agent_dir / "mcp.log.1")
    return path.open("a", encoding="utf-8", errors="replace")


class McpServer:
    def __init__(
        self,
        config: ServerConfig,
        *,
        cwd: Path,
        log: IO[str],
        on_tools: Callable[[McpServer], None],
        connect_timeout: float = CONNECT_TIMEOUT,
        credentials: CredentialStore | None = None,
        on_sign_in_needed: Callable[[McpServer], None] | None = None,
    ) -> None:
        self.config = config
        #: Where OAuth tokens are kept; ``None``: the server is reached without OAuth.
        self.credentials = credentials
        self.on_sign_in_needed = on_sign_in_needed
        self.credentials_seen: int | None = None
        self.name = config.name
        self.cwd = cwd
        self.log = log
        self.on_tools = on_tools
        #: Called after every change of :attr:`state` (the ``/mcp`` panel redraws from it).
        self.on_state: Callable[[McpServer], None] | None = None
        #: The context its connections run in (the manager's, taken in the plugin's hook).
        self.context: contextvars.Context | None = None
        self.connect_timeout = connect_timeout
        self._state: State = "disabled" if not config.enabled else "connecting"
        self.last_error: str | None = None
        self.tools: list[Any] = []
        self.instructions: str | None = None
        self.has_resources = False
        self.session: Any = None
        self.pid: int | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        #: Set when a call found the connection gone: the runner lets the transport go.
        self._lost = asyncio.Event()
        #: The last call's wait for a connection (kept: it may outlive the call).
        self._connecting: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._sdk: concurrent.futures.Future[None] | None = None
        self._refresh: asyncio.Task[None] | None = None
        #: ``notifications/cancelled`` on their way (a call does not wait for them).
        self._cancelling: set[asyncio.Task[None]] = set()
        #: The end of the stdio server's stderr in this connection (shown when it fails).
        self._stderr: StderrTail | None = None

    @property
    def state(self) -> State:
        return self._state

    @state.setter
    def state(self, value: State) -> None:
        self._state = value
        if self.on_state is not None:
            self.on_state(self)

    # --- life cycle -------------------------------------------------------------------------------

    def start(self) -> None:
        if not self.config.enabled:
            self._settled.set()
            return
        self.state = "connecting"
        self.last_error = None
        self._stderr = None
        self._settled.clear()
        self._sdk = _import_sdk(self.config.kind)
        self._stop.clear()
        self._lost.clear()
        # In the context of the plugin's session_start (not of whatever asked to connect, a
        # tool call say), so what the connection does is the plugin's.
        context = self.context.copy() if self.context is not None else None
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"mcp:{self.name}", context=context
        )

    async def wait_settled(self, limit: float) -> bool:
        """Wait until the server connected or failed; False when ``timeout`` ran out first."""
        try:
            await asyncio.wait_for(asyncio.shield(self._settled.wait()), limit)
        except TimeoutError:
            return False
        return True

    async def stop(self) -> None:
        """A connected server is let go (its session and transport close in order, 5 s at most);
        one still connecting is cancelled at once (its transport still stops the process group)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None and not task.done():
            try:
                if self.state not in ("connected", "disconnected"):
                    raise TimeoutError
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self.state != "disabled":
            self.state = "closed"
        self.session = None

    async def restart(self) -> None:
        await self.stop()
        self.start()

    # --- OAuth ------------------------------------------------------------------------------------

    async def sign_in(
        self,
        *,
        show_url: Callable[[str], None],
        paste: Callable[[CallbackListener], Coroutine[Any, Any, None]] | None = None,
        limit: float = SIGN_IN_TIMEOUT,
    ) -> None:
        """Run the browser sign-in, then connect with the new tokens (:class:`SignInError` if not)."""
        if self.oauth_url is None or self.credentials is None:
            raise SignInError(
                f'MCP server "{self.name}" cannot sign in: OAuth is for HTTP servers whose entry sets no '
                "Authorization header"
            )
        await self.stop()
        # The sign-in imports the SDK's auth modules here; the background import of the SDK must
        # be finished first, or the two threads can deadlock on the package's import locks.
        await asyncio.shield(asyncio.wrap_future(_import_sdk(self.config.kind)))
        try:
            await sign_in(
                self.credentials, self.name, self.config.raw, show_url=show_url, paste=paste, limit=limit
            )
        except BaseException:
            self.start()  # back to the state before (it needs a sign-in still, most likely)
            raise
        self.start()
        await self.wait_settled(self.connect_timeout + 1)
        if self.state != "connected":
            raise SignInError(f"signed in, but the server did not connect: {self.last_error}")

    async def sign_out(self) -> bool:
        """Forget the stored credentials and disconnect; False when there were none."""
        if self.oauth_url is None or self.credentials is None:
            raise SignInError(
                f'MCP server "{self.name}" has no sign-in: OAuth is for HTTP servers whose entry sets no '
                "Authorization header"
            )
        removed = await self.credentials.remove(self.name, self.oauth_url)
        await self.stop()
        if self.config.enabled:
            self.state = "needs-auth"
            self.last_error = str(SignInRequired(self.name))
            self.credentials_seen = self._credentials_stamp()
        return removed

    @property
    def oauth_url(self) -> str | None:
        """The server's URL when it may ask for OAuth (HTTP without its own ``Authorization``)."""
        if self.credentials is None or not uses_oauth(self.config.raw, self.config.kind):
            return None
        return str(self.config.raw["url"])

    def _credentials_stamp(self) -> int | None:
        """When the credential file last changed (a sign-in elsewhere changes it)."""
        if self.credentials is None:
            return None
        try:
            return self.credentials.path.stat().st_mtime_ns
        except OSError:
            return None

    def signed_in_elsewhere(self) -> bool:
        """Waiting for a sign-in, and the credential file changed since (``pi mcp login``)."""
        return self.state == "needs-auth" and self._credentials_stamp() != self.credentials_seen

    def _fail(self, error: BaseException | str) -> None:
        if not isinstance(error, str):
            needed = _sign_in_required(error)
            if needed is not None:
                self.last_error = str(needed)
                self.state = "needs-auth"
                self.session = None
                self.credentials_seen = self._credentials_stamp()
                self._settled.set()
                self._write_log("warning", str(needed))
                if self.on_sign_in_needed is not None:
                    self.on_sign_in_needed(self)
                return
        text = error if isinstance(error, str) else _describe(error)
        said = self._stderr.text if self._stderr is not None else ""
        self.last_error = f"{text}\n{said}" if said else text
        self.state = "failed"
        self.session = None
        self._settled.set()
        self._write_log("error", text)

    def _tools_changed(self) -> None:
        """Tell the manager the tools changed; what goes wrong there is logged, the connection
        stays up."""
        try:
            self.on_tools(self)
        except Exception as error:
            logger.exception("MCP server %s: registering its tools failed", self.name)
            self._write_log("error", f"registering the tools failed: {error}")

    def _dropped(self) -> None:
        """The connection of a connected server ended by itself: ``disconnected`` until the next
        call connects again (its tools stay registered), as pi 1.6.0 does."""
        if self.state != "connected":
            return
        said = self._stderr.text if self._stderr is not None else ""
        self.last_error = f"Connection closed\n{said}" if said else "Connection closed"
        self.session = None
        self.state = "disconnected"
        self._lost.set()
        self._settled.set()
        self._write_log("error", "the server closed the connection")

    def _write_log(self, level: str, message: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with contextlib.suppress(OSError, ValueError):
            self.log.write(f"{stamp} [{self.name}] {level} pi: {message}\n")
            self.log.flush()

    async def _run(self) -> None:
        if self._sdk is not None:
            # Shielded: a server stopped during the import must not cancel the import every later
            # server waits for too.
            await asyncio.shield(asyncio.wrap_future(self._sdk))
        try:
            values = await self._values()
            auth = None
            if self.oauth_url is not None and self.credentials is not None:
                auth = await connection_auth(self.credentials, self.name, self.config.raw)
        except McpValueError as error:
            self._fail(str(error))
            return
        # pi 1.6.0's retries: an HTTP server that fails to connect with a network error or a
        # transient status is tried twice more, 0.25 s and 1 s later; stdio servers once.
        delays = HTTP_CONNECT_RETRIES if self.config.kind == "http" else ()
        for delay in (*delays, None):
            failure = await self._connect(values, auth)
            if failure is None:
                return
            if delay is None or self._stop.is_set() or not _transient(failure):
                self._fail(failure)
                return
            self._write_log("warning", f"connecting failed, again in {delay:g} s: {_describe(failure)}")
            await asyncio.sleep(delay)

    async def _connect(self, values: dict[str, str], auth: Any) -> BaseException | None:
        """One connection, kept until the server is stopped or the connection ends; what made it
        fail before it was up (``None`` once it was up, or when it failed in a way already told)."""
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(values, auth))
                watched = _Watched(read)
                session = await stack.enter_async_context(
                    ClientSession(
                        cast(Any, watched),
                        cast(Any, _Sent(write)),
                        read_timeout_seconds=timedelta(seconds=self.config.timeout),
                        message_handler=self._on_message,
                        logging_callback=self._on_log,
                    )
                )
                limit = min(self.connect_timeout, self.config.timeout)
                try:
                    init = await asyncio.wait_for(session.initialize(), limit)
                except TimeoutError:
                    self._fail(f"no answer to initialize within {limit:g} s")
                    return None
                self.instructions = init.instructions
                capabilities = init.capabilities
                self.has_resources = capabilities.resources is not None
                self.session = session
                if capabilities.tools is not None:
                    self.tools = await self._list_tools(session)
                self.state = "connected"
                self._settled.set()
                self._tools_changed()
                # Until pi stops the server or the connection ends (the session stops reading).
                waits = [asyncio.ensure_future(e.wait()) for e in (self._stop, self._lost, watched.ended)]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for wait in waits:
                        wait.cancel()
                if not self._stop.is_set():
                    self._dropped()
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            if self._stop.is_set():
                return None
            if self.state == "connected" and _sign_in_required(error) is None:
                self._dropped()
                return None
            if self.state == "connected":
                self._fail(error)  # a sign-in is needed now
                return None
            return error
        finally:
            self.session = None
        if not self._stop.is_set():  # the transport ended by itself
            self._dropped()
        return None

    async def _values(self) -> dict[str, str]:
        """The server's ``env`` (stdio) or ``headers`` (HTTP) with variables and ``!command`` resolved."""
        field = "env" if self.config.kind == "stdio" else "headers"
        resolved = {}
        for key, value in (self.config.raw.get(field) or {}).items():
            what = f'MCP server "{self.name}" {"env" if field == "env" else "header"} "{key}"'
            resolved[key] = await resolve_value(value, what)
        return resolved

    def _transport(self, values: dict[str, str], auth: Any = None) -> Any:
        raw = self.config.raw
        if self.config.kind == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = {**os.environ, **values}
            command = os.path.expanduser(raw["command"])
            args = [os.path.expanduser(a) if a.startswith("~/") else a for a in raw.get("args", [])]
            cwd = Path(os.path.expanduser(raw["cwd"])) if raw.get("cwd") else self.cwd
            if not cwd.is_absolute():
                cwd = self.cwd / cwd
            from pi_mcp import stdio

            if stdio.supported():
                self._stderr = stdio.StderrTail()
                return stdio.stdio_transport(
                    command, args, env=env, cwd=cwd, errlog=self.log, tail=self._stderr
                )
            params = StdioServerParameters(command=command, args=args, env=env, cwd=str(cwd))
            return stdio_client(params, errlog=cast(TextIO, self.log))
        headers = dict(values)
        token_var = raw.get("bearerTokenEnvVar")
        if isinstance(token_var, str) and os.environ.get(token_var) and "Authorization" not in headers:
            headers["Authorization"] = f"Bearer {os.environ[token_var]}"
        return _http_transport(raw["url"], headers, self.config.timeout, auth)

    async def _list_tools(self, session: Any) -> list[Any]:
        """Every page of ``tools/list``. A tool without an object ``inputSchema`` makes the list
        unusable (the server fails), as in pi 1.6.0; a schema that is an object is kept as given."""
        from pydantic import ValidationError

        tools: list[Any] = []
        cursor: str | None = None
        while True:
            try:
                page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
            except ValidationError as error:
                entry = any(len(e["loc"]) > 1 and e["loc"][0] == "tools" for e in error.errors())
                raise InvalidListError(
                    "Invalid entry in MCP tools/list result" if entry else "Invalid MCP tools/list result"
                ) from None
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                return tools

    async def _on_message(self, message: Any) -> None:
        from mcp import types

        root = getattr(message, "root", None)
        if isinstance(root, types.ToolListChangedNotification) and self.session is not None:
            session = self.session

            async def refresh() -> None:
                try:
                    self.tools = await self._list_tools(session)
                except Exception as error:
                    self._write_log("error", f"listing tools after tools/list_changed failed: {error}")
                    return
                self._tools_changed()

            self._refresh = asyncio.get_running_loop().create_task(refresh())

    async def _on_log(self, params: Any) -> None:
        self._write_log(str(params.level), f"{params.logger or '-'}: {params.data}")

    # --- calls ------------------------------------------------------------------------------------

    async def ensure_connected(self) -> None:
        """Connect again when the connection dropped, failed or wanted a sign-in (one attempt, as
        pi 1.6.0 makes one per call), or wait for a connection underway; calls made meanwhile
        share the attempt. A server that was stopped or disabled is left as it is."""
        if self.state in REOPENED_BY_CALL and self.config.enabled:
            old = self._task
            if old is not None and not old.done():
                # The runner is still letting the old transport go (a stdio server's process
                # group gets up to 2.5 s to leave).
                await asyncio.wait([old], timeout=5)
                if not old.done() and self.state in REOPENED_BY_CALL:
                    await self.restart()
            if self.state in REOPENED_BY_CALL and (self._task is None or self._task.done()):
                self.start()
        if self.state == "connecting":
            await self.wait_settled(min(self.connect_timeout, self.config.timeout) + 1)

    async def _call(
        self,
        what: str,
        request: Callable[[Any], Any],
        check: Callable[[], None] | None = None,
        *,
        read_only: bool = False,
        signal: AbortSignal | None = None,
    ) -> Any:
        """``request(session)`` once connected (again: see :meth:`ensure_connected`), bounded by
        the server's timeout; ``check`` runs first on the live connection. A ``read_only``
        request to an HTTP server whose connection broke under it (the SDK ends the connection
        on an error status, a 503 say) is made once more 0.25 s later, as pi 1.6.0 retries
        reading and listing resources; a tool call is not, the server may have run it. When
        ``signal`` aborts (Esc), the call stops waiting at once."""
        for attempt in (1, 2):
            try:
                return await self._call_once(what, request, check, signal)
            except _ConnectionLost:
                if not read_only or self.config.kind != "http" or attempt == 2:
                    raise
                await asyncio.sleep(HTTP_CONNECT_RETRIES[0])
            except _SessionExpired as expired:
                # The HTTP server no longer knows the session (it restarted), so it did not run
                # the request: once more on a new session, as pi 1.6.0 does.
                self._dropped()
                if attempt == 2:
                    raise McpCallError(
                        f'MCP server "{self.name}" failed {what}: the server ended the session'
                    ) from expired
        raise AssertionError("unreachable")

    async def _call_once(
        self,
        what: str,
        request: Callable[[Any], Any],
        check: Callable[[], None] | None,
        signal: AbortSignal | None,
    ) -> Any:
        aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
        try:
            return await self._call_until(what, request, check, aborted, signal)
        finally:
            if aborted is not None:
                aborted.cancel()

    async def _call_until(
        self,
        what: str,
        request: Callable[[Any], Any],
        check: Callable[[], None] | None,
        aborted: asyncio.Future[None] | None,
        signal: AbortSignal | None = None,
    ) -> Any:
        # Its own task, left to finish when the call is aborted or cancelled (a restart cut
        # short would leave the server stopped): the next call finds the connection made.
        connecting = self._connecting = asyncio.ensure_future(self.ensure_connected())
        if aborted is not None:
            await asyncio.wait({connecting, aborted}, return_when="FIRST_COMPLETED")
            if not connecting.done():
                raise McpCallError(f'MCP server "{self.name}": {what} aborted')
        await asyncio.shield(connecting)
        session = self.session
        if session is None or self.state != "connected":
            raise self._unavailable()
        if check is not None:
            check()
        task = self._task

        async def send() -> Any:
            return await request(session)

        # The call's task notes the ids of the requests it sends, to cancel the one left unanswered.
        sent: list[Any] = []
        context = contextvars.copy_context()
        context.run(_SENT.set, sent)
        call = asyncio.get_running_loop().create_task(send(), context=context)
        aborted_why = "Aborted" if signal is None else signal.reason or "Aborted"
        waiters: set[asyncio.Future[Any]] = {call}
        if task is not None:
            waiters.add(task)  # the runner ends when the connection dies: stop waiting then
        if aborted is not None:
            waiters.add(aborted)
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=self.config.timeout + 1, return_when="FIRST_COMPLETED"
            )
        except asyncio.CancelledError:
            call.cancel()
            self._cancel_request(session, sent, aborted_why)
            raise
        if call not in done:
            call.cancel()
            if aborted is not None and aborted.done():
                self._cancel_request(session, sent, aborted_why)
                raise McpCallError(f'MCP server "{self.name}": {what} aborted')
            if task is not None and task.done():
                now: str = self.state  # the runner ended meanwhile
                if now == "needs-auth":
                    raise self._unavailable()
                raise _ConnectionLost(f'MCP server "{self.name}" closed the connection during {what}')
            self._cancel_request(session, sent, "Request timed out")
            raise McpCallError(
                f'MCP server "{self.name}" did not answer {what} within {self.config.timeout:g} s'
            )
        try:
            return call.result()
        except Exception as error:
            if _timed_out(error):  # the SDK's own wait for the answer ran out
                self._cancel_request(session, sent, "Request timed out")
            if self.config.kind == "http" and _session_expired(error):
                raise _SessionExpired from error
            if _closed(error):
                self._dropped()
                raise _ConnectionLost(
                    f'MCP server "{self.name}" closed the connection during {what}'
                ) from error
            raise McpCallError(f'MCP server "{self.name}" failed {what}: {_describe(error)}') from error

    def _cancel_request(self, session: Any, sent: list[Any], reason: str) -> None:
        """Tell the server to stop the request a call gave up on (the last one it sent), with
        ``notifications/cancelled`` as the MCP spec asks and pi 1.6.0 does on an abort or a
        timeout. Sent from a task of its own: the call ends at once."""
        if not sent:
            return
        from mcp import types

        params = types.CancelledNotificationParams(requestId=sent[-1], reason=reason)
        notice = types.ClientNotification(types.CancelledNotification(params=params))

        async def notify() -> None:
            try:
                await asyncio.wait_for(session.send_notification(notice), 5)
            except Exception as error:  # the connection may be gone meanwhile: nothing to stop then
                self._write_log(
                    "warning", f"telling the server to cancel request {sent[-1]} failed: {_describe(error)}"
                )

        cancelling = asyncio.get_running_loop().create_task(notify())
        self._cancelling.add(cancelling)
        cancelling.add_done_callback(self._cancelling.discard)

    def _unavailable(self) -> McpCallError:
        """Why a call cannot be made (a failed server was just tried: by this call or one that
        was connecting it when this one came)."""
        if self.state == "needs-auth":
            return McpCallError(self.last_error or str(SignInRequired(self.name)))
        if self.state == "failed":
            return McpCallError(f'MCP server "{self.name}" failed to connect: {self.last_error}')
        if self.state == "connecting":
            return McpCallError(f'MCP server "{self.name}" is still connecting')
        reason = f": {self.last_error}" if self.last_error else ""
        return McpCallError(f'MCP server "{self.name}" is {self.state}{reason}')

    async def call_tool(self, tool: str, arguments: dict[str, Any], signal: AbortSignal | None = None) -> Any:
        """``tools/call``. Sent without ``ClientSession.call_tool``, which checks the structured
        result against the tool's ``outputSchema`` (and fails on a schema that is not JSON Schema):
        pi 1.6.0 passes results on as the server sent them."""
        from mcp import types

        def offered() -> None:
            if not any(t.name == tool for t in self.tools):
                raise McpCallError(f'MCP tool "{self.name}/{tool}" is no longer available.')

        timeout = timedelta(seconds=self.config.timeout)
        request = types.ClientRequest(
            types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=arguments))
        )
        result = await self._call(
            f"tools/call {tool}",
            lambda s: s.send_request(request, types.CallToolResult, request_read_timeout_seconds=timeout),
            offered,
            signal=signal,
        )
        refresh = self._refresh
        if refresh is not None and not refresh.done():
            # The call changed the tool list (tools/list_changed came first): the next request
            # should already declare the new tools.
            await asyncio.wait([refresh], timeout=5)
        return result

    async def list_resources(self, cursor: str | None) -> Any:
        return await self._call("resources/list", lambda s: s.list_resources(cursor=cursor), read_only=True)

    async def list_resource_templates(self, cursor: str | None) -> Any:
        return await self._call(
            "resources/templates/list",
            lambda s: s.list_resource_templates(cursor=cursor),
            read_only=True,
        )

    async def read_resource(self, uri: str) -> Any:
        from pydantic import AnyUrl

        return await self._call("resources/read", lambda s: s.read_resource(AnyUrl(uri)), read_only=True)


class _Watched:
    """A transport's read stream that tells when the client session stopped reading it (the
    connection ended: the server exited or the transport broke)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.ended = asyncio.Event()

    async def __aenter__(self) -> _Watched:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.ended.set()
        await self._stream.__aexit__(*exc)

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._stream.__anext__()
        except StopAsyncIteration:
            self.ended.set()
            raise

    async def receive(self) -> Any:
        return await self._stream.receive()

    async def aclose(self) -> None:
        self.ended.set()
        await self._stream.aclose()


class _Sent:
    """A transport's write stream that notes, in the sending call's :data:`_SENT`, the id of
    each request once it went out (so an abandoned call can have it cancelled)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def __aenter__(self) -> _Sent:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._stream.__aexit__(*exc)

    async def send(self, item: Any) -> None:
        await self._stream.send(item)
        sent = _SENT.get()
        if sent is not None:
            from mcp.types import JSONRPCRequest

            root = getattr(getattr(item, "message", None), "root", None)
            if isinstance(root, JSONRPCRequest):
                sent.append(root.id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: One background import of the SDK per transport kind (a failed one is tried again).
_sdk_imports: dict[str, concurrent.futures.Future[None]] = {}


def _import_sdk(kind: str) -> concurrent.futures.Future[None]:
    """The SDK's import for ``kind``, in a worker thread (on the event loop it would hold up the
    first prompt), started when the first server of that kind starts."""
    running = _sdk_imports.get(kind)
    if running is not None and not (running.done() and (running.cancelled() or running.exception())):
        return running
    transport = {"stdio": "mcp.client.stdio", "http": "mcp.client.streamable_http"}
    # httpx first, and requests wait for it: the openai SDK trips over a half-imported httpx.
    future = import_in_background(["mcp", transport[kind]], requests_wait_for=["httpx"])
    _sdk_imports[kind] = future
    return future


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str], request_timeout: float, auth: Any = None) -> Any:
    """The streamable HTTP transport's ``(read, write)``: requests time out after
    ``request_timeout`` seconds, a response stream may stay quiet for 5 minutes."""
    import httpx
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, create_mcp_http_client

    from pi_mcp.http import streamable_http

    client = create_mcp_http_client(
        headers=headers,
        timeout=httpx.Timeout(request_timeout, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        auth=auth,
    )
    async with client, streamable_http(url, client) as (read, write):
        yield read, write


def _sign_in_required(error: BaseException) -> SignInRequired | None:
    """The :class:`SignInRequired` behind a failure (task groups and causes wrap it)."""
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, SignInRequired):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


class _ConnectionLost(McpCallError):
    """The connection ended while a request waited for its answer."""


class _SessionExpired(Exception):
    """An HTTP server answered 404 to the session's request: it forgot the session."""


def _session_expired(error: BaseException) -> bool:
    """The SDK's answer to a 404 on an established session (``Session terminated``)."""
    data = getattr(error, "error", None)
    return getattr(data, "code", None) == 32600 and getattr(data, "message", None) == "Session terminated"


def _timed_out(error: BaseException) -> bool:
    """The SDK's own end of the wait for an answer (``request_read_timeout_seconds``)."""
    data = getattr(error, "error", None)
    return getattr(data, "code", None) == 408 and str(getattr(data, "message", "")).startswith("Timed out")


def _transient(error: BaseException) -> bool:
    """A network failure, or a status that says try later (408, 429, 5xx but 501): worth
    another attempt, as pi 1.6.0 judges them."""
    import httpx

    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, httpx.HTTPStatusError):
            status = current.response.status_code
            return status in (408, 429) or (status >= 500 and status != 501)
        if isinstance(current, httpx.TransportError):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False


def _closed(error: BaseException) -> bool:
    import anyio

    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream):
        return True
    return "Connection closed" in str(error)


def _describe(error: BaseException) -> str:
    """A one-line account of a connection failure (task groups wrap the cause)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, FileNotFoundError):
        return f"command not found: {error.filename or error}"
    if _closed(error):
        return "the server closed the connection"
    text = str(error) or type(error).__name__
    return text.splitlines()[0] if text else type(error).__name__
