"""Entry point of the default compaction plugin (entry-point group ``pi``, name ``compaction``).

Thin on purpose: it only holds hookimpls, which delegate to the strategy modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_core import hookimpl


@hookimpl
def register_compaction_strategies(register: Callable[[str, Any], None]) -> None:
    """Offer pi's own compaction as the strategy named "default"."""
    from pi_builtin_compaction.strategy import DefaultCompactionStrategy

    register("default", DefaultCompactionStrategy())
