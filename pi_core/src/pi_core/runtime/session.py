"""``AgentSession``: one conversation driven end to end, shared by the print, JSON and RPC modes.

It owns the stateful :class:`~pi_core.agent.agent.Agent`, the session file (through the session
manager), the plugin hooks and the resources, and runs pi's prompt flow (spec agent-loop §4):
extension command → ``input`` → skill/template expansion → queue while streaming → model and key
validation → compaction pre-check → ``before_agent_start`` → run → auto-retry / overflow recovery /
threshold compaction. Events reach subscribers (the modes) in the order pi emits them, and every
``message_end`` is persisted. It never prints; modes render what it emits.

Each of its jobs past the wiring has a module of its own that works on the session
(``docs/modes.md`` lists them):

- ``session_input``: plugin commands, ``input`` handlers and expansion of typed input;
- ``session_queue``: steering, follow-up and next-turn messages;
- ``session_models``: model and thinking-level selection;
- ``session_tools``: which registered tools are active, registering and withdrawing them;
- ``session_prompt``: the system prompt and the system messages that record it;
- ``session_requests``: what each provider request carries;
- ``session_persistence``: writing messages to the session file, write failures;
- ``session_run``: a run from claim to settle (retry, recovery, compaction after it);
- ``session_boundaries``: what ``turn_end`` and ``agent_before_settle`` handlers propose;
- ``session_compaction``: compaction and tree navigation;
- ``user_bash``: the user's ``!command``s;
- ``session_views``: views and exports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pi_core.agent import events as agent_events
from pi_core.agent.agent import UNKNOWN_MODEL as _UNKNOWN_MODEL
from pi_core.agent.agent import Agent, AgentState, QueueMode
from pi_core.agent.loop import AgentLoopConfig
from pi_core.agent.tools import AgentTool
from pi_core.ai.abort import AbortSignal
from pi_core.ai.messages import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    UserMessage,
    current_system_message,
)
from pi_core.ai.provider import THINKING_LEVELS, Model, ThinkingLevel
from pi_core.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_core.plugins import events as hook_events
from pi_core.plugins.dispatch import HookErrorRecord, Hooks
from pi_core.plugins.registry import CommandSpec
from pi_core.runtime import auth_guidance, session_input, session_models, session_tools
from pi_core.runtime import session_views as views
from pi_core.runtime.bash_executor import BashOutcome
from pi_core.runtime.event_bus import EventBus
from pi_core.runtime.events import (
    CompactionEndEvent,
    EntryAppendedEvent,
    ExtensionErrorEvent,
    SessionInfoChangedEvent,
    error_text,
)
from pi_core.runtime.hook_bridge import HookBridge
from pi_core.runtime.mcp_servers import McpServerRegistry
from pi_core.runtime.resources import (
    Resources,
    SettingsManager,
    SystemPromptSections,
    system_prompt_options,
)
from pi_core.runtime.retry import AutoRetry
from pi_core.runtime.session_boundaries import RunBoundaries
from pi_core.runtime.session_compaction import SessionCompaction
from pi_core.runtime.session_persistence import SessionPersistence
from pi_core.runtime.session_prompt import SystemPrompt
from pi_core.runtime.session_queue import MessageQueues
from pi_core.runtime.session_requests import ProviderRequests
from pi_core.runtime.session_run import RunDriver
from pi_core.runtime.stats import ContextUsage, SessionStats, SessionTally
from pi_core.runtime.ui import HeadlessUI
from pi_core.runtime.user_bash import UserBash

logger = logging.getLogger("pi.runtime")

Listener = Callable[[Any], None]
"""Receives every agent event and session event, in order (the modes write them out)."""

ErrorReporter = Callable[[ExtensionErrorEvent], None]

PromptDisposition = Literal["started", "queued", "handled"]
"""What became of a prompt: a run started, it waits in a queue, or a command or handler took it."""
QueueDisposition = Literal["queued", "handled"]

#: The messages of a turn whose entry ids ``turn_end`` handlers see.
_TURN_ROLES = ("assistant", "toolResult")

ALREADY_STREAMING = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)


@dataclass
class SessionServices:
    """What an AgentSession is built from; the runtime host assembles it once per working directory."""

    cwd: str
    settings: SettingsManager
    resources: Resources
    model_registry: Any
    hooks: Hooks | None = None
    commands: list[CommandSpec] = field(default_factory=list)
    #: Plugin name → ``sourceInfo`` reported for its commands (RPC ``get_commands``).
    plugin_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Every tool that could be active, by name (built-in and plugin tools).
    tools: dict[str, AgentTool] = field(default_factory=dict)
    #: Tool name → the plugin that registered it (runtime registrations check it).
    tool_owners: dict[str, str] = field(default_factory=dict)
    #: Names among ``tools`` that pi's built-in plugins provide (a plugin may override them).
    builtin_tool_names: set[str] = field(default_factory=set)
    #: Built-in tools a plugin's ``ctx.register_tool`` replaced (tool, owner), back when it
    #: unregisters its own.
    replaced_builtins: dict[str, tuple[AgentTool, str | None]] = field(default_factory=dict)
    #: Compaction strategies by name (``pi_core.runtime.compaction`` registry), or None without any.
    compaction: Any = None
    #: Scoped models for cycling (``--models`` / ``enabledModels``): (model, explicit level or None).
    scoped_models: list[tuple[Model, str | None]] = field(default_factory=list)
    #: Values of plugin-registered flags (name without ``--``), read through ``ctx.get_flag``.
    flag_values: dict[str, Any] = field(default_factory=dict)
    #: ``ctx.events``: new with every plugin load, so replaced plugin instances hear nothing.
    events: EventBus = field(default_factory=EventBus)
    #: ``ctx.register_mcp_server`` registrations: new with every plugin load, like ``events``.
    mcp_servers: McpServerRegistry = field(default_factory=McpServerRegistry)
    #: The project's plugin code runs (trusted, or ``--trust-project``); ``ctx.is_project_trusted()``.
    project_trusted: bool = False


class AgentSession:
    """A conversation: the agent, its session file, the hooks and the resources, behind one API."""

    def __init__(
        self,
        services: SessionServices,
        session_manager: Any,
        *,
        model: Model | None,
        thinking_level: str,
        active_tools: Sequence[str],
    ) -> None:
        self.services = services
        self.session_manager = session_manager
        self.settings = services.settings
        self.resources = services.resources
        self.model_registry = services.model_registry
        self.hooks = services.hooks
        self._listeners: list[Listener] = []
        self._ui: Any = HeadlessUI()
        self._report_error: ErrorReporter | None = None
        self._bash = UserBash(self)
        self._run = RunDriver(self)
        #: Open plugin dialogs (``ui_prompt_start`` fires for the outermost only).
        self.ui_prompt_depth = 0
        #: The mode that bound this session (``ctx.mode``): tui, rpc, json or print.
        self.mode = "print"
        #: Whether the project's plugin code was allowed to run (``ctx.is_project_trusted``).
        self.project_trusted = services.project_trusted
        self._disposed = False
        #: The runtime host that owns this session (session replacement for command contexts).
        self.host: Any = None
        self._active_tools = [name for name in active_tools if name in services.tools]
        self._prompt = SystemPrompt(self)
        self._stats = SessionTally()
        self._retry = AutoRetry(self._emit)
        self._persistence = SessionPersistence(self)
        self._compaction = SessionCompaction(self)
        self._requests = ProviderRequests(self)
        self._bridge = HookBridge(services.hooks, self.extension_context) if services.hooks else None
        self._boundaries = RunBoundaries(self, self._bridge)
        if self._bridge is not None:
            self._bridge.describe_turn = self._boundaries.describe_turn

        settings = self.settings.settings
        bridge = self._bridge
        config = AgentLoopConfig(
            model=model or _UNKNOWN_MODEL,
            convert_to_llm=self._requests.convert_to_llm,
            session_id=session_manager.get_session_id(),
            get_api_key=self._requests.api_key_for,
            stream_fn=self._requests.stream,
            make_tool_context=self._tool_context,
            get_callable_tools=self.callable_tools,
            max_retries=settings.retry.provider.max_retries,
            timeout_ms=settings.retry.provider.timeout_ms,
            max_retry_delay_ms=settings.retry.provider.max_retry_delay_ms,
            thinking_budgets=(
                settings.thinking_budgets.model_dump(exclude_none=True) if settings.thinking_budgets else None
            ),
            before_tool_call=bridge.before_tool_call if bridge else None,
            after_tool_call=bridge.after_tool_call if bridge else None,
            transform_context=bridge.transform_context if bridge else None,
            transform_request=bridge.transform_request if bridge else None,
            on_payload=bridge.on_payload if bridge else None,
            on_response=bridge.on_response if bridge else None,
            get_tools=lambda: self.agent.state.tools,
            get_context_updates=self._prompt.mid_run_updates,
            get_system_prompt=self._prompt.current,
            after_turn=self._boundaries.after_turn if bridge else None,
        )
        state = AgentState(model=model or _UNKNOWN_MODEL)
        self.agent = Agent(state, config, settings.steering_mode, settings.follow_up_mode)
        self.agent.subscribe(self._on_agent_event)
        self._queues = MessageQueues(self.agent, self._emit)
        if model is not None:
            state.thinking_level = clamp_thinking_level(model, thinking_level)
        else:
            state.thinking_level = thinking_level  # type: ignore[assignment]  # validated by the caller
        self.agent.state.messages = list(session_manager.build_session_context().messages)
        self._apply_tools()

    # --- binding --------------------------------------------------------------------------------

    def adopt_pending(self, previous: AgentSession) -> None:
        """Take over what ``previous`` still had to deliver (``/reload`` swaps sessions in place).

        A reload waits for idle, so no steering or follow-up is queued, and disposing ``previous``
        already recorded its finished ``!command`` results; custom messages for the next turn remain.
        """
        self._queues.next_turn = [*previous._queues.take_next_turn(), *self._queues.next_turn]

    async def bind_mode(
        self, *, ui: Any = None, on_error: ErrorReporter | None = None, mode: str | None = None
    ) -> None:
        """Attach a mode: the UI plugins get (``None`` = headless), where plugin errors go, its name."""
        self._ui = ui if ui is not None else HeadlessUI()
        self._report_error = on_error
        if mode is not None:
            self.mode = mode

    def report_hook_error(self, record: HookErrorRecord) -> None:
        """The dispatcher's error sink: forward an isolated plugin error to the mode."""
        self._emit_error(record.plugin, record.hook, error_text(record.error))

    def report_plugin_error(self, plugin: str, event: str, error: BaseException) -> None:
        """Report an error a plugin caused outside a handler call (work it handed over)."""
        logger.debug("plugin %s failed in %s", plugin, event, exc_info=error)
        self._emit_error(plugin, event, error_text(error))

    def _emit_error(self, plugin: str, event: str, error: str) -> None:
        if self._report_error is not None:
            self._report_error(ExtensionErrorEvent(extension_path=plugin, event=event, error=error))
        else:
            logger.warning("plugin %s failed in %s: %s", plugin, event, error)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event; returns the unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, event: Any) -> None:
        for listener in list(self._listeners):
            listener(event)
        if isinstance(event, CompactionEndEvent) and event.result is None:
            self._compaction_failed(event)

    def _compaction_failed(self, event: CompactionEndEvent) -> None:
        if event.error_message is None and not event.aborted:
            return  # nothing to compact is no failure
        failed = hook_events.SessionCompactFailedEvent(
            reason=event.reason,
            error_message=event.error_message,
            aborted=event.aborted,
            will_retry=event.will_retry,
        )
        self.fire_hook("session_compact_failed", failed)

    def fire_hook(self, hook: str, event: Any) -> None:
        """Dispatch a notification hook in the background (callers that cannot await)."""
        if self.hooks is not None and self.hooks.has(hook):
            self.hooks.dispatcher.dispatch_background(hook, event, self.extension_context())

    def extension_context(self, *, acting: tuple[str, str] | None = None) -> Any:
        """A fresh context for one hook dispatch (see :mod:`pi_core.runtime.extension_context`).

        ``acting`` is ``(plugin, where)`` for calls outside a hook handler (a shortcut's handler).
        """
        from pi_core.runtime.extension_context import RuntimeContext

        return RuntimeContext(self, acting=acting)

    @property
    def ui(self) -> Any:
        return self._ui

    @property
    def has_ui(self) -> bool:
        return bool(self._ui.has_ui)

    # --- state ----------------------------------------------------------------------------------

    @property
    def cwd(self) -> str:
        return str(self.services.cwd)

    @property
    def model(self) -> Model | None:
        model = self.agent.state.model
        return None if model is _UNKNOWN_MODEL else model

    @property
    def thinking_level(self) -> str:
        return self.agent.state.thinking_level

    @property
    def messages(self) -> list[AgentMessage]:
        return self.agent.state.messages

    @property
    def is_streaming(self) -> bool:
        return self.agent.state.is_streaming or self._run.driving

    @property
    def is_idle(self) -> bool:
        return not self.is_streaming and not self._retry.in_flight and not self.is_compacting

    @property
    def is_compacting(self) -> bool:
        return self._compaction.is_compacting

    @property
    def steering_mode(self) -> QueueMode:
        return self.agent.steering_mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self.agent.follow_up_mode

    @property
    def session_file(self) -> str | None:
        return self.session_manager.get_session_file()

    @property
    def session_id(self) -> str:
        return str(self.session_manager.get_session_id())

    @property
    def session_name(self) -> str | None:
        return self.session_manager.get_session_name()

    @property
    def auto_compaction_enabled(self) -> bool:
        return self.settings.settings.compaction.enabled

    @property
    def auto_retry_enabled(self) -> bool:
        return self.settings.settings.retry.enabled

    @property
    def pending_message_count(self) -> int:
        return self._queues.pending_count

    @property
    def system_prompt(self) -> str:
        return self.agent.state.system_prompt

    @property
    def prompt_templates(self) -> list[Any]:
        return list(self.resources.prompt_templates)

    @property
    def system_prompt_sections(self) -> SystemPromptSections:
        """The default prompt as named sections (pi 1.6.0's ``sections`` of a system message).

        It is the prompt before any ``before_agent_start`` replacement for one run.
        """
        return dict(self._prompt.sections)

    @property
    def active_tool_names(self) -> list[str]:
        return list(self._active_tools)

    # --- tools and system prompt ----------------------------------------------------------------

    def _active_tool_objects(self) -> list[AgentTool]:
        return [self.services.tools[name] for name in self._active_tools]

    def _apply_tools(self) -> None:
        self._prompt.apply(self._active_tool_objects())

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Activate exactly these registered tools (unknown and ``hidden`` ones are ignored, as pi does)."""
        self._active_tools = session_tools.selectable(self.services, names)
        self._apply_tools()

    def callable_tools(self) -> list[AgentTool]:
        """What ``ctx.execute_tool`` may call: active ``direct`` tools, all ``codemode``/``deferred`` ones."""
        return session_tools.callable_tools(self.services, self._active_tools)

    def _tool_context(self, call: Any, run_nested: Any) -> Any:
        from pi_core.runtime.extension_context import RuntimeToolContext

        # A tool acts for the plugin that registered it (ctx.register_tool, errors it hands over).
        owner = self.services.tool_owners.get(call.name, "pi")
        return RuntimeToolContext(self, call.id, run_nested, acting=(owner, f"tool {call.name}"))

    def restore_tools_from_transcript(
        self, modifiers: Sequence[str] = (), exclude: Sequence[str] = ()
    ) -> bool:
        """Activate the tools the branch's recorded system messages declare (pi 1.6.0, on resume
        and after ``/tree``): their replayed ``toolsAdded``, plus plugin tools the branch never
        mentioned that activate when registered, then ``modifiers`` (``+name``/``-name``) and
        ``exclude`` patterns. Tools not registered now are left out. False (nothing changes)
        when the branch records no system message.
        """
        names = session_tools.restored(self.services, self.agent.state.messages, modifiers, exclude)
        if names is None:
            return False
        self.set_active_tools(names)
        return True

    def register_tool(self, tool: AgentTool, *, plugin: str) -> None:
        """Add (or replace) a tool while running; the next request declares it (pi's ``registerTool``).

        ``direct`` and ``model-only`` tools become active unless ``default_active`` is false;
        re-registering a name replaces the tool (``exposure="hidden"`` withdraws it). A name another
        plugin registered is refused with :class:`ValueError` naming it (a built-in is overridden).
        """
        self._active_tools = session_tools.register(self.services, self._active_tools, tool, plugin)
        self._apply_tools()

    def unregister_tool(self, name: str, *, plugin: str) -> bool:
        """Remove a tool registered by ``plugin``; the next request no longer declares it.

        Returns False when no such tool exists; a tool of another plugin is refused (ValueError).
        """
        active = session_tools.unregister(self.services, self._active_tools, name, plugin)
        if active is None:
            return False
        self._active_tools = active
        self._apply_tools()
        return True

    def rebuild_system_prompt(self) -> None:
        self._apply_tools()

    def _replayed_system_message(self) -> SystemMessage | None:
        """What the transcript's system messages add up to: the recorded prompt sections and tools."""
        return current_system_message(self.agent.state.messages)

    # --- prompting ------------------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        *,
        images: Sequence[ImageContent] | None = None,
        streaming_behavior: Literal["steer", "followUp"] | None = None,
        source: Literal["interactive", "rpc", "extension"] = "interactive",
        expand_prompt_templates: bool = True,
        on_preflight: Callable[[PromptDisposition], None] | None = None,
    ) -> None:
        """Run pi's prompt flow; returns when the run (and any retry or recovery) is over.

        ``on_preflight`` hears once what became of the input: ``handled`` (an extension command or
        an ``input`` handler took it), ``queued`` (the agent was busy) or ``started`` (a run begins).
        """
        accepted = on_preflight or (lambda disposition: None)
        image_list = list(images or [])
        if (
            expand_prompt_templates
            and text.startswith("/")
            and await session_input.run_extension_command(self, text)
        ):
            accepted("handled")
            return
        behavior = streaming_behavior if self.is_streaming else None
        processed = await session_input.run_input_handlers(self, text, image_list, source, behavior)
        if processed is None:
            accepted("handled")
            return
        text, image_list = processed
        expanded = session_input.expand(self, text) if expand_prompt_templates else text
        if self.is_streaming:
            if streaming_behavior is None:
                raise RuntimeError(ALREADY_STREAMING)
            self._queues.add(expanded, image_list, follow_up=streaming_behavior == "followUp")
            accepted("queued")
            return
        self._run.claim()  # now: a second prompt must queue, not race (spec §4.2)
        try:
            self._bash.flush()
            self._validate_model()
            last = self._find_last_assistant()
            if last is not None:
                await self._compaction.check(last, skip_aborted=False)
            content: list[TextContent | ImageContent] = [TextContent(text=expanded), *image_list]
            messages: list[AgentMessage] = [UserMessage(content=content)]
            messages.extend(self._queues.take_next_turn())
            messages.extend(await self._prompt.before_agent_start(expanded, image_list))
            update = self._prompt.prompt_update()
            if update is not None:
                messages.insert(0, update)  # pi 1.6.0 records it before the prompt it applies to
            accepted("started")
            await self._run.drive(lambda: self.agent.prompt(messages))
        finally:
            self._prompt.end_run(self._active_tool_objects)
            self._run.release()

    async def steer(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        source: Literal["interactive", "rpc", "extension"] = "interactive",
    ) -> QueueDisposition:
        """Queue a steering message (delivered after the current tool batch).

        ``input`` handlers see it first; returns ``handled`` when one took it, else ``queued``.
        """
        return await self._queue_input(text, images, source, follow_up=False)

    async def follow_up(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        source: Literal["interactive", "rpc", "extension"] = "interactive",
    ) -> QueueDisposition:
        """Queue a follow-up (delivered when the agent would otherwise stop); as :meth:`steer`."""
        return await self._queue_input(text, images, source, follow_up=True)

    async def _queue_input(
        self,
        text: str,
        images: Sequence[ImageContent] | None,
        source: Literal["interactive", "rpc", "extension"],
        *,
        follow_up: bool,
    ) -> QueueDisposition:
        session_input.reject_queued_command(self, text)
        behavior: Literal["steer", "followUp"] = "followUp" if follow_up else "steer"
        # As pi 1.6.0: handlers see how the input waits only while the agent streams.
        processed = await session_input.run_input_handlers(
            self, text, list(images or []), source, behavior if self.is_streaming else None
        )
        if processed is None:
            return "handled"
        self._queues.add(session_input.expand(self, processed[0]), processed[1], follow_up=follow_up)
        return "queued"

    def clear_queue(self) -> tuple[list[str], list[str]]:
        """Drop everything queued; returns the (steering, follow-up) texts."""
        return self._queues.clear()

    def system_prompt_options(self) -> hook_events.SystemPromptOptions:
        """What the default prompt is built from now (a copy; ``ctx.get_system_prompt_options()``)."""
        tools = [self.services.tools[name] for name in self._active_tools if name in self.services.tools]
        return system_prompt_options(tools, self.resources)

    def _validate_model(self) -> None:
        model = self.model
        if model is None:
            raise RuntimeError(auth_guidance.no_model_selected_message())
        registry = self.model_registry
        if registry is not None and not registry.has_configured_auth(model):
            if registry.is_using_oauth(model):
                raise RuntimeError(auth_guidance.oauth_failed_message(model.provider))
            raise RuntimeError(auth_guidance.no_api_key_message(model.provider))

    def provider_attribution(self) -> bool:
        """Whether requests credit this client to services that rank apps: pi 1.6.0 ties it to
        install telemetry (``PI_TELEMETRY``, else ``enableInstallTelemetry``)."""
        return self._requests.attribution()

    # --- running and what happens after a run ---------------------------------------------------

    async def _on_agent_event(self, event: agent_events.AgentEvent, signal: AbortSignal) -> None:
        if isinstance(event, agent_events.MessageStartEvent) and isinstance(event.message, UserMessage):
            self._compaction.overflow_attempted = False
            self._queues.delivered(event.message)
        if self._bridge is not None:
            replacement = await self._bridge.agent_event(event)
            if replacement is not None and isinstance(event, agent_events.MessageEndEvent):
                self._replace_last_message(event.message, replacement)
                event = agent_events.MessageEndEvent(message=replacement)
        if isinstance(event, agent_events.AgentStartEvent):
            self._prompt.run_started()
        if isinstance(event, agent_events.AgentEndEvent):
            event = event.model_copy(update={"will_retry": self._run.will_retry(event)})
        self._emit(event)
        if isinstance(event, agent_events.MessageEndEvent):
            entry_id = self._persistence.persist(event.message)
            if entry_id is not None and self._bridge is not None and event.message.role in _TURN_ROLES:
                self._boundaries.note_persisted(event.message, entry_id)
            if isinstance(event.message, AssistantMessage):
                self._run.last_assistant = event.message
                if event.message.stop_reason != "error":
                    self._compaction.overflow_attempted = False
                await self._retry.note_reply(event.message)
        elif isinstance(event, agent_events.AgentEndEvent) and self._run.last_assistant is None:
            # The loop raised (e.g. no key): the agent reports a synthetic error reply, never persisted.
            self._run.last_assistant = next(
                (m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None
            )

    def _replace_last_message(self, old: AgentMessage, new: AgentMessage) -> None:
        messages = self.agent.state.messages
        for index in range(len(messages) - 1, -1, -1):
            if messages[index] is old:
                messages[index] = new
                return

    def _find_last_assistant(self) -> AssistantMessage | None:
        return next((m for m in reversed(self.messages) if isinstance(m, AssistantMessage)), None)

    async def abort(self) -> None:
        """Cancel a pending retry, abort the run and wait until the agent is idle."""
        await self._run.abort()

    def abort_retry(self) -> None:
        self._retry.cancel()

    async def wait_for_idle(self) -> None:
        """Wait for the run and whatever follows it (retries, recovery) to finish."""
        await self._run.wait_for_idle()

    # --- compaction (see pi_core.runtime.session_compaction) ------------------------------------

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        """Manual compaction (``/compact``, RPC ``compact``); raises with pi's message on failure."""
        return await self._compaction.compact(custom_instructions)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool | None = None,
        label: str | None = None,
    ) -> Any:
        """Move the leaf to ``target_id`` (optionally summarizing the abandoned branch), as ``/tree``."""
        return await self._compaction.navigate_tree(
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    def get_context_usage(self) -> ContextUsage | None:
        return self._compaction.get_context_usage()

    def set_auto_compaction_enabled(self, enabled: bool) -> None:
        self.settings.set("compaction.enabled", enabled)

    def set_auto_retry_enabled(self, enabled: bool) -> None:
        self.settings.set("retry.enabled", enabled)

    # --- model and thinking ---------------------------------------------------------------------

    async def get_available_models(self) -> list[Model]:
        return await session_models.available_models(self)

    async def find_available_model(self, provider: str, model_id: str) -> Model | None:
        models = await self.get_available_models()
        return next((m for m in models if m.provider == provider and m.id == model_id), None)

    async def set_model(
        self, model: Model, *, source: Literal["set", "cycle", "restore"] = "set", persist: bool = False
    ) -> None:
        """Switch model: needs auth, records a ``model_change``, re-clamps thinking; ``persist``
        also makes it the default of new sessions (pi 1.6.0: only when the user asks)."""
        await session_models.set_model(self, model, source, persist)

    async def cycle_model(self, *, backward: bool = False) -> tuple[Model, str, bool] | None:
        """Next scoped model (or next available one; ``backward``: the previous one); ``None``
        when there is nothing to cycle to."""
        return await session_models.cycle_model(self, backward)

    def available_thinking_levels(self) -> list[ThinkingLevel]:
        """The levels the model offers (``off`` alone without reasoning; ``xhigh`` and ``max``
        only where its map names them), or every level before a model is chosen (as pi)."""
        model = self.model
        return supported_thinking_levels(model) if model is not None else list(THINKING_LEVELS)

    def set_thinking_level(self, level: str, *, persist: bool = False) -> None:
        """Clamp to the model, record a change entry and emit ``thinking_level_changed``;
        ``persist`` also saves ``level`` as ``defaultThinkingLevel``."""
        session_models.set_thinking_level(self, level, persist)

    def cycle_thinking_level(self) -> str | None:
        return session_models.cycle_thinking_level(self)

    def set_steering_mode(self, mode: QueueMode) -> None:
        self.agent.steering_mode = mode
        self.settings.set("steeringMode", mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        self.agent.follow_up_mode = mode
        self.settings.set("followUpMode", mode)

    # --- user bash --------------------------------------------------------------------------------

    async def execute_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_chunk: Callable[[str], None] | None = None,
    ) -> BashOutcome:
        """Run a user command; its result joins the transcript now (idle) or before the next prompt.

        ``on_chunk`` receives the output as it arrives (sanitized, untruncated).
        """
        return await self._bash.execute(command, exclude_from_context=exclude_from_context, on_chunk=on_chunk)

    def record_bash_result(
        self, command: str, outcome: BashOutcome, *, exclude_from_context: bool = False
    ) -> None:
        self._bash.record(command, outcome, exclude_from_context=exclude_from_context)

    def abort_bash(self) -> None:
        self._bash.abort()

    # --- plugin actions -------------------------------------------------------------------------

    async def send_custom_message(
        self,
        message: CustomMessage,
        *,
        deliver_as: Literal["steer", "followUp", "nextTurn"] | None = None,
        trigger_turn: bool = False,
    ) -> None:
        """A plugin's custom message: next turn, queued, starting a run, or just recorded."""
        if deliver_as == "nextTurn":
            self._queues.next_turn.append(message)
            return
        if self.is_streaming:
            if deliver_as == "followUp":
                self.agent.follow_up(message)
            else:
                self.agent.steer(message)
            # Sent from agent_end, after the loop's last poll: the run must still start (pi does).
            self._run.turn_requested = self._run.turn_requested or trigger_turn
            return
        if trigger_turn:
            self._run.claim()
            try:
                await self._run.drive(lambda: self.agent.prompt([message]))
            finally:
                self._run.release()
            return
        self.agent.state.messages.append(message)
        self._emit(agent_events.MessageStartEvent(message=message))
        self._emit(agent_events.MessageEndEvent(message=message))
        self._persistence.persist(message)

    async def send_user_message(
        self,
        content: str | Sequence[TextContent | ImageContent],
        *,
        deliver_as: Literal["steer", "followUp"] | None = None,
        expand_prompt_templates: bool = False,
    ) -> None:
        """A plugin sends a user message: a prompt, by default without command or template handling.

        With ``expand_prompt_templates`` a ``/command`` runs, and skills and prompt templates
        expand, as if typed; a message queued behind a run (``deliver_as``) is always plain text.
        """
        if isinstance(content, str):
            text, images = content, []
        else:
            text = "".join(b.text for b in content if isinstance(b, TextContent))
            images = [b for b in content if isinstance(b, ImageContent)]
        queued = self.is_streaming and deliver_as is not None
        await self.prompt(
            text,
            images=images,
            streaming_behavior=deliver_as,
            source="extension",
            expand_prompt_templates=expand_prompt_templates and not queued,
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Persist a plugin's ``custom`` entry and announce it (``entry_appended``)."""
        from pi_core.session.entries import to_wire as entry_to_wire

        entry_id = str(self.session_manager.append_custom_entry(custom_type, data))
        entry = self.session_manager.get_entry(entry_id)
        if entry is not None:
            self._emit(EntryAppendedEvent(entry=entry_to_wire(entry)))
        return entry_id

    def set_session_name(self, name: str) -> None:
        self.session_manager.append_session_info(name)
        self._emit(SessionInfoChangedEvent(name=name))
        self.fire_hook("session_info_changed", hook_events.SessionInfoChangedEvent(name=name.strip() or None))

    # --- queries --------------------------------------------------------------------------------

    def get_session_stats(self) -> SessionStats:
        """pi's session statistics (:func:`~pi_core.runtime.stats.compute_session_stats`), kept
        as a running tally: each call counts only the entries appended since the previous one,
        and starts over when the entries were replaced or a problem was found in the file (an
        entry set aside no longer counts)."""
        return self._stats.current(self.session_manager).stats(
            session_file=self.session_file,
            session_id=self.session_id,
            context_usage=self.get_context_usage(),
        )

    def get_last_assistant_text(self) -> str | None:
        return views.last_assistant_text(self.messages)

    def get_user_messages_for_forking(self) -> list[tuple[str, str]]:
        """(entry id, text) of every user message with text, on every branch (as pi lists them)."""
        return views.user_messages_for_forking(self.session_manager.get_entries())

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, prompt templates and skills, as RPC ``get_commands`` lists them."""
        return views.command_list(self.services.commands, self.services.plugin_sources, self.resources)

    async def export_to_html(self, output_path: str | None = None, theme: Any = None) -> Path:
        """The session as an HTML page in ``theme``'s colours (by default the ``theme`` setting's
        theme when it names a built-in one or one in the agent folder's ``themes``, else
        ``system``, as pi's RPC export)."""
        tools = [{"name": t.name, "description": t.description} for t in self.agent.state.tools]
        setting = (self.settings.settings.theme, self.resources.agent_dir)
        return await views.export_html(
            self.session_manager, self.system_prompt, tools, output_path, theme, setting
        )

    async def export_to_jsonl(self, output_path: str | None = None) -> Path:
        """The current branch as a session file of its own, re-chained into a line (pi's export)."""
        return await views.export_jsonl(self.session_manager, output_path)

    # --- lifecycle ------------------------------------------------------------------------------

    @property
    def disposed(self) -> bool:
        return self._disposed

    async def dispose(
        self, reason: Literal["quit", "reload", "new", "resume", "fork"] = "quit", target: str | None = None
    ) -> None:
        """Fire ``session_shutdown`` and stop: later use of this session's contexts raises."""
        if self._disposed:
            return
        try:
            if not self.is_idle:
                await self.abort()
            self._bash.flush()  # a !command that finished during the last run stays recorded
            self._persistence.report_unsaved()
            if self.hooks is not None and self.hooks.has("session_shutdown"):
                event = hook_events.SessionShutdownEvent(reason=reason, target_session_file=target)
                await self.hooks.session_shutdown(event, self.extension_context())
            if self.hooks is not None:
                await self.hooks.dispatcher.drain()
        finally:
            self._disposed = True
            self._listeners.clear()
            close = getattr(self.session_manager, "close", None)
            if close is not None:
                close()  # releases the file descriptor; a later append reopens it
