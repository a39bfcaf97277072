"""What a runtime host is built from: the start-up options, the loaded plugins, diagnostics."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_core.agent.tools import AgentTool
from pi_core.plugins.dispatch import Hooks
from pi_core.plugins.renderers import EntryRenderer, MarkdownTransformer, ToolRendererResolver

TrustConfirm = Callable[[Any], Awaitable[bool]]
"""Asks the user whether to run a project's plugin code (gets the ``TrustCheck``); True runs it."""

PluginReloader = Callable[[TrustConfirm | None, str | None], Awaitable["PluginParts"]]
"""Loads every plugin again — local extension files as fresh modules — for ``/reload`` and for each
session replacement, as pi builds a new extension runtime then; the second argument, when given, is
another project folder to load them for (a resumed session recorded there). Never raises: what went
wrong is in the result's ``problems``."""


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
    #: ``--session-id``: open this directory's session with that id, or create it.
    session_id: str | None = None
    #: ``--name``: the session's display name, recorded at start-up.
    session_name: str | None = None
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    models: Sequence[str] | None = None
    tools: Sequence[str] | None = None
    #: ``--exclude-tools``: names or ``*`` patterns removed after every other choice.
    exclude_tools: Sequence[str] | None = None
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
    #: ``--trust-project``: the project's code and program settings apply for this run.
    trust_project: bool = False
    #: A session whose stored cwd is gone: refuse it (``MissingSessionCwdError``), continue it in
    #: ``cwd`` (the file is left as it is, so the question comes again next time), or fork it there.
    missing_cwd: Literal["refuse", "continue", "fork"] = "refuse"


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
    #: Tool name → the plugin that registered it.
    tool_owners: dict[str, str] = field(default_factory=dict)
    #: The project's plugin code was allowed to run (trusted, nothing to trust, or ``--trust-project``).
    project_trusted: bool = True
    commands: list[Any] = field(default_factory=list)
    providers: list[Any] = field(default_factory=list)
    compaction_strategies: dict[str, tuple[str, Any]] = field(default_factory=dict)
    #: Plugin name → pi's ``sourceInfo`` (``{path, source, scope, origin}``) for ``get_commands``.
    plugin_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The plugins the user added (not pi's built-ins) that are running, in load order.
    plugin_names: list[str] = field(default_factory=list)
    #: Values of the plugin-registered flags (name without ``--``), for ``ctx.get_flag``.
    flag_values: dict[str, Any] = field(default_factory=dict)
    #: ``register_shortcuts`` (key → spec) and ``register_message_renderers`` (custom type → render).
    shortcuts: dict[str, Any] = field(default_factory=dict)
    message_renderers: dict[str, EntryRenderer] = field(default_factory=dict)
    #: ``register_entry_renderers`` (custom type → render), ``register_tool_renderers`` (resolvers,
    #: load order) and ``register_markdown_transformers`` (load order); the REPL draws with them
    #: through :mod:`pi_core.plugins.renderers`.
    entry_renderers: dict[str, EntryRenderer] = field(default_factory=dict)
    tool_renderers: list[ToolRendererResolver] = field(default_factory=list)
    markdown_transformers: list[MarkdownTransformer] = field(default_factory=list)
    #: Load failures and conflicts of a reload, shown as pi's "[Extension issues]" (start-up stops
    #: on them before a runtime exists, so they are only ever set here by a reload).
    problems: list[str] = field(default_factory=list)
    #: How to load the plugins again; ``None`` keeps these parts for the life of the host.
    reload: PluginReloader | None = None
