"""Model and thinking-level selection for an AgentSession: switching and cycling models (the
scoped ones of ``--models`` / ``enabledModels`` first), clamping and cycling the thinking level,
and what each switch records (``model_change`` / ``thinking_level_change`` entries, the saved
defaults, the ``model_select`` / ``thinking_level_select`` hooks).

Functions over the session: the state they change is the agent's (``agent.state.model``,
``agent.state.thinking_level``), the session file's and the settings'.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal

from pi_core.ai.provider import THINKING_LEVELS, Model
from pi_core.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_core.plugins import events as hook_events
from pi_core.runtime.events import ThinkingLevelChangedEvent
from pi_core.runtime.resources import SettingsManager

if TYPE_CHECKING:
    from pi_core.runtime.session import AgentSession

ModelSource = Literal["set", "cycle", "restore"]


def model_thinking_level(settings: SettingsManager, model: Model) -> str | None:
    """The ``modelThinkingLevels`` entry for ``provider/id`` (pi 1.6.0), if it names a level."""
    table = settings.merged().get("modelThinkingLevels")
    level = table.get(f"{model.provider}/{model.id}") if isinstance(table, dict) else None
    return level if level in THINKING_LEVELS else None


async def available_models(session: AgentSession) -> list[Model]:
    registry = session.model_registry
    if registry is None:
        return []
    return list(await _maybe_await(registry.get_available()))


async def set_model(session: AgentSession, model: Model, source: ModelSource, persist: bool = False) -> None:
    registry = session.model_registry
    if registry is not None and not registry.has_configured_auth(model):
        raise RuntimeError(f"No API key for {model.provider}/{model.id}")
    await _switch(session, model, level_for_switch(session, model), source, persist)


def level_for_switch(session: AgentSession, model: Model, scoped_level: str | None = None) -> str:
    """The thinking level a switch to ``model`` asks for, in pi 1.6.0's order: the scoped model's
    own level (``--models m:high``), the model's ``modelThinkingLevels`` entry, the saved
    ``defaultThinkingLevel``, else the level in use (then clamped to the model)."""
    return (
        scoped_level
        or model_thinking_level(session.settings, model)
        or session.settings.settings.default_thinking_level
        or session.thinking_level
    )


async def _switch(
    session: AgentSession, model: Model, level: str, source: ModelSource, persist: bool
) -> None:
    previous = session.model
    session.agent.state.model = model
    session.session_manager.append_model_change(model.provider, model.id)
    if persist:
        _save_default_model(session, model)
    session.set_thinking_level(level)
    hooks = session.hooks
    if hooks is not None and hooks.has("model_select"):
        event = hook_events.ModelSelectEvent(model=model, previous_model=previous, source=source)
        await hooks.model_select(event, session.extension_context())


def _save_default_model(session: AgentSession, model: Model) -> None:
    """The default of new sessions (pi 1.6.0 saves it only when asked: /model's Ctrl+S, a
    login); a model outside a non-empty scope joins the scope and ``enabledModels``."""
    session.settings.set("defaultProvider", model.provider)
    session.settings.set("defaultModel", model.id)
    scoped = session.services.scoped_models
    if not scoped or any(m.provider == model.provider and m.id == model.id for m, _ in scoped):
        return
    session.services.scoped_models = [*scoped, (model, None)]
    enabled = session.settings.settings.enabled_models
    reference = f"{model.provider}/{model.id}"
    if enabled and all(pattern.lower() != reference.lower() for pattern in enabled):
        session.settings.set("enabledModels", [*enabled, reference])


async def cycle_model(session: AgentSession, backward: bool = False) -> tuple[Model, str, bool] | None:
    """The next scoped model that has a key (or the next available model), with its scoped
    level; from a model outside the list, its first one (``backward``: the previous one, from
    outside the list its last). ``None`` when there is none to go to."""
    scoped = session.services.scoped_models
    registry = session.model_registry
    if scoped:
        candidates = [(m, lvl) for m, lvl in scoped if registry is None or registry.has_configured_auth(m)]
    else:
        candidates = [(m, None) for m in await session.get_available_models()]
    current = session.model
    index = next(
        (
            i
            for i, (m, _) in enumerate(candidates)
            if current and m.provider == current.provider and m.id == current.id
        ),
        -1,
    )
    if not candidates or (index >= 0 and len(candidates) == 1):
        return None
    position = (index - 1 if index >= 0 else -1) if backward else index + 1
    model, level = candidates[position % len(candidates)]
    await _switch(session, model, level_for_switch(session, model, level), "cycle", persist=False)
    return model, session.thinking_level, bool(scoped)


def set_thinking_level(session: AgentSession, level: str, persist: bool = False) -> None:
    model = session.model
    new_level = clamp_thinking_level(model, level) if model is not None else level
    previous = session.thinking_level
    session.agent.state.thinking_level = new_level  # type: ignore[assignment]
    if new_level != previous:
        session.session_manager.append_thinking_level_change(new_level)
        session._emit(ThinkingLevelChangedEvent(level=new_level))
        hooks = session.hooks
        if hooks is not None and hooks.has("thinking_level_select"):
            event = hook_events.ThinkingLevelSelectEvent(level=new_level, previous_level=previous)
            hooks.dispatcher.dispatch_background("thinking_level_select", event, session.extension_context())
    if persist:  # the level asked for, as pi (also "off" on a model without reasoning)
        session.settings.set("defaultThinkingLevel", level)


def cycle_thinking_level(session: AgentSession) -> str | None:
    model = session.model
    if model is None or not model.reasoning:
        return None
    levels = supported_thinking_levels(model)
    current = levels.index(session.thinking_level) if session.thinking_level in levels else -1
    session.set_thinking_level(levels[(current + 1) % len(levels)])
    return session.thinking_level


async def _maybe_await(value: Any) -> Any:
    if asyncio.iscoroutine(value) or isinstance(value, Awaitable):
        return await value
    return value
