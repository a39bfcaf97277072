"""The plugin manager and the loader that fills it in pi's load order (spec §7.3).

Load order, which is also dispatch order: ``-e`` paths (command-line order), project settings
``extensions``, project ``.pi/extensions``, global settings ``extensions``, global
``<agent dir>/extensions``, installed distributions with entry points in group ``pi`` (sorted by
distribution, then entry-point name), and pi's own built-in plugins last, so extensions always get
the first say. Each plugin is loaded and registered on its own; a failure is recorded with a clear
message and loading goes on. A run refuses to start with recorded failures (exit status 1), but
``pi plugins`` and ``pi trust`` still work and show them.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import itertools
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import pluggy

from pi_core._markers import ENTRY_POINT_GROUP, PROJECT_NAME
from pi_core._paths import agent_dir
from pi_core.errors import PluginLoadError, PluginValidationError
from pi_core.plugins import hookspecs
from pi_core.plugins.sources import (
    PROJECT_SCOPES,
    LocalPlugin,
    SettingsReader,
    blocked_names,
    discover_local,
    source_only_spec,
)
from pi_core.plugins.trust import MCP_FILE, TrustCheck, check_project_trust
from pi_core.settings_file import SettingsError

#: pi-coding-agent-core's own plugin modules, registered last: the three built-in wire APIs.
CORE_PLUGIN_MODULES: tuple[str, ...] = ("pi_core.ai.builtin_providers",)

#: Distributions of this workspace whose entry points count as built-ins (kept by ``--no-extensions``,
#: listed by ``pi plugins`` only with ``--all``).
BUILTIN_DISTRIBUTIONS: frozenset[str] = frozenset(
    {
        "pi-coding-agent-tools",
        "pi-coding-agent-compaction",
        "pi-coding-agent-providers",
        "pi-coding-agent-mcp",
        "pi-coding-agent-core",
    }
)

#: Names of pi's built-in plugins (entry points of the built-in distributions, the core's modules).
#: Another plugin by one of these names — a local ``tools.py``, say — is a load error saying so.
RESERVED_PLUGIN_NAMES: frozenset[str] = frozenset({"tools", "compaction", "providers", "catalogue", "mcp"})

Source = Literal["builtin", "entry point", "flag", "project settings", "project", "global settings", "global"]
Status = Literal["active", "blocked", "failed", "untrusted"]

_SCOPE_SOURCE: dict[str, Source] = {
    "flag": "flag",
    "project-settings": "project settings",
    "project": "project",
    "global-settings": "global settings",
    "global": "global",
}
_module_counter = itertools.count()


@dataclass
class PluginRecord:
    """Bookkeeping for one plugin: where it came from, whether it runs, and why not."""

    name: str
    source: Source
    #: ``dist==version`` for entry points, the file path for local plugins, the module for built-ins.
    origin: str
    path: str | None = None
    distribution: str | None = None
    version: str | None = None
    status: Status = "active"
    error: PluginLoadError | None = None
    builtin: bool = False

    @property
    def where(self) -> str:
        if self.distribution:
            return f"{self.distribution}=={self.version}"
        return self.path or self.origin


class PiPluginManager(pluggy.PluginManager):
    """pluggy's manager for project ``pi`` plus pi's bookkeeping (records, load index, failures).

    Build one per runtime with :func:`load_plugins` (or directly, for tests); there is no global one.
    """

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self.records: dict[str, PluginRecord] = {}
        self.load_errors: list[PluginLoadError] = []
        #: settings.json files that could not be used (treated as empty); shown as warnings, never fatal.
        self.settings_errors: list[SettingsError] = []
        #: Set when project plugin code was skipped because the project is not trusted.
        self.untrusted_project: TrustCheck | None = None
        #: Whether the project's code and programs (``.pi/extensions``, ``.pi/mcp.json``) may run in
        #: this load: trusted, nothing to trust, or ``--trust-project``; never with ``--no-approve``.
        self.project_allowed = True
        #: What the ``project_trust`` hook decided in this load (``None``: not asked, or nobody decided).
        self.trust_decision: bool | None = None
        #: Bumped on every (un)registration; the dispatcher re-sorts handlers when it changes.
        self.generation = 0
        self._load_index: dict[str, int] = {}
        self._next_index = itertools.count()
        #: Load-order places given out before registration (:meth:`plan_order`).
        self._planned: dict[str, int] = {}

    # --- pluggy overrides: keep load order and invalidate dispatcher caches -------------------------

    def register(self, plugin: object, name: str | None = None) -> str | None:
        registered = super().register(plugin, name)
        if registered is not None:
            planned = self._planned.pop(registered, None)
            self._load_index[registered] = planned if planned is not None else next(self._next_index)
            self.generation += 1
        return registered

    def plan_order(self, names: Sequence[str]) -> None:
        """Give ``names`` their places in load order now, whenever each is registered later
        (the project's plugins register after the others, once its trust is decided)."""
        start = next(self._next_index)
        for offset, name in enumerate(names):
            self._planned.setdefault(name, start + offset)
        self._next_index = itertools.count(start + len(names))

    def sort_records(self) -> None:
        """Put ``records`` in load order (planned places first, the rest as they came)."""
        places = {**self._planned, **self._load_index}
        ordered = sorted(self.records.items(), key=lambda item: places.get(item[0], sys.maxsize))
        self.records = dict(ordered)

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        removed = super().unregister(plugin, name)
        self.generation += 1
        return removed

    def load_index(self, name: str) -> int:
        """Position of the plugin in load order (registration order)."""
        return self._load_index.get(name, sys.maxsize)

    def plugins_in_load_order(self) -> list[tuple[str, object]]:
        pairs = [(name, plugin) for name, plugin in self.list_name_plugin() if plugin is not None]
        return sorted(pairs, key=lambda pair: self.load_index(pair[0]))

    def hooks_of(self, name: str) -> list[str]:
        """Names of the hooks the plugin implements, sorted."""
        plugin = self.get_plugin(name)
        if plugin is None:
            return []
        return sorted(caller.name for caller in self.get_hookcallers(plugin) or ())

    # --- adding plugins with attribution ------------------------------------------------------------

    def add_plugin(self, plugin: object, record: PluginRecord) -> None:
        """Register ``plugin`` under ``record.name`` and validate it, or raise a PluginLoadError."""
        if self.get_plugin(record.name) is not None or record.name in self.records:
            other = self.records.get(record.name)
            where = f" from {other.source} {other.where}" if other else ""
            raise PluginLoadError(
                plugin=record.name,
                source=record.source,
                location=record.where,
                problem=f"a plugin named {record.name!r} is already loaded{where}; names must be unique",
            )
        try:
            self.register(plugin, record.name)
        except pluggy.PluginValidationError as exc:
            raise PluginValidationError(
                plugin=record.name, source=record.source, location=record.where, problem=str(exc)
            ) from exc
        except ValueError as exc:
            raise PluginLoadError(
                plugin=record.name, source=record.source, location=record.where, problem=str(exc)
            ) from exc
        problem = self._validate(plugin)
        if problem is None:
            try:
                self.check_pending()  # pluggy's own check, now that this plugin is known to be clean
            except pluggy.PluginValidationError as exc:
                problem = str(exc)
        if problem is not None:
            self.unregister(plugin)
            raise PluginValidationError(
                plugin=record.name, source=record.source, location=record.where, problem=problem
            )
        self.records[record.name] = record

    def _validate(self, plugin: object) -> str | None:
        """pluggy's ``check_pending`` for one plugin, with a did-you-mean; wrappers are refused."""
        known = [name for name, caller in vars(self.hook).items() if getattr(caller, "spec", None)]
        for caller in self.get_hookcallers(plugin) or ():
            for impl in caller.get_hookimpls():
                if impl.plugin is not plugin:
                    continue
                where = _location(impl.function)
                if caller.spec is None and not impl.optionalhook:
                    close = difflib.get_close_matches(caller.name, known, n=1)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    return f"{where}: {caller.name!r} is not a pi hook{hint}"
                if impl.wrapper or impl.hookwrapper:
                    return f"{where}: {caller.name!r} is a wrapper; pi hooks take plain implementations only"
        return None

    def record_failure(self, record: PluginRecord, error: PluginLoadError) -> None:
        record.status = "failed"
        record.error = error
        self.records.setdefault(record.name, record)
        self.load_errors.append(error)


def _location(function: Any) -> str:
    code = getattr(function, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(function)


# --- importing ------------------------------------------------------------------------------------


def _import_local(plugin: LocalPlugin) -> ModuleType:
    """Import a local file or package under a unique module name (fresh on every load)."""
    module_name = f"pi_local_ext_{next(_module_counter)}_{plugin.name.replace('-', '_')}"
    spec = source_only_spec(plugin, module_name)  # never a .pyc or .so that trust did not see
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {plugin.entry_file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _describe_import_error(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"syntax error in {exc.filename} line {exc.lineno}: {exc.msg}"
    return f"{type(exc).__name__} while importing: {exc}"


def _load_entry_point(ep: EntryPoint) -> object:
    try:
        target = ep.load()
    except (ImportError, AttributeError) as exc:
        raise LookupError(f"entry point '{ep.name} = {ep.value}' points to nothing: {exc}") from exc
    if inspect.isclass(target):
        raise LookupError(
            f"entry point '{ep.name} = {ep.value}' targets a class; point it at a module or an instance"
        )
    return target


def pi_entry_points() -> list[EntryPoint]:
    """Installed entry points of group ``pi``, sorted by (distribution, name) — never iteration order."""
    found = entry_points(group=ENTRY_POINT_GROUP)

    def key(ep: EntryPoint) -> tuple[str, str]:
        dist = ep.dist.metadata["Name"] if ep.dist is not None else ""
        return (dist or "").lower(), ep.name

    return sorted(found, key=key)


# --- the loader -----------------------------------------------------------------------------------


@dataclass
class LoadOptions:
    """What decides which plugins load (the CLI fills it from flags, settings and the environment)."""

    cwd: Path = field(default_factory=Path.cwd)
    agent_dir: Path | None = None
    #: ``-e/--extension`` paths in command-line order.
    extension_paths: Sequence[str] = ()
    #: ``--no-extensions``: no discovery, no settings lists, no third-party entry points.
    no_extensions: bool = False
    #: ``--trust-project``: run the project's plugin code this time without recording trust.
    trust_project: bool = False
    #: ``--no-approve``: skip the project's plugin code without asking (``untrusted_project``
    #: stays unset, so the run goes on without it).
    ignore_project: bool = False
    #: What a ``project_trust`` handler decided for this directory earlier in this process
    #: (pi asks once per directory and process); ``None``: nothing yet.
    trust_decision: bool | None = None
    #: Names blocked in addition to ``disabledPlugins`` and ``PI_DISABLED_PLUGINS``.
    blocked: Iterable[str] = ()
    #: Load installed entry points (tests turn this off to stay independent of the environment).
    entry_points: bool = True
    builtin_modules: Sequence[str] = CORE_PLUGIN_MODULES
    env: Mapping[str, str] | None = None


#: Asks the plugins loaded so far whether the project's code may run (``project_trust``): yes,
#: no, or ``None`` when none decided. Called only when the project has such code and neither
#: ``--approve``/``--no-approve`` nor an earlier decision of this process settles it.
TrustAsker = Callable[[PiPluginManager, Path], Awaitable[bool | None]]


def load_plugins(options: LoadOptions | None = None, pm: PiPluginManager | None = None) -> PiPluginManager:
    """Build (or fill) a plugin manager in pi's load order; failures land in ``pm.load_errors``.

    Project plugin code of an untrusted project is skipped (status ``untrusted``) and
    ``pm.untrusted_project`` is set; the caller decides whether to ask, stop, or go on.
    No plugin is asked about trust here (:func:`load_plugins_async` asks them).
    """
    loader = _Loader(options or LoadOptions(), pm or PiPluginManager())
    loader.load_outside_project()
    loader.finish(None)
    return loader.pm


async def load_plugins_async(
    options: LoadOptions | None = None,
    pm: PiPluginManager | None = None,
    *,
    ask_trust: TrustAsker | None = None,
) -> PiPluginManager:
    """:func:`load_plugins`, asking ``ask_trust`` (the ``project_trust`` hook) once the plugins
    from outside the project are loaded and before the project's own load."""
    loader = _Loader(options or LoadOptions(), pm or PiPluginManager())
    loader.load_outside_project()
    decision = None
    if ask_trust is not None and loader.undecided:
        decision = await ask_trust(loader.pm, loader.cwd)
        loader.pm.trust_decision = decision
    loader.finish(decision)
    return loader.pm


class _Loader:
    """One load in two parts: every plugin from outside the project, then (once trust is decided)
    the project's. Each plugin keeps its place in load order whichever part registers it."""

    def __init__(self, options: LoadOptions, pm: PiPluginManager) -> None:
        self.options = options
        self.pm = pm
        env = os.environ if options.env is None else options.env
        self.agent = options.agent_dir or agent_dir(env)
        self.cwd = cwd = options.cwd.resolve()
        read = SettingsReader()
        for name in (*blocked_names(cwd=cwd, agent=self.agent, env=env, read=read), *options.blocked):
            pm.set_blocked(name)
        self.local = local = discover_local(
            cwd=cwd,
            agent=self.agent,
            extension_paths=options.extension_paths,
            discovery=not options.no_extensions,
            read=read,
        )
        pm.settings_errors.extend(read.errors)
        for missing, scope in local.missing:
            record = PluginRecord(Path(missing).stem, _SCOPE_SOURCE[scope], missing, path=missing)
            problem = f"extension path {missing} does not exist"
            pm.load_errors.append(PluginLoadError(plugin=record.name, source=record.source, problem=problem))
        # A project's MCP servers are programs too (the mcp plugin reads .pi/mcp.json only when trusted).
        self.mcp_file = (cwd / ".pi" / MCP_FILE).is_file()
        self.mcp_servers = not options.no_extensions and self.mcp_file
        self.project_code = any(p.scope in PROJECT_SCOPES for p in local.plugins) or self.mcp_servers
        #: Whether the trust of the project's code is still open for plugins to decide.
        self.undecided = (
            self.project_code
            and not options.trust_project
            and not options.ignore_project
            and options.trust_decision is None
        )
        self.entry_points = pi_entry_points() if options.entry_points else []
        planned = [plugin.name for plugin in local.plugins]
        planned += [ep.name for ep in self.entry_points]
        planned += [_builtin_name(module) for module in options.builtin_modules]
        pm.plan_order(planned)
        #: Names the project's plugins take: a later plugin of the same name waits until after them
        #: (and is then refused as a duplicate, as in one pass).
        #: (Only those after them in load order: an ``-e`` path of the same name comes first.)
        self._project_names: set[str] = set()
        self._after_project: set[int] = set()
        for position, plugin in enumerate(local.plugins):
            if plugin.scope in PROJECT_SCOPES:
                self._project_names.add(plugin.name)
            elif plugin.name in self._project_names:
                self._after_project.add(position)
        self._deferred_local: list[LocalPlugin] = []
        self._deferred_entry_points: list[tuple[PluginRecord, EntryPoint]] = []

    def load_outside_project(self) -> None:
        for position, plugin in enumerate(self.local.plugins):
            if position in self._after_project:
                self._deferred_local.append(plugin)
            elif plugin.scope not in PROJECT_SCOPES:
                self._load_local(plugin)
        for ep in self.entry_points:
            dist = ep.dist.metadata["Name"] if ep.dist is not None else None
            builtin = dist is not None and dist.lower() in BUILTIN_DISTRIBUTIONS
            if self.options.no_extensions and not builtin:
                continue
            record = PluginRecord(
                ep.name,
                "builtin" if builtin else "entry point",
                ep.value,
                distribution=dist,
                version=ep.dist.version if ep.dist is not None else None,
                builtin=builtin,
            )
            if ep.name in self._project_names:
                self._deferred_entry_points.append((record, ep))
            else:
                _load_one(self.pm, record, lambda ep=ep: _load_entry_point(ep))
        for module_name in self.options.builtin_modules:
            record = PluginRecord(_builtin_name(module_name), "builtin", module_name, builtin=True)
            _load_one(self.pm, record, lambda module_name=module_name: importlib.import_module(module_name))

    def finish(self, decision: bool | None) -> None:
        """Decide about the project's code (``decision``: what a plugin answered) and load it."""
        options, pm, cwd, agent = self.options, self.pm, self.cwd, self.agent
        if decision is None:
            decision = options.trust_decision
        project_allowed = options.trust_project or not self.project_code
        if options.ignore_project and not options.trust_project:
            project_allowed = False
        elif not project_allowed and decision is not None:
            project_allowed = decision
        elif not project_allowed:
            check = check_project_trust(cwd, agent)
            project_allowed = check.allowed
            if not project_allowed and check.status != "declined":
                pm.untrusted_project = check
        pm.project_allowed = project_allowed
        if self.mcp_file and project_allowed and not options.trust_project and not self.mcp_servers:
            # --no-extensions asks nothing, but the built-in mcp plugin still must not start the
            # project's servers unless the project (its mcp.json included) is trusted.
            pm.project_allowed = check_project_trust(cwd, agent).allowed
        for plugin in self.local.plugins:
            if plugin.scope not in PROJECT_SCOPES:
                continue
            if not project_allowed:
                record = PluginRecord(
                    plugin.name, _SCOPE_SOURCE[plugin.scope], str(plugin.path), path=str(plugin.path)
                )
                record.status = "untrusted"
                pm.records.setdefault(record.name, record)
                continue
            self._load_local(plugin)
        for plugin in self._deferred_local:
            self._load_local(plugin)
        for record, ep in self._deferred_entry_points:
            _load_one(pm, record, lambda ep=ep: _load_entry_point(ep))
        pm.sort_records()

    def _load_local(self, plugin: LocalPlugin) -> None:
        record = PluginRecord(
            plugin.name, _SCOPE_SOURCE[plugin.scope], str(plugin.path), path=str(plugin.path)
        )
        _load_one(self.pm, record, lambda plugin=plugin: _import_local(plugin))


def _builtin_name(module_name: str) -> str:
    return module_name.rsplit(".", 1)[-1].removeprefix("builtin_")


def _load_one(pm: PiPluginManager, record: PluginRecord, load: Any) -> None:
    if pm.is_blocked(record.name):
        record.status = "blocked"
        pm.records.setdefault(record.name, record)
        return
    if record.name in RESERVED_PLUGIN_NAMES and not record.builtin:
        names = ", ".join(sorted(RESERVED_PLUGIN_NAMES))
        problem = (
            f"the plugin name {record.name!r} is reserved for a built-in plugin of pi ({names}); "
            "rename the file or the entry point"
        )
        pm.load_errors.append(
            PluginLoadError(plugin=record.name, source=record.source, location=record.where, problem=problem)
        )
        return
    if record.name in pm.records or pm.get_plugin(record.name) is not None:
        other = pm.records.get(record.name)
        where = f" from {other.source} {other.where}" if other else ""
        problem = f"a plugin named {record.name!r} is already loaded{where}; plugin names must be unique"
        pm.load_errors.append(
            PluginLoadError(plugin=record.name, source=record.source, location=record.where, problem=problem)
        )
        return
    try:
        target = load()
    except LookupError as exc:
        pm.record_failure(
            record,
            PluginLoadError(
                plugin=record.name, source=record.source, location=record.where, problem=str(exc)
            ),
        )
        return
    except Exception as exc:  # a broken plugin must not stop the others from loading
        error = PluginLoadError(
            plugin=record.name,
            source=record.source,
            location=record.where,
            problem=_describe_import_error(exc),
        )
        error.__cause__ = exc
        pm.record_failure(record, error)
        return
    try:
        pm.add_plugin(target, record)
    except PluginLoadError as exc:
        pm.record_failure(record, exc)
