"""runtime/session_models.py: switching and cycling models and thinking levels, with the settings
read from disk, against pi 1.6.0's rules (checked side by side with it over RPC)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pi_core.ai.provider import ProviderDefinition
from pi_core.runtime.resources import SettingsManager
from pi_core.runtime.session_models import model_thinking_level
from pi_core.testing.faux import FAUX_API

from pi_core import hookimpl

if TYPE_CHECKING:
    from conftest import Harness


def _on_disk(harness: Harness, settings: dict[str, Any]) -> SettingsManager:
    """The harness's settings read from ``agent/settings.json`` (written with ``settings``)."""
    (harness.tmp / "agent" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    harness.settings = SettingsManager.create(harness.tmp / "project", harness.tmp / "agent")
    return harness.settings


def _levels_recorded(session: Any) -> list[str]:
    entries = session.session_manager.get_entries()
    return [entry.thinking_level for entry in entries if entry.type == "thinking_level_change"]


async def test_a_switch_keeps_the_level_in_use_without_a_saved_default(harness: Harness) -> None:
    """pi 1.6.0: from a model without reasoning (level ``off``) to one with it, the level stays
    ``off`` unless a default is saved; it is not raised to ``medium``."""
    _on_disk(harness, {})
    thinker = harness.add_model("faux-think", reasoning=True)
    session = harness.build()
    await session.set_model(thinker)
    assert session.thinking_level == "off"
    session.set_thinking_level("high")
    await session.set_model(harness.add_model("faux-think-2", reasoning=True))
    assert session.thinking_level == "high"  # the level in use goes along


async def test_a_switch_takes_the_model_level_then_the_saved_default(harness: Harness) -> None:
    _on_disk(harness, {"defaultThinkingLevel": "low", "modelThinkingLevels": {"faux/faux-deep": "high"}})
    thinker = harness.add_model("faux-think", reasoning=True)
    deep = harness.add_model("faux-deep", reasoning=True)
    session = harness.build()
    await session.set_model(thinker)
    assert session.thinking_level == "low"  # the saved default
    session.set_thinking_level("medium")
    await session.set_model(deep)
    assert session.thinking_level == "high"  # the model's own level
    await session.set_model(thinker)
    assert session.thinking_level == "low"  # the saved default again, not the level in use
    plain = session.model_registry.find("faux", "faux-1")
    await session.set_model(plain)
    assert session.thinking_level == "off"  # clamped: no reasoning
    assert _levels_recorded(session) == ["low", "medium", "high", "low", "off"]


async def test_cycling_scoped_models_skips_those_without_a_key_and_applies_their_level(
    harness: Harness,
) -> None:
    _on_disk(harness, {})
    thinker = harness.add_model("faux-think", reasoning=True)
    harness.registry.register_definition(  # a built-in provider whose variable is not set
        ProviderDefinition(
            id="keyless",
            api=FAUX_API,
            base_url="faux://nowhere",
            env=["PI_TEST_UNSET_KEY"],
            models=[{"id": "k-1"}],
        )
    )
    keyless = harness.registry.find("keyless", "k-1")
    assert keyless is not None
    session = harness.build()
    first = session.model
    session.services.scoped_models = [(first, None), (keyless, None), (thinker, "high")]
    selected: list[tuple[str, str | None, str]] = []

    class Watch:
        @hookimpl
        def model_select(self, event: Any) -> None:
            previous = event.previous_model.id if event.previous_model else None
            selected.append((event.model.id, previous, event.source))

    session.services.hooks.dispatcher.pm.register(Watch())  # type: ignore[union-attr]
    cycled = await session.cycle_model()
    assert cycled is not None and (cycled[0].id, cycled[1], cycled[2]) == ("faux-think", "high", True)
    assert _levels_recorded(session) == ["high"]  # one change: straight to the scoped level
    cycled = await session.cycle_model()
    assert cycled is not None and cycled[0].id == "faux-1" and session.thinking_level == "off"
    assert selected == [("faux-think", "faux-1", "cycle"), ("faux-1", "faux-think", "cycle")]


async def test_cycling_reaches_a_one_model_scope_from_outside_it(harness: Harness) -> None:
    thinker = harness.add_model("faux-think", reasoning=True)
    session = harness.build()
    session.services.scoped_models = [(thinker, None)]
    cycled = await session.cycle_model()
    assert cycled is not None and cycled[0].id == "faux-think"  # pi: the first of the list
    assert await session.cycle_model() is None  # on it now: nowhere else to go


async def test_cycling_backward_goes_the_other_way_round(harness: Harness) -> None:
    """pi's app.model.cycleBackward: the previous model of the scope; from outside it, its last."""
    one, two = harness.add_model("faux-a"), harness.add_model("faux-b")
    session = harness.build()
    first = session.model
    session.services.scoped_models = [(first, None), (one, None), (two, None)]
    assert [(await session.cycle_model(backward=True) or (None,))[0] for _ in range(3)] == [two, one, first]
    session.services.scoped_models = [(one, None), (two, None)]  # the model in use is outside it
    cycled = await session.cycle_model(backward=True)
    assert cycled is not None and cycled[0] is two


async def test_cycling_thinking_levels_wraps_and_needs_reasoning(harness: Harness) -> None:
    session = harness.build()
    assert session.cycle_thinking_level() is None  # faux-1 has no reasoning
    await session.set_model(harness.add_model("faux-think", reasoning=True))
    seen = [session.cycle_thinking_level() for _ in range(len(session.available_thinking_levels()))]
    assert seen[-1] == "off" and len(set(seen)) == len(seen)


def test_model_thinking_levels_entries_that_name_no_level_are_ignored(harness: Harness) -> None:
    settings = _on_disk(harness, {"modelThinkingLevels": {"faux/faux-1": "loud", "faux/faux-2": "low"}})
    one = harness.registry.find("faux", "faux-1")
    assert one is not None
    assert model_thinking_level(settings, one) is None
    assert model_thinking_level(settings, harness.add_model("faux-2", reasoning=True)) == "low"
