"""The slice of the hook facade compaction fires, as a Protocol so tests can pass a fake."""

from __future__ import annotations

from typing import Any, Protocol

from pi_core.plugins.events import (
    SessionBeforeCompactEvent,
    SessionBeforeCompactResult,
    SessionBeforeTreeEvent,
    SessionBeforeTreeResult,
    SessionCompactEvent,
    SessionTreeEvent,
)


class CompactionHooks(Protocol):
    """Satisfied by ``pi_core.plugins.dispatch.Hooks``."""

    async def session_before_compact(
        self, event: SessionBeforeCompactEvent, ctx: Any
    ) -> SessionBeforeCompactResult | None: ...

    async def session_compact(self, event: SessionCompactEvent, ctx: Any) -> Any: ...

    async def session_before_tree(
        self, event: SessionBeforeTreeEvent, ctx: Any
    ) -> SessionBeforeTreeResult | None: ...

    async def session_tree(self, event: SessionTreeEvent, ctx: Any) -> Any: ...
