"""Which of a session's registered tools are active, and how that changes while it runs: a
plugin selecting tools, registering or withdrawing one (``ctx.register_tool`` /
``unregister_tool``), and a branch's recorded tools coming back on resume and after ``/tree``.

Functions over the session's services (every registered tool, its owner, the built-in names) and
the active names; each returns the new active names, which the session applies (the agent's
tools and the system prompt follow them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi_core.agent.tools import AgentTool
from pi_core.ai.messages import AgentMessage, SystemMessage, current_system_message
from pi_core.runtime.tool_selection import apply_entries, matches_pattern

if TYPE_CHECKING:
    from pi_core.runtime.session import SessionServices


def selectable(services: SessionServices, names: Sequence[str]) -> list[str]:
    """``names`` without repeats, unknown tools and ``hidden`` ones (pi ignores them)."""
    tools = services.tools
    return [name for name in dict.fromkeys(names) if name in tools and tools[name].exposure != "hidden"]


def callable_tools(services: SessionServices, active: Sequence[str]) -> list[AgentTool]:
    """Active ``direct`` tools and every ``codemode``/``deferred`` one."""
    chosen = set(active)
    return [
        tool
        for name, tool in services.tools.items()
        if (tool.exposure == "direct" and name in chosen) or tool.exposure in ("codemode", "deferred")
    ]


def restored(
    services: SessionServices,
    messages: Sequence[AgentMessage],
    modifiers: Sequence[str],
    exclude: Sequence[str],
) -> list[str] | None:
    """The tools the branch's system messages record, plus plugin tools it never mentioned that
    activate when registered, then ``modifiers`` and ``exclude``; ``None`` without a system message."""
    systems = [message for message in messages if isinstance(message, SystemMessage)]
    if not systems:
        return None
    mentioned = {
        tool.name
        for message in systems
        for tool in [*(message.tools_added or ()), *(message.tools_removed or ())]
    }
    replayed = current_system_message(systems)
    recorded = [tool.name for tool in (replayed.tools_added if replayed else None) or ()]
    newer = [
        name
        for name, tool in services.tools.items()
        if name not in mentioned
        and name not in services.builtin_tool_names
        and tool.activates_on_registration
    ]
    names = [*recorded, *(name for name in newer if name not in recorded)]
    if modifiers:
        names = apply_entries(names, modifiers)
    return [name for name in names if not any(matches_pattern(pattern, name) for pattern in exclude)]


def register(services: SessionServices, active: Sequence[str], tool: AgentTool, plugin: str) -> list[str]:
    """Add or replace ``tool`` for ``plugin``; ``ValueError`` when another plugin owns the name."""
    if not isinstance(tool, AgentTool):
        raise TypeError(f"register_tool expects an AgentTool, got {type(tool).__name__}")
    owners = services.tool_owners
    owner = owners.get(tool.name)
    if owner is not None and owner != plugin and tool.name not in services.builtin_tool_names:
        raise ValueError(f"tool {tool.name!r} is already registered by plugin {owner!r}")
    if tool.name in services.builtin_tool_names:
        services.replaced_builtins[tool.name] = (services.tools[tool.name], owner)
        services.builtin_tool_names.discard(tool.name)
    services.tools[tool.name] = tool
    owners[tool.name] = plugin
    names = [name for name in active if name != tool.name]
    if (tool.name in active and tool.exposure != "hidden") or tool.activates_on_registration:
        names.append(tool.name)
    return names


def unregister(services: SessionServices, active: Sequence[str], name: str, plugin: str) -> list[str] | None:
    """Remove ``plugin``'s tool ``name``; ``None`` when there is no such tool, ``ValueError`` when
    it belongs to another plugin. A built-in tool it had replaced comes back, active if the
    replacement was."""
    owner = services.tool_owners.get(name)
    if name not in services.tools:
        return None
    if owner != plugin:
        raise ValueError(f"tool {name!r} belongs to plugin {owner or 'pi'!r}, not {plugin!r}")
    replaced = services.replaced_builtins.pop(name, None)
    if replaced is not None:
        services.tools[name], builtin_owner = replaced
        if builtin_owner is None:
            del services.tool_owners[name]
        else:
            services.tool_owners[name] = builtin_owner
        services.builtin_tool_names.add(name)
        return list(active)
    del services.tools[name]
    del services.tool_owners[name]
    return [n for n in active if n != name]
