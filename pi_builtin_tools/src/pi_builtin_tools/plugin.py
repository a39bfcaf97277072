"""Entry point of the built-in tools plugin (entry-point group ``pi``, name ``tools``).

Thin on purpose: it only holds hookimpls, which delegate to the tool modules.
"""

from __future__ import annotations

from collections.abc import Callable

from pi_core.agent.tools import AgentTool

from pi_builtin_tools.registry import create_all_tools
from pi_core import hookimpl


@hookimpl
def register_tools(register: Callable[[AgentTool], object]) -> None:
    """Register all seven built-ins; only ``DEFAULT_ACTIVE_TOOLS`` start active (the runtime decides)."""
    for tool in create_all_tools():
        register(tool)
