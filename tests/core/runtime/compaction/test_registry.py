from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pi_core.ai.abort import AbortSignal
from pi_core.runtime.compaction import (
    CompactionPreparation,
    CompactionResult,
    CompactionSettings,
    CompactionStrategyRegistry,
    CompleteFn,
    UnknownStrategyError,
)


class Noop:
    def prepare(self, branch: Sequence[Any], settings: CompactionSettings) -> CompactionPreparation | None:
        return None

    async def compact(
        self,
        preparation: CompactionPreparation,
        *,
        complete: CompleteFn,
        signal: AbortSignal,
        custom_instructions: str | None,
    ) -> CompactionResult:
        raise AssertionError("not called")


def test_select_by_settings_name() -> None:
    registry = CompactionStrategyRegistry()
    strategy = Noop()
    registry.register("noop", strategy)
    assert registry.select(CompactionSettings(strategy="noop")) is strategy
    assert registry.names() == ["noop"]
    assert registry.branch_summarizer(CompactionSettings(strategy="noop")) is None


def test_unknown_name_lists_what_is_installed() -> None:
    registry = CompactionStrategyRegistry()
    registry.register("noop", Noop())
    with pytest.raises(UnknownStrategyError, match=r"'default' is not installed \(available: noop\)"):
        registry.select(CompactionSettings())


def test_duplicates_and_non_strategies_are_refused() -> None:
    registry = CompactionStrategyRegistry()
    registry.register("noop", Noop(), owner="plugin-a")
    with pytest.raises(ValueError, match="already registered by plugin-a"):
        registry.register("noop", Noop())
    with pytest.raises(TypeError, match="must have prepare"):
        registry.register("bad", object())  # type: ignore[arg-type]
