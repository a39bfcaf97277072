"""What a hook handler, tool ``execute`` or shortcut receives as ``ctx`` (spec §5), as Protocols.

The runtime implements these; plugins only rely on the members listed here. Properties are resolved
when read, so they reflect the current state, and raise once the runtime they belong to was torn down
(session replacement, ``/reload``): never keep a ``ctx`` beyond the call that received it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pi_core.agent.tools import AgentTool, AgentToolResult
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import ImageContent, TextContent
from pi_core.plugins.events import RegisteredMcpServer, ScopedModel, SystemPromptOptions


class UITheme(Protocol):
    """``ctx.ui.theme``: pi's named colours (``accent``, ``success``, ``error``, ``muted``, …)."""

    @property
    def name(self) -> str:
        """``dark`` or ``light``."""
        ...

    def color(self, name: str) -> str:
        """The colour as ``#rrggbb``."""
        ...

    def fg(self, name: str, text: str) -> str:
        """``text`` in the colour, as terminal escapes."""
        ...

    def bg(self, name: str, text: str) -> str: ...

    def bold(self, text: str) -> str: ...

    def italic(self, text: str) -> str: ...

    def underline(self, text: str) -> str: ...


class UIThemeInfo(Protocol):
    """One entry of ``ctx.ui.get_all_themes()``."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> str | None:
        """The theme's file; ``None`` for a built-in theme."""
        ...


class UIThemeResult(Protocol):
    """What ``ctx.ui.set_theme`` did."""

    @property
    def success(self) -> bool: ...

    @property
    def error(self) -> str | None:
        """Why nothing changed (``None`` on success)."""
        ...


class ProjectTrustUI(Protocol):
    """The dialogs a ``project_trust`` handler may use (a part of :class:`ExtensionUI`): before
    the project's plugins load there is no REPL yet, only one-question prompts on the terminal."""

    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - pi's dialog API (ms)
    ) -> str | None: ...

    async def confirm(
        self,
        title: str,
        message: str,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> bool: ...

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> str | None: ...

    def notify(self, message: str, type: str = "info") -> None: ...


@runtime_checkable
class ExtensionUI(ProjectTrustUI, Protocol):
    """Dialogs and decorations (spec §5.2). Without a UI dialogs resolve to ``None``/``False`` at once.

    ``timeout`` (ms) is part of pi's dialog API: the dialog resolves to its empty value when it expires.
    """

    @property
    def has_ui(self) -> bool:
        """Whether someone can answer dialogs (``ctx.has_ui`` reads this)."""
        ...

    @property
    def theme(self) -> UITheme: ...

    async def editor(self, title: str, prefill: str | None = None) -> str | None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_widget(self, key: str, content: Any, *, placement: str = "aboveEditor") -> None: ...

    def set_title(self, text: str) -> None: ...

    def set_editor_text(self, text: str) -> None: ...

    def get_editor_text(self) -> str: ...

    def set_working_message(self, text: str | None = None) -> None:
        """Shown instead of ``working…`` while the agent works (``None``: back to the default)."""
        ...

    def set_working_visible(self, visible: bool) -> None: ...

    def set_hidden_thinking_label(self, text: str | None = None) -> None:
        """The line shown for a run of thinking while thinking is hidden (``None``: the default,
        ``Thinking...``; an empty text: nothing); fullscreen redraws what is on screen with it."""
        ...

    def set_working_indicator(
        self, frames: Sequence[str] | None = None, *, interval_ms: float | None = None
    ) -> None:
        """The frames drawn in turn before the working message, every ``interval_ms`` (80 by
        default); one frame stands still, ``[]`` draws none, ``None`` restores pi's braille spinner."""
        ...

    def get_tools_expanded(self) -> bool:
        """Whether tool results are drawn in full (Ctrl+O); false without a terminal UI."""
        ...

    def set_tools_expanded(self, expanded: bool) -> None: ...

    def get_all_themes(self) -> Sequence[UIThemeInfo]:
        """The themes there are by name (empty without a terminal UI)."""
        ...

    def get_theme(self, name: str) -> UITheme | None:
        """The theme called ``name``, loaded without switching to it; ``None`` if there is none."""
        ...

    def set_theme(self, theme: str | UITheme) -> UIThemeResult:
        """Switch to a theme by name (saved as the ``theme`` setting) or to a theme object (for
        this run only)."""
        ...

    async def custom(
        self,
        factory: Callable[..., Any],
        *,
        overlay: bool = False,
        overlay_options: Any = None,
        on_handle: Callable[[Any], Any] | None = None,
        blocked: Any = None,
    ) -> Any:
        """Show ``factory(tui, theme, done)``'s component (a prompt-toolkit container, or an
        object with ``render(width) -> list[str]`` and ``handle_input(data)``) in place of the
        editor until it calls ``done(value)``; that value. ``None`` without a terminal UI.
        With ``overlay`` it floats (fullscreen) where ``overlay_options`` (pi's
        ``OverlayOptions``) put it, and ``on_handle(handle)`` gets pi's ``OverlayHandle``.
        ``blocked`` (``{"kind": "question" | "permission" | "auth", "message": str}``) reports
        pi to the terminal as waiting for the user while the component waits."""
        ...

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        """Rows from ``factory(tui, theme)``'s ``render(width)`` replace the start-up header."""
        ...

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        """Rows from ``factory(tui, theme, footer_data)``'s ``render(width)`` replace the footer."""
        ...

    def on_terminal_input(self, handler: Callable[[str], Any]) -> Callable[[], None]:
        """``handler(data)`` sees each key's raw bytes first (``{"consume": True}`` swallows it,
        ``{"data": text}`` replaces it); returns the function that removes it."""
        ...

    def paste_to_editor(self, text: str) -> None: ...

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """``factory(tui, theme, keybindings)``'s component replaces the editor (a
        ``pi_core.plugins.editor.CustomEditor`` subclass, or any object with ``render(width)`` and
        ``handle_input(data)``); ``None`` restores the built-in one. No-op without a terminal."""
        ...

    def get_editor_component(self) -> Callable[..., Any] | None:
        """The factory of the editor in use (``None``: the built-in editor)."""
        ...

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        """``factory(current)`` wraps the editor's prompt-toolkit ``Completer`` with the plugin's."""
        ...


class ProjectTrustContext:
    """What a ``project_trust`` handler gets as ``ctx``: no session exists yet, so only the
    directory, the mode and dialogs (which answer nothing when ``has_ui`` is false)."""

    __slots__ = ("cwd", "has_ui", "mode", "ui")

    def __init__(self, cwd: str, mode: str, has_ui: bool, ui: ProjectTrustUI) -> None:
        #: The project directory (absolute).
        self.cwd = cwd
        #: ``tui``, ``print``, ``json`` or ``rpc``: the mode the run is starting in.
        self.mode = mode
        #: Whether someone at a terminal can answer ``ui``'s dialogs.
        self.has_ui = has_ui
        self.ui = ui


DeliverAs = Literal["steer", "followUp", "nextTurn"]


class ExecResult(Protocol):
    """What :meth:`ExtensionContext.exec` returns."""

    @property
    def stdout(self) -> str: ...

    @property
    def stderr(self) -> str: ...

    @property
    def code(self) -> int:
        """The exit status; 128 + the signal number when a signal ended the program (143: SIGTERM,
        137: SIGKILL); 1 when it could not start, and never 0 for truncated output."""
        ...

    @property
    def killed(self) -> bool:
        """True when pi ended the program: timeout, abort signal or output over ``max_buffer``."""
        ...

    @property
    def truncated(self) -> bool:
        """True when stdout and stderr together went over ``max_buffer``; they hold what came first."""
        ...


class ContextUsage(Protocol):
    @property
    def tokens(self) -> int | None: ...

    @property
    def context_window(self) -> int: ...

    @property
    def percent(self) -> float | None: ...


@runtime_checkable
class ExtensionContext(Protocol):
    """The context given to every event handler, tool ``execute`` and shortcut handler."""

    @property
    def ui(self) -> ExtensionUI: ...

    @property
    def has_ui(self) -> bool:
        """True in interactive and RPC mode; false in print and JSON mode."""
        ...

    @property
    def cwd(self) -> str:
        """Working directory of the session runtime."""
        ...

    @property
    def session_manager(self) -> Any:
        """Read-only view of the session (``get_branch()``, ``get_entries()``, ``get_leaf_id()``, …)."""
        ...

    @property
    def model_registry(self) -> Any: ...

    @property
    def model(self) -> Any:
        """The selected model, or ``None``."""
        ...

    @property
    def thinking_level(self) -> str:
        """The thinking level in use (clamped to the model: ``off`` without reasoning), as
        ``get_thinking_level()``."""
        ...

    @property
    def scoped_models(self) -> list[ScopedModel]:
        """The models the session is scoped to, in Ctrl+P's order, as /scoped-models shows them;
        empty when no scope is set and every available model may be used."""
        ...

    @property
    def signal(self) -> AbortSignal | None:
        """Abort signal of the active agent run; ``None`` outside runs."""
        ...

    @property
    def mode(self) -> str:
        """The run mode: ``tui``, ``rpc``, ``json`` or ``print``."""
        ...

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (settings.json's keys, global merged with project)."""
        ...

    def is_project_trusted(self) -> bool:
        """Whether this project's plugin code runs (trusted, nothing to trust, or ``--trust-project``)."""
        ...

    def is_idle(self) -> bool: ...

    def abort(self) -> None: ...

    def has_pending_messages(self) -> bool: ...

    def shutdown(self) -> None: ...

    def get_context_usage(self) -> ContextUsage | None: ...

    def compact(
        self,
        *,
        custom_instructions: str | None = None,
        on_complete: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None: ...

    def get_system_prompt(self) -> str:
        """The system prompt on the agent; inside ``before_agent_start`` the value chained so far."""
        ...

    # --- actions (pi's extension API methods; they raise while the runtime is not bound) -----------

    def send_message(
        self,
        custom_type: str,
        content: str | Sequence[TextContent | ImageContent],
        *,
        display: bool = True,
        details: Any = None,
        deliver_as: DeliverAs | None = None,
        trigger_turn: bool = False,
    ) -> Awaitable[None]:
        """Add a custom message (the model sees it as a user message); spec §4.3.1.

        The message is handed over when called; awaiting waits until it is delivered (with
        ``trigger_turn``: until the run it started is over). A failure is reported as an error of
        the plugin when nobody awaits.
        """
        ...

    def send_user_message(
        self,
        content: str | Sequence[TextContent | ImageContent],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> Awaitable[None]:
        """Send a real user message through the prompt pipeline (``input`` source ``extension``).

        Handed over when called, like :meth:`send_message`; awaiting waits for the run. With
        ``expand_prompt_templates=True`` a ``/command`` runs and skills and prompt templates
        expand, as if the user typed it (not for a message queued with ``deliver_as``).
        """
        ...

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """Append a custom entry to the session (state persistence; never sent to the model); its id."""
        ...

    def set_session_name(self, name: str) -> None: ...

    def get_session_name(self) -> str | None: ...

    def set_label(self, entry_id: str, label: str | None) -> None: ...

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        signal: AbortSignal | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (seconds; kills the process group)
        cwd: str | None = None,
        max_buffer: int = 256 * 1024 * 1024,
    ) -> ExecResult:
        """Run a program without a shell; never raises for the program's failure (code 1 on spawn errors).

        ``timeout`` is in seconds. It, ``signal``, and stdout plus stderr passing ``max_buffer``
        bytes end the program's whole process group (SIGTERM, then SIGKILL five seconds later).
        A ``max_buffer`` that is not a whole number of bytes (0 or more) raises ``ValueError``.
        """
        ...

    def get_active_tools(self) -> list[str]: ...

    def get_all_tools(self) -> list[str]:
        """Names of every registered tool, active or not."""
        ...

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Activate exactly these registered tools; unknown and ``hidden`` names are ignored."""
        ...

    def register_tool(self, tool: AgentTool) -> None:
        """Register (or replace) a tool at any time; the next request declares it.

        ``direct``/``model-only`` tools become active unless ``default_active=False``; a name another
        plugin registered raises ``ValueError``; a built-in of the same name is overridden.
        """
        ...

    def unregister_tool(self, name: str) -> bool:
        """Remove a tool this plugin registered (False when there is none); the next request omits it."""
        ...

    def get_commands(self) -> list[dict[str, Any]]:
        """Plugin commands, prompt templates and skills (``{name, description?, source, sourceInfo}``)."""
        ...

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """Add (or replace) an MCP server of this plugin, in the shape of an ``mcp.json`` ``mcpServers``
        entry, for this plugin load; fires ``mcp_servers_change``. A bad name, a config that is not
        an object, or a name another plugin registered raises ``ValueError``."""
        ...

    def unregister_mcp_server(self, name: str) -> bool:
        """Remove an MCP server this plugin registered (False when there is none); fires
        ``mcp_servers_change``."""
        ...

    def get_mcp_servers(self) -> list[RegisteredMcpServer]:
        """The MCP servers plugins registered (``name``, ``config``, ``extension_path``), in order."""
        ...

    async def set_model(self, model: Any) -> bool:
        """Switch model; ``False`` when no credentials are configured for it."""
        ...

    def get_thinking_level(self) -> str: ...

    def set_thinking_level(self, level: str) -> None: ...

    def get_flag(self, name: str) -> Any:
        """Value of a flag registered through ``register_flags`` (name without ``--``), or ``None``."""
        ...

    @property
    def events(self) -> Any:
        """The bus the plugins of this runtime share: ``on(channel, fn)`` → unsubscribe,
        ``emit(channel, data)``, ``clear()`` (see :mod:`pi_core.runtime.event_bus`)."""
        ...


@runtime_checkable
class ToolContext(ExtensionContext, Protocol):
    """What a tool's ``execute`` receives as ``ctx``: the extension context plus nested tool calls."""

    @property
    def tool_call_id(self) -> str:
        """The id of the call being executed (nested calls get ``<this id>/<n>``)."""
        ...

    @property
    def tools(self) -> list[str]:
        """Names of the tools :meth:`execute_tool` can call (active direct, codemode, deferred)."""
        ...

    async def execute_tool(
        self,
        name: str,
        args: dict[str, Any],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[AgentToolResult], None] | None = None,
    ) -> AgentToolResult:
        """Call another tool through validation and the ``tool_call``/``tool_result`` hooks.

        Never raises for that tool's failure: the result has ``is_error=True`` instead.
        """
        ...


class SessionChangeResult(Protocol):
    @property
    def cancelled(self) -> bool:
        """True when a ``session_before_*`` handler (or the user) cancelled the change."""
        ...


@runtime_checkable
class CommandContext(ExtensionContext, Protocol):
    """What a command handler receives: the extension context plus session control (spec §4.4).

    Only commands get these, because they wait for the agent and would deadlock inside the loop.
    """

    async def wait_for_idle(self) -> None: ...

    def get_system_prompt_options(self) -> SystemPromptOptions:
        """What the default prompt is built from now (a copy): the active tools with their snippets
        and guidelines, SYSTEM.md/APPEND_SYSTEM.md, the context files and skills. Not this run's
        ``before_agent_start`` changes. It holds the context files' text: keep it to yourself."""
        ...

    async def new_session(
        self,
        *,
        parent_session: str | None = None,
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
        with_session: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> SessionChangeResult: ...

    async def fork(
        self,
        entry_id: str,
        *,
        position: str = "before",
        with_session: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> SessionChangeResult: ...

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> SessionChangeResult: ...

    async def switch_session(
        self, path: str, *, with_session: Callable[[Any], Awaitable[None] | None] | None = None
    ) -> SessionChangeResult: ...

    async def reload(self) -> None: ...
