"""The ``ctx`` plugins receive: a live, narrow view of the running session plus its actions.

One object per dispatch. Properties are read when used, so they reflect the current state; once
the session is disposed (replaced by ``new_session``/``fork``/``switch_session``, or shut down) every
member raises :class:`StaleContextError`, because a plugin must never keep a ``ctx`` beyond the call
(spec extensions §11.4). Command handlers get :class:`RuntimeCommandContext`, which adds the
session-control methods that would deadlock inside the agent loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import CustomMessage, ImageContent, TextContent
from pi_core.plugins.events import McpServersChangeEvent, RegisteredMcpServer, ScopedModel

if TYPE_CHECKING:
    from pi_core.agent.loop import NestedRunner
    from pi_core.plugins.context import CommandContext, ExtensionContext, ToolContext
    from pi_core.plugins.events import SystemPromptOptions
    from pi_core.runtime.session import AgentSession

    # The protocols plugin authors annotate with are the contract of these classes: mypy proves it.
    def _is_extension_context(ctx: RuntimeContext) -> ExtensionContext:
        return ctx

    def _is_command_context(ctx: RuntimeCommandContext) -> CommandContext:
        return ctx

    def _is_tool_context(ctx: RuntimeToolContext) -> ToolContext:
        return ctx


class StaleContextError(RuntimeError):
    """A ``ctx`` was used after its session was replaced or shut down."""


@dataclass(frozen=True)
class ExecResult:
    """What ``ctx.exec`` returns."""

    stdout: str
    stderr: str
    code: int
    killed: bool
    truncated: bool = False


#: ``ctx.exec``'s default output cap (stdout and stderr together), as pi's.
EXEC_MAX_BUFFER = 256 * 1024 * 1024


def _decode(data: bytes, truncated: bool) -> str:
    """UTF-8 text; after a cut, a character split by it is dropped rather than shown as a replacement."""
    import codecs

    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=not truncated)


PromptKind = Literal["select", "confirm", "input", "editor"]


class PromptSpans:
    """``ctx.ui`` that reports dialogs as ``ui_prompt_start``/``ui_prompt_end`` (nested ones coalesce)."""

    def __init__(self, ui: Any, session: AgentSession) -> None:
        self._ui = ui
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ui, name)

    async def _span(
        self, kind: Literal["select", "confirm", "input", "editor", "custom"], title: str | None, call: Any
    ) -> Any:
        from pi_core.plugins.events import UiPromptEndEvent, UiPromptStartEvent

        session = self._session
        session.ui_prompt_depth += 1
        if session.ui_prompt_depth == 1:
            session.fire_hook("ui_prompt_start", UiPromptStartEvent(kind=kind, title=title))
        try:
            return await call
        finally:
            session.ui_prompt_depth -= 1
            if session.ui_prompt_depth == 0:
                session.fire_hook("ui_prompt_end", UiPromptEndEvent(kind=kind, title=title))

    async def select(self, title: str, options: Sequence[str], **kwargs: Any) -> str | None:
        return cast(
            "str | None", await self._span("select", title, self._ui.select(title, options, **kwargs))
        )

    async def confirm(self, title: str, message: str, **kwargs: Any) -> bool:
        return bool(await self._span("confirm", title, self._ui.confirm(title, message, **kwargs)))

    async def input(self, title: str, placeholder: str | None = None, **kwargs: Any) -> str | None:
        return cast(
            "str | None", await self._span("input", title, self._ui.input(title, placeholder, **kwargs))
        )

    async def editor(self, title: str, prefill: str | None = None, **kwargs: Any) -> str | None:
        return cast(
            "str | None", await self._span("editor", title, self._ui.editor(title, prefill, **kwargs))
        )

    async def custom(self, factory: Any, **kwargs: Any) -> Any:
        return await self._span("custom", None, self._ui.custom(factory, **kwargs))


class Delivery:
    """What ``send_message``/``send_user_message`` return: the hand-over is already under way.

    Awaiting it waits for the delivery (and raises its error). When nobody awaits, an error is
    reported as one of the plugin whose handler made the call, so a forgotten ``await`` loses nothing.
    """

    __slots__ = ("_awaited", "_origin", "_session", "_task", "_what")

    def __init__(
        self,
        work: Coroutine[Any, Any, None],
        session: AgentSession,
        what: str,
        origin: tuple[str, str] | None,
    ) -> None:
        self._origin = origin
        self._session = session
        self._what = what
        self._awaited = False
        self._task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)
        self._task.add_done_callback(self._done)

    def __await__(self) -> Generator[Any, None, None]:
        self._awaited = True
        return self._task.__await__()

    def _done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self._awaited:
            return
        error = task.exception()
        if error is None:
            return
        plugin, hook = self._origin or ("extension", "")
        where = f"{hook}: {self._what}" if hook else self._what
        self._session.report_plugin_error(plugin, where, error)


@dataclass(frozen=True)
class ChangeResult:
    cancelled: bool


class RuntimeContext:
    """Implements :class:`pi_core.plugins.context.ExtensionContext` and the plugin actions."""

    def __init__(self, session: AgentSession, *, acting: tuple[str, str] | None = None) -> None:
        self._session = session
        #: ``(plugin, where)`` this ctx acts for when not inside a handler (a tool's ``execute``).
        self._acting = acting

    @property
    def _s(self) -> AgentSession:
        if self._session.disposed:
            raise StaleContextError(
                "This context belongs to a session that was replaced or shut down; "
                "use the ctx passed to the current call."
            )
        return self._session

    # --- ExtensionContext -------------------------------------------------------------------------

    @property
    def ui(self) -> Any:
        session = self._s
        if session.hooks is None or not (
            session.hooks.has("ui_prompt_start") or session.hooks.has("ui_prompt_end")
        ):
            return session.ui
        return PromptSpans(session.ui, session)

    @property
    def mode(self) -> str:
        """``tui``, ``rpc``, ``json`` or ``print``: the mode this session runs in."""
        return self._s.mode

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (global merged with project), as settings.json spells them."""
        return self._s.settings.settings.model_dump(mode="json", by_alias=True, exclude_none=True)

    def is_project_trusted(self) -> bool:
        """Whether this project's plugin code may run (``pi trust``, or ``--trust-project`` this time)."""
        return self._s.project_trusted

    @property
    def has_ui(self) -> bool:
        return self._s.has_ui

    @property
    def cwd(self) -> str:
        return self._s.cwd

    @property
    def settings(self) -> Any:
        """The effective settings (typed, read-only view); tools read e.g. ``shell_path`` here."""
        return self._s.settings.settings

    @property
    def session_manager(self) -> Any:
        return self._s.session_manager

    @property
    def model_registry(self) -> Any:
        return self._s.model_registry

    @property
    def model(self) -> Any:
        return self._s.model

    @property
    def thinking_level(self) -> str:
        return self._s.thinking_level

    @property
    def scoped_models(self) -> list[ScopedModel]:
        scoped = self._s.services.scoped_models
        return [ScopedModel(model=model, thinking_level=level) for model, level in scoped]

    @property
    def signal(self) -> AbortSignal | None:
        return self._s.agent.signal

    def is_idle(self) -> bool:
        return self._s.is_idle

    def abort(self) -> None:
        session = self._s
        session.abort_retry()
        session.agent.abort()

    def has_pending_messages(self) -> bool:
        return self._s.pending_message_count > 0

    def shutdown(self) -> None:
        host = self._s.host
        if host is not None:
            host.request_shutdown()

    def get_context_usage(self) -> Any:
        return self._s.get_context_usage()

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        session = self._s

        async def run() -> None:
            try:
                result = await session.compact(custom_instructions)
            except Exception as error:
                if on_error is not None:
                    on_error(error)
                return
            if on_complete is not None:
                on_complete(result)

        _spawn(run())

    def get_system_prompt(self) -> str:
        return self._s.system_prompt

    # --- actions ----------------------------------------------------------------------------------

    def send_message(
        self,
        custom_type: str,
        content: str | Sequence[TextContent | ImageContent],
        *,
        display: bool = True,
        details: Any = None,
        deliver_as: Literal["steer", "followUp", "nextTurn"] | None = None,
        trigger_turn: bool = False,
    ) -> Delivery:
        """Add a custom message (shown to the model as a user message); delivered even if not awaited."""
        session = self._s
        message = CustomMessage(
            custom_type=custom_type,
            content=content if isinstance(content, str) else list(content),
            display=display,
            details=details,
        )
        work = session.send_custom_message(message, deliver_as=deliver_as, trigger_turn=trigger_turn)
        return Delivery(work, session, "send_message", self._origin())

    def send_user_message(
        self,
        content: str | Sequence[TextContent | ImageContent],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> Delivery:
        """A user message through the prompt pipeline; delivered even if not awaited."""
        session = self._s
        work = session.send_user_message(
            content, deliver_as=deliver_as, expand_prompt_templates=expand_prompt_templates
        )
        return Delivery(work, session, "send_user_message", self._origin())

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Persist plugin state as a ``custom`` entry (not sent to the model)."""
        return self._s.append_custom_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._s.set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._s.session_name

    def set_label(self, entry_id: str, label: str | None) -> None:
        self._s.session_manager.append_label_change(entry_id, label)

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - seconds, part of the plugin API
        cwd: str | None = None,
        max_buffer: int = EXEC_MAX_BUFFER,
    ) -> ExecResult:
        """Run a program (no shell) in the session cwd and capture its output."""
        from pi_core.runtime.process import run_program

        if isinstance(max_buffer, bool) or not isinstance(max_buffer, int) or max_buffer < 0:
            raise ValueError(
                f"ctx.exec: max_buffer must be a whole number of bytes, 0 or more (got {max_buffer!r})"
            )
        try:
            done = await run_program(
                command, *args, cwd=cwd or self._s.cwd, timeout=timeout, signal=signal, max_buffer=max_buffer
            )
        except OSError as error:  # could not start: pi reports it as a failed run, never raises
            return ExecResult("", str(error), 1, False)
        return ExecResult(
            _decode(done.stdout, done.truncated),
            _decode(done.stderr, done.truncated),
            done.code,
            done.killed,
            done.truncated,
        )

    def get_active_tools(self) -> list[str]:
        return self._s.active_tool_names

    def get_all_tools(self) -> list[str]:
        return list(self._s.services.tools)

    def set_active_tools(self, names: Sequence[str]) -> None:
        self._s.set_active_tools(names)

    def register_tool(self, tool: AgentTool) -> None:
        """Add or replace a tool now; the next request declares it (see ``AgentTool.exposure``)."""
        self._s.register_tool(tool, plugin=self._plugin())

    def unregister_tool(self, name: str) -> bool:
        """Remove a tool this plugin registered; False when there is none by that name."""
        return self._s.unregister_tool(name, plugin=self._plugin())

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """Add (or replace) this plugin's MCP server for this plugin load (``mcp_servers_change``)."""
        self._s.services.mcp_servers.register(name, config, self._plugin("register_mcp_server"))
        self._mcp_servers_changed()

    def unregister_mcp_server(self, name: str) -> bool:
        """Remove this plugin's MCP server; False when it registered none by that name."""
        removed = self._s.services.mcp_servers.unregister(name, self._plugin("unregister_mcp_server"))
        if removed:
            self._mcp_servers_changed()
        return removed

    def get_mcp_servers(self) -> list[RegisteredMcpServer]:
        """The servers plugins registered, in registration order (copies)."""
        return self._s.services.mcp_servers.list()

    def _mcp_servers_changed(self) -> None:
        servers = self._s.services.mcp_servers.list()
        self._s.fire_hook("mcp_servers_change", McpServersChangeEvent(servers=servers))

    def _origin(self) -> tuple[str, str] | None:
        from pi_core.plugins.dispatch import CURRENT_HANDLER

        return CURRENT_HANDLER.get() or self._acting

    def _plugin(self, what: str = "register_tool/unregister_tool") -> str:
        """The plugin acting through this ctx: the running handler's (or the tool's owner)."""
        current = self._origin()
        if current is None:
            raise RuntimeError(f"{what} works only in a plugin's handler, tool or command")
        return current[0]

    async def set_model(self, model: Any) -> bool:
        """Switch model; False when the model has no configured auth."""
        try:
            await self._s.set_model(model)
        except RuntimeError:
            return False
        return True

    def get_thinking_level(self) -> str:
        return self._s.thinking_level

    def get_flag(self, name: str) -> Any:
        """Value of a ``register_flags`` flag (name without ``--``); ``None`` when nobody registered it."""
        return self._s.services.flag_values.get(name.removeprefix("--"))

    @property
    def events(self) -> Any:
        return self._s.services.events

    def get_commands(self) -> list[dict[str, Any]]:
        """Plugin commands, prompt templates and skills, as RPC ``get_commands`` lists them."""
        return self._s.get_commands()

    def set_thinking_level(self, level: str) -> None:
        self._s.set_thinking_level(level)


class RuntimeToolContext(RuntimeContext):
    """What a tool's ``execute`` receives: the extension context plus nested tool calls."""

    def __init__(
        self,
        session: AgentSession,
        tool_call_id: str,
        run_nested: NestedRunner,
        *,
        acting: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(session, acting=acting)
        self.tool_call_id = tool_call_id
        self._run_nested = run_nested

    @property
    def tools(self) -> list[str]:
        """Names of the tools :meth:`execute_tool` can call."""
        return [tool.name for tool in self._s.callable_tools()]

    async def execute_tool(
        self,
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[AgentToolResult], None] | None = None,
    ) -> AgentToolResult:
        """Run another tool through validation, ``tool_call`` and ``tool_result``, as the model would.

        Never raises for the tool's failure (unknown tool, bad arguments, blocked, raised): the result
        then has ``is_error=True``. Its events carry ``parent_tool_call_id``; nothing enters the transcript.
        """
        result, is_error = await self._run_nested(
            name, args, signal=signal or self.signal, on_update=on_update
        )
        if is_error and result.is_error is not True:
            result = result.model_copy(update={"is_error": True})
        return result


class RuntimeCommandContext(RuntimeContext):
    """Implements :class:`pi_core.plugins.context.CommandContext`: session control for commands."""

    async def wait_for_idle(self) -> None:
        await self._s.wait_for_idle()

    def get_system_prompt_options(self) -> SystemPromptOptions:
        return self._s.system_prompt_options()

    def _host(self) -> Any:
        host = self._s.host
        if host is None:
            raise RuntimeError("this session has no runtime host; session control is unavailable")
        return host

    async def new_session(
        self,
        *,
        parent_session: str | None = None,
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
        with_session: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> ChangeResult:
        host = self._host()  # read before: the change makes this ctx stale
        cancelled = await host.new_session(parent_session=parent_session, setup=setup)
        await _after_change(host, cancelled, with_session)
        return ChangeResult(cancelled)

    async def fork(
        self,
        entry_id: str,
        *,
        position: str = "before",
        with_session: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> ChangeResult:
        host = self._host()
        cancelled, _ = await host.fork(entry_id, position=position)
        await _after_change(host, cancelled, with_session)
        return ChangeResult(cancelled)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> ChangeResult:
        outcome = await self._s.navigate_tree(
            target_id,
            summarize=bool(summarize),
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )
        return ChangeResult(outcome.cancelled)

    async def switch_session(
        self, path: str, *, with_session: Callable[[Any], Awaitable[None] | None] | None = None
    ) -> ChangeResult:
        host = self._host()
        cancelled = await host.switch_session(path)
        await _after_change(host, cancelled, with_session)
        return ChangeResult(cancelled)

    async def reload(self) -> None:
        host = self._host()
        await host.reload()


async def _after_change(
    host: Any, cancelled: bool, callback: Callable[[Any], Awaitable[None] | None] | None
) -> None:
    if cancelled or callback is None:
        return
    outcome = callback(RuntimeCommandContext(host.session))
    if outcome is not None:
        await outcome


_background: set[asyncio.Task[None]] = set()


def _spawn(coroutine: Awaitable[None]) -> None:
    task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
    _background.add(task)
    task.add_done_callback(_background.discard)
