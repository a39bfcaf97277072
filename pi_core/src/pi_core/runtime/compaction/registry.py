"""Strategies by name: filled through ``register_compaction_strategies(register)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .settings import CompactionSettings
from .strategy import BranchSummarizer, CompactionError, CompactionStrategy


class UnknownStrategyError(CompactionError):
    """``compaction.strategy`` names a strategy no installed plugin registered."""


class CompactionStrategyRegistry:
    """Name -> strategy. ``register`` is the callable handed to ``register_compaction_strategies``."""

    def __init__(self) -> None:
        self._strategies: dict[str, CompactionStrategy] = {}
        self._owners: dict[str, str] = {}

    def register(self, name: str, strategy: CompactionStrategy, *, owner: str = "") -> None:
        """Add ``strategy`` as ``name``; a second strategy under the same name is an error."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"compaction strategy name must be a non-empty string, got {name!r}")
        if not isinstance(strategy, CompactionStrategy):
            raise TypeError(
                f"compaction strategy {name!r} must have prepare() and async compact() "
                f"(got {type(strategy).__name__})"
            )
        if name in self._strategies:
            first = self._owners[name] or "another plugin"
            raise ValueError(f"compaction strategy {name!r} is already registered by {first}")
        self._strategies[name] = strategy
        self._owners[name] = owner

    @classmethod
    def from_registered(cls, registered: Mapping[str, Any]) -> CompactionStrategyRegistry:
        """Build from ``Registrations.compaction_strategies`` (name -> ``Registered(plugin, item)``)."""
        registry = cls()
        for name, entry in registered.items():
            registry.register(name, entry.item, owner=f"plugin {entry.plugin!r}")
        return registry

    def names(self) -> list[str]:
        return sorted(self._strategies)

    def get(self, name: str) -> CompactionStrategy:
        try:
            return self._strategies[name]
        except KeyError:
            available = ", ".join(self.names()) or "none installed"
            raise UnknownStrategyError(
                f"compaction strategy {name!r} is not installed (available: {available}); "
                "set compaction.strategy in settings.json or install the plugin that provides it"
            ) from None

    def select(self, settings: CompactionSettings) -> CompactionStrategy:
        """The strategy ``compaction.strategy`` names."""
        return self.get(settings.strategy)

    def branch_summarizer(self, settings: CompactionSettings) -> BranchSummarizer | None:
        """The selected strategy if it summarizes branches, else the ``default`` one if that does."""
        for name in (settings.strategy, "default"):
            strategy = self._strategies.get(name)
            if isinstance(strategy, BranchSummarizer):
                return strategy
        return None
