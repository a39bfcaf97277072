"""The hook specifications of pi: 38 lifecycle events (pi v1.6.0's that apply) and 10 registration hooks.

Hook names are pi's event names. Every event hook takes ``(event, ctx)``: ``event`` is the pydantic
model from :mod:`pi_core.plugins.events` whose ``type`` equals the hook name, and ``ctx`` is the
:class:`~pi_core.plugins.context.ExtensionContext`, one object shared by all handlers of a dispatch.
An implementation may accept a subset of the arguments (``def agent_start(ctx)``), may be ``def`` or
``async def``, and returns ``None``, the hook's result model, or a dict of the same shape.

Handlers run in load order (``-e`` paths, project settings, project ``.pi/extensions``, global
settings, global extensions, installed packages, built-ins), one at a time; ``tryfirst``/``trylast``
move a handler to the front or the back. How the results of several handlers combine is declared
per hook (``Combine:`` below; the rules are those of pi's runner).

Lifecycle of one prompt::

    start-up ─ project_trust (project code waiting) ─ session_start ─ resources_discover
    prompt   ─ input ─ before_agent_start ─ agent_start
      turn   ─ turn_start ─ message_start/end (user)
        LLM  ─ context ─ context_with_system ─ before_provider_request ─ after_provider_response
             ─ message_start ─ message_update* ─ message_end (assistant)
        tools─ tool_execution_start ─ tool_call ─ tool_execution_update* ─ tool_result
             ─ tool_execution_end ─ message_start/end (toolResult)
             ─ turn_end ─ (next turn …)
    end      ─ agent_end ─ [session_before_compact ─ session_compact | session_compact_failed]
             ─ agent_before_settle ─ agent_settled
    dialogs  ─ ui_prompt_start ─ ui_prompt_end (around ctx.ui.select/confirm/input/editor)
    sessions ─ session_before_switch | session_before_fork | session_before_tree ─ session_shutdown
             ─ session_tree ─ session_info_changed ─ model_select ─ thinking_level_select
             ─ user_bash (REPL ``!cmd``)
    plugins  ─ mcp_servers_change (``ctx.register_mcp_server`` / ``unregister_mcp_server``)

Of pi 1.6.0's 41 events, ``cache_warming_decision`` has no counterpart here (docs/porting.md
says why).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_core._markers import hookspec
from pi_core.plugins.combine import Combine, event_hook
from pi_core.plugins.events import (
    AfterProviderResponseEvent,
    AgentBeforeSettleEvent,
    AgentBeforeSettleResult,
    AgentEndEvent,
    AgentSettledEvent,
    AgentStartEvent,
    BeforeAgentStartEvent,
    BeforeAgentStartResult,
    BeforeProviderHeadersEvent,
    BeforeProviderRequestEvent,
    BeforeProviderRequestResult,
    ContextEvent,
    ContextResult,
    ContextWithSystemEvent,
    ContextWithSystemResult,
    InputEvent,
    InputResult,
    McpServersChangeEvent,
    MessageEndEvent,
    MessageEndResult,
    MessageStartEvent,
    MessageUpdateEvent,
    ModelSelectEvent,
    ProjectTrustEvent,
    ProjectTrustResult,
    ProviderStreamEvent,
    ResourcesDiscoverEvent,
    ResourcesDiscoverResult,
    SessionBeforeCompactEvent,
    SessionBeforeCompactResult,
    SessionBeforeForkEvent,
    SessionBeforeForkResult,
    SessionBeforeSwitchEvent,
    SessionBeforeSwitchResult,
    SessionBeforeTreeEvent,
    SessionBeforeTreeResult,
    SessionCompactEvent,
    SessionCompactFailedEvent,
    SessionInfoChangedEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionTreeEvent,
    ThinkingLevelSelectEvent,
    ToolCallEvent,
    ToolCallResult,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolResultEvent,
    ToolResultResult,
    TurnEndEvent,
    TurnEndResult,
    TurnStartEvent,
    UiPromptEndEvent,
    UiPromptStartEvent,
    UserBashEvent,
    UserBashResult,
)

if TYPE_CHECKING:
    from pi_core.plugins.context import ExtensionContext, ProjectTrustContext

Ret = Any  # a result model, a dict of the same shape, or None (possibly awaitable)

# ==================================================================================================
# Registration hooks: called once per plugin at start-up, on /reload and on session replacement,
# each with its own ``register`` callable so every registration is recorded with the plugin that made it.
# ==================================================================================================


@hookspec
def register_tools(register: Callable[..., None]) -> None:
    """Register tools the model can call.

    Called once per plugin at start-up, on ``/reload`` and on every session replacement (the
    plugins are loaded again then), before ``session_start``.

    Combine: each plugin registers into its own record. The same tool name from two plugins is a load
    error naming both (pi exits with status 1); a plugin tool with a built-in tool's name replaces it.

    :param register: ``register(tool: pi_core.agent.tools.AgentTool)``.
    :returns: nothing; may be ``async def``.

    Errors: an exception here is a load error of the plugin.

    Example::

        from __future__ import annotations

        from collections.abc import Callable
        from typing import Any

        from pi_core import hookimpl
        from pi_core.agent.tools import AgentTool, AgentToolResult
        from pi_core.ai.messages import TextContent


        async def say_hello(
            tool_call_id: str, params: dict[str, Any], signal: object, on_update: object, ctx: object
        ) -> AgentToolResult:
            return AgentToolResult(content=[TextContent(text=f"Hello, {params['name']}!")])


        @hookimpl
        def register_tools(register: Callable[[AgentTool], None]) -> None:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            register(AgentTool("hello", "Hello", "Say hello", parameters=schema, execute=say_hello))

    .. versionadded:: 0.1
    """


@hookspec
def register_commands(register: Callable[..., None]) -> None:
    """Register slash commands (``/name args``).

    Called once per plugin at start-up, on ``/reload`` and on every session replacement.

    Combine: all registrations are kept; when several plugins register one name, the invocation
    names become ``name:1``, ``name:2`` … in load order.

    :param register: ``register(name: str, handler, *, description: str | None = None,
        get_argument_completions=None)``; ``handler(args: str, ctx: CommandContext)`` may be async.
    :returns: nothing; may be ``async def``.

    Errors: an exception here is a load error of the plugin.

    Example::

        from __future__ import annotations

        from collections.abc import Callable
        from typing import Any

        from pi_core import hookimpl
        from pi_core.plugins.context import CommandContext


        async def greet(args: str, ctx: CommandContext) -> None:
            ctx.ui.notify(f"Hello, {args or 'world'}!")


        @hookimpl
        def register_commands(register: Callable[..., None]) -> None:
            register("hello", greet, description="Say hello")

    .. versionadded:: 0.1
    """


@hookspec
def register_providers(register: Callable[..., None]) -> None:
    """Register LLM providers (an ``ApiProvider``, a ``ProviderConfig``, a ``ProviderDefinition``
    or an ``OAuthProvider``, the login a definition's ``oauth`` names).

    Called once per plugin at start-up; registrations are applied after every plugin loaded.

    Combine: registrations are applied in load order; a later registration of a provider name
    replaces the earlier one (pi's ``registerProvider``).

    :param register: ``register(provider: pi_core.ai.provider.ApiProvider | ProviderConfig |
        ProviderDefinition | OAuthProvider)``; a definition is built-in data that models.json can
        patch; an ``OAuthProvider`` is what ``/login`` runs for its provider.
    :returns: nothing; may be ``async def`` (e.g. to fetch a model list).

    Errors: an exception here is a load error of the plugin.

    Example::

        from __future__ import annotations

        from collections.abc import Callable

        from pi_core import hookimpl
        from pi_core.ai.provider import ProviderConfig, ProviderModelConfig


        @hookimpl
        def register_providers(register: Callable[[ProviderConfig], None]) -> None:
            register(
                ProviderConfig(
                    id="local",
                    base_url="http://127.0.0.1:8080/v1",
                    api="openai-completions",
                    api_key="none",
                    models=[ProviderModelConfig(id="qwen3-coder", context_window=32768)],
                )
            )

    .. versionadded:: 0.1
    """


@hookspec
def register_flags(register: Callable[..., None]) -> None:
    """Declare command-line flags (``--name``), listed in ``pi --help``.

    Called once per plugin before the command line is parsed.

    Combine: the same flag name from two plugins is a load error naming both (exit status 1).

    :param register: ``register(name: str, *, type: "boolean" | "string" = "boolean",
        default=None, description: str | None = None)`` (name without ``--``).
    :returns: nothing.

    Errors: an exception here is a load error of the plugin.

    Example::

        from __future__ import annotations

        from collections.abc import Callable

        from pi_core import hookimpl


        @hookimpl
        def register_flags(register: Callable[..., None]) -> None:
            register("plan", type="boolean", description="Start in plan mode")

    .. versionadded:: 0.1
    """


@hookspec
def register_shortcuts(register: Callable[..., None]) -> None:
    """Register keyboard shortcuts of the interactive mode (e.g. ``ctrl+alt+p``).

    Called once per plugin when the REPL binds plugins.

    Combine: two plugins on one key combination: the later one in load order wins, with a warning.

    :param register: ``register(key: str, handler, *, description: str | None = None)``;
        ``handler(ctx)`` may be async.
    :returns: nothing.

    Errors: an exception here is a load error of the plugin.

    Example::

        from __future__ import annotations

        from collections.abc import Callable

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext


        def toggle_plan(ctx: ExtensionContext) -> None:
            ctx.ui.notify("plan mode toggled")


        @hookimpl
        def register_shortcuts(register: Callable[..., None]) -> None:
            register("ctrl+alt+p", toggle_plan, description="Toggle plan mode")

    .. versionadded:: 0.1
    """


@hookspec
def register_message_renderers(register: Callable[..., None]) -> None:
    """Register REPL renderers for custom messages of a ``custom_type``.

    Called once per plugin when the REPL binds plugins.

    Combine: the first plugin in load order registering a ``custom_type`` wins.

    :param register: ``register(custom_type: str, render)``; ``render(message, options, theme)``
        returns a rich renderable, text or ``None`` (drawn as ``[type] text``).
    :returns: nothing.

    Errors: an exception here is a load error of the plugin; a ``render`` that raises is reported
    once as the plugin's error (part ``render_message``) and the message is drawn as ``[type] text``.

    Example::

        from __future__ import annotations

        from collections.abc import Callable
        from typing import Any

        from pi_core import hookimpl


        def render_todos(message: Any, options: Any, theme: Any) -> str:
            return f"todo: {message.content}"


        @hookimpl
        def register_message_renderers(register: Callable[..., None]) -> None:
            register("todo-list", render_todos)

    .. versionadded:: 0.1
    """


@hookspec
def register_entry_renderers(register: Callable[..., None]) -> None:
    """Register REPL renderers for ``custom`` entries (``ctx.append_entry``) of a ``custom_type``.

    Such entries never reach the model; with a renderer they show in the transcript.
    Called once per plugin when plugins load.

    Combine: the first plugin in load order registering a ``custom_type`` wins.

    :param register: ``register(custom_type: str, render)``; ``render(entry, options, theme)``
        gets the ``CustomEntry`` (its ``data``), ``options["expanded"]`` (Ctrl+O) and
        ``ctx.ui.theme``'s palette, and returns a rich renderable (or text, ANSI colours kept)
        or ``None`` to show nothing. The REPL (both modes) draws an entry when it is appended,
        and again where it was appended when a session is resumed, switched to or forked.
    :returns: nothing.

    Errors: an exception in this hook is a load error of the plugin. A renderer that raises
    while the REPL draws is reported once as this plugin's error (part ``render_entry``) and
    the entry is left out of the transcript.

    Example::

        from __future__ import annotations

        from collections.abc import Callable
        from typing import Any

        from pi_core import hookimpl


        def status_card(entry: Any, options: Any, theme: Any) -> str:
            data = entry.data or {}
            return str(theme.bold(f"{data.get('title')}: {data.get('count')}"))


        @hookimpl
        def register_entry_renderers(register: Callable[..., None]) -> None:
            register("status-card", status_card)

    .. versionadded:: 0.2
    """


@hookspec
def register_tool_renderers(register: Callable[..., None]) -> None:
    """Register a resolver that chooses how calls of any tool are drawn in the REPL, also of
    tools not registered (yet), such as MCP tools of a resumed session.

    Combine: resolvers run in load order; ``resolve(tool_name, next)`` returns a renderer or
    ``None``, and ``next()`` is what the later resolvers, then the tool's own ``render_call`` /
    ``render_result``, would use — ``next() or mine`` only fills gaps.

    :param register: ``register(resolve)``; the renderer it returns has ``render_call(args,
        ctx)`` and/or ``render_result(result, options, ctx)``, called as the tool's own
        renderers of ``AgentTool`` are: ``ctx`` is the extension context (``ctx.ui.theme``
        for colours), ``options`` has ``expanded`` and ``isError``. Each returns a rich
        renderable, text (ANSI colours kept) or ``None`` for the default drawing. The REPL
        (both modes) resolves when it draws a call, so a renderer registered for a tool that
        comes later still applies.
    :returns: nothing.

    Errors: an exception in this hook is a load error of the plugin. A resolver or renderer
    that raises while the REPL draws is reported once as this plugin's error (part
    ``register_tool_renderers``, ``render_call`` or ``render_result``) and the default
    drawing (the tool's name and arguments, the result's text) is shown instead.

    Example::

        from __future__ import annotations

        from collections.abc import Callable
        from types import SimpleNamespace
        from typing import Any

        from pi_core import hookimpl


        def mcp_titles(tool_name: str, next: Callable[[], Any]) -> Any:
            if not tool_name.startswith("mcp__"):
                return next()
            title = SimpleNamespace(render_call=lambda args, ctx: ctx.ui.theme.fg("toolTitle", tool_name))
            return next() or title


        @hookimpl
        def register_tool_renderers(register: Callable[..., None]) -> None:
            register(mcp_titles)

    .. versionadded:: 0.2
    """


@hookspec
def register_markdown_transformers(register: Callable[..., None]) -> None:
    """Register a transformer of Markdown the REPL is about to render (display only: the session
    and the model keep the original).

    Combine: CHAIN in load order — each transformer gets the previous one's text; one per plugin
    (registering again replaces it). One that raises is reported and skipped.

    :param register: ``register(transform, message_types=None)``; ``transform(markdown, context)``
        returns text; ``context`` is a ``MarkdownContext`` (``message_type``, ``is_streaming``,
        ``available_width``, ``message_id``, ``timestamp``). ``message_types`` picks the surfaces
        (``user``, ``assistant``, ``assistant-thinking`` — the default — ``custom``, ``summary``,
        ``changelog``). Keep it quick: it runs on every streamed update. The REPL prints an
        answer block by block; a block printed whole is final (``is_streaming`` false), the
        fullscreen preview of the block still growing is streaming.
    :returns: nothing.

    Errors: an exception in this hook is a load error of the plugin. A transformer that raises
    or returns something else than text while the REPL draws is reported once as this
    plugin's error (part ``markdown_transformer``) and skipped: the text so far is drawn.

    Example::

        from __future__ import annotations

        from collections.abc import Callable

        from pi_core import hookimpl
        from pi_core.plugins.renderers import MarkdownContext


        def arrows(markdown: str, context: MarkdownContext) -> str:
            return markdown if context.is_streaming else markdown.replace("-->", "→")


        @hookimpl
        def register_markdown_transformers(register: Callable[..., None]) -> None:
            register(arrows, message_types=["assistant", "custom"])

    .. versionadded:: 0.2
    """


@hookspec
def register_compaction_strategies(register: Callable[..., None]) -> None:
    """Register compaction strategies by name; ``settings.json`` ``compaction.strategy`` picks one.

    Called once per plugin at start-up, on ``/reload`` and on every session replacement.

    Combine: the same strategy name from two plugins is a load error naming both.

    :param register: ``register(name: str, strategy: CompactionStrategy)``.
    :returns: nothing.

    Errors: an exception here is a load error of the plugin.

    Example::

        from __future__ import annotations

        from collections.abc import Callable
        from typing import Any

        from pi_core import hookimpl


        @hookimpl
        def register_compaction_strategies(register: Callable[[str, Any], None]) -> None:
            from pi_ext_keep_recent.strategy import KeepRecentStrategy  # plugins-example/pi-ext-keep-recent

            register("newest-only", KeepRecentStrategy())

    .. versionadded:: 0.1
    """


# ==================================================================================================
# Start-up and resources
# ==================================================================================================


@hookspec
@event_hook(Combine.FIRST, ProjectTrustEvent, ProjectTrustResult)
def project_trust(event: ProjectTrustEvent, ctx: ProjectTrustContext) -> Ret:
    """Before the code of a project (``.pi/extensions``, plugins its ``.pi/settings.json`` lists,
    its ``.pi/mcp.json`` servers) is trusted or left out: plugins already loaded decide.

    Fires at start-up and when ``/reload`` or a session replacement loads the plugins for a
    directory no plugin has decided about in this process, whenever such code exists and
    neither ``--approve`` nor ``--no-approve`` decides the run — also in a project trusted
    before (a ``no`` keeps its code out). Only plugins from outside the project take part: ``-e``
    paths, ``~/.pi/agent/extensions``, global settings paths and installed distributions; the
    project's own plugins load after the decision, in their usual place in load order.

    Combine: FIRST — the first handler in load order answering ``yes`` or ``no`` decides; later
    handlers are not called. ``undecided`` or ``None`` passes the question on. When nobody
    decides, pi's trust flow goes on: the recorded trust (``pi trust``), else the REPL asks and
    the other modes stop saying how to trust the project.

    :param event: ``cwd`` — the project directory.
    :param ctx: a ``ProjectTrustContext``: ``cwd``, ``mode`` (``tui``, ``print``, ``json``,
        ``rpc``), ``has_ui`` and ``ui`` with ``select``, ``confirm``, ``input`` and
        ``notify`` (the dialogs answer nothing without a terminal; check ``ctx.has_ui``).
    :returns: ``ProjectTrustResult(trusted="yes" | "no" | "undecided", remember=False)`` or
        ``None``. ``yes`` loads the project's code for this process, ``no`` leaves it out
        without asking and the run goes on; with ``remember=True`` the answer is recorded for
        later runs too (a yes as ``pi trust`` records it, a no until ``pi trust`` or
        ``pi untrust``).

    Errors: a raising handler, or one returning something else than a ``ProjectTrustResult``, is
    reported and counts as undecided.

    Example::

        from __future__ import annotations

        from pathlib import Path

        from pi_core import hookimpl
        from pi_core.plugins.context import ProjectTrustContext
        from pi_core.plugins.events import ProjectTrustEvent, ProjectTrustResult

        MINE = Path.home() / "work"


        @hookimpl
        async def project_trust(event: ProjectTrustEvent, ctx: ProjectTrustContext) -> ProjectTrustResult:
            if Path(event.cwd).is_relative_to(MINE):
                return ProjectTrustResult(trusted="yes")
            if ctx.has_ui and await ctx.ui.confirm("Run this project's plugins?", event.cwd):
                return ProjectTrustResult(trusted="yes", remember=True)
            return ProjectTrustResult(trusted="undecided")

    .. versionadded:: 1.6.0
    """


@hookspec
@event_hook(Combine.NOTIFY, SessionStartEvent)
def session_start(event: SessionStartEvent, ctx: ExtensionContext) -> Ret:
    """A plugin runtime became bound to a session: start-up, ``/new``, ``/resume``, ``/fork``, ``/reload``.

    Fires once the mode is attached (``ctx.ui`` is the real UI), on the freshly loaded plugin
    instances; ``resources_discover`` follows.

    Combine: NOTIFY — return values are ignored; every handler runs.

    :param event: ``reason`` (``startup | reload | new | resume | fork``; import uses ``resume``,
        clone uses ``fork``), ``previous_session_file`` (set for new/resume/fork).

    Errors: a raising handler is reported with plugin and hook, and skipped.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionStartEvent


        @hookimpl
        def session_start(event: SessionStartEvent, ctx: ExtensionContext) -> None:
            # Rebuild plugin state from this branch's entries (module state starts over on reload).
            branch = ctx.session_manager.get_branch()
            done = [e for e in branch if e.type == "custom" and e.custom_type == "todo"]
            ctx.ui.set_status("todo", f"{len(done)} todo entries ({event.reason})")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.ACCUMULATE, ResourcesDiscoverEvent, ResourcesDiscoverResult)
def resources_discover(event: ResourcesDiscoverEvent, ctx: ExtensionContext) -> Ret:
    """Right after ``session_start``: plugins may contribute skill, prompt-template and theme paths.

    Combine: ACCUMULATE — the paths of every handler are collected per list in load order, each tagged
    with the contributing plugin (``ResourcesDiscoverOutcome``); the system prompt is then rebuilt.

    :param event: ``cwd``, ``reason`` (``startup | reload``).
    :returns: ``ResourcesDiscoverResult(skill_paths=, prompt_paths=, theme_paths=)`` or ``None``.

    Errors: a raising handler is reported and contributes nothing.

    Example::

        from __future__ import annotations

        from pathlib import Path

        from pi_core import hookimpl
        from pi_core.plugins.events import ResourcesDiscoverEvent, ResourcesDiscoverResult

        HERE = Path(__file__).parent


        @hookimpl
        def resources_discover(event: ResourcesDiscoverEvent) -> ResourcesDiscoverResult:
            return ResourcesDiscoverResult(skill_paths=[str(HERE / "skills")])

    .. versionadded:: 0.1
    """


# ==================================================================================================
# Prompt pipeline and agent run
# ==================================================================================================


@hookspec
@event_hook(
    Combine.CHAIN,
    InputEvent,
    InputResult,
    rule="CHAIN of transforms + FIRST handled",
)
def input(event: InputEvent, ctx: ExtensionContext) -> Ret:
    """Text enters the prompt pipeline (after slash-command lookup, before skill/template expansion).

    Combine: CHAIN of transforms + FIRST ``handled`` — each handler sees the current ``event.text`` /
    ``event.images`` (a ``transform`` replaces them; images only when given); the first ``handled``
    stops dispatch and the input is dropped. The combined result is ``transform`` when anything
    changed, else ``continue``. ``None`` means continue.

    :param event: ``text``, ``images``, ``source`` (``interactive | rpc | extension``),
        ``streaming_behavior`` (``steer``/``followUp`` when the input is queued for a busy agent).
    :returns: ``InputResult(action="continue" | "transform" | "handled", text=, images=)`` or ``None``.

    Errors: a raising handler is reported and treated as ``continue``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import InputEvent, InputResult


        @hookimpl
        def input(event: InputEvent) -> InputResult | None:
            if event.text.startswith("?quick "):
                return InputResult(action="transform", text="Answer briefly: " + event.text[7:])
            return None

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(
    Combine.ACCUMULATE,
    BeforeAgentStartEvent,
    BeforeAgentStartResult,
    rule="ACCUMULATE messages + CHAIN system_prompt",
)
def before_agent_start(event: BeforeAgentStartEvent, ctx: ExtensionContext) -> Ret:
    """Once per accepted prompt, after expansion and before ``agent_start``.

    Combine: ACCUMULATE messages + CHAIN ``system_prompt`` — every returned ``message`` is added to the
    prompt in load order (persisted, sent to the model as user role); a non-empty ``system_prompt``
    replaces ``event.system_prompt`` for the next handler and for the run. Empty string = no change.
    ``system_prompt_options`` is edited in place (later handlers see the edits): when no handler
    returned a ``system_prompt``, edited options rebuild the prompt for this run — new
    ``prompt_guidelines`` or ``sections``, fewer or other ``selected_tools`` (the tools sent change
    too), or ``force_system_prompt`` for exact text. The session records the rebuilt prompt as a
    system message; the next run starts from the default again.

    :param event: ``prompt``, ``images``, ``system_prompt`` (as chained so far; starts from the base
        prompt every time), ``system_prompt_options`` (a ``SystemPromptOptions``: cwd, active tools
        with their snippets and guidelines, SYSTEM.md/APPEND_SYSTEM.md, context files, skills).
    :param ctx: the extension context; ``ctx.get_system_prompt()`` follows the chain.
    :returns: ``BeforeAgentStartResult(message=InjectedMessage(...), system_prompt=)`` or ``None``.

    Errors: a raising handler is reported and contributes nothing.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import BeforeAgentStartEvent, BeforeAgentStartResult


        @hookimpl
        def before_agent_start(event: BeforeAgentStartEvent) -> BeforeAgentStartResult:
            return BeforeAgentStartResult(system_prompt=event.system_prompt + "\\nTalk like a pirate.")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, AgentStartEvent)
def agent_start(event: AgentStartEvent, ctx: ExtensionContext) -> Ret:
    """An agent run begins (one per accepted prompt, automatic retry, or triggered message).

    :param event: no fields besides ``type``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext


        @hookimpl
        def agent_start(ctx: ExtensionContext) -> None:
            ctx.ui.set_status("demo", "running")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, AgentEndEvent)
def agent_end(event: AgentEndEvent, ctx: ExtensionContext) -> Ret:
    """An agent run ended (normally, by error, or by abort).

    Combine: NOTIFY — return values are ignored; to stop a run use ``ctx.abort()``.

    :param event: ``messages`` — every message added during this run.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import AgentEndEvent


        @hookimpl
        def agent_end(event: AgentEndEvent, ctx: ExtensionContext) -> None:
            ctx.ui.notify(f"{len(event.messages)} messages")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.BOUNDARY, AgentBeforeSettleEvent, AgentBeforeSettleResult)
def agent_before_settle(event: AgentBeforeSettleEvent, ctx: ExtensionContext) -> Ret:
    """The last moment to act before the session settles: retries, compaction and queued messages
    are done and pi would stop. Not fired for an aborted run.

    Combine: BOUNDARY — handlers run in load order; each sees the proposal so far in
    ``event.entries`` and ``event.continue_`` and may return ``entries`` or ``continue`` to
    replace that field (a field left out keeps the proposal). After the last handler the entries are
    appended in order (``custom``: plugin state; ``custom_message``: a message the model reads as
    the user's); with ``continue`` pi makes one more run, which needs the transcript to end with such
    a message. The event fires again after that run: guard your condition.

    :param event: ``messages`` of the run, the proposed ``entries`` and ``continue_``.
    :returns: ``AgentBeforeSettleResult(entries=, continue_=)`` or ``None``.

    Errors: a raising handler is reported and later handlers still run; an invalid proposal is
    reported and nothing of it is applied.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import AgentBeforeSettleEvent, AgentBeforeSettleResult, SettleEntry


        @hookimpl
        def agent_before_settle(
            event: AgentBeforeSettleEvent, ctx: ExtensionContext
        ) -> AgentBeforeSettleResult | None:
            branch = ctx.session_manager.get_branch()
            if any(e.type == "custom_message" and e.custom_type == "review" for e in branch):
                return None  # asked once already
            reminder = SettleEntry(type="custom_message", custom_type="review", content="Review the diff.")
            return AgentBeforeSettleResult(entries=[*event.entries, reminder], continue_=True)

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.NOTIFY, AgentSettledEvent, fire_and_forget=True)
def agent_settled(event: AgentSettledEvent, ctx: ExtensionContext) -> Ret:
    """pi will not continue on its own: the run, its retries and continuations are over.

    Unlike ``agent_end`` (which may be followed by a retry, a compaction and its retry, or queued
    messages), this is final. ``ctx.is_idle()`` is true; what a handler starts (a prompt, a
    message with ``trigger_turn``) runs once every handler is done.

    Combine: NOTIFY, fire-and-forget — dispatched as a background task; return values are ignored.

    :param event: ``aborted`` — the run ended because the user aborted it.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import AgentSettledEvent


        @hookimpl
        def agent_settled(event: AgentSettledEvent, ctx: ExtensionContext) -> None:
            ctx.ui.notify("aborted" if event.aborted else "pi is done", "info")

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.NOTIFY, UiPromptStartEvent, fire_and_forget=True)
def ui_prompt_start(event: UiPromptStartEvent, ctx: ExtensionContext) -> Ret:
    """A plugin's dialog (``ctx.ui.select/confirm/input/editor``) starts waiting for the user.

    Nested or overlapping dialogs make one span: this fires for the outermost only.

    Combine: NOTIFY, fire-and-forget — not awaited before the dialog shows.

    :param event: ``kind`` (``select | confirm | input | editor | custom``), ``title``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import UiPromptStartEvent


        @hookimpl
        def ui_prompt_start(event: UiPromptStartEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_title(f"pi: waiting for you ({event.kind})")

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.NOTIFY, UiPromptEndEvent, fire_and_forget=True)
def ui_prompt_end(event: UiPromptEndEvent, ctx: ExtensionContext) -> Ret:
    """The span of waiting for the user that ``ui_prompt_start`` opened is over.

    Combine: NOTIFY, fire-and-forget — not awaited before the dialog closes.

    :param event: ``kind`` and ``title`` of the outermost dialog.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import UiPromptEndEvent


        @hookimpl
        def ui_prompt_end(event: UiPromptEndEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_title("pi")

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.NOTIFY, TurnStartEvent)
def turn_start(event: TurnStartEvent, ctx: ExtensionContext) -> Ret:
    """A turn (one assistant response plus its tool calls) begins.

    :param event: ``turn_index`` (0-based within the run), ``timestamp`` (ms since the epoch).

    Example::

        from __future__ import annotations

        import time

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import TurnStartEvent


        @hookimpl
        def turn_start(event: TurnStartEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("turn", f"turn {event.turn_index} at {time.strftime('%H:%M:%S')}")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.BOUNDARY, TurnEndEvent, TurnEndResult)
def turn_end(event: TurnEndEvent, ctx: ExtensionContext) -> Ret:
    """A turn ended: its assistant message and tool results are in the session file.

    Combine: BOUNDARY — handlers run in load order; each sees the proposal so far in
    ``event.entries`` and ``event.continue_`` (and ``event.context``, the next request's messages
    with that proposal applied) and may return ``entries`` or ``continue`` to replace that field.
    After the last handler the entries are appended in order: ``custom`` (plugin state),
    ``custom_message`` (a message the model reads as the user's; no ``input`` hook, command or
    template runs for it) and ``context_edit`` (leave out or replace the message of an entry, e.g.
    ``event.message_entry_id``, from the next request on). ``continue`` makes sure one more request
    follows: tool results, steering or a follow-up already do that; otherwise pi sends the context
    as it is. An ``error`` or ``aborted`` outcome ends the run anyway. The event fires after that
    request's turn too: guard your condition, or it loops.

    :param event: ``turn_index``, ``message`` (the assistant message), ``tool_results``,
        ``message_entry_id``, ``tool_result_entry_ids``, ``outcome``
        (``completed | error | aborted``), the proposed ``entries`` and ``continue_``, ``context``.
    :returns: ``TurnEndResult(entries=, continue_=)`` or ``None``.

    Errors: a raising handler is reported and later handlers still run; a proposal that does not
    fit (a ``context_edit`` of an entry not on the branch, …) is reported and nothing of it applied.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SettleEntry, TurnEndEvent, TurnEndResult


        @hookimpl
        def turn_end(event: TurnEndEvent, ctx: ExtensionContext) -> TurnEndResult | None:
            usage = ctx.get_context_usage()
            if usage is not None and (usage.tokens or 0) > 100_000:
                ctx.compact()
            text = str(getattr(event.message, "content", ""))
            if event.outcome != "completed" or event.tool_results or "TODO" not in text:
                return None
            if any(getattr(e, "custom_type", None) == "no-todo" for e in ctx.session_manager.get_branch()):
                return None  # asked once already
            retry = SettleEntry(type="custom_message", custom_type="no-todo", content="Finish the TODOs.")
            return TurnEndResult(entries=[*event.entries, retry], continue_=True)

    .. versionadded:: 0.1
    .. versionchanged:: 0.2 actionable (entries, continue), as in pi 1.6.0.
    """


@hookspec
@event_hook(Combine.NOTIFY, MessageStartEvent)
def message_start(event: MessageStartEvent, ctx: ExtensionContext) -> Ret:
    """A message (user, assistant, tool result or custom) begins within an agent run.

    :param event: ``message``.

    Example::

        from __future__ import annotations

        import logging

        from pi_core import hookimpl
        from pi_core.plugins.events import MessageStartEvent

        log = logging.getLogger("my-plugin")


        @hookimpl
        def message_start(event: MessageStartEvent) -> None:
            log.info("message %s", event.message.role)

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, MessageUpdateEvent)
def message_update(event: MessageUpdateEvent, ctx: ExtensionContext) -> Ret:
    """A streaming delta of the assistant message arrived (fires for every delta: keep it cheap).

    :param event: ``message`` (snapshot of the partial assistant message), ``assistant_message_event``
        (the raw stream event: text/thinking/toolcall start, delta or end).

    Errors: a raising handler is reported (once per plugin and hook) and skipped.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import MessageUpdateEvent


        @hookimpl
        def message_update(event: MessageUpdateEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("blocks", f"{len(event.message.content)} content blocks")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.CHAIN, MessageEndEvent, MessageEndResult)
def message_end(event: MessageEndEvent, ctx: ExtensionContext) -> Ret:
    """A message is final, right before it is persisted.

    Combine: CHAIN — a returned ``message`` replaces ``event.message`` for the next handler and is
    what pi keeps; a replacement with a different ``role`` is rejected (reported) and skipped.
    ``None`` leaves the message unchanged.

    :param event: ``message``.
    :returns: ``MessageEndResult(message=...)`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.ai.messages import AssistantMessage, TextContent
        from pi_core.plugins.events import MessageEndEvent, MessageEndResult


        @hookimpl
        def message_end(event: MessageEndEvent) -> MessageEndResult | None:
            message = event.message
            if not isinstance(message, AssistantMessage):
                return None
            content = [
                TextContent(text=b.text.replace("hunter2", "*******")) if isinstance(b, TextContent) else b
                for b in message.content
            ]
            return MessageEndResult(message=message.model_copy(update={"content": content}))

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.CHAIN, ContextEvent, ContextResult)
def context(event: ContextEvent, ctx: ExtensionContext) -> Ret:
    """Before every LLM call: the conversation about to be sent, as a deep copy safe to change.

    The transcript's system messages (the prompt and tool state pi records) are not among
    ``event.messages``, as in pi 1.6.0; ``context_with_system`` sees them.

    Combine: CHAIN — a returned ``messages`` list replaces ``event.messages`` for the next handler;
    the final list is sent for this call only (nothing is persisted), led by the current system
    message. ``None`` = unchanged (every system message stays where it was).

    :param event: ``messages``.
    :returns: ``ContextResult(messages=[...])`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import ContextEvent, ContextResult


        @hookimpl
        def context(event: ContextEvent) -> ContextResult:
            return ContextResult(messages=[m for m in event.messages if m.role != "custom"])

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.CHAIN, ContextWithSystemEvent, ContextWithSystemResult)
def context_with_system(event: ContextWithSystemEvent, ctx: ExtensionContext) -> Ret:
    """Before every LLM call, after every ``context`` handler: the whole request as messages — a
    leading ``SystemMessage`` with the system prompt (``content``) and the tool declarations
    (``tools_added``), then the conversation. What the handlers return is the request.

    Combine: CHAIN — a returned ``messages`` list replaces ``event.messages`` for the next
    handler; ``None`` = unchanged. From the final list the request takes its system prompt and
    tools by replaying its system messages in order (``current_system_message``: contents
    joined, ``sections`` patched, ``tools_added``/``tools_removed`` applied) and sends the other
    messages. For this call only; nothing is persisted. Tools keep running as registered: taking
    a declaration away hides the tool from the model, it does not disable it.

    :param event: ``messages`` (a copy, safe to change). The transcript's own system messages
        are already folded into the leading one, which is what the request would carry.
    :returns: ``ContextWithSystemResult(messages=[...])`` or ``None``.

    Errors: a raising handler is reported and skipped. A result without a system message at
    index 0 is kept but reported as the plugin's error: the request then has no system prompt
    and no tools.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.ai.messages import SystemMessage
        from pi_core.plugins.events import ContextWithSystemEvent, ContextWithSystemResult


        @hookimpl
        def context_with_system(event: ContextWithSystemEvent) -> ContextWithSystemResult | None:
            head, *rest = event.messages
            if not isinstance(head, SystemMessage):
                return None
            # Keep the prompt and tools, send only the last 20 messages of the conversation.
            return ContextWithSystemResult(messages=[head, *rest[-20:]])

    .. versionadded:: 1.6.0
    """


@hookspec
@event_hook(Combine.NOTIFY, BeforeProviderHeadersEvent)
def before_provider_headers(event: BeforeProviderHeadersEvent, ctx: ExtensionContext) -> Ret:
    """The HTTP headers of the next provider request are assembled (once per request; retries
    reuse them).

    Combine: NOTIFY with in-place edits — handlers run in load order and edit ``event.headers``:
    a string adds or overrides a header, ``None`` removes it; later handlers see the edits.

    ``event.headers`` holds what models.json and the login add (provider and model ``headers``,
    ``authHeader``'s ``Authorization``); the SDK's own headers, the client identity
    (``User-Agent``) and the key's header are not in it, but the edits go over them as well, as
    in pi: a string replaces a header of that name whatever its case, and ``None`` leaves it out
    of the request whoever would have set it (``event.headers["x-stainless-os"] = None``).

    :param event: ``headers`` (mutable).

    Errors: a raising handler is reported and skipped; its edits so far stay.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import BeforeProviderHeadersEvent


        @hookimpl
        def before_provider_headers(event: BeforeProviderHeadersEvent, ctx: ExtensionContext) -> None:
            event.headers["x-session-id"] = str(ctx.session_manager.get_session_id())

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.CHAIN, BeforeProviderRequestEvent, BeforeProviderRequestResult)
def before_provider_request(event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> Ret:
    """The provider request body is built, right before it is sent.

    Combine: CHAIN — any returned value other than ``None`` replaces ``event.payload`` (return the
    bare payload or ``BeforeProviderRequestResult(payload=...)``); the next handler sees it.

    :param event: ``payload`` (the provider-specific request body).
    :returns: a replacement payload or ``None``.

    Example::

        from __future__ import annotations

        from typing import Any

        from pi_core import hookimpl
        from pi_core.plugins.events import BeforeProviderRequestEvent


        @hookimpl
        def before_provider_request(event: BeforeProviderRequestEvent) -> dict[str, Any]:
            return {**event.payload, "temperature": 0}

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, AfterProviderResponseEvent)
def after_provider_response(event: AfterProviderResponseEvent, ctx: ExtensionContext) -> Ret:
    """The provider's HTTP response headers arrived, before the body stream is read.

    Combine: NOTIFY — return values are ignored; abort with ``ctx.abort()`` if needed.

    :param event: ``status`` (HTTP status), ``headers`` (normalised header map; may be empty).

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import AfterProviderResponseEvent


        @hookimpl
        def after_provider_response(event: AfterProviderResponseEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("rate", event.headers.get("x-ratelimit-remaining"))

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, ProviderStreamEvent)
def provider_stream_event(event: ProviderStreamEvent, ctx: ExtensionContext) -> Ret:
    """One event of the provider's response stream, as its SDK parsed it, before pi maps it to
    ``message_update``. Nothing of it is persisted.

    Handlers are awaited in stream order, so a slow one slows the stream. Only pi's own
    providers (Anthropic, OpenAI completions and responses, and the services that speak them)
    report these; a provider a plugin registers does not.

    :param event: ``provider``, ``api``, ``model`` and ``data`` (the SDK event's fields as a dict).

    Example::

        from __future__ import annotations

        import json
        import logging

        from pi_core import hookimpl
        from pi_core.plugins.events import ProviderStreamEvent

        log = logging.getLogger("raw-stream")


        @hookimpl
        def provider_stream_event(event: ProviderStreamEvent) -> None:
            log.debug("%s: %s", event.model, json.dumps(event.data, default=str))

    .. versionadded:: 0.2
    """


# ==================================================================================================
# Tools
# ==================================================================================================


@hookspec
@event_hook(Combine.NOTIFY, ToolExecutionStartEvent)
def tool_execution_start(event: ToolExecutionStartEvent, ctx: ExtensionContext) -> Ret:
    """A tool call enters execution (before argument preparation and validation; also for unknown tools).

    Combine: NOTIFY — return values are ignored; use ``tool_call`` to block.

    :param event: ``tool_call_id``, ``tool_name``, ``args`` (raw arguments from the model).

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import ToolExecutionStartEvent


        @hookimpl
        def tool_execution_start(event: ToolExecutionStartEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("tool", f"running {event.tool_name}")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.BLOCK_OR_LAST, ToolCallEvent, ToolCallResult)
def tool_call(event: ToolCallEvent, ctx: ExtensionContext) -> Ret:
    """A validated tool call is about to run ``execute``: the place for permission gates.

    Combine: BLOCK_OR_LAST — each result replaces the previous one; ``block=True`` stops dispatch
    and the tool does not run (``reason`` becomes the error result). Edits to ``event.input`` in place
    are what ``execute`` receives; later handlers see them. ``None`` = no objection.

    :param event: ``tool_call_id``, ``tool_name``, ``input`` (mutable validated arguments),
        ``parent_tool_call_id`` (set when another tool made the call with ``ctx.execute_tool``).
    :returns: ``ToolCallResult(block=, reason=, terminate=)`` or ``None``; ``terminate`` with
        ``block`` ends the run after this batch when every call of the batch terminates.

    Errors: fail closed — a handler that raises or returns a result that does not fit (an unknown
    key such as ``blocked``) stops dispatch, is reported, and **blocks** the tool; the tool's error
    result names the plugin and the exception.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import ToolCallEvent, ToolCallResult


        @hookimpl
        def tool_call(event: ToolCallEvent) -> ToolCallResult | None:
            if event.tool_name == "bash" and "sudo" in str(event.input.get("command", "")):
                return ToolCallResult(block=True, reason="sudo is not allowed")
            return None

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, ToolExecutionUpdateEvent)
def tool_execution_update(event: ToolExecutionUpdateEvent, ctx: ExtensionContext) -> Ret:
    """A running tool streamed a partial result.

    :param event: ``tool_call_id``, ``tool_name``, ``args``, ``partial_result`` (``{content, details}``).

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import ToolExecutionUpdateEvent


        @hookimpl
        def tool_execution_update(event: ToolExecutionUpdateEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("tool", f"{event.tool_name}: working")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.PATCH_CHAIN, ToolResultEvent, ToolResultResult)
def tool_result(event: ToolResultEvent, ctx: ExtensionContext) -> Ret:
    """A tool finished (returned or raised), before its result is finalised. Not for blocked calls.

    Combine: PATCH_CHAIN — each handler sees the event with earlier patches applied; the fields a
    result sets (``content``, ``details``, ``is_error``, ``structured_content``) replace those of the
    event, ``None`` fields keep their value.

    :param event: ``tool_call_id``, ``tool_name``, ``input``, ``content``, ``details``, ``is_error``,
        ``structured_content``, ``parent_tool_call_id`` (nested calls).
    :param ctx: the extension context (``ctx.signal`` for abort-aware work).
    :returns: ``ToolResultResult(content=, details=, is_error=, structured_content=)`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.ai.messages import TextContent
        from pi_core.plugins.events import ToolResultEvent, ToolResultResult


        @hookimpl
        def tool_result(event: ToolResultEvent) -> ToolResultResult | None:
            if event.tool_name == "bash" and any("SECRET=" in getattr(b, "text", "") for b in event.content):
                return ToolResultResult(content=[TextContent(text="[redacted]")])
            return None

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, ToolExecutionEndEvent)
def tool_execution_end(event: ToolExecutionEndEvent, ctx: ExtensionContext) -> Ret:
    """A tool call is finalised (in completion order for parallel batches).

    Combine: NOTIFY — return values are ignored; the result is already final.

    :param event: ``tool_call_id``, ``tool_name``, ``result`` (``{content, details, terminate}``),
        ``is_error``, ``duration_ms`` (how long ``execute`` ran; ``None`` when the tool never ran:
        unknown, invalid arguments or blocked), ``parent_tool_call_id`` for a nested call.

    Example::

        from __future__ import annotations

        import logging

        from pi_core import hookimpl
        from pi_core.plugins.events import ToolExecutionEndEvent

        log = logging.getLogger("my-plugin")


        @hookimpl
        def tool_execution_end(event: ToolExecutionEndEvent) -> None:
            log.info("%s done (error=%s)", event.tool_name, event.is_error)

    .. versionadded:: 0.1
    """


# ==================================================================================================
# Session control
# ==================================================================================================


@hookspec
@event_hook(Combine.CANCEL_OR_LAST, SessionBeforeSwitchEvent, SessionBeforeSwitchResult)
def session_before_switch(event: SessionBeforeSwitchEvent, ctx: ExtensionContext) -> Ret:
    """Before ``/new``, ``/resume``, ``switch_session`` or a session import.

    Combine: CANCEL_OR_LAST — each result replaces the previous one as a whole; ``cancel=True``
    stops dispatch and the switch is abandoned; otherwise the last result wins.

    :param event: ``reason`` (``new | resume``), ``target_session_file`` (absent for ``new``).
    :returns: ``SessionBeforeSwitchResult(cancel=)`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionBeforeSwitchEvent, SessionBeforeSwitchResult


        @hookimpl
        async def session_before_switch(
            event: SessionBeforeSwitchEvent, ctx: ExtensionContext
        ) -> SessionBeforeSwitchResult | None:
            if ctx.has_ui and not await ctx.ui.confirm("Leave this session?", "Unsaved notes are lost"):
                return SessionBeforeSwitchResult(cancel=True)
            return None

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.CANCEL_OR_LAST, SessionBeforeForkEvent, SessionBeforeForkResult)
def session_before_fork(event: SessionBeforeForkEvent, ctx: ExtensionContext) -> Ret:
    """Before ``/fork`` (``position="before"``) or ``/clone`` (``position="at"``).

    Combine: CANCEL_OR_LAST — ``cancel=True`` stops dispatch and the fork is abandoned; otherwise the
    last result wins. ``skip_conversation_restore`` is accepted and ignored (pi v0.73.1).

    :param event: ``entry_id``, ``position`` (``before | at``).
    :returns: ``SessionBeforeForkResult(cancel=, skip_conversation_restore=)`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionBeforeForkEvent, SessionBeforeForkResult


        @hookimpl
        async def session_before_fork(
            event: SessionBeforeForkEvent, ctx: ExtensionContext
        ) -> SessionBeforeForkResult | None:
            status = await ctx.exec("git", ["status", "--porcelain"])
            if status.code == 0 and status.stdout.strip():
                ctx.ui.notify("commit or stash your changes before forking", "warning")
                return SessionBeforeForkResult(cancel=True)
            return None

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.CANCEL_OR_LAST, SessionBeforeCompactEvent, SessionBeforeCompactResult)
def session_before_compact(event: SessionBeforeCompactEvent, ctx: ExtensionContext) -> Ret:
    """Before manual (``/compact``) or automatic (threshold, overflow) compaction.

    Combine: CANCEL_OR_LAST — each result replaces the previous one as a whole (a later result
    without ``compaction`` discards an earlier one's); ``cancel=True`` stops and cancels the
    compaction. If the final result has ``compaction``, pi saves it instead of summarising.

    :param event: ``preparation`` (``first_kept_entry_id``, ``messages_to_summarize``,
        ``turn_prefix_messages``, ``is_split_turn``, ``tokens_before``, ``previous_summary``,
        ``file_ops``, ``settings``), ``branch_entries``, ``custom_instructions``, ``signal``.
    :returns: ``SessionBeforeCompactResult(cancel=, compaction=CompactionOverride(...))`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import (
            CompactionOverride,
            SessionBeforeCompactEvent,
            SessionBeforeCompactResult,
        )


        @hookimpl
        def session_before_compact(event: SessionBeforeCompactEvent) -> SessionBeforeCompactResult:
            plan = event.preparation
            summary = f"{len(plan.messages_to_summarize)} earlier messages were dropped."
            override = CompactionOverride(
                summary=summary,
                first_kept_entry_id=plan.first_kept_entry_id,
                tokens_before=plan.tokens_before,
            )
            return SessionBeforeCompactResult(compaction=override)

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, SessionCompactEvent)
def session_compact(event: SessionCompactEvent, ctx: ExtensionContext) -> Ret:
    """A compaction entry was saved and the agent's messages rebuilt.

    :param event: ``compaction_entry`` (the saved entry), ``from_extension``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionCompactEvent


        @hookimpl
        def session_compact(event: SessionCompactEvent, ctx: ExtensionContext) -> None:
            ctx.ui.notify("compacted" + (" by a plugin" if event.from_extension else ""))

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, SessionCompactFailedEvent, fire_and_forget=True)
def session_compact_failed(event: SessionCompactFailedEvent, ctx: ExtensionContext) -> Ret:
    """A compaction (``/compact``, the threshold or overflow recovery) failed or was aborted.

    Combine: NOTIFY, fire-and-forget — return values are ignored.

    :param event: ``reason`` (``manual | threshold | overflow``), ``error_message`` (``None`` when
        aborted), ``aborted``, ``will_retry``, ``from_extension``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionCompactFailedEvent


        @hookimpl
        def session_compact_failed(event: SessionCompactFailedEvent, ctx: ExtensionContext) -> None:
            ctx.ui.notify(f"{event.reason} compaction failed: {event.error_message or 'aborted'}", "warning")

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.NOTIFY, SessionInfoChangedEvent, fire_and_forget=True)
def session_info_changed(event: SessionInfoChangedEvent, ctx: ExtensionContext) -> Ret:
    """The session's display name was set (``/name``, RPC ``set_session_name``, ``ctx.set_session_name``).

    Combine: NOTIFY, fire-and-forget — return values are ignored.

    :param event: ``name`` — the name now, ``None`` when cleared.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionInfoChangedEvent


        @hookimpl
        def session_info_changed(event: SessionInfoChangedEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_title(f"pi — {event.name or 'unnamed'}")

    .. versionadded:: 0.2
    """


@hookspec
@event_hook(Combine.CANCEL_OR_LAST, SessionBeforeTreeEvent, SessionBeforeTreeResult)
def session_before_tree(event: SessionBeforeTreeEvent, ctx: ExtensionContext) -> Ret:
    """Before ``/tree`` navigation moves the session leaf.

    Combine: CANCEL_OR_LAST — ``cancel=True`` stops and cancels the navigation; otherwise the last
    result wins. ``summary`` is used only when the user asked for one; ``custom_instructions``,
    ``replace_instructions`` and ``label`` override the navigation options.

    :param event: ``preparation`` (``target_id``, ``old_leaf_id``, ``common_ancestor_id``,
        ``entries_to_summarize``, ``user_wants_summary``, ``custom_instructions``,
        ``replace_instructions``, ``label``), ``signal``.
    :returns: ``SessionBeforeTreeResult(...)`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import SessionBeforeTreeEvent, SessionBeforeTreeResult


        @hookimpl
        def session_before_tree(event: SessionBeforeTreeEvent) -> SessionBeforeTreeResult:
            return SessionBeforeTreeResult(label="explored")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, SessionTreeEvent)
def session_tree(event: SessionTreeEvent, ctx: ExtensionContext) -> Ret:
    """The session leaf moved (``/tree``) and the agent messages were rebuilt.

    Combine: NOTIFY — return values are ignored. Rebuild branch-dependent state here.

    :param event: ``new_leaf_id``, ``old_leaf_id``, ``summary_entry``, ``from_extension``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionTreeEvent


        @hookimpl
        def session_tree(event: SessionTreeEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("branch", f"{len(ctx.session_manager.get_branch())} entries on this branch")

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(Combine.NOTIFY, SessionShutdownEvent)
def session_shutdown(event: SessionShutdownEvent, ctx: ExtensionContext) -> Ret:
    """Before a plugin runtime is torn down: quit, ``/reload``, and every session replacement.

    Combine: NOTIFY — return values are ignored; the teardown always proceeds.

    :param event: ``reason`` (``quit | reload | new | resume | fork``), ``target_session_file``.
    :param ctx: the extension context (stale after this hook).

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import SessionShutdownEvent


        @hookimpl
        def session_shutdown(event: SessionShutdownEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("watcher", None)  # clear what this instance showed

    .. versionadded:: 0.1
    """


# ==================================================================================================
# Model and thinking level
# ==================================================================================================


@hookspec
@event_hook(Combine.NOTIFY, ModelSelectEvent)
def model_select(event: ModelSelectEvent, ctx: ExtensionContext) -> Ret:
    """The active model changed (``/model``, ``set_model``, cycling); awaited.

    Combine: NOTIFY — return values are ignored; the change cannot be vetoed.

    :param event: ``model``, ``previous_model``, ``source`` (``set | cycle | restore``).

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import ModelSelectEvent


        @hookimpl
        def model_select(event: ModelSelectEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("model", str(event.model.id))

    .. versionadded:: 0.1
    """


@hookspec
@event_hook(
    Combine.NOTIFY,
    ThinkingLevelSelectEvent,
    fire_and_forget=True,
    rule="NOTIFY, fire-and-forget (not awaited)",
)
def thinking_level_select(event: ThinkingLevelSelectEvent, ctx: ExtensionContext) -> Ret:
    """The effective thinking level changed (settings, key, ``set_thinking_level``, model re-clamp).

    Combine: NOTIFY, fire-and-forget — dispatched as a background task the caller does not await;
    return values are ignored.

    :param event: ``level``, ``previous_level`` (``off | minimal | low | medium | high | xhigh | max``).
    :returns: ignored.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import ThinkingLevelSelectEvent


        @hookimpl
        def thinking_level_select(event: ThinkingLevelSelectEvent, ctx: ExtensionContext) -> None:
            ctx.ui.set_status("thinking", event.level)

    .. versionadded:: 0.1
    """


# ==================================================================================================
# Interactive ``!cmd``
# ==================================================================================================


@hookspec
@event_hook(Combine.FIRST, UserBashEvent, UserBashResult)
def user_bash(event: UserBashEvent, ctx: ExtensionContext) -> Ret:
    """The user typed ``!cmd`` (into context) or ``!!cmd`` (kept out of context) in the REPL.

    Combine: FIRST — the first handler returning a result wins; later handlers are not called.
    ``result`` replaces the execution entirely; ``operations`` runs the command through another
    shell backend (e.g. SSH). ``None`` = run locally as usual.

    :param event: ``command``, ``exclude_from_context``, ``cwd``.
    :returns: ``UserBashResult(operations=, result=BashOutcome(...))`` or ``None``.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.events import BashOutcome, UserBashEvent, UserBashResult


        @hookimpl
        def user_bash(event: UserBashEvent) -> UserBashResult | None:
            if event.command == "whoami":
                return UserBashResult(result=BashOutcome(output="pi", exit_code=0))
            return None

    .. versionadded:: 0.1
    """


# ==================================================================================================
# MCP servers registered by plugins
# ==================================================================================================


@hookspec
@event_hook(Combine.NOTIFY, McpServersChangeEvent, fire_and_forget=True)
def mcp_servers_change(event: McpServersChangeEvent, ctx: ExtensionContext) -> Ret:
    """A plugin added or removed an MCP server (``ctx.register_mcp_server`` / ``unregister_mcp_server``).

    The plugin that connects MCP servers (the ``mcp`` plugin, or a replacement) listens here for
    servers registered after its ``session_start``; those registered earlier it reads with
    ``ctx.get_mcp_servers()`` when the session starts. Registrations last for one plugin load:
    ``/reload`` and session replacement start with none.

    Combine: NOTIFY, fire-and-forget — return values are ignored.

    :param event: ``servers`` — every registered server after the change (``name``, ``config``,
        ``extension_path``), in registration order.
    :param ctx: the extension context.
    :returns: ignored.

    Errors: a raising handler is reported and skipped.

    Example::

        from __future__ import annotations

        from pi_core import hookimpl
        from pi_core.plugins.context import ExtensionContext
        from pi_core.plugins.events import McpServersChangeEvent


        @hookimpl
        def mcp_servers_change(event: McpServersChangeEvent, ctx: ExtensionContext) -> None:
            names = ", ".join(server.name for server in event.servers) or "none"
            ctx.ui.notify(f"MCP servers from plugins: {names}")

    .. versionadded:: 1.6
    """


#: Names of the registration hooks, in the order the registry calls them.
REGISTRATION_HOOKS: tuple[str, ...] = (
    "register_tools",
    "register_commands",
    "register_providers",
    "register_flags",
    "register_shortcuts",
    "register_message_renderers",
    "register_entry_renderers",
    "register_tool_renderers",
    "register_markdown_transformers",
    "register_compaction_strategies",
)
