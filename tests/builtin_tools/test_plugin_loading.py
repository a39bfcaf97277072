"""The built-in tools through the real plugin manager: installed, they register all seven; blocked
(which is what uninstalling amounts to for the manager), the agent still starts with no tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_builtin_tools import BUILTIN_TOOL_NAMES

manager = pytest.importorskip("pi_core.plugins.manager")
registry = pytest.importorskip("pi_core.plugins.registry")


def _options(tmp_path: Path, blocked: tuple[str, ...] = ()) -> object:
    return manager.LoadOptions(
        cwd=tmp_path,
        agent_dir=tmp_path / "agent",
        entry_points=True,
        blocked=blocked,
        env={"PI_CODING_AGENT_DIR": str(tmp_path / "agent")},
    )


async def test_entry_point_registers_the_seven_tools(tmp_path: Path) -> None:
    pm = manager.load_plugins(_options(tmp_path))
    assert pm.records["tools"].status == "active" and pm.records["tools"].builtin
    registrations = await registry.collect_registrations(pm, ("register_tools",))
    assert registrations.errors == []
    ours = [name for name, entry in registrations.tools.items() if entry.plugin == "tools"]
    assert ours == list(BUILTIN_TOOL_NAMES)


async def test_without_the_plugin_there_are_no_tools(tmp_path: Path) -> None:
    pm = manager.load_plugins(_options(tmp_path, blocked=("tools",)))
    assert pm.records["tools"].status == "blocked"
    registrations = await registry.collect_registrations(pm, ("register_tools",))
    # Other installed plugins (examples) may still bring tools of their own; none of ours is there.
    assert registrations.errors == []
    assert not set(BUILTIN_TOOL_NAMES) & set(registrations.tools)
    assert all(entry.plugin != "tools" for entry in registrations.tools.values())
