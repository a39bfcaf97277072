"""The runtime host: builds an AgentSession from the start-up options and replaces it on demand.

Start-up follows pi's main: settings and resources for the cwd, plugin registrations (tools,
commands, providers, compaction strategies), the model registry, the session file (new, ``--continue``,
``--session``, ``--fork``, ``--no-session``), the initial model and thinking level, the active tools,
then ``resources_discover`` and ``session_start``. ``new_session``/``switch_session``/``fork`` dispose
the current session (``session_shutdown``) and build the next one on the same services; modes
re-bind through :meth:`RuntimeHost.on_session_replaced`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pi_core.agent.tools import AgentTool
from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry
from pi_core.ai.provider import Model
from pi_core.ai.resolve import (
    DEFAULT_MODEL_PER_PROVIDER,
    ModelNotFoundError,
    ResolvedModel,
    resolve_cli_model,
    resolve_model_scope,
)
from pi_core.ai.thinking import clamp_thinking_level
from pi_core.plugins import events as hook_events
from pi_core.plugins.dispatch import Hooks
from pi_core.runtime.auth_guidance import API_KEY_NEEDS_MODEL
from pi_core.runtime.resources import ResourceOptions, SettingsManager, load_resources_async
from pi_core.runtime.session import AgentSession, SessionServices

DEFAULT_ACTIVE_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
DEFAULT_THINKING_LEVEL = "medium"


@dataclass(frozen=True)
class RuntimeOptions:
    """What start-up needs from the command line (the CLI maps its flags onto this)."""

    cwd: str
    agent_dir: str
    session_dir: str | None = None
    no_session: bool = False
    continue_recent: bool = False
    session: str | None = None
    fork: str | None = None
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    models: Sequence[str] | None = None
    tools: Sequence[str] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    skills: Sequence[str] = ()
    prompt_templates: Sequence[str] = ()
    themes: Sequence[str] = ()
    no_skills: bool = False
    no_prompt_templates: bool = False
    no_themes: bool = False
    no_context_files: bool = False
    system_prompt: str | None = None
    append_system_prompt: Sequence[str] | None = None


@dataclass(frozen=True)
class Diagnostic:
    kind: Literal["warning", "error"]
    message: str
    #: The command line asked for something that does not exist (unknown model or provider).
    usage: bool = False


@dataclass
class PluginParts:
    """What plugin loading produced (the CLI gets it from the core's ``PluginSetup``)."""

    hooks: Hooks | None = None
    tools: dict[str, AgentTool] = field(default_factory=dict)
    builtin_tool_names: set[str] = field(default_factory=set)
    commands: list[Any] = field(default_factory=list)
    providers: list[Any] = field(default_factory=list)
    compaction_strategies: dict[str, tuple[str, Any]] = field(default_factory=dict)
    #: Plugin name → pi's ``sourceInfo`` (``{path, source, scope, origin}``) for ``get_commands``.
    plugin_sources: dict[str, dict[str, str]] = field(default_factory=dict)


class SessionNotFoundError(LookupError):
    def __init__(self, arg: str) -> None:
        super().__init__(f"No session found matching '{arg}'")


def resolve_session_arg(arg: str, cwd: str, session_dir: str | None) -> Path:
    """A session file path, or the first session whose id starts with ``arg`` (this project first)."""
    from pi_core.session.manager import SessionManager

    candidate = Path(arg).expanduser()
    if candidate.is_file() or arg.endswith(".jsonl"):
        return candidate.resolve()
    for info in [*SessionManager.list_sessions(cwd, session_dir), *SessionManager.list_all()]:
        if info.id.startswith(arg):
            return Path(info.path)
    raise SessionNotFoundError(arg)


def _session_manager(options: RuntimeOptions) -> Any:
    from pi_core.session.manager import SessionManager

    if options.no_session:
        return SessionManager.in_memory(options.cwd)
    if options.fork:
        source = resolve_session_arg(options.fork, options.cwd, options.session_dir)
        return SessionManager.fork_from(source, options.cwd, options.session_dir)
    if options.session:
        path = resolve_session_arg(options.session, options.cwd, options.session_dir)
        return SessionManager.open(path, options.session_dir)
    if options.continue_recent:
        return SessionManager.continue_recent(options.cwd, options.session_dir)
    return SessionManager.create(options.cwd, options.session_dir)


class RuntimeHost:
    """Owns the services and the current AgentSession."""

    def __init__(self, services: SessionServices, session: AgentSession, options: RuntimeOptions) -> None:
        self.services = services
        self.session = session
        self.options = options
        self.diagnostics: list[Diagnostic] = []
        self.shutdown_requested = False
        self._rebind: list[Callable[[], Awaitable[None]]] = []
        session.host = self

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    async def create(cls, options: RuntimeOptions, plugins: PluginParts | None = None) -> RuntimeHost:
        """Build services and the first session; diagnostics (errors stop a run) land on the host."""
        plugins = plugins or PluginParts()
        diagnostics: list[Diagnostic] = []
        settings = await asyncio.to_thread(SettingsManager.create, options.cwd, options.agent_dir)
        for problem in settings.drain_errors():
            diagnostics.append(Diagnostic("warning", str(problem)))
        resources = await load_resources_async(
            ResourceOptions(
                cwd=options.cwd,
                agent_dir=options.agent_dir,
                settings=settings,
                skill_paths=options.skills,
                prompt_template_paths=options.prompt_templates,
                theme_paths=options.themes,
                no_skills=options.no_skills,
                no_prompt_templates=options.no_prompt_templates,
                no_themes=options.no_themes,
                no_context_files=options.no_context_files,
                system_prompt=options.system_prompt,
                append_system_prompt=options.append_system_prompt,
            )
        )
        for diagnostic in resources.diagnostics:
            diagnostics.append(Diagnostic("warning", str(diagnostic)))
        registry, registration_errors = _model_registry(options, plugins)
        if registry.error:
            diagnostics.append(Diagnostic("warning", f"errors loading models.json:\n{registry.error}"))
        diagnostics.extend(Diagnostic("error", text) for text in registration_errors)
        services = SessionServices(
            cwd=options.cwd,
            settings=settings,
            resources=resources,
            model_registry=registry,
            hooks=plugins.hooks,
            commands=list(plugins.commands),
            plugin_sources=dict(plugins.plugin_sources),
            tools=dict(plugins.tools),
            compaction=_compaction_registry(plugins),
        )
        configured_dir = settings.settings.session_dir
        if options.session_dir is None and configured_dir:
            # Precedence as pi: --session-dir, PI_CODING_AGENT_SESSION_DIR, then setting sessionDir.
            options = replace(options, session_dir=_expand_home(configured_dir))
        manager = await asyncio.to_thread(_session_manager, options)
        scoped = _scoped_models(options, registry, settings)
        model, level, model_diagnostics = _initial_model(options, registry, settings, manager, scoped)
        diagnostics.extend(model_diagnostics)
        if options.api_key:
            if model is None:
                diagnostics.append(Diagnostic("error", API_KEY_NEEDS_MODEL))
            else:
                registry.auth.set_runtime_api_key(model.provider, options.api_key)
        services.scoped_models = [(r.model, r.thinking_level) for r in scoped]
        session = AgentSession(
            services,
            manager,
            model=model,
            thinking_level=level,
            active_tools=_active_tools(options, plugins),
        )
        _record_start(session, manager, model)
        host = cls(services, session, options)
        host.diagnostics = diagnostics
        if plugins.hooks is not None:
            plugins.hooks.dispatcher.on_error = host._report_hook_error
        await host._discover_resources("startup")
        await host._session_start("startup")
        return host

    def _report_hook_error(self, record: Any) -> None:
        self.session.report_hook_error(record)

    async def _discover_resources(self, reason: Literal["startup", "reload"]) -> None:
        hooks = self.services.hooks
        if hooks is None or not hooks.has("resources_discover"):
            return
        event = hook_events.ResourcesDiscoverEvent(cwd=self.services.cwd, reason=reason)
        outcome = await hooks.resources_discover(event, self.session.extension_context())
        changed = self.services.resources.extend(
            [p.path for p in outcome.skill_paths],
            [p.path for p in outcome.prompt_paths],
            [p.path for p in outcome.theme_paths],
        )
        if changed:
            self.session.rebuild_system_prompt()

    async def _session_start(
        self, reason: Literal["startup", "reload", "new", "resume", "fork"], previous: str | None = None
    ) -> None:
        hooks = self.services.hooks
        if hooks is None or not hooks.has("session_start"):
            return
        event = hook_events.SessionStartEvent(reason=reason, previous_session_file=previous)
        await hooks.session_start(event, self.session.extension_context())

    # --- session replacement --------------------------------------------------------------------

    def on_session_replaced(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Call ``callback`` after every session replacement (modes re-bind their UI and output)."""
        self._rebind.append(callback)

    async def _before_switch(self, reason: Literal["new", "resume"], target: str | None) -> bool:
        hooks = self.services.hooks
        if hooks is None or not hooks.has("session_before_switch"):
            return False
        event = hook_events.SessionBeforeSwitchEvent(reason=reason, target_session_file=target)
        result = await hooks.session_before_switch(event, self.session.extension_context())
        return bool(result is not None and result.cancel)

    async def _replace(
        self,
        manager: Any,
        reason: Literal["new", "resume", "fork"],
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> None:
        old = self.session
        previous = old.session_file
        await old.dispose(reason, manager.get_session_file())
        context = manager.build_session_context()
        model = old.model
        if context.model is not None:
            model = self.services.model_registry.find(context.model.provider, context.model.model_id) or model
        level = context.thinking_level if context.messages else old.thinking_level
        session = AgentSession(
            self.services, manager, model=model, thinking_level=level, active_tools=old.active_tool_names
        )
        if not context.messages:
            _record_start(session, manager, model)
        session.host = self
        self.session = session
        if setup is not None:
            outcome = setup(manager)
            if outcome is not None:
                await outcome
        for callback in list(self._rebind):
            await callback()
        await self._session_start(reason, previous)

    async def new_session(
        self,
        *,
        parent_session: str | None = None,
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> bool:
        """Start a fresh session; returns whether a plugin cancelled."""
        if await self._before_switch("new", None):
            return True
        from pi_core.session.manager import SessionManager

        cwd = self.services.cwd
        if self.session.session_file is None:
            manager = SessionManager.in_memory(cwd)
        else:
            manager = SessionManager.create(cwd, self.session.session_manager.get_session_dir())
        if parent_session:
            manager.new_session(parent_session=parent_session)
        await self._replace(manager, "new", setup)
        return False

    async def switch_session(self, path: str) -> bool:
        """Open another session file; returns whether a plugin cancelled."""
        if await self._before_switch("resume", path):
            return True
        from pi_core.session.manager import SessionManager

        manager = await asyncio.to_thread(SessionManager.open, path)
        await self._replace(manager, "resume")
        return False

    async def fork(self, entry_id: str, *, position: str = "before") -> tuple[bool, str]:
        """Copy the path up to ``entry_id`` into a new session (``before``: up to its parent).

        Returns (cancelled, the selected user message's text).
        """
        session = self.session
        entry = session.session_manager.get_entry(entry_id)
        if entry is None:
            raise ValueError(f"Entry {entry_id} not found")
        hooks = self.services.hooks
        if hooks is not None and hooks.has("session_before_fork"):
            event = hook_events.SessionBeforeForkEvent(
                entry_id=entry_id, position="at" if position == "at" else "before"
            )
            result = await hooks.session_before_fork(event, session.extension_context())
            if result is not None and result.cancel:
                return True, ""
        text = ""
        message = getattr(entry, "message", None)
        if message is not None and message.role == "user":
            from pi_core.runtime.session import _user_text

            text = _user_text(message)
        leaf = entry_id if position == "at" else entry.parent_id
        manager = session.session_manager
        from pi_core.session.manager import SessionManager

        if leaf is None:  # forking at the first message: an empty session that remembers its parent
            forked = SessionManager.create(self.services.cwd, manager.get_session_dir())
            if manager.get_session_file() is None:
                forked = SessionManager.in_memory(self.services.cwd)
            forked.new_session(parent_session=manager.get_session_file())
        else:
            # Switches this manager in place to a new file holding the path to ``leaf``.
            await asyncio.to_thread(manager.create_branched_session, leaf)
            forked = manager
        await self._replace(forked, "fork")
        return False, text

    async def reload(self) -> None:
        """Re-read settings and resources and rebuild the system prompt (``/reload``)."""
        if not self.session.is_idle:
            raise RuntimeError("Cannot reload while the agent is working")
        settings = self.services.settings
        await asyncio.to_thread(settings.reload)
        self.services.resources = await load_resources_async(
            ResourceOptions(cwd=self.services.cwd, agent_dir=self.options.agent_dir, settings=settings)
        )
        self.session.resources = self.services.resources
        await self._discover_resources("reload")
        self.session.rebuild_system_prompt()
        await self._session_start("reload")

    def request_shutdown(self) -> None:
        self.shutdown_requested = True

    async def dispose(self) -> None:
        await self.session.dispose("quit")


def _model_registry(options: RuntimeOptions, plugins: PluginParts) -> tuple[ModelRegistry, list[str]]:
    """The built-in catalogue + ``<agentDir>/models.json`` + plugin providers, with auth.json keys.

    Returns the registry and the plugin registrations it refused (pi's start-up errors).
    """
    from pi_core.ai.builtin_providers import register_builtin_api_providers

    register_builtin_api_providers()
    agent = Path(options.agent_dir)
    registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")
    errors: list[str] = []
    for item in plugins.providers:
        try:
            registry.register(item)
        except (TypeError, ValueError) as error:
            errors.append(f"Plugin provider error: {error}")
    return registry, errors


def _compaction_registry(plugins: PluginParts) -> Any:
    if not plugins.compaction_strategies:
        return None
    from pi_core.runtime.compaction import CompactionStrategyRegistry

    registry = CompactionStrategyRegistry()
    for name, (owner, strategy) in plugins.compaction_strategies.items():
        registry.register(name, strategy, owner=owner)
    return registry


def _active_tools(options: RuntimeOptions, plugins: PluginParts) -> list[str]:
    """pi's rules: an allowlist wins; --no-tools: none; --no-builtin-tools: only plugin tools.

    Each name appears once (pi de-duplicates its initial set): ``--tools read,read`` is one ``read``,
    and a plugin tool that overrides a built-in by name keeps the built-in's place among the defaults.
    """
    if options.no_tools and not options.tools:
        return []
    if options.tools:
        return [name for name in dict.fromkeys(options.tools) if name in plugins.tools]
    plugin_tools = [name for name in plugins.tools if name not in plugins.builtin_tool_names]
    if options.no_builtin_tools:
        return plugin_tools
    defaults = [name for name in DEFAULT_ACTIVE_TOOLS if name in plugins.tools]
    return defaults + [name for name in plugin_tools if name not in defaults]


def _initial_model(
    options: RuntimeOptions,
    registry: ModelRegistry,
    settings: SettingsManager,
    manager: Any,
    scoped: Sequence[ResolvedModel] = (),
) -> tuple[Model | None, str, list[Diagnostic]]:
    """pi's initial model and thinking level (spec agent-loop §11.4, §9)."""
    diagnostics: list[Diagnostic] = []
    model: Model | None = None
    level: str | None = None
    typed = settings.settings
    context = manager.build_session_context()
    if options.model:
        try:
            resolved = resolve_cli_model(options.model, registry.get_all(), options.provider)
        except ModelNotFoundError as error:
            diagnostics.append(Diagnostic("error", str(error), usage=True))
        else:
            if resolved.warning:
                diagnostics.append(Diagnostic("warning", resolved.warning))
            model, level = resolved.model, resolved.thinking_level
    if model is None and scoped and not context.messages:
        # A new session with a model scope: the saved default when it is in scope, else the first.
        saved = next(
            (
                r
                for r in scoped
                if (r.model.provider, r.model.id) == (typed.default_provider, typed.default_model)
            ),
            None,
        )
        chosen = saved or scoped[0]
        model, level = chosen.model, chosen.thinking_level
    if model is None and context.messages and context.model is not None:
        restored = registry.find(context.model.provider, context.model.model_id)
        if restored is not None and registry.has_configured_auth(restored):
            model = restored
        else:
            diagnostics.append(
                Diagnostic(
                    "warning", f"Could not restore model {context.model.provider}/{context.model.model_id}"
                )
            )
    if model is None and not options.model and typed.default_provider and typed.default_model:
        model = registry.find(typed.default_provider, typed.default_model)
    if model is None and not options.model:
        available = registry.get_available()
        for provider, model_id in DEFAULT_MODEL_PER_PROVIDER.items():
            model = next((m for m in available if m.provider == provider and m.id == model_id), None)
            if model is not None:
                break
        if model is None and available:
            model = available[0]
    if options.thinking:
        level = options.thinking
    if level is None:
        if context.messages:
            level = context.thinking_level
        else:
            level = typed.default_thinking_level or DEFAULT_THINKING_LEVEL
    if model is not None:
        level = clamp_thinking_level(model, level)
    return model, level, diagnostics


def _scoped_models(
    options: RuntimeOptions, registry: ModelRegistry, settings: SettingsManager
) -> list[ResolvedModel]:
    """``--models`` (or the ``enabledModels`` setting) over the models that have a key."""
    patterns = list(options.models or settings.settings.enabled_models or [])
    if not patterns:
        return []
    return resolve_model_scope(patterns, registry.get_available())


def _record_start(session: AgentSession, manager: Any, model: Model | None) -> None:
    """New sessions begin with ``model_change`` + ``thinking_level_change``; a resumed one records a
    model change when the model differs from the one it was using."""
    context = manager.build_session_context()
    if model is None:
        return
    if not context.messages:
        manager.append_model_change(model.provider, model.id)
        manager.append_thinking_level_change(session.thinking_level)
        return
    previous = context.model
    if previous is None or (previous.provider, previous.model_id) != (model.provider, model.id):
        manager.append_model_change(model.provider, model.id)


def _expand_home(path: str) -> str:
    """``~`` expansion without touching the file system (string work only)."""
    return os.path.expanduser(path)


def default_agent_dir() -> str:
    """``PI_CODING_AGENT_DIR`` (``~`` expanded) or ``~/.pi/agent``."""
    configured = os.environ.get("PI_CODING_AGENT_DIR")
    if configured:
        return os.path.abspath(os.path.expanduser(configured))
    return os.path.join(os.path.expanduser("~"), ".pi", "agent")
