"""Collects what plugins register through the ``register_*`` hooks, with provenance and conflicts.

Each plugin's implementation is called with its *own* ``register`` callable (spec §11.1: a
per-plugin API object), in load order, so every tool, command and flag knows which plugin made it.
Conflicts follow spec §4.2/§6.3/§7.4: the same tool, flag or compaction-strategy name from two
extensions is a load error naming both (a built-in's tool or strategy is simply overridden by the
extension); commands sharing a name get ``name:1``, ``name:2``; shortcuts: the later one wins.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pi_core.errors import PluginLoadError
from pi_core.plugins.renderers import (
    DEFAULT_SURFACES,
    KNOWN_SURFACES,
    MarkdownTransformer,
    ToolRendererResolver,
)

if TYPE_CHECKING:
    from pi_core.plugins.manager import PiPluginManager

T = TypeVar("T")


@dataclass(frozen=True)
class Registered(Generic[T]):
    plugin: str
    item: T


@dataclass(frozen=True)
class FlagSpec:
    name: str
    type: Literal["boolean", "string"]
    default: Any
    description: str | None
    plugin: str


@dataclass(frozen=True)
class CommandSpec:
    #: What the user types after ``/``: the name, or ``name:N`` when several plugins share it.
    invocation_name: str
    name: str
    handler: Callable[..., Any]
    description: str | None
    get_argument_completions: Callable[..., Any] | None
    plugin: str


@dataclass(frozen=True)
class ShortcutSpec:
    key: str
    handler: Callable[..., Any]
    description: str | None
    plugin: str


@dataclass
class Registrations:
    tools: dict[str, Registered[Any]] = field(default_factory=dict)
    commands: list[CommandSpec] = field(default_factory=list)
    providers: list[Registered[Any]] = field(default_factory=list)
    flags: dict[str, FlagSpec] = field(default_factory=dict)
    shortcuts: dict[str, ShortcutSpec] = field(default_factory=dict)
    message_renderers: dict[str, Registered[Callable[..., Any]]] = field(default_factory=dict)
    entry_renderers: dict[str, Registered[Callable[..., Any]]] = field(default_factory=dict)
    #: Tool-renderer resolvers and Markdown transformers, in load order (pi_core.plugins.renderers).
    tool_renderers: list[ToolRendererResolver] = field(default_factory=list)
    markdown_transformers: list[MarkdownTransformer] = field(default_factory=list)
    compaction_strategies: dict[str, Registered[Any]] = field(default_factory=dict)
    #: Conflicts and broken registration hooks; a run refuses to start with any of them.
    errors: list[PluginLoadError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _Collector:
    def __init__(self, pm: PiPluginManager, out: Registrations) -> None:
        self.pm = pm
        self.out = out
        self._raw_commands: list[CommandSpec] = []

    def _record(self, plugin: str) -> tuple[str, str | None]:
        record = self.pm.records.get(plugin)
        return (record.source, record.where) if record else ("plugin", None)

    def _is_builtin(self, plugin: str) -> bool:
        record = self.pm.records.get(plugin)
        return bool(record and record.builtin)

    def conflict(self, plugin: str, kind: str, name: str, first: str) -> None:
        source, where = self._record(plugin)
        first_source, first_where = self._record(first)
        problem = (
            f"{kind} {name!r} is also registered by plugin {first!r} ({first_source} {first_where}); "
            f"{kind} names must be unique"
        )
        self.out.errors.append(PluginLoadError(plugin=plugin, source=source, location=where, problem=problem))

    def _named(self, table: dict[str, Any], kind: str, name: str, entry: Any, plugin: str) -> None:
        existing = table.get(name)
        if existing is None:
            table[name] = entry
        elif self._is_builtin(plugin) and not self._is_builtin(existing.plugin):
            pass  # built-ins load last; the extension's registration overrides the built-in (spec §6.3)
        else:
            self.conflict(plugin, kind, name, existing.plugin)

    def register_for(self, hook: str, plugin: str) -> Callable[..., None]:
        if hook == "register_tools":

            def register_tool(tool: Any) -> None:
                from pi_core.agent.tools import AgentTool

                if not isinstance(tool, AgentTool):
                    raise TypeError(f"register_tools expects an AgentTool, got {type(tool).__name__}")
                self._named(self.out.tools, "tool", tool.name, Registered(plugin, tool), plugin)

            return register_tool
        if hook == "register_commands":

            def register_command(
                name: str,
                handler: Callable[..., Any],
                *,
                description: str | None = None,
                get_argument_completions: Callable[..., Any] | None = None,
            ) -> None:
                if not name or name.startswith("/") or " " in name:
                    raise ValueError(f"command name {name!r} must be non-empty, without '/' or spaces")
                if not callable(handler):
                    raise TypeError(f"handler of command {name!r} is not callable")
                spec = CommandSpec(name, name, handler, description, get_argument_completions, plugin)
                self._raw_commands.append(spec)

            return register_command
        if hook == "register_providers":

            def register_provider(provider: Any) -> None:
                self.out.providers.append(Registered(plugin, provider))

            return register_provider
        if hook == "register_flags":

            def register_flag(
                name: str,
                *,
                type: Literal["boolean", "string"] = "boolean",
                default: Any = None,
                description: str | None = None,
            ) -> None:
                if not name or name.startswith("-"):
                    raise ValueError(f"flag name {name!r} must be given without leading dashes")
                if type not in ("boolean", "string"):
                    raise ValueError(f"flag {name!r}: type must be 'boolean' or 'string', not {type!r}")
                spec = FlagSpec(name, type, default, description, plugin)
                existing = self.out.flags.get(name)
                if existing is None:
                    self.out.flags[name] = spec
                else:
                    self.conflict(plugin, "flag", name, existing.plugin)

            return register_flag
        if hook == "register_shortcuts":

            def register_shortcut(
                key: str, handler: Callable[..., Any], *, description: str | None = None
            ) -> None:
                existing = self.out.shortcuts.get(key)
                if existing is not None:
                    self.out.warnings.append(
                        f"shortcut {key!r} of plugin {existing.plugin!r} is replaced by plugin {plugin!r}"
                    )
                self.out.shortcuts[key] = ShortcutSpec(key, handler, description, plugin)

            return register_shortcut
        if hook == "register_message_renderers":

            def register_renderer(custom_type: str, render: Callable[..., Any]) -> None:
                self.out.message_renderers.setdefault(custom_type, Registered(plugin, render))

            return register_renderer
        if hook == "register_entry_renderers":

            def register_entry_renderer(custom_type: str, render: Callable[..., Any]) -> None:
                if not callable(render):
                    raise TypeError(f"entry renderer for {custom_type!r} is not callable")
                self.out.entry_renderers.setdefault(custom_type, Registered(plugin, render))

            return register_entry_renderer
        if hook == "register_tool_renderers":

            def register_tool_renderer(resolve: Callable[..., Any]) -> None:
                if not callable(resolve):
                    raise TypeError("a tool renderer resolver must be callable: resolve(tool_name, next)")
                self.out.tool_renderers.append(ToolRendererResolver(plugin, resolve))

            return register_tool_renderer
        if hook == "register_markdown_transformers":

            def register_markdown_transformer(
                transform: Callable[..., Any], message_types: Sequence[str] | None = None
            ) -> None:
                if not callable(transform):
                    raise TypeError("a Markdown transformer must be callable: transform(markdown, context)")
                surfaces = frozenset(message_types) if message_types else DEFAULT_SURFACES
                unknown = sorted(surfaces - KNOWN_SURFACES)
                if unknown:
                    raise ValueError(
                        f"unknown Markdown message types {unknown}; known: {sorted(KNOWN_SURFACES)}"
                    )
                kept = [t for t in self.out.markdown_transformers if t.plugin != plugin]  # one per plugin
                self.out.markdown_transformers[:] = [*kept, MarkdownTransformer(plugin, transform, surfaces)]

            return register_markdown_transformer
        if hook == "register_compaction_strategies":

            def register_strategy(name: str, strategy: Any) -> None:
                self._named(
                    self.out.compaction_strategies,
                    "compaction strategy",
                    name,
                    Registered(plugin, strategy),
                    plugin,
                )

            return register_strategy
        raise KeyError(hook)

    def finish_commands(self) -> None:
        counts: dict[str, int] = {}
        for spec in self._raw_commands:
            counts[spec.name] = counts.get(spec.name, 0) + 1
        seen: dict[str, int] = {}
        for spec in self._raw_commands:
            if counts[spec.name] == 1:
                self.out.commands.append(spec)
                continue
            seen[spec.name] = seen.get(spec.name, 0) + 1
            invocation = f"{spec.name}:{seen[spec.name]}"
            self.out.commands.append(
                CommandSpec(
                    invocation,
                    spec.name,
                    spec.handler,
                    spec.description,
                    spec.get_argument_completions,
                    spec.plugin,
                )
            )


async def collect_registrations(pm: PiPluginManager, hooks: tuple[str, ...] | None = None) -> Registrations:
    """Call the registration hooks of every plugin in load order; never raises for a plugin's fault.

    ``hooks`` limits which ``register_*`` hooks run (the CLI needs only ``register_flags`` early).
    """
    from pi_core.plugins.hookspecs import REGISTRATION_HOOKS

    out = Registrations()
    collector = _Collector(pm, out)
    for hook in hooks or REGISTRATION_HOOKS:
        caller = getattr(pm.hook, hook)
        impls = sorted(caller.get_hookimpls(), key=lambda impl: pm.load_index(impl.plugin_name))
        for impl in impls:
            register = collector.register_for(hook, impl.plugin_name)
            try:
                result = impl.function(*[register for _ in impl.argnames])
                if inspect.isawaitable(result):
                    await result
            except Exception as exc:  # a broken registration is that plugin's load error, not ours
                source, where = collector._record(impl.plugin_name)
                error = PluginLoadError(
                    plugin=impl.plugin_name,
                    source=source,
                    location=where,
                    problem=f"{hook} raised {type(exc).__name__}: {exc}",
                )
                error.__cause__ = exc
                out.errors.append(error)
    collector.finish_commands()
    return out
