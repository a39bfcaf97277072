"""Compaction and branch-summary settings, with pi's defaults.

Read from the merged ``settings.json`` objects ``compaction`` and ``branchSummary`` (spec
compaction.md §2). ``compaction.strategy`` is ours: it names the registered strategy to use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError

from pi_core._model import PiModel
from pi_core.errors import ConfigError
from pi_core.plugins.events import CompactionSettingsView

DEFAULT_STRATEGY = "default"


class CompactionSettings(CompactionSettingsView):
    """``compaction.*``: ``enabled`` gates automatic compaction only; ``/compact`` always works.

    Extends the view ``session_before_compact`` hands to plugins with validation and ``strategy``.
    """

    enabled: bool = True
    reserve_tokens: int = Field(default=16384, ge=0)
    keep_recent_tokens: int = Field(default=20000, ge=0)
    strategy: str = DEFAULT_STRATEGY


class BranchSummarySettings(PiModel):
    """``branchSummary.*``: the input budget of a branch summary and whether ``/tree`` asks at all."""

    reserve_tokens: int = Field(default=16384, ge=0)
    skip_prompt: bool = False


class CompactionSettingsError(ConfigError, ValueError):
    """A ``compaction`` or ``branchSummary`` settings object has a value of the wrong type."""


def _section(settings: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = settings.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CompactionSettingsError(f"settings.json: {key!r} must be an object, got {type(value).__name__}")
    return value


def compaction_settings_from(settings: Mapping[str, Any]) -> CompactionSettings:
    """The ``compaction`` object of merged settings, defaults filled in."""
    try:
        return CompactionSettings.model_validate(dict(_section(settings, "compaction")))
    except ValidationError as error:
        raise CompactionSettingsError(f"settings.json: invalid 'compaction' settings: {error}") from error


def branch_summary_settings_from(settings: Mapping[str, Any]) -> BranchSummarySettings:
    """The ``branchSummary`` object of merged settings, defaults filled in."""
    try:
        return BranchSummarySettings.model_validate(dict(_section(settings, "branchSummary")))
    except ValidationError as error:
        raise CompactionSettingsError(f"settings.json: invalid 'branchSummary' settings: {error}") from error
