"""pi: a terminal coding agent built as a plugin framework on pluggy.

Plugin authors import the markers from here and never import pluggy themselves::

    from pi_core import hookimpl

    @hookimpl
    def tool_call(event, ctx):
        ...

This module stays cheap to import: ``pi --version`` goes through it, so the markers (and pluggy)
are loaded on first use rather than at import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_core._markers import hookimpl, hookspec

__version__ = "1.6.0"

__all__ = ["__version__", "hookimpl", "hookspec"]


def __getattr__(name: str) -> Any:
    if name in ("hookimpl", "hookspec"):
        from pi_core import _markers

        return getattr(_markers, name)
    raise AttributeError(f"module 'pi_core' has no attribute {name!r}")
