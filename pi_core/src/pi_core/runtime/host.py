"""The runtime host: builds an AgentSession from the start-up options and replaces it on demand.

Start-up follows pi's main: settings and resources for the cwd, plugin registrations (tools,
commands, providers, compaction strategies), the model registry, the session file (new, ``--continue``,
``--session``, ``--fork``, ``--no-session``), the initial model and thinking level, the active tools.
``session_start`` and ``resources_discover`` wait until a mode binds (:meth:`RuntimeHost.bind_mode`),
as pi's ``bindExtensions``, so plugins starting up already reach the mode's UI.

``new_session``/``switch_session``/``fork``/``reload`` dispose the current session
(``session_shutdown``), load the plugins again (fresh module instances of local extension files, as
pi builds a new extension runtime) and build the next session on the same session services; modes
re-bind through :meth:`RuntimeHost.on_session_replaced`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Literal

from pi_core._paths import agent_dir
from pi_core.plugins import events as hook_events
from pi_core.runtime.auth_guidance import API_KEY_NEEDS_MODEL
from pi_core.runtime.event_bus import EventBus
from pi_core.runtime.mcp_servers import McpServerRegistry
from pi_core.runtime.options import Diagnostic, PluginParts, RuntimeOptions
from pi_core.runtime.resources import ResourceOptions, SettingsManager, load_resources_async
from pi_core.runtime.session import AgentSession, SessionServices
from pi_core.runtime.startup import (
    compaction_registry,
    expand_home,
    initial_active_tools,
    initial_model,
    model_registry,
    record_start,
    register_plugin_providers,
    scoped_models,
)

if TYPE_CHECKING:
    from pi_core.runtime.themes import Theme

#: pi 1.6.0's refusal to fork or clone a session whose file is not written yet.
NOT_SAVED = "This session has not been saved yet. Send a message before cloning or forking it."

__all__ = [
    "Diagnostic",
    "MissingCwdChoice",
    "MissingSessionCwdError",
    "PluginParts",
    "RuntimeHost",
    "RuntimeOptions",
    "SessionInOtherProjectError",
    "SessionNotFoundError",
    "default_agent_dir",
    "resolve_session_arg",
]

logger = logging.getLogger("pi.runtime")

ReplaceReason = Literal["reload", "new", "resume", "fork"]
StartReason = Literal["startup", "reload", "new", "resume", "fork"]


class SessionNotFoundError(LookupError):
    def __init__(self, arg: str) -> None:
        super().__init__(f"No session found matching '{arg}'")


MissingCwdChoice = Literal["refuse", "continue", "fork"]

#: The choices offered for a session whose stored cwd is gone, by label ("Cancel" is the third).
MISSING_CWD_CHOICES: tuple[tuple[str, MissingCwdChoice], ...] = (
    ("Continue in {cwd} (asks again next time)", "continue"),
    ("Fork into {cwd} (new session ID, original kept)", "fork"),
)


class MissingSessionCwdError(RuntimeError):
    """A session file whose recorded working directory no longer exists (pi 1.6.0 refuses it)."""

    def __init__(self, session_file: str, session_cwd: str, fallback_cwd: str) -> None:
        self.session_file = session_file
        self.session_cwd = session_cwd
        self.fallback_cwd = fallback_cwd
        super().__init__(
            f"Stored session working directory does not exist: {session_cwd}\n"
            f"Session file: {session_file}\nCurrent working directory: {fallback_cwd}"
        )

    @property
    def question(self) -> str:
        """The title of the choice the REPL offers."""
        return f"Session cwd does not exist: {self.session_cwd}"

    def choices(self) -> list[tuple[str, MissingCwdChoice]]:
        """The labels and what each one does (without the cancel row)."""
        return [(label.format(cwd=self.fallback_cwd), choice) for label, choice in MISSING_CWD_CHOICES]


def missing_session_cwd(path: str | Path, fallback_cwd: str) -> MissingSessionCwdError | None:
    """The refusal for a session file whose header records a cwd that is gone, else ``None``
    (only the header line is read)."""
    from pi_core.session.manager import peek_header_cwd

    stored = peek_header_cwd(Path(path))
    if stored is None or os.path.isdir(stored):
        return None
    return MissingSessionCwdError(os.path.abspath(path), stored, fallback_cwd)


def open_session_file(
    path: str | Path, session_dir: str | None, fallback_cwd: str, choice: MissingCwdChoice = "refuse"
) -> Any:
    """Open a session file, minding the cwd its header records: when that folder is gone, refuse
    (raise :class:`MissingSessionCwdError`), open it in ``fallback_cwd`` (``continue``; the file
    keeps its header) or fork it into ``fallback_cwd`` (``fork``), as pi 1.6.0 does."""
    from pi_core.session.manager import SessionManager

    missing = missing_session_cwd(path, fallback_cwd)
    if missing is None:
        return SessionManager.open(path, session_dir)
    if choice == "continue":
        return SessionManager.open(path, session_dir, cwd_override=fallback_cwd)
    if choice == "fork":
        return SessionManager.fork_from(path, fallback_cwd, session_dir)
    raise missing


class SessionInOtherProjectError(LookupError):
    """``--session <id>`` matched only a session of another project; pi 1.6.0 asks whether to fork
    it into the current directory (``RuntimeOptions.fork`` with :attr:`session_file`)."""

    def __init__(self, session_file: str, session_cwd: str) -> None:
        self.session_file = session_file
        self.session_cwd = session_cwd
        super().__init__(f"Session found in different project: {session_cwd}")


def resolve_session_arg(arg: str, cwd: str, session_dir: str | None, *, local_only: bool = False) -> Path:
    """A session file path, or the first session whose id starts with ``arg`` (this project first;
    with ``local_only`` a match in another project raises :class:`SessionInOtherProjectError`)."""
    from pi_core.session.manager import SessionManager

    candidate = Path(arg).expanduser()
    if candidate.is_file() or arg.endswith(".jsonl"):
        return candidate.resolve()
    for info in SessionManager.list_sessions(cwd, session_dir):
        if info.id.startswith(arg):
            return Path(info.path)
    everywhere = SessionManager.list_all()
    found = next((i for i in everywhere if i.id == arg), None) or next(
        (i for i in everywhere if i.id.startswith(arg)), None
    )
    if found is None:
        raise SessionNotFoundError(arg)
    if local_only and found.cwd and os.path.abspath(found.cwd) != os.path.abspath(cwd):
        raise SessionInOtherProjectError(found.path, found.cwd)
    return Path(found.path)


def _session_manager(options: RuntimeOptions) -> tuple[Any, list[Diagnostic]]:
    """The session manager the options ask for, and what start-up should tell the user about it."""
    from pi_core.session.manager import SessionManager

    notes: list[Diagnostic] = []
    wanted_id = options.session_id
    if options.no_session:
        manager = SessionManager.in_memory(options.cwd)
        if wanted_id:
            manager.new_session(id=wanted_id)
        return manager, notes
    if options.fork:
        source = resolve_session_arg(options.fork, options.cwd, options.session_dir)
        return SessionManager.fork_from(source, options.cwd, options.session_dir, session_id=wanted_id), notes
    if options.session:
        path = resolve_session_arg(options.session, options.cwd, options.session_dir, local_only=True)
        return open_session_file(path, options.session_dir, options.cwd, options.missing_cwd), notes
    if options.continue_recent:
        return SessionManager.continue_recent(options.cwd, options.session_dir), notes
    if wanted_id:
        for info in SessionManager.list_sessions(options.cwd, options.session_dir):
            if info.id == wanted_id:
                manager = open_session_file(info.path, options.session_dir, options.cwd, options.missing_cwd)
                return manager, notes
        notes.append(
            Diagnostic(
                "warning",
                f"No project session found with id '{wanted_id}'; creating a new session with that id.",
            )
        )
        manager = SessionManager.create(options.cwd, options.session_dir)
        manager.new_session(id=wanted_id)
        return manager, notes
    return SessionManager.create(options.cwd, options.session_dir), notes


def _plugin_services(plugins: PluginParts) -> dict[str, Any]:
    """The session services that come from the plugins (a fresh event bus with every load)."""
    return {
        "hooks": plugins.hooks,
        "commands": list(plugins.commands),
        "plugin_sources": dict(plugins.plugin_sources),
        "tools": dict(plugins.tools),
        "tool_owners": dict(plugins.tool_owners),
        "project_trusted": plugins.project_trusted,
        "builtin_tool_names": set(plugins.builtin_tool_names),
        "compaction": compaction_registry(plugins),
        "flag_values": dict(plugins.flag_values),
        "events": EventBus(),
        "mcp_servers": McpServerRegistry(),
    }


def _resource_options(options: RuntimeOptions, settings: SettingsManager) -> ResourceOptions:
    """What to load resources from: the settings plus the command line's resource flags."""
    return ResourceOptions(
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


class RuntimeHost:
    """Owns the services, the loaded plugins and the current AgentSession."""

    def __init__(
        self,
        services: SessionServices,
        session: AgentSession,
        options: RuntimeOptions,
        plugins: PluginParts | None = None,
    ) -> None:
        self.services = services
        self.session = session
        self.options = options
        self.plugins = plugins or PluginParts()
        self.diagnostics: list[Diagnostic] = []
        self.shutdown_requested = False
        self._rebind: list[Callable[[], Awaitable[None]]] = []
        #: ``session_start`` still to fire (reason, previous file) once a mode has bound.
        self._announcement: tuple[StartReason, str | None] | None = None
        #: Plugin problems of the last reload, shown once the mode is bound again.
        self._issues: list[str] = []
        session.host = self
        self._watch_hook_errors()

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    async def create(cls, options: RuntimeOptions, plugins: PluginParts | None = None) -> RuntimeHost:
        """Build services and the first session; diagnostics (errors stop a run) land on the host.

        ``session_start`` fires when a mode binds (:meth:`bind_mode`), not here.
        """
        plugins = plugins or PluginParts()
        diagnostics: list[Diagnostic] = []
        settings = await asyncio.to_thread(SettingsManager.create, options.cwd, options.agent_dir)
        for problem in settings.drain_errors():
            diagnostics.append(Diagnostic("warning", str(problem)))
        withheld = await asyncio.to_thread(_withhold_untrusted_programs, settings, options)
        if withheld:
            diagnostics.append(Diagnostic("warning", withheld))
        resources = await load_resources_async(_resource_options(options, settings))
        for diagnostic in resources.diagnostics:
            diagnostics.append(Diagnostic("warning", str(diagnostic)))
        registry, registration_errors = model_registry(options, plugins)
        if registry.error:
            diagnostics.append(Diagnostic("warning", f"errors loading models.json:\n{registry.error}"))
        diagnostics.extend(Diagnostic("error", text) for text in registration_errors)
        services = SessionServices(
            cwd=options.cwd,
            settings=settings,
            resources=resources,
            model_registry=registry,
            **_plugin_services(plugins),
        )
        configured_dir = settings.settings.session_dir
        if options.session_dir is None and configured_dir:
            # Precedence as pi: --session-dir, PI_CODING_AGENT_SESSION_DIR, then setting sessionDir.
            options = replace(options, session_dir=expand_home(configured_dir))
        manager, session_notes = await asyncio.to_thread(_session_manager, options)
        diagnostics.extend(session_notes)
        if options.session_name and manager.get_session_name() != options.session_name:
            manager.append_session_info(options.session_name)  # --name, before anything else is recorded
        scoped = scoped_models(options, registry, settings)
        model, level, model_diagnostics = initial_model(options, registry, settings, manager, scoped)
        diagnostics.extend(model_diagnostics)
        if options.api_key:
            if model is None:
                diagnostics.append(Diagnostic("error", API_KEY_NEEDS_MODEL))
            else:
                registry.auth.set_runtime_api_key(model.provider, options.api_key)
        services.scoped_models = [(r.model, r.thinking_level) for r in scoped]
        selection = initial_active_tools(options, plugins, settings)
        diagnostics.extend(Diagnostic("warning", text) for text in selection.warnings)
        diagnostics.extend(Diagnostic("error", text) for text in selection.errors)
        session = AgentSession(
            services,
            manager,
            model=model,
            thinking_level=level,
            active_tools=selection.names,
        )
        _restore_tools(session, options)
        record_start(session, manager, model)
        host = cls(services, session, options, plugins)
        host.diagnostics = diagnostics
        host._announcement = ("startup", None)
        return host

    def _watch_hook_errors(self) -> None:
        hooks = self.services.hooks
        if hooks is not None:
            hooks.dispatcher.on_error = self._report_hook_error

    def _report_hook_error(self, record: Any) -> None:
        self.session.report_hook_error(record)

    # --- binding a mode ---------------------------------------------------------------------------

    async def bind_mode(self, *, ui: Any = None, on_error: Any = None, mode: str | None = None) -> None:
        """Attach a mode's UI and error sink to the current session, then let plugins start.

        The first bind fires ``session_start`` (reason ``startup``) and ``resources_discover``, as
        pi's ``bindExtensions``; so does the bind after each session replacement. Modes subscribe
        to the session's events before calling this, so nothing a plugin does at start is missed.
        """
        await self.session.bind_mode(ui=ui, on_error=on_error, mode=mode)
        await self._announce()

    async def _announce(self) -> None:
        pending, self._announcement = self._announcement, None
        if pending is None:
            return
        reason, previous = pending
        await self._session_start(reason, previous)
        await self._discover_resources("reload" if reason == "reload" else "startup")
        issues, self._issues = self._issues, []
        if issues:
            self.session.ui.notify("[Extension issues]\n" + "\n".join(issues), "warning")

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

    async def _session_start(self, reason: StartReason, previous: str | None = None) -> None:
        hooks = self.services.hooks
        if hooks is None or not hooks.has("session_start"):
            return
        event = hook_events.SessionStartEvent(reason=reason, previous_session_file=previous)
        await hooks.session_start(event, self.session.extension_context())

    def setting_theme(self) -> Theme:
        """The theme the ``theme`` setting names among the built-in themes and the agent folder's
        ``themes`` (``system`` when it names none that loads, or a ``light/dark`` pair):
        ``ctx.ui.theme`` in print, JSON and RPC modes, as pi's
        (:func:`~pi_core.runtime.themes.setting_theme`)."""
        from pi_core.runtime.themes import setting_theme

        session = self.session
        return setting_theme(session.settings.settings.theme, session.resources.agent_dir)

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
        reason: ReplaceReason,
        setup: Callable[[Any], Awaitable[None] | None] | None = None,
    ) -> None:
        """Dispose the session, load the plugins afresh, and bind a new session on ``manager``."""
        old = self.session
        previous = old.session_file
        ui = old.ui
        target = None if reason == "reload" else manager.get_session_file()
        await old.dispose(reason, target)
        issues = await self._reread_configuration() if reason == "reload" else []
        project = manager.get_cwd()
        moved = reason == "resume" and PurePath(project) != PurePath(self.services.cwd)
        if moved:
            issues += await self._move_to(project)
        known_tools = set(self.services.tools)
        issues += await self._reload_plugins(ui, project if moved else None)
        self._issues = issues
        context = manager.build_session_context()
        model = old.model
        if context.model is not None and reason != "reload":
            model = self.services.model_registry.find(context.model.provider, context.model.model_id) or model
        elif model is not None:  # plugin providers were registered again: take the fresh object
            model = self.services.model_registry.find(model.provider, model.id) or model
        level = context.thinking_level if context.messages and reason != "reload" else old.thinking_level
        # Keep the active set; tools that only now exist (a plugin added them) become active.
        active = [*old.active_tool_names, *(name for name in self.services.tools if name not in known_tools)]
        session = AgentSession(self.services, manager, model=model, thinking_level=level, active_tools=active)
        if reason != "reload":
            _restore_tools(session, self.options)
        if reason == "reload":
            session.adopt_pending(old)
        elif not context.messages:
            record_start(session, manager, model)
        session.host = self
        self.session = session
        if setup is not None:
            outcome = setup(manager)
            if outcome is not None:
                await outcome
        self._announcement = (reason, None if reason == "reload" else previous)
        for callback in list(self._rebind):
            await callback()
        await self._announce()  # no mode bound (a bare host): plugins start all the same

    async def _reread_configuration(self) -> list[str]:
        """``/reload``: settings, models.json, context files, skills, templates; returns problems."""
        settings = self.services.settings
        await asyncio.to_thread(settings.reload)
        problems = [str(problem) for problem in settings.drain_errors()]
        resources = await load_resources_async(_resource_options(self.options, settings))
        problems += [str(diagnostic) for diagnostic in resources.diagnostics]
        registry = self.services.model_registry
        await asyncio.to_thread(registry.load)
        if registry.error:
            problems.append(f"errors loading models.json:\n{registry.error}")
        self.services = replace(self.services, resources=resources)
        return problems

    async def _move_to(self, project: str) -> list[str]:
        """Work in ``project`` from now on — a resumed session was recorded there, and pi 1.6.0
        runs a session in its own folder: that project's settings, context files, skills and
        templates (its plugins follow in :meth:`_reload_plugins`); returns problems to show."""
        self.options = replace(self.options, cwd=project)
        settings = await asyncio.to_thread(SettingsManager.create, project, self.options.agent_dir)
        problems = [str(problem) for problem in settings.drain_errors()]
        withheld = await asyncio.to_thread(_withhold_untrusted_programs, settings, self.options)
        if withheld:
            problems.append(withheld)
        resources = await load_resources_async(_resource_options(self.options, settings))
        problems += [str(diagnostic) for diagnostic in resources.diagnostics]
        self.services = replace(self.services, cwd=project, settings=settings, resources=resources)
        return problems

    async def _reload_plugins(self, ui: Any, project: str | None = None) -> list[str]:
        """Load the plugins again (for ``project`` when the run moved there) and swap them into the
        services (pi's new extension runtime).

        Returns what went wrong (load failures, conflicts, refused providers) for the user.
        """
        reload = self.plugins.reload
        if reload is None:
            return []

        async def confirm(check: Any) -> bool:
            from pi_core.plugins.trust import untrusted_message

            return bool(await ui.confirm("Run this project's plugin code?", untrusted_message(check)))

        try:
            plugins = await reload(confirm, project)
        except Exception as error:  # keep the plugins we have rather than none at all
            logger.exception("reloading plugins failed")
            return [f"Reloading the plugins failed, the previous ones stay loaded: {error}"]
        registry = self.services.model_registry
        registry.reset_plugin_providers()
        refused = register_plugin_providers(registry, plugins)
        self.plugins = plugins
        self.services = replace(self.services, **_plugin_services(plugins))
        self._watch_hook_errors()
        return [*plugins.problems, *refused]

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

    async def switch_session(self, path: str, missing_cwd: MissingCwdChoice = "refuse") -> bool:
        """Open another session file; returns whether a plugin cancelled.

        A file whose stored cwd is gone raises :class:`MissingSessionCwdError` before any hook
        runs, unless ``missing_cwd`` says to continue it in this cwd or to fork it here.
        """
        missing = await asyncio.to_thread(missing_session_cwd, path, self.services.cwd)
        if missing is not None and missing_cwd == "refuse":
            raise missing
        if await self._before_switch("resume", path):
            return True
        # A fork goes next to the current session, as pi 1.6.0 puts it.
        directory = self.session.session_manager.get_session_dir() if missing_cwd == "fork" else None
        manager = await asyncio.to_thread(open_session_file, path, directory, self.services.cwd, missing_cwd)
        await self._replace(manager, "resume")
        return False

    async def import_session(self, path: str, missing_cwd: MissingCwdChoice = "refuse") -> bool:
        """``/import``: copy a session file into this project's session directory and switch to it.

        Raises ``FileNotFoundError`` for a missing file, and :class:`MissingSessionCwdError` for a
        file whose stored cwd is gone unless ``missing_cwd`` says to continue it in this cwd (the
        copy keeps its header) or to fork it here (no copy; a new session from the file). Returns
        whether a plugin cancelled (``session_before_switch`` with reason ``resume``).
        """
        import shutil

        source = await asyncio.to_thread(_existing_file, path)
        directory = self.session.session_manager.get_session_dir()
        if directory is None:
            raise RuntimeError("This session is not saved (--no-session); there is nowhere to import to")
        cwd = self.services.cwd
        missing = await asyncio.to_thread(missing_session_cwd, source, cwd)
        if missing is not None and missing_cwd == "refuse":
            raise missing
        if missing is not None and missing_cwd == "fork":
            return await self.switch_session(str(source), "fork")
        destination = Path(directory) / source.name
        if await self._before_switch("resume", str(destination)):
            return True

        def copy() -> None:
            destination.parent.mkdir(parents=True, exist_ok=True)
            if destination.absolute() != source:
                shutil.copyfile(source, destination)

        await asyncio.to_thread(copy)
        choice: MissingCwdChoice = "continue" if missing is not None else "refuse"
        manager = await asyncio.to_thread(open_session_file, destination, directory, cwd, choice)
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
            from pi_core.runtime.session_views import user_text

            text = user_text(message)
        leaf = entry_id if position == "at" else entry.parent_id
        manager = session.session_manager
        from pi_core.session.manager import SessionManager

        if leaf is None:  # forking at the first message: an empty session that remembers its parent
            forked = SessionManager.create(self.services.cwd, manager.get_session_dir())
            if manager.get_session_file() is None:
                forked = SessionManager.in_memory(self.services.cwd)
            forked.new_session(parent_session=manager.get_session_file())
        else:
            file = manager.get_session_file()
            if manager.is_persisted() and (file is None or not await asyncio.to_thread(os.path.exists, file)):
                # pi 1.6.0: a session that is to be saved but has no file yet (no reply so far)
                # is not copied from memory; an in-memory session (--no-session) is.
                raise ValueError(NOT_SAVED)
            # Switches this manager in place to a new file holding the path to ``leaf``.
            await asyncio.to_thread(manager.create_branched_session, leaf)
            forked = manager
        await self._replace(forked, "fork")
        return False, text

    async def reload(self) -> None:
        """``/reload``: re-read settings and resources, load the plugins again, restart them.

        pi's order: ``session_shutdown`` (reason ``reload``) → settings and resources → plugins
        re-imported (flag values kept) → ``session_start`` → ``resources_discover`` (both reason
        ``reload``). The conversation, model, thinking level and active tools stay; a context used
        by the plugin that asked for the reload is stale afterwards.
        """
        if not self.session.is_idle:
            raise RuntimeError("Cannot reload while the agent is working")
        await self._replace(self.session.session_manager, "reload")

    def request_shutdown(self) -> None:
        self.shutdown_requested = True

    async def dispose(self) -> None:
        await self.session.dispose("quit")


def _restore_tools(session: AgentSession, options: RuntimeOptions) -> None:
    """A session opened on a transcript that records its tools continues with them, as pi 1.6.0
    does when the tool set follows ``defaultTools`` (``--tools +x``/``-x`` then apply on top)."""
    from pi_core.runtime.tool_selection import tool_changes, uses_default_tools

    if uses_default_tools(options.tools, options.no_tools, options.no_builtin_tools):
        session.restore_tools_from_transcript(tool_changes(options.tools), options.exclude_tools or ())


def _existing_file(path: str) -> Path:
    source = Path(path).expanduser().absolute()
    if not source.is_file():
        raise FileNotFoundError(f"Session file not found: {source}")
    return source


def default_agent_dir() -> str:
    """``PI_CODING_AGENT_DIR`` (``~`` expanded) or ``~/.pi/agent``."""
    return str(agent_dir())


def _withhold_untrusted_programs(settings: SettingsManager, options: RuntimeOptions) -> str | None:
    """Leave out the project's program settings (``shellPath``, ...) unless the project is
    trusted, as its plugin code would be; the warning to show, if any was left out."""
    from pi_core.plugins.trust import PROGRAM_SETTINGS, check_project_trust

    project = settings.project_settings()
    programs = [key for key in PROGRAM_SETTINGS if key in project]
    if not programs or options.trust_project:
        return None
    if check_project_trust(Path(options.cwd), Path(options.agent_dir)).allowed:
        return None
    settings.withhold_project(programs)
    return (
        f"{settings.project_path}: {', '.join(programs)} choose programs that pi would run; ignored "
        "until you trust the project (`pi trust`, or --trust-project for one run)"
    )
