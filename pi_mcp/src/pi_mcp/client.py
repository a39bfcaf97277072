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
import logging
import os
import time
from collections.abc import Callable, Coroutine
from datetime import timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, TextIO, cast

from pi_core.ai.sdk_import import import_in_background

if TYPE_CHECKING:
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

State = Literal["connecting", "connected", "failed", "needs-auth", "disabled", "closed"]
CONNECT_TIMEOUT = 30.0
LOG_LIMIT = 5 * 1024 * 1024


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
        self._task: asyncio.Task[None] | None = None
        self._sdk: concurrent.futures.Future[None] | None = None
        self._refresh: asyncio.Task[None] | None = None
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
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.name}")

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
                if self.state != "connected":
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
        from mcp import ClientSession

        try:
            values = await self._values()
            auth = None
            if self.oauth_url is not None and self.credentials is not None:
                auth = await connection_auth(self.credentials, self.name, self.config.raw)
        except McpValueError as error:
            self._fail(str(error))
            return
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(values, auth))
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
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
                    return
                self.instructions = init.instructions
                capabilities = init.capabilities
                self.has_resources = capabilities.resources is not None
                self.session = session
                if capabilities.tools is not None:
                    self.tools = await self._list_tools(session)
                self.state = "connected"
                self._settled.set()
                self.on_tools(self)
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            if not self._stop.is_set():
                self._fail(error)
            return
        finally:
            self.session = None
        if not self._stop.is_set():  # the transport ended by itself
            self._fail("the server closed the connection")

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
                self.on_tools(self)

            self._refresh = asyncio.get_running_loop().create_task(refresh())

    async def _on_log(self, params: Any) -> None:
        self._write_log(str(params.level), f"{params.logger or '-'}: {params.data}")

    # --- calls ------------------------------------------------------------------------------------

    async def _call(self, what: str, request: Callable[[Any], Any]) -> Any:
        session = self.session
        if session is None or self.state != "connected":
            raise self._unavailable()
        task = self._task
        call = asyncio.ensure_future(request(session))
        waiters: set[asyncio.Future[Any]] = {call}
        if task is not None:
            waiters.add(task)  # the runner ends when the connection dies: stop waiting then
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=self.config.timeout + 1, return_when="FIRST_COMPLETED"
            )
        except asyncio.CancelledError:
            call.cancel()
            raise
        if call not in done:
            call.cancel()
            if task is not None and task.done():
                raise McpCallError(f'MCP server "{self.name}" stopped during {what}: {self.last_error}')
            raise McpCallError(
                f'MCP server "{self.name}" did not answer {what} within {self.config.timeout:g} s'
            )
        try:
            return call.result()
        except Exception as error:
            if _closed(error):
                if self.state == "connected":
                    self._fail("the server closed the connection")
                raise self._unavailable() from error
            raise McpCallError(f'MCP server "{self.name}" failed {what}: {_describe(error)}') from error

    def _unavailable(self) -> McpCallError:
        reason = f": {self.last_error}" if self.last_error else ""
        if self.state == "needs-auth":
            return McpCallError(self.last_error or str(SignInRequired(self.name)))
        hint = "; /mcp reconnect restarts it" if self.state == "failed" else ""
        return McpCallError(f'MCP server "{self.name}" is {self.state}{reason}{hint}')

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> Any:
        """``tools/call``. Sent without ``ClientSession.call_tool``, which checks the structured
        result against the tool's ``outputSchema`` (and fails on a schema that is not JSON Schema):
        pi 1.6.0 passes results on as the server sent them."""
        from mcp import types

        timeout = timedelta(seconds=self.config.timeout)
        request = types.ClientRequest(
            types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=arguments))
        )
        result = await self._call(
            f"tools/call {tool}",
            lambda s: s.send_request(request, types.CallToolResult, request_read_timeout_seconds=timeout),
        )
        refresh = self._refresh
        if refresh is not None and not refresh.done():
            # The call changed the tool list (tools/list_changed came first): the next request
            # should already declare the new tools.
            await asyncio.wait([refresh], timeout=5)
        return result

    async def list_resources(self, cursor: str | None) -> Any:
        return await self._call("resources/list", lambda s: s.list_resources(cursor=cursor))

    async def list_resource_templates(self, cursor: str | None) -> Any:
        return await self._call(
            "resources/templates/list", lambda s: s.list_resource_templates(cursor=cursor)
        )

    async def read_resource(self, uri: str) -> Any:
        from pydantic import AnyUrl

        return await self._call("resources/read", lambda s: s.read_resource(AnyUrl(uri)))


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


def _http_transport(url: str, headers: dict[str, str], timeout: float, auth: Any = None) -> Any:
    from mcp.client.streamable_http import streamablehttp_client

    return _first_two(streamablehttp_client(url, headers=headers, timeout=timeout, auth=auth))


@contextlib.asynccontextmanager
async def _first_two(manager: Any) -> Any:
    async with manager as (read, write, *_rest):
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
