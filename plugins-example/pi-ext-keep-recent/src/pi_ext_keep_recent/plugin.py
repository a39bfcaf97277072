"""Entry point (group ``pi``, name ``keep-recent``): registers the strategy as "keep-recent"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core import hookimpl


@hookimpl
def register_compaction_strategies(register: Callable[[str, Any], None]) -> None:
    from pi_ext_keep_recent.strategy import KeepRecentStrategy

    register("keep-recent", KeepRecentStrategy())
