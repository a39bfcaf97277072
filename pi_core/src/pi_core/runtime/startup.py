"""Start-up choices of a runtime, as pi's main makes them: model, thinking level, active tools.

Also the registries built from what the plugins registered (providers into the model registry,
compaction strategies). Pure functions over the options, the settings and the plugin parts; the
host (:mod:`pi_core.runtime.host`) calls them when it builds or reloads a runtime.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_core.ai.auth import AuthStorage
from pi_core.ai.models import ModelRegistry
from pi_core.ai.provider import Model
from pi_core.ai.resolve import (
    ModelNotFoundError,
    ResolvedModel,
    resolve_cli_model,
    resolve_model_scope,
)
from pi_core.ai.thinking import clamp_thinking_level
from pi_core.runtime.options import Diagnostic, PluginParts, RuntimeOptions
from pi_core.runtime.resources import SettingsManager
from pi_core.runtime.session import AgentSession
from pi_core.runtime.session_models import model_thinking_level
from pi_core.runtime.tool_selection import ToolSelection, select_tools

DEFAULT_ACTIVE_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
DEFAULT_THINKING_LEVEL = "medium"


def model_registry(options: RuntimeOptions, plugins: PluginParts) -> tuple[ModelRegistry, list[str]]:
    """The built-in catalogue + ``<agentDir>/models.json`` + plugin providers, with auth.json keys.

    Returns the registry and the plugin registrations it refused (pi's start-up errors).
    """
    agent = Path(options.agent_dir)
    registry = ModelRegistry(AuthStorage(agent / "auth.json"), agent / "models.json")
    return registry, register_plugin_providers(registry, plugins)


def register_plugin_providers(registry: ModelRegistry, plugins: PluginParts) -> list[str]:
    """Put the plugins' providers into ``registry``; returns the ones it refused, as messages."""
    from pi_core.ai.builtin_providers import register_builtin_api_providers

    register_builtin_api_providers()
    errors: list[str] = []
    for item in plugins.providers:
        try:
            registry.register(item)
        except (TypeError, ValueError) as error:
            errors.append(f"Plugin provider error: {error}")
    return errors


def compaction_registry(plugins: PluginParts) -> Any:
    if not plugins.compaction_strategies:
        return None
    from pi_core.runtime.compaction import CompactionStrategyRegistry

    registry = CompactionStrategyRegistry()
    for name, (owner, strategy) in plugins.compaction_strategies.items():
        registry.register(name, strategy, owner=owner)
    return registry


def initial_active_tools(
    options: RuntimeOptions, plugins: PluginParts, settings: SettingsManager | None = None
) -> ToolSelection:
    """The start-up tool set (:mod:`pi_core.runtime.tool_selection`): ``defaultTools`` from the
    user and project settings, then ``--tools``, ``--no-tools``, ``--no-builtin-tools`` and
    ``--exclude-tools``.

    Each name appears once (pi de-duplicates its initial set): ``--tools read,read`` is one ``read``,
    and a plugin tool that overrides a built-in by name keeps the built-in's place among the defaults.
    """
    layers: list[object] = []
    if settings is not None:
        layers = [
            settings.global_settings().get("defaultTools"),
            settings.project_settings().get("defaultTools"),
        ]
    return select_tools(
        available=list(plugins.tools),
        builtin=plugins.builtin_tool_names,
        builtin_defaults=DEFAULT_ACTIVE_TOOLS,
        setting_layers=[layer for layer in layers if layer is not None],
        tools=options.tools,
        exclude=options.exclude_tools,
        no_tools=options.no_tools,
        no_builtin_tools=options.no_builtin_tools,
    )


def initial_model(
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
            resolved = _resolve_cli_model(options, registry)
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
        for provider, model_id in registry.default_model_ids().items():
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
            per_model = model_thinking_level(settings, model) if model is not None else None
            level = per_model or typed.default_thinking_level or DEFAULT_THINKING_LEVEL
    if model is not None:
        level = clamp_thinking_level(model, level)
    return model, level, diagnostics


def _resolve_cli_model(options: RuntimeOptions, registry: ModelRegistry) -> ResolvedModel:
    """``--model``: among the models that have a key first (a bare ``sonnet`` then means the
    provider the user has a key for, not one of the gateways that also list it), else among all.
    ``--api-key`` goes to whichever model is named, so stored keys do not choose then."""
    assert options.model is not None
    if not options.api_key:
        available = registry.get_available()
        if available:
            try:
                return resolve_cli_model(options.model, available, options.provider)
            except ModelNotFoundError:
                pass
    return resolve_cli_model(
        options.model,
        registry.get_all(),
        options.provider,
        registry.unlisted_model,
        registry.known_providers(),
    )


def scoped_models(
    options: RuntimeOptions, registry: ModelRegistry, settings: SettingsManager
) -> list[ResolvedModel]:
    """``--models`` (or the ``enabledModels`` setting) over the models that have a key."""
    patterns = list(options.models or settings.settings.enabled_models or [])
    if not patterns:
        return []
    return resolve_model_scope(patterns, registry.get_available())


def record_start(session: AgentSession, manager: Any, model: Model | None) -> None:
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


def expand_home(path: str) -> str:
    """``~`` expansion without touching the file system (string work only)."""
    return os.path.expanduser(path)
