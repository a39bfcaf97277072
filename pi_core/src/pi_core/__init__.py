"""pi: a terminal coding agent built as a plugin framework on pluggy.

Plugin authors import the markers from here and never import pluggy themselves::

    from pi_core import hookimpl

    @hookimpl
    def tool_call(event, ctx):
        ...

This module stays cheap to import: ``pi --version`` goes through it.
"""

from __future__ import annotations

from pi_core._markers import hookimpl, hookspec

__version__ = "0.1.0"

__all__ = ["__version__", "hookimpl", "hookspec"]
